#!/bin/sh
# Installs campaign-mock from its GitHub release, checking the download's SHA-256 first:
#
#   curl -fsSL https://github.com/OWNER/campaign-mock/releases/latest/download/install.sh | sh
#   curl -fsSL https://github.com/OWNER/campaign-mock/releases/latest/download/install.sh | sh -s -- --version 0.1.0
#
# Options (or their environment variables):
#   --version X.Y.Z   CAMPAIGN_MOCK_VERSION       the release to install (default: the latest)
#   --bin-dir DIR     CAMPAIGN_MOCK_BIN_DIR       where campaign-mock goes (default: $HOME/.local/bin)
#   --prefix DIR      CAMPAIGN_MOCK_PREFIX        the same as --bin-dir DIR/bin
#   --download-url U  CAMPAIGN_MOCK_DOWNLOAD_URL  where the artifacts are: an https:// or file:// URL
#                                                 or a directory (default: the GitHub release of the
#                                                 version)
#
# Linux (x86_64, aarch64; glibc 2.35 or newer) and macOS 15 or newer (one universal binary). No sudo:
# the default directory is your own. Details: docs/install.md.
set -eu

# Filled in by the release workflow (scripts/render-release.py) in the copy attached to a release.
repository="OWNER/campaign-mock"
release_version=""

say() { printf 'campaign-mock install: %s\n' "$*"; }
fail() {
    printf 'campaign-mock install: %s\n' "$*" >&2
    exit 1
}

version=${CAMPAIGN_MOCK_VERSION:-}
bin_dir=${CAMPAIGN_MOCK_BIN_DIR:-}
if [ -z "$bin_dir" ] && [ -n "${CAMPAIGN_MOCK_PREFIX:-}" ]; then bin_dir="$CAMPAIGN_MOCK_PREFIX/bin"; fi
download_url=${CAMPAIGN_MOCK_DOWNLOAD_URL:-}

while [ $# -gt 0 ]; do
    case "$1" in
    --version) [ $# -ge 2 ] || fail "--version needs a value"; version=$2; shift 2 ;;
    --version=*) version=${1#*=}; shift ;;
    --bin-dir) [ $# -ge 2 ] || fail "--bin-dir needs a value"; bin_dir=$2; shift 2 ;;
    --bin-dir=*) bin_dir=${1#*=}; shift ;;
    --prefix) [ $# -ge 2 ] || fail "--prefix needs a value"; bin_dir=$2/bin; shift 2 ;;
    --prefix=*) bin_dir=${1#*=}/bin; shift ;;
    --download-url) [ $# -ge 2 ] || fail "--download-url needs a value"; download_url=$2; shift 2 ;;
    --download-url=*) download_url=${1#*=}; shift ;;
    -h | --help)
        cat <<'USAGE'
Installs campaign-mock from its release, after checking the download's SHA-256.
  --version X.Y.Z   the release to install (default: the latest)   CAMPAIGN_MOCK_VERSION
  --bin-dir DIR     where campaign-mock goes ($HOME/.local/bin)    CAMPAIGN_MOCK_BIN_DIR
  --prefix DIR      the same as --bin-dir DIR/bin                  CAMPAIGN_MOCK_PREFIX
  --download-url U  where the artifacts are (URL or directory)     CAMPAIGN_MOCK_DOWNLOAD_URL
USAGE
        exit 0
        ;;
    *) fail "unknown option $1 (try --help)" ;;
    esac
done
[ -n "$bin_dir" ] || bin_dir="${HOME:?HOME is not set: pass --bin-dir}/.local/bin"
version=${version#v}

# What this machine runs: the artifact's platform part.
os=$(uname -s)
arch=$(uname -m)
case "$os" in
Linux)
    case "$arch" in
    x86_64 | amd64) platform=linux-x86_64 ;;
    aarch64 | arm64) platform=linux-aarch64 ;;
    *) fail "no Linux build for $arch: there are x86_64 and aarch64 ones (or build from source: docs/install.md)" ;;
    esac
    ;;
Darwin)
    case "$arch" in
    x86_64 | arm64 | aarch64) platform=macos-universal ;;
    *) fail "no macOS build for $arch: the macOS one is for arm64 and x86_64" ;;
    esac
    # The binary is built for macOS 15 and uses what macOS has from 15 on (Synchronization's Mutex).
    macos_version=$(SYSTEM_VERSION_COMPAT=0 sw_vers -productVersion 2>/dev/null || true)
    major=${macos_version%%.*}
    case "$major" in
    *[!0-9]* | "")
        fail "cannot tell this Mac's version (sw_vers -productVersion printed '$macos_version'): campaign-mock needs macOS 15 or newer"
        ;;
    esac
    [ "$major" -ge 15 ] \
        || fail "campaign-mock needs macOS 15 (Sequoia) or newer, and this Mac runs macOS $macos_version; nothing was installed"
    ;;
*) fail "no build for $os: there are Linux and macOS ones (or build from source: docs/install.md)" ;;
esac

# fetch SOURCE DESTINATION: SOURCE is a URL (https://, http://, file://) or a path.
fetch() {
    case "$1" in
    file://*) cp "${1#file://}" "$2" 2>/dev/null || fail "cannot read ${1#file://}" ;;
    http://* | https://*)
        if command -v curl >/dev/null 2>&1; then
            curl -fsSL --retry 3 -o "$2" "$1" || fail "could not download $1"
        elif command -v wget >/dev/null 2>&1; then
            wget -q -O "$2" "$1" || fail "could not download $1"
        else
            fail "needs curl or wget to download $1"
        fi
        ;;
    *) cp "$1" "$2" 2>/dev/null || fail "cannot read $1" ;;
    esac
}

# The latest version: the one this copy was released with, else the release the latest tag points at.
if [ -z "$version" ]; then
    if [ -n "$release_version" ]; then
        version=$release_version
    elif [ -z "$download_url" ] && command -v curl >/dev/null 2>&1; then
        latest=$(curl -fsSLI -o /dev/null -w '%{url_effective}' "https://github.com/$repository/releases/latest") \
            || fail "could not find the latest release of $repository: pass --version X.Y.Z"
        version=${latest##*/v}
    fi
    case "$version" in
    [0-9]*.[0-9]*.[0-9]*) ;;
    *) fail "could not tell the latest version: pass --version X.Y.Z" ;;
    esac
fi
[ -n "$download_url" ] || download_url="https://github.com/$repository/releases/download/v$version"
download_url=${download_url%/}

artifact="campaign-mock-$version-$platform.tar.gz"
work=$(mktemp -d 2>/dev/null || mktemp -d -t campaign-mock)
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM

say "downloading $artifact from $download_url"
fetch "$download_url/$artifact" "$work/$artifact"
fetch "$download_url/$artifact.sha256" "$work/$artifact.sha256"

expected=$(awk 'NR == 1 { print $1 }' "$work/$artifact.sha256")
if command -v sha256sum >/dev/null 2>&1; then
    actual=$(sha256sum "$work/$artifact" | awk '{ print $1 }')
elif command -v shasum >/dev/null 2>&1; then
    actual=$(shasum -a 256 "$work/$artifact" | awk '{ print $1 }')
else
    fail "needs sha256sum or shasum to check the download"
fi
case "$expected" in
[0-9a-f]*) [ ${#expected} -eq 64 ] || fail "$artifact.sha256 holds no SHA-256" ;;
*) fail "$artifact.sha256 holds no SHA-256" ;;
esac
if [ "$actual" != "$expected" ]; then
    fail "checksum mismatch for $artifact: expected $expected, got $actual; nothing was installed"
fi
say "SHA-256 checked: $actual"

mkdir -p "$work/unpacked"
tar -xzf "$work/$artifact" -C "$work/unpacked" || fail "$artifact is not a readable tarball"
[ -f "$work/unpacked/campaign-mock" ] || fail "$artifact holds no campaign-mock"
mkdir -p "$bin_dir" || fail "cannot create $bin_dir (choose another with --bin-dir)"
cp "$work/unpacked/campaign-mock" "$bin_dir/.campaign-mock.new"
chmod 755 "$bin_dir/.campaign-mock.new"
# It must start here before it replaces anything: what it prints when it does not is the reason.
if ! started=$("$bin_dir/.campaign-mock.new" version 2>&1); then
    rm -f "$bin_dir/.campaign-mock.new"
    fail "the downloaded campaign-mock does not start on this machine; nothing was installed. It said: $started"
fi
# Replaced in one step, so a running campaign-mock keeps its file.
mv -f "$bin_dir/.campaign-mock.new" "$bin_dir/campaign-mock"
say "installed $started in $bin_dir"

# The GitHub Action puts the folder on GITHUB_PATH itself: a shell profile means nothing to its runner.
case ":$PATH:" in
*":$bin_dir:"*) ;;
*) [ -n "${CAMPAIGN_MOCK_PATH_GIVEN:-}" ] || say "$bin_dir is not on your PATH: add it, e.g. export PATH=\"$bin_dir:\$PATH\" in your shell's profile" ;;
esac
