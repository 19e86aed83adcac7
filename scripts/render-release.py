#!/usr/bin/env python3
"""Fills a release's version, repository and checksums into the Homebrew formula and install.sh.

    scripts/render-release.py --version 1.2.3 --repository owner/campaign-mock --dist dist \\
        --formula Formula/campaign-mock.rb --install-sh dist/install.sh

Rewrites the formula in place: its homepage, its version, and each `url` (the release's tarball for
that platform) with the `sha256` line after it, read from the `<tarball>.sha256` files in --dist
(the macOS universal tarball and both Linux ones must be there). Writes install.sh, the copy attached
to the release, with the repository and the version as its default. Refuses, changing nothing, when a
checksum is missing or malformed or the formula is not of the expected shape. Run by the release
workflow; tested by Tests/Contract/test_release.py.
"""
import argparse
import pathlib
import re
import sys

PLATFORMS = ("macos-universal", "linux-x86_64", "linux-aarch64")
URL = re.compile(r'^(\s*)url "https://github\.com/[^/]+/[^/]+/releases/download/v[^/]+/'
                 r'campaign-mock-[^"]+-(' + "|".join(PLATFORMS) + r')\.tar\.gz"\s*$')
SHA256 = re.compile(r'^(\s*)sha256 "[^"]*"\s*$')


def checksums(dist, version):
    """{platform: hex digest} from dist/campaign-mock-VERSION-PLATFORM.tar.gz.sha256."""
    found = {}
    for platform in PLATFORMS:
        name = f"campaign-mock-{version}-{platform}.tar.gz"
        path = dist / f"{name}.sha256"
        if not path.is_file():
            raise SystemExit(f"render-release: {path} is missing")
        fields = path.read_text().split()
        if len(fields) != 2 or not re.fullmatch(r"[0-9a-f]{64}", fields[0]) or fields[1].lstrip("*") != name:
            raise SystemExit(f"render-release: {path} is not one line '<sha256>  {name}'")
        found[platform] = fields[0]
    return found


def render_formula(text, version, repository, digests):
    lines = text.splitlines()
    seen = []
    for index, line in enumerate(lines):
        match = URL.match(line)
        if match:
            indent, platform = match.groups()
            after = lines[index + 1] if index + 1 < len(lines) else ""
            sha = SHA256.match(after)
            if not sha:
                raise SystemExit(f"render-release: the url for {platform} is not followed by its sha256 line")
            lines[index] = (f'{indent}url "https://github.com/{repository}/releases/download/v{version}/'
                            f'campaign-mock-{version}-{platform}.tar.gz"')
            lines[index + 1] = f'{sha.group(1)}sha256 "{digests[platform]}"'
            seen.append(platform)
        elif re.match(r'^\s*version "[^"]*"\s*$', line):
            lines[index] = re.sub(r'"[^"]*"', f'"{version}"', line)
        elif re.match(r'^\s*homepage "[^"]*"\s*$', line):
            lines[index] = re.sub(r'"[^"]*"', f'"https://github.com/{repository}"', line)
        elif "OWNER/campaign-mock" in line and line.lstrip().startswith("#"):
            lines[index] = line.replace("OWNER/campaign-mock", repository).replace(
                "OWNER", repository.split("/")[0])
    if sorted(seen) != sorted(PLATFORMS):
        raise SystemExit(f"render-release: the formula has urls for {sorted(seen)}, not one for each of {PLATFORMS}")
    rendered = "\n".join(lines) + "\n"
    if f'version "{version}"' not in rendered:
        raise SystemExit("render-release: the formula has no version line")
    return rendered


def render_install_sh(text, version, repository):
    rendered, repositories = re.subn(r'^repository="[^"]*"$', f'repository="{repository}"', text, flags=re.M)
    rendered, versions = re.subn(r'^release_version="[^"]*"$', f'release_version="{version}"', rendered, flags=re.M)
    if repositories != 1 or versions != 1:
        raise SystemExit("render-release: install.sh has no repository= and release_version= lines")
    return rendered.replace("OWNER/campaign-mock", repository)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", required=True, help="X.Y.Z (a leading v is dropped)")
    parser.add_argument("--repository", required=True, help="owner/name on GitHub")
    parser.add_argument("--dist", type=pathlib.Path, required=True, help="directory of the tarballs' .sha256 files")
    parser.add_argument("--formula", type=pathlib.Path, required=True, help="formula to rewrite in place")
    parser.add_argument("--install-sh", type=pathlib.Path, required=True, help="where to write the release's install.sh")
    parser.add_argument("--install-sh-source", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parent.parent / "install.sh")
    arguments = parser.parse_args()
    version = arguments.version.removeprefix("v")
    if not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?", version):
        raise SystemExit(f"render-release: {arguments.version} is not a version X.Y.Z")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", arguments.repository):
        raise SystemExit(f"render-release: {arguments.repository} is not owner/name")
    digests = checksums(arguments.dist, version)
    formula = render_formula(arguments.formula.read_text(), version, arguments.repository, digests)
    install_sh = render_install_sh(arguments.install_sh_source.read_text(), version, arguments.repository)
    arguments.formula.write_text(formula)
    arguments.install_sh.write_text(install_sh)
    arguments.install_sh.chmod(0o755)
    print(f"render-release: {arguments.formula} and {arguments.install_sh} for {arguments.repository} {version}")


if __name__ == "__main__":
    sys.exit(main())
