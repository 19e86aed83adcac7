"""scripts/check-imports.py, the guard `make lint` runs against unused imports of the package's own modules:
it passes on the repository as it is, and fails, naming the file and line, on an import planted where
nothing of its module is used.

Run by `make test` (pytest Tests/Contract).
"""
import pathlib
import shutil
import subprocess
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check-imports.py"


def run(root):
    return subprocess.run([sys.executable, str(SCRIPT), "--root", str(root)], capture_output=True, text=True)


def write(root, relative, text):
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")


def test_the_repository_has_no_unused_import():
    result = run(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_an_import_planted_in_the_repository_is_named_with_its_line(tmp_path):
    for folder in ("Sources", "Tests", "Fuzz"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("*.json", "web", "corpus"))
    planted = tmp_path / "Sources/CampaignMockStorage/Store/StoreError.swift"
    planted.write_text("import CampaignMockHTTP\n" + planted.read_text(encoding="utf-8"), encoding="utf-8")
    result = run(tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "Sources/CampaignMockStorage/Store/StoreError.swift:1: `import CampaignMockHTTP` is unused: "
        "the file uses no name CampaignMockHTTP declares"
    ]


def small_package(root):
    """Two modules: Widgets declares a type, a function, a member of a foreign type, an enum with its cases, an
    operator and an internal helper; Shelf re-exports Widgets."""
    write(root, "Sources/Widgets/Widget.swift", """\
        package struct Widget {
            package var colour: String
            var secret = 0
        }
        package func makeWidget() -> Widget { Widget(colour: "red") }
        extension String {
            package var shouted: String { uppercased() }
        }
        package enum Size { case small, large }
        infix operator <~>
        package func <~> (lhs: Widget, rhs: Widget) -> Bool { true }
        func helper() {}
        """)
    write(root, "Sources/Shelf/Shelf.swift", """\
        @_exported package import Widgets
        package struct Shelf {}
        """)


def test_a_module_whose_names_the_file_does_not_write_fails(tmp_path):
    small_package(tmp_path)
    write(tmp_path, "Sources/App/Unused.swift", """\
        import Foundation
        import Widgets

        // A Widget in a comment, and one in a string, are not uses.
        let text = "Widget makeWidget"
        """)
    result = run(tmp_path)
    assert result.returncode == 1
    assert "Sources/App/Unused.swift:2: `import Widgets` is unused" in result.stdout


def test_each_kind_of_name_counts_as_a_use(tmp_path):
    small_package(tmp_path)
    uses = {
        "Type": "let w: Widget? = nil",
        "Function": "let w = makeWidget()",
        "ForeignMember": 'let s = "a".shouted',
        "Case": "let size: Bool = [.small].isEmpty",
        "Operator": "func same(a: Int, b: Int) -> Bool { a <~> b }",
        "Interpolation": 'let s = "\\(makeWidget())"',
        "Package": "package import Widgets\npackage func f(_ w: Widget) {}",
    }
    for name, line in uses.items():
        header = "" if line.startswith("package import") else "import Widgets\n"
        write(tmp_path, f"Sources/App/{name}.swift", header + line + "\n")
    result = run(tmp_path)
    assert result.returncode == 0, result.stdout


def test_internal_names_count_only_for_a_testable_import(tmp_path):
    small_package(tmp_path)
    write(tmp_path, "Tests/AppTests/Testable.swift", "@testable import Widgets\nfunc t() { helper() }\n")
    write(tmp_path, "Tests/AppTests/Plain.swift", "import Widgets\nfunc t() { helper() }\n")
    result = run(tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "Tests/AppTests/Plain.swift:1: `import Widgets` is unused: the file uses no name Widgets declares"
    ]


def test_a_reexporting_module_counts_the_names_it_reexports(tmp_path):
    small_package(tmp_path)
    write(tmp_path, "Sources/App/Reexported.swift", "import Shelf\nlet w = makeWidget()\n")
    write(tmp_path, "Sources/App/Neither.swift", "import Shelf\nlet x = 1\n")
    result = run(tmp_path)
    assert result.stdout.splitlines() == [
        "Sources/App/Neither.swift:1: `import Shelf` is unused: the file uses no name Shelf declares"
    ]
