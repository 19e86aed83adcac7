"""Exits 0 when every package pinned in a requirements file is installed at its pinned version.

    python requirements_met.py [REQUIREMENTS]   (default: requirements.txt beside this file)
"""
import importlib.metadata
import pathlib
import sys

path = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).parent / "requirements.txt"
pins = [line.split("#")[0].strip().split("==") for line in path.read_text().splitlines()
        if "==" in line.split("#")[0]]
for name, version in pins:
    try:
        if importlib.metadata.version(name) != version:
            sys.exit(1)
    except importlib.metadata.PackageNotFoundError:
        sys.exit(1)
