#!/bin/sh
# The GitHub Action's install steps (action.yml in this folder), as a script a test can run
# (Tests/Contract/test_ci_recipes.py):
#
#   install-binary.sh resolve   which version, and where its binary is cached: writes version=, dir=
#                               and cache-key= to $GITHUB_OUTPUT (the action's actions/cache steps use them)
#   install-binary.sh install   puts campaign-mock in that folder: kept from the cache when it is that
#                               version, else the release's tarball for this system, checksum-checked by
#                               the repository's install.sh, else (INSTALL=auto and that version has no
#                               release, or INSTALL=source) a build of the action's own checkout. Writes
#                               from=cache|release|source and bin-dir= to $GITHUB_OUTPUT and the folder
#                               to $GITHUB_PATH.
#
# Environment (the action's inputs):
#   VERSION       X.Y.Z, "latest" (the newest release: asks GitHub), or empty: the version of the action's
#                 own ref (uses: OWNER/campaign-mock/.github/actions/campaign-mock@v0.2.0 installs 0.2.0)
#   RELEASE_URL   where the release's tarballs and .sha256 files are: https://, file:// or a folder
#                 (default: the GitHub release v<version> of the action's repository)
#   INSTALL       auto (default), release (fail without one) or source
# and the runner's RUNNER_TOOL_CACHE, RUNNER_TEMP, RUNNER_OS, RUNNER_ARCH, GITHUB_ACTION_PATH, GITHUB_REPOSITORY.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)

say() { printf 'campaign-mock action: %s\n' "$*"; }
fail() {
    printf '::error::campaign-mock action: %s\n' "$*" >&2
    exit 1
}
# output NAME VALUE: a step output (and on stdout, for the log).
output() {
    echo "$1=$2"
    if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "$1=$2" >> "$GITHUB_OUTPUT"; fi
}

# The repository the action comes from: OWNER/NAME out of the runner's
# .../_actions/OWNER/NAME/REF/.github/actions/campaign-mock, else the workflow's own (uses: ./.github/...).
repository() {
    case "${GITHUB_ACTION_PATH:-$here}" in
    */_actions/*/*/*) echo "${GITHUB_ACTION_PATH#*/_actions/}" | cut -d/ -f1-2 ;;
    *) echo "${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is not set}" ;;
    esac
}

# The version the checkout carries: the one `campaign-mock version` prints when built from it.
source_version() {
    sed -n 's/.*static let current = "\([^"]*\)".*/\1/p' "$root/Sources/CampaignMockModel/CampaignMockVersion.swift"
}

resolve_version() {
    case "${VERSION:-}" in
    "") source_version ;;
    latest)
        command -v curl >/dev/null 2>&1 || fail "version: latest needs curl"
        latest=$(curl -fsSLI -o /dev/null -w '%{url_effective}' "https://github.com/$(repository)/releases/latest") \
            || fail "could not ask GitHub for the latest release of $(repository)"
        case "$latest" in
        */tag/v*) echo "${latest##*/tag/v}" ;;
        *) fail "$(repository) has no release yet: leave version empty to build this action's ref" ;;
        esac
        ;;
    *) echo "${VERSION#v}" ;;
    esac
}

# tool_dir VERSION: where that version's binary is kept (the path the action's cache steps save and restore).
tool_dir() {
    echo "${RUNNER_TOOL_CACHE:?RUNNER_TOOL_CACHE is not set}/campaign-mock/$1/${RUNNER_ARCH:-$(uname -m)}"
}

resolve() {
    version=$(resolve_version)
    case "$version" in
    [0-9]*.[0-9]*.[0-9]*) ;;
    *) fail "'$version' is not a version X.Y.Z" ;;
    esac
    system=${RUNNER_OS:-$(uname -s)}
    arch=${RUNNER_ARCH:-$(uname -m)}
    output version "$version"
    output dir "$(tool_dir "$version")"
    output cache-key "campaign-mock-$version-$system-$arch"
}

# release_platform: the tarball's platform part for this machine, as install.sh names it.
release_platform() {
    case "$(uname -s)-$(uname -m)" in
    Linux-x86_64 | Linux-amd64) echo linux-x86_64 ;;
    Linux-aarch64 | Linux-arm64) echo linux-aarch64 ;;
    Darwin-*) echo macos-universal ;;
    *) echo none ;;
    esac
}

# released URL: whether URL (https://, file:// or a path) exists.
released() {
    case "$1" in
    http://* | https://*) curl -fsSLI -o /dev/null "$1" 2>/dev/null ;;
    file://*) [ -f "${1#file://}" ] ;;
    *) [ -f "$1" ] ;;
    esac
}

# swift_problem: why this runner's Swift cannot build the package (Swift 6.2 or newer), or nothing. A bare
# ubuntu-24.04 image may have none, or an older one: the build would fail deep in the manifest otherwise.
swift_problem() {
    command -v swift >/dev/null 2>&1 || { echo "no swift on PATH"; return; }
    found=$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1 \2/p' | head -n 1)
    [ -n "$found" ] || { echo "swift --version names no Swift version"; return; }
    # shellcheck disable=SC2086 # two numbers, split on the space
    set -- $found
    if [ "$1" -lt 6 ] || { [ "$1" -eq 6 ] && [ "$2" -lt 2 ]; }; then echo "swift is $1.$2"; fi
}

build_from_source() {
    into=$1
    say "building campaign-mock $version from $root (make install)"
    # Xcode 26 for this build only (DEVELOPER_DIR), so the job's own xcodebuild keeps the Xcode it chose.
    if [ "$(uname -s)" = Darwin ]; then
        DEVELOPER_DIR="$("$root/scripts/select-xcode.sh" --print)/Contents/Developer"
        export DEVELOPER_DIR
    else
        problem=$(swift_problem)
        [ -z "$problem" ] || fail "building from source needs Swift 6.2 or newer, and $problem on this runner. Give the \
job a release of this version (install: release, or a version with a release), run it in a Swift 6.2 container \
(container: swift:6.2), or install Swift first (swift.org/install, or the swift-actions/setup-swift action)"
    fi
    make -C "$root" install PREFIX="$into"
}

install() {
    version=$(resolve_version)
    dir=$(tool_dir "$version")
    mode=${INSTALL:-auto}
    case "$mode" in auto | release | source) ;; *) fail "install: '$mode' is none of auto, release, source" ;; esac
    if [ "$mode" != source ] && [ -x "$dir/campaign-mock" ] \
        && [ "$("$dir/campaign-mock" version 2>/dev/null | awk '{ print $2 }')" = "$version" ]; then
        say "campaign-mock $version from the cache ($dir)"
        from=cache
    elif [ "$mode" = source ]; then
        from=source
    else
        url=${RELEASE_URL:-https://github.com/$(repository)/releases/download/v$version}
        url=${url%/}
        artifact="campaign-mock-$version-$(release_platform).tar.gz"
        if released "$url/$artifact.sha256"; then
            # install.sh checks the SHA-256 before it writes anything, and fails on a mismatch.
            # The folder goes on GITHUB_PATH below: install.sh's advice for a shell profile is not for a runner.
            CAMPAIGN_MOCK_PATH_GIVEN=1 sh "$root/install.sh" --version "$version" --download-url "$url" --bin-dir "$dir"
            from=release
        elif [ "$mode" = release ]; then
            fail "no $artifact.sha256 at $url (install: release)"
        else
            say "no release $version for this runner at $url: building it from source"
            from=source
        fi
    fi
    if [ "$from" = source ]; then
        # Not in the tool cache: a build of a branch is no release, and a later job must not take it for one.
        dir="${RUNNER_TEMP:?RUNNER_TEMP is not set}/campaign-mock-build/bin"
        build_from_source "$(dirname "$dir")"
    fi
    installed=$("$dir/campaign-mock" version | awk '{ print $2 }')
    [ "$installed" = "$version" ] || fail "$dir/campaign-mock is version $installed, not $version"
    output from "$from"
    output bin-dir "$dir"
    if [ -n "${GITHUB_PATH:-}" ]; then echo "$dir" >> "$GITHUB_PATH"; fi
}

case "${1:-}" in
resolve) resolve ;;
install) install ;;
*) fail "usage: install-binary.sh resolve|install" ;;
esac
