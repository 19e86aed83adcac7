"""Exits 0 when every package pinned in requirements.txt is installed at its pinned version."""
import importlib.metadata
import pathlib
import sys

pins = [line.strip().split("==") for line in (pathlib.Path(__file__).parent / "requirements.txt").read_text().splitlines()
        if "==" in line]
for name, version in pins:
    try:
        if importlib.metadata.version(name) != version:
            sys.exit(1)
    except importlib.metadata.PackageNotFoundError:
        sys.exit(1)
