"""The target graph of docs/architecture.md is the one Package.swift declares, and every target's files
import only targets it depends on (SwiftPM lets a file import any module built before it, so the manifest
alone would not say what a target touches).

Run by `make test` (pytest Tests/Contract); reads the manifest through `swift package dump-package`.
"""
import json
import os
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
TABLE = re.compile(r"<!-- target graph:.*?-->\n(.*?)<!-- end of target graph -->", re.S)
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal)\s+)?import\s+(\w+)", re.M)


def manifest():
    """Each target's name: (type, path, the names of its dependencies)."""
    swift = os.environ.get("SWIFT", "swift")
    dump = subprocess.run([swift, "package", "dump-package"], cwd=ROOT, capture_output=True, text=True, check=True)
    targets = {}
    for target in json.loads(dump.stdout)["targets"]:
        names = [next(iter(dependency.values()))[0] for dependency in target["dependencies"]]
        targets[target["name"]] = (target["type"], target.get("path"), names)
    return targets


def documented():
    """The table of docs/architecture.md: each target's name: the names of its dependencies."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    match = TABLE.search(text)
    assert match, "docs/architecture.md has no target graph between its markers"
    graph = {}
    for row in match.group(1).splitlines():
        cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
        if len(cells) != 2 or cells[0] in ("target", "---"):
            continue
        graph[cells[0]] = [name.strip() for name in cells[1].split(",") if name.strip()]
    return graph


def test_the_documented_graph_is_the_manifests():
    targets = manifest()
    graph = documented()
    server = {name for name, (kind, path, _) in targets.items()
              if kind == "regular" and path is None and name.startswith("CampaignMock")}
    assert set(graph) == server, f"targets documented but not built: {set(graph) - server}, " \
                                 f"built but not documented: {server - set(graph)}"
    for name in sorted(graph):
        assert sorted(graph[name]) == sorted(targets[name][2]), \
            f"{name}: docs/architecture.md says {graph[name]}, Package.swift {targets[name][2]}"


def test_each_target_imports_only_what_it_depends_on():
    targets = manifest()
    local = set(targets)
    wrong = []
    for name, (kind, path, dependencies) in targets.items():
        folder = ROOT / (path or ("Tests" if kind == "test" else "Sources")) / ("" if path else name)
        for file in sorted(folder.rglob("*.swift")):
            for module in IMPORT.findall(file.read_text(encoding="utf-8")):
                if module in local and module != name and module not in dependencies:
                    wrong.append(f"{file.relative_to(ROOT)} imports {module}, which {name} does not depend on")
    assert not wrong, "\n".join(wrong)


def reach(targets, name, skipping=()):
    """Every target and library `name` uses, directly or through others, not going through `skipping`."""
    seen, pending = set(), [name]
    while pending:
        for dependency in targets.get(pending.pop(), (None, None, []))[2]:
            if dependency not in seen and dependency not in skipping:
                seen.add(dependency)
                pending.append(dependency)
    return seen


# The socket code and the targets that must not reach it by any path of the manifest's graph.
SOCKETS = {"CampaignMockNetwork", "CNGHTTP2"}
NO_SOCKETS = ("CampaignMockSystem", "CampaignMockHTTP", "CampaignMockModel", "CampaignMockSupport",
              "CampaignMockJournal", "CampaignMockStorage", "CampaignMockRuntime", "CampaignMockChecks",
              "CampaignMockMobile")
# The endpoints that send pushes reach the sockets through push (APNs, FCM), and through nothing else.
SOCKETS_THROUGH_PUSH_ONLY = ("CampaignMockSOAP", "CampaignMockAdmin")


def test_storage_the_runtime_and_the_endpoints_reach_no_socket_code():
    targets = manifest()
    for name in NO_SOCKETS:
        assert name in targets, name
        assert not reach(targets, name) & SOCKETS, \
            f"{name} reaches {sorted(reach(targets, name) & SOCKETS)} through its dependencies"
    for name in SOCKETS_THROUGH_PUSH_ONLY:
        assert "CampaignMockPush" in targets[name][2], name
        assert not reach(targets, name, skipping={"CampaignMockPush"}) & SOCKETS, \
            f"{name} reaches {sorted(reach(targets, name, skipping={'CampaignMockPush'}) & SOCKETS)} " \
            "other than through CampaignMockPush"


def test_the_journal_reaches_no_sqlite():
    """The journal's files are its own: the store, which runs SQLite, depends on the journal and not the other
    way round (an older database's journal table is read by the store and handed over as records)."""
    targets = manifest()
    assert "CampaignMockJournal" in targets["CampaignMockStorage"][2]
    assert "CSQLite" not in reach(targets, "CampaignMockJournal")
    assert "CampaignMockStorage" not in reach(targets, "CampaignMockJournal")
