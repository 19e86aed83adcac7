#!/usr/bin/env python3
"""Fails on an `import CampaignMockX` that the file does not use.

    scripts/check-imports.py [--root DIR] [--explain]

For each import of one of the package's own modules (a folder of Swift files under Sources/ or Tests/)
in a Swift file under Sources/, Tests/ and Fuzz/, the file must use at least one name the module
declares for its importers: a `package`, `public` or `open` type, typealias, function, property or
operator, a member of a type or extension written so (used as `.name`), a case of such an enum, or a
requirement of such a protocol. An `@testable import` also counts the module's internal names; an
`@_exported import` is a re-export and is not checked, and the names of the module it re-exports count
as the re-exporter's. Comments and string literals are not read (interpolations are). A name counts
once it is written, whatever it refers to, so the check can miss an unused import whose module declares
a common member name; it never fails a file that needs its import.

Prints `file:line: ...` for each unused import and exits 1 when there is one. Run by `make lint`;
tested by Tests/Contract/test_check_imports.py.
"""
import argparse
import pathlib
import re
import sys

SOURCE_FOLDERS = ("Sources", "Tests", "Fuzz")
IMPORT = re.compile(
    r"^[ \t]*(?P<attributes>(?:@\w+[ \t]+)*)(?:(?:public|package|internal|private|fileprivate)[ \t]+)?"
    r"import[ \t]+(?:(?:struct|class|enum|protocol|typealias|func|var|let)[ \t]+)?(?P<module>\w+)",
    re.MULTILINE,
)
IDENTIFIER = re.compile(r"`?([A-Za-z_][A-Za-z0-9_]*)`?")
OPERATOR_CHARACTERS = "/=-+!*%<>&|^~?."
EXPORTED = {"public", "package", "open"}
# Operators the standard library declares: a module's overload of one (`==` for its type) is not evidence
# that a file uses the module, as the file that compares two such values names them some other way.
STANDARD_OPERATORS = {
    "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "+=", "-=", "*=", "/=", "&", "|", "^", "~", "!",
    "&&", "||", "<<", ">>", "...", "..<", "??", "===", "!==", "~=",
}


def code_only(text):
    """The text with comments and string literals blanked (newlines kept, so lines keep their numbers);
    the code of string interpolations stays."""
    out = []
    i, n = 0, len(text)
    # A stack of string contexts: (delimiter quotes, raw hashes, parenthesis depth of the interpolation
    # being read, or None while in the literal's text).
    strings = []

    def blank(segment):
        out.append("".join(c if c == "\n" else " " for c in segment))

    while i < n:
        if strings and strings[-1][2] is None:
            quotes, hashes, _ = strings[-1]
            closing = quotes + "#" * hashes
            if text.startswith(closing, i):
                strings.pop()
                blank(closing)
                i += len(closing)
            elif text.startswith("\\" + "#" * hashes + "(", i):
                opener = "\\" + "#" * hashes + "("
                strings[-1] = (quotes, hashes, 1)
                blank(opener)
                i += len(opener)
            elif text[i] == "\\" and hashes == 0:
                blank(text[i : i + 2])
                i += 2
            else:
                blank(text[i])
                i += 1
            continue
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(text[i:end])
            i = end
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(text[i:j])
            i = j
        elif c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
            hashes = len(text[i:]) - len(text[i:].lstrip("#"))
            quotes = '"""' if text.startswith('"""', i + hashes) else '"'
            strings.append((quotes, hashes, None))
            blank(text[i : i + hashes + len(quotes)])
            i += hashes + len(quotes)
        elif strings and c in "()":
            quotes, hashes, depth = strings[-1]
            depth += 1 if c == "(" else -1
            if depth == 0:
                strings[-1] = (quotes, hashes, None)
                blank(c)
            else:
                strings[-1] = (quotes, hashes, depth)
                out.append(c)
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


DECLARATION = re.compile(
    r"^[ \t]*(?:@[\w.]+(?:\([^)\n]*\))?[ \t]+)*(?P<modifiers>(?:[a-z]+(?:\([a-z]+\))?[ \t]+)*)"
    r"(?P<keyword>struct|class|enum|protocol|actor|extension|typealias|func|var|let|case|associatedtype|operator)"
    r"[ \t]+(?P<name>`?[A-Za-z_][A-Za-z0-9_]*`?|[/=\-+!*%<>&|^~?.]+)(?P<rest>.*)$"
)


class Declarations:
    """What one module declares for its importers (`exported`) and for a testable import (`internal`):
    top-level names (types, functions, properties), member names, and operators."""

    def __init__(self):
        self.names = {"exported": set(), "internal": set()}
        self.members = {"exported": set(), "internal": set()}
        self.operators = {"exported": set(), "internal": set()}

    def read(self, code):
        # Each open brace is a scope: a type's or extension's body, as (visibility of its members when
        # they say none, or None), or the body of anything else (a function, an accessor), as "code".
        scopes = []
        pending = None  # the body the next brace opens, when a type's declaration opened no brace yet
        # One declaration or brace a line: `enum Size { case small, large }` reads as four lines.
        for line in re.sub(r"([{;])", "\\1\n", code).replace("}", "\n}").split("\n"):
            match = DECLARATION.match(line)
            opens = pending or "code"
            if match and "code" not in scopes:
                keyword, name = match.group("keyword"), match.group("name").strip("`")
                modifiers = set(match.group("modifiers").split())
                visibility = self.visibility(modifiers, scopes)
                nested = bool(scopes)
                if keyword == "operator":
                    self.record(self.operators, name, "exported")
                elif keyword == "extension":
                    opens = ("exported",) if modifiers & EXPORTED else (None,)
                elif keyword == "case":
                    for case in re.split(r",(?![^(]*\))", name + match.group("rest")):
                        identifier = IDENTIFIER.match(case.strip())
                        if identifier:
                            self.record(self.members, identifier.group(1), visibility)
                elif keyword == "func" and not IDENTIFIER.fullmatch(name):
                    self.record(self.operators, name, visibility)
                elif name != "_":
                    self.record(self.members if nested else self.names, name, visibility)
                if keyword in ("enum", "protocol"):
                    opens = (visibility,)  # cases and requirements are as visible as their type
                elif keyword in ("struct", "class", "actor"):
                    opens = (None,)
            for character in line:
                if character == "{":
                    scopes.append(opens)
                    opens = "code"
                    pending = None
                elif character == "}" and scopes:
                    scopes.pop()
            if opens != "code" and "{" not in line:
                pending = opens  # a declaration whose body opens on a later line

    @staticmethod
    def visibility(modifiers, scopes):
        """"exported", "internal", or None for a private declaration."""
        if modifiers & {"private", "fileprivate"}:
            return None
        if modifiers & EXPORTED:
            return "exported"
        if scopes and scopes[-1] != "code" and scopes[-1][0]:
            return scopes[-1][0]
        return "internal"

    @staticmethod
    def record(table, name, visibility):
        if visibility is None:
            return
        table["internal"].add(name)
        if visibility == "exported":
            table["exported"].add(name)


def swift_files(root, folders=SOURCE_FOLDERS):
    for folder in folders:
        base = root / folder
        if base.is_dir():
            yield from sorted(p for p in base.rglob("*.swift") if ".build" not in p.parts)


def modules(root):
    """The package's own modules: each folder directly under Sources/ and Tests/ that holds Swift files."""
    found = {}
    for folder in ("Sources", "Tests"):
        base = root / folder
        if not base.is_dir():
            continue
        for directory in sorted(base.iterdir()):
            files = sorted(directory.rglob("*.swift")) if directory.is_dir() else []
            if files:
                found[directory.name] = files
    return found


def evidence(code, declarations, kind):
    """The names in `code` that `declarations` declares: its top-level names as words, its members after a
    dot, its operators (but not a standard operator it overloads)."""
    tokens = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code))
    members = set(re.findall(r"\.\s*`?([A-Za-z_][A-Za-z0-9_]*)", code))
    operators = set(re.findall("[" + re.escape(OPERATOR_CHARACTERS) + "]+", code))
    return (
        (tokens & declarations.names[kind])
        | (members & declarations.members[kind])
        | (operators & (declarations.operators[kind] - STANDARD_OPERATORS))
    )


def check(root, explain=False):
    """The unused imports under `root`, as `file:line: message` lines; with `explain`, prints for every
    import the names that make it used."""
    declared = {}
    exports = {}
    for module, files in modules(root).items():
        declarations = Declarations()
        exports[module] = set()
        for path in files:
            text = path.read_text(encoding="utf-8")
            declarations.read(code_only(text))
            for match in IMPORT.finditer(text):
                if "@_exported" in match.group("attributes"):
                    exports[module].add(match.group("module"))
        declared[module] = declarations

    def combined(module, kind, seen=()):
        """The module's declarations, with those of the modules it re-exports."""
        merged = Declarations()
        for other in [module, *sorted(exports.get(module, ()))]:
            if other in seen or other not in declared:
                continue
            source = declared[other] if other == module else combined(other, kind, (*seen, module))
            for field in ("names", "members", "operators"):
                getattr(merged, field)[kind] |= getattr(source, field)[kind]
        return merged

    problems = []
    for path in swift_files(root):
        text = path.read_text(encoding="utf-8")
        code = code_only(text)
        imports = [m for m in IMPORT.finditer(code) if m.group("module") in declared]
        if not imports:
            continue
        body = IMPORT.sub("", code)
        for match in imports:
            if "@_exported" in match.group("attributes"):
                continue
            module = match.group("module")
            kind = "internal" if "@testable" in match.group("attributes") else "exported"
            used = evidence(body, combined(module, kind), kind)
            if explain:
                print(f"{path.relative_to(root)}: {module}: {', '.join(sorted(used)) or 'nothing'}")
            if not used:
                line = code.count("\n", 0, match.start()) + 1
                relative = path.relative_to(root)
                problems.append(f"{relative}:{line}: `import {module}` is unused: the file uses no name {module} declares")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parents[1])
    parser.add_argument("--explain", action="store_true", help="print, for every import, the names that use it")
    arguments = parser.parse_args()
    problems = check(arguments.root, explain=arguments.explain)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} unused import(s): remove them", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
