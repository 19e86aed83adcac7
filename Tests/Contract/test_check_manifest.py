"""scripts/check-manifest.py, the guard `make lint` runs so that Xcode 16 can read the package's manifests: it
passes on the repository as it is, and fails, naming the file and line, on a tools version newer than 6.0,
a missing tools-version line, or unsafeFlags.

Run by `make test` (pytest Tests/Contract).
"""
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check-manifest.py"


def run(root):
    return subprocess.run([sys.executable, str(SCRIPT), "--root", str(root)], capture_output=True, text=True)


def copy_manifests(root):
    for relative in ("Package.swift", "Examples/SwiftClientConsumer/Package.swift"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / relative, root / relative)


def test_the_repositorys_manifests_pass():
    result = run(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_root_manifest_is_one_xcode_16_reads():
    assert (ROOT / "Package.swift").read_text().splitlines()[0] == "// swift-tools-version:6.0"


def test_a_tools_version_newer_than_6_0_fails_with_its_file_and_line(tmp_path):
    copy_manifests(tmp_path)
    for line, named in (("// swift-tools-version:6.2", "6.2"), ("// swift-tools-version: 6.1", "6.1"),
                        ("// swift-tools-version:7.0.1", "7.0.1")):
        manifest = tmp_path / "Package.swift"
        manifest.write_text(line + "\n" + (ROOT / "Package.swift").read_text().split("\n", 1)[1])
        result = run(tmp_path)
        assert result.returncode == 1
        assert result.stdout.splitlines() == [
            f"Package.swift:1: swift-tools-version {named} is newer than 6.0: Xcode 16 cannot read this manifest, "
            "so an app on it cannot add the package (docs/swift-client.md)"
        ]


def test_older_versions_pass(tmp_path):
    copy_manifests(tmp_path)
    manifest = tmp_path / "Examples/SwiftClientConsumer/Package.swift"
    for line in ("// swift-tools-version:5.9", "// swift-tools-version:6.0.3"):
        manifest.write_text(line + "\n" + manifest.read_text().split("\n", 1)[1])
        assert run(tmp_path).returncode == 0, line


def test_a_manifest_without_the_line_or_with_unsafe_flags_fails(tmp_path):
    copy_manifests(tmp_path)
    consumer = tmp_path / "Examples/SwiftClientConsumer/Package.swift"
    consumer.write_text("import PackageDescription\n" + consumer.read_text())
    root = tmp_path / "Package.swift"
    text = root.read_text().replace(
        "let swiftSettings: [SwiftSetting] = [\n",
        "let swiftSettings: [SwiftSetting] = [\n    .unsafeFlags([\"-warnings-as-errors\"]),  // not unsafeFlags( here\n")
    root.write_text(text)
    line = text.splitlines().index("    .unsafeFlags([\"-warnings-as-errors\"]),  // not unsafeFlags( here") + 1
    result = run(tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "Examples/SwiftClientConsumer/Package.swift:1: the first line is not `// swift-tools-version:6.0` "
        "(SwiftPM reads it first)",
        f"Package.swift:{line}: unsafeFlags: SwiftPM refuses them in a package that is a dependency; pass the flag "
        "from make and CI instead",
    ]
