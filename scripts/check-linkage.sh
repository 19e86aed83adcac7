#!/bin/sh
# Fails unless BINARY links only what every machine of its OS has: on Linux the C library family
# (libc, libm, libdl, libpthread, librt, libutil, the dynamic loader), on macOS the system's own
# libraries (/usr/lib, /System). Prints what it links either way.
#
#   scripts/check-linkage.sh BINARY
set -eu
binary=${1:?usage: check-linkage.sh BINARY}
case "$(uname -s)" in
Linux)
    linked=$(ldd "$binary")
    # One line a library: "libc.so.6 => /lib/... (0x...)", "/lib64/ld-linux-x86-64.so.2 (0x...)".
    others=$(printf '%s\n' "$linked" | awk '{ print $1 }' | grep -Ev \
        '^(linux-vdso\.so\.1|linux-gate\.so\.1|lib(c|m|dl|pthread|rt|util)\.so\.[0-9]+|(/lib[0-9]*/|/usr/lib[0-9]*/)?ld-linux[-a-z0-9_.]*\.so\.[0-9]+)$' \
        || true)
    ;;
Darwin)
    linked=$(otool -L "$binary")
    # The first line names the file (or its architecture); each other line is a library path.
    others=$(printf '%s\n' "$linked" | grep -E '^[[:space:]]' | awk '{ print $1 }' \
        | grep -Ev '^(/usr/lib/|/System/Library/)' || true)
    ;;
*)
    echo "check-linkage: $(uname -s) is not supported" >&2
    exit 1
    ;;
esac
printf '%s\n' "$linked"
if [ -n "$others" ]; then
    echo "check-linkage: $binary links libraries a bare system may not have:" >&2
    printf '%s\n' "$others" | sed 's/^/  /' >&2
    exit 1
fi
echo "check-linkage: $binary links only the system's C libraries"
