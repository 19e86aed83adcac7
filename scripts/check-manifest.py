#!/usr/bin/env python3
"""Fails on a package manifest that Xcode 16 cannot read.

    scripts/check-manifest.py [--root DIR]

An app adds this package by URL for CampaignMockClient (docs/swift-client.md), on Xcode 16 or 26, and its
build parses the root Package.swift before anything compiles; Examples/SwiftClientConsumer/Package.swift is
such an app's manifest. Each Package.swift under the root (outside .build folders) must:

- begin with a `// swift-tools-version:` line (SwiftPM reads the first line only);
- name a tools version no newer than 6.0, the newest Xcode 16.0 reads (its Swift is 6.0; Xcode 26 and
  Swift 6.2 read it too). A newer API in a 6.0 manifest does not compile, so the version bounds the API;
- use no `unsafeFlags`, which SwiftPM refuses in a package that is a dependency. Warnings as errors are a
  flag make and CI pass (`-Xswiftc -warnings-as-errors`).

Prints `file:line: ...` for each problem and exits 1 when there is one. Run by `make lint`; tested by
Tests/Contract/test_check_manifest.py.
"""
import argparse
import pathlib
import re
import sys

NEWEST = (6, 0)
TOOLS_VERSION = re.compile(r"^//\s*swift-tools-version\s*:\s*(\d+)\.(\d+)(?:\.(\d+))?\b")
UNSAFE_FLAGS = re.compile(r"\bunsafeFlags\s*\(")


def manifests(root):
    return sorted(path for path in root.rglob("Package.swift")
                  if not any(part.startswith(".build") for part in path.relative_to(root).parts))


def check_manifest(path, root):
    relative = path.relative_to(root)
    lines = path.read_text(encoding="utf-8").splitlines()
    problems = []
    version = TOOLS_VERSION.match(lines[0]) if lines else None
    if not version:
        problems.append(f"{relative}:1: the first line is not `// swift-tools-version:6.0` (SwiftPM reads it first)")
    elif (int(version.group(1)), int(version.group(2))) > NEWEST:
        named = ".".join(part for part in version.groups() if part is not None)
        problems.append(f"{relative}:1: swift-tools-version {named} is newer than 6.0: Xcode 16 cannot read this "
                        "manifest, so an app on it cannot add the package (docs/swift-client.md)")
    for number, line in enumerate(lines, 1):
        code = line.split("//", 1)[0]
        if UNSAFE_FLAGS.search(code):
            problems.append(f"{relative}:{number}: unsafeFlags: SwiftPM refuses them in a package that is a "
                            "dependency; pass the flag from make and CI instead")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parents[1])
    arguments = parser.parse_args()
    found = manifests(arguments.root)
    problems = [problem for path in found for problem in check_manifest(path, arguments.root)]
    if not found:
        problems.append(f"{arguments.root}: no Package.swift")
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} manifest problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
