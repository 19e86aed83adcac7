#!/bin/sh
# Builds the release artifact for this machine, as the release workflow does (make dist):
#
#   dist/campaign-mock-<version>-linux-<x86_64|aarch64>.tar.gz   on Linux
#   dist/campaign-mock-<version>-macos-<arm64|x86_64>.tar.gz     on macOS (one architecture; the
#                                                                 release joins two with
#                                                                 scripts/macos-universal.sh)
#
# each with its checksum beside it, <artifact>.sha256 (the `sha256sum` line of the tarball). The
# tarball holds campaign-mock, README.md and LICENSE when the repository has one.
#
# The binary carries everything it needs but the operating system's C library: the Swift runtime,
# SQLite, OpenSSL, nghttp2 (and on Linux the C++ runtime and libgcc) are linked in statically. On Linux, a
# directory holding only links to the static archives comes first on the linker's search path, so
# that -lsqlite3 -lssl -lcrypto -lnghttp2 -lstdc++ find the .a files, and the build reads pkg-config
# files that point there; on macOS SQLite is the system's (/usr/lib/libsqlite3.dylib) and OpenSSL and
# nghttp2 come static from Homebrew's openssl@3 and libnghttp2 the same way. The build stops if the binary links anything else
# (scripts/check-linkage.sh).
#
# On macOS the binary is built for macOS 15, the oldest the release claims (Package.swift, install.sh, the
# formula), and the build stops if Homebrew's archives or the binary are built for a newer one
# (scripts/check-macos-target.sh): Homebrew's bottles follow the macOS they were made on, and Homebrew
# drops MACOSX_DEPLOYMENT_TARGET from its own builds, so on a newer Mac build OpenSSL and nghttp2 yourself
# with -mmacosx-version-min=15.0, laid out as PREFIX/opt/openssl@3 and PREFIX/opt/libnghttp2, and pass
# DIST_HOMEBREW_PREFIX=PREFIX.
# DIST_ARCH=x86_64 on Apple silicon (or arm64 on Intel) builds for the other architecture, with the
# libraries of that architecture's Homebrew (/usr/local, or /opt/homebrew), named through PKG_CONFIG_PATH
# as every build here does.
#
# Environment: SWIFT (default swift), DIST_DIR (default dist), DIST_BUILD_PATH (default .build-dist),
# CAMPAIGN_MOCK_COMMIT (default: git rev-parse --short=12 HEAD), the commit `campaign-mock --version` names;
# on macOS DIST_ARCH (default: this Mac's) and DIST_HOMEBREW_PREFIX (default: the architecture's Homebrew).
set -eu
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
out=${DIST_DIR:-dist}
scratch=${DIST_BUILD_PATH:-.build-dist}
commit=${CAMPAIGN_MOCK_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
case "$scratch" in /*) ;; *) scratch="$PWD/$scratch" ;; esac
static="$scratch/static-libs"
rm -rf "$static"
mkdir -p "$static" "$out"

# pc NAME CFLAGS LIBS...: a pkg-config file for NAME whose libraries are the archives of $static.
# SwiftPM reads .pc files itself and puts their -L (the system's library directory, where the shared
# libraries are too) ahead of any given on the command line, so the build gets only these.
pc() {
    name=$1
    cflags=$2
    shift 2
    printf 'Name: %s\nDescription: %s, linked statically (scripts/dist.sh)\nVersion: 3\nCflags: %s\nLibs: -L%s %s\n' \
        "$name" "$name" "$cflags" "$static" "$*" > "$static/$name.pc"
}
case "$(uname -s)" in
Linux)
    os=linux
    arch=$(uname -m)
    libdir=$(pkg-config --variable=libdir sqlite3)
    nghttp2dir=$(pkg-config --variable=libdir libnghttp2)
    for archive in "$libdir/libsqlite3.a" "$libdir/libssl.a" "$libdir/libcrypto.a" "$nghttp2dir/libnghttp2.a"; do
        [ -f "$archive" ] || { echo "dist: $archive is missing (libsqlite3-dev, libssl-dev, libnghttp2-dev)" >&2; exit 1; }
        ln -s "$archive" "$static/"
    done
    # The C++ runtime the Swift runtime needs, from the compiler's GCC installation (the one clang
    # links against); -static-libgcc brings libgcc's unwinder in too.
    clang="$(dirname "$(command -v "$swift")")/clang"
    [ -x "$clang" ] || clang=clang
    cxx=$("$clang" -print-file-name=libstdc++.a)
    [ -f "$cxx" ] || { echo "dist: no libstdc++.a next to the compiler (libstdc++-<n>-dev)" >&2; exit 1; }
    ln -s "$cxx" "$static/"
    pc sqlite3 "$(pkg-config --cflags sqlite3)" -lsqlite3
    for module in openssl libssl libcrypto; do pc "$module" "$(pkg-config --cflags openssl)" -lssl -lcrypto; done
    pc libnghttp2 "$(pkg-config --cflags libnghttp2)" -lnghttp2
    set -- -Xlinker -L"$static" -Xswiftc -Xclang-linker -Xswiftc -static-libgcc --static-swift-stdlib
    ;;
Darwin)
    os=macos
    arch=${DIST_ARCH:-$(uname -m)}
    case "$arch" in
    arm64) homebrew=${DIST_HOMEBREW_PREFIX:-/opt/homebrew} ;;
    x86_64) homebrew=${DIST_HOMEBREW_PREFIX:-/usr/local} ;;
    *) echo "dist: no macOS build for $arch (arm64 or x86_64)" >&2; exit 1 ;;
    esac
    macos_target=15.0
    MACOSX_DEPLOYMENT_TARGET=$macos_target
    export MACOSX_DEPLOYMENT_TARGET
    openssl=$homebrew/opt/openssl@3
    for archive in "$openssl/lib/libssl.a" "$openssl/lib/libcrypto.a"; do
        [ -f "$archive" ] || { echo "dist: $archive is missing (brew install openssl@3)" >&2; exit 1; }
        ln -s "$archive" "$static/"
    done
    for module in openssl libssl libcrypto; do pc "$module" "-I$openssl/include" -lssl -lcrypto; done
    nghttp2=$homebrew/opt/libnghttp2
    [ -f "$nghttp2/lib/libnghttp2.a" ] || { echo "dist: $nghttp2/lib/libnghttp2.a is missing (brew install libnghttp2)" >&2; exit 1; }
    ln -s "$nghttp2/lib/libnghttp2.a" "$static/"
    pc libnghttp2 "-I$nghttp2/include" -lnghttp2
    # No sqlite3.pc: SQLite is the SDK's (/usr/lib/libsqlite3.dylib), never Homebrew's.
    scripts/check-macos-target.sh "$macos_target" "$static/libssl.a" "$static/libcrypto.a" "$static/libnghttp2.a"
    # SwiftPM targets Package.swift's macOS 15 by itself; the other architecture is named by its triple.
    set -- -Xlinker -L"$static"
    [ "$arch" = "$(uname -m)" ] || set -- "$@" --triple "$arch-apple-macosx$macos_target"
    ;;
*)
    echo "dist: no release build for $(uname -s)" >&2
    exit 1
    ;;
esac

# From here on the build sees only the pkg-config files above.
PKG_CONFIG_PATH="$static"
PKG_CONFIG_LIBDIR="$static"
export PKG_CONFIG_PATH PKG_CONFIG_LIBDIR
echo "==> building campaign-mock for $os-$arch (release, commit $commit) in $scratch"
# Package.swift hands CAMPAIGN_MOCK_COMMIT to the one C file that names it (campaign-mock --version).
CAMPAIGN_MOCK_COMMIT=$commit
export CAMPAIGN_MOCK_COMMIT
"$swift" build -c release --product campaign-mock --scratch-path "$scratch" "$@"
binary="$("$swift" build -c release --scratch-path "$scratch" --show-bin-path "$@")/campaign-mock"
scripts/check-linkage.sh "$binary"
[ "$os" != macos ] || scripts/check-macos-target.sh "$macos_target" "$binary"

version=$("$binary" version | awk '{ print $2 }')
case "$version" in
[0-9]*.[0-9]*.[0-9]*) ;;
*) echo "dist: '$binary version' printed no version: $("$binary" version)" >&2; exit 1 ;;
esac

name="campaign-mock-$version-$os-$arch"
stage="$scratch/stage/$name"
rm -rf "$stage"
mkdir -p "$stage"
cp "$binary" "$stage/campaign-mock"
# The symbols only serve a debugger; the release is a third of the size without them.
if [ "$os" = macos ]; then
    strip -x "$stage/campaign-mock"
    codesign --force --sign - "$stage/campaign-mock"
else
    strip "$stage/campaign-mock"
fi
cp README.md "$stage/"
[ ! -f LICENSE ] || cp LICENSE "$stage/"
scripts/package.sh "$stage" "$out/$name.tar.gz"
echo "==> $out/$name.tar.gz ($(wc -c < "$out/$name.tar.gz" | tr -d ' ') bytes)"
cat "$out/$name.tar.gz.sha256"
