"""Every document the code, the tests, the fixtures and the README cite is in the repository, and so is
the section they cite (`docs/protocol.md §4.4` needs a heading numbered 4.4 there).

Run by `make test` (pytest Tests/Contract).
"""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
CITATION = re.compile(r"([A-Za-z0-9_./-]+\.md)(?: (§[0-9]+(?:\.[0-9]+)?))?")
SOURCES = [p for folder in ("Sources", "Tests", "Fixtures", "Fuzz", "bench", "docs") for p in (ROOT / folder).rglob("*")
           if p.suffix in (".swift", ".py", ".json", ".md", ".sh") and p.is_file()] + [ROOT / "README.md", ROOT / "Makefile"]


def headings(document):
    numbers = set()
    for line in document.read_text(encoding="utf-8").splitlines():
        match = re.match(r"#+ ([0-9]+(?:\.[0-9]+)?)\.? ", line)
        if match:
            numbers.add(match.group(1))
    return numbers


def test_cited_documents_and_sections_exist():
    missing = []
    for source in SOURCES:
        for number, line in enumerate(source.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for name, section in CITATION.findall(line):
                candidates = [ROOT / name, source.parent / name, ROOT / "docs" / name]
                document = next((c for c in candidates if c.is_file()), None)
                where = f"{source.relative_to(ROOT)}:{number}"
                if document is None:
                    missing.append(f"{where}: {name} is not in the repository")
                elif section and section[1:] not in headings(document):
                    missing.append(f"{where}: {name} has no section {section}")
    assert not missing, "\n".join(missing)
