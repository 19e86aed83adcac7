#!/bin/sh
# Fails unless each FILE (a binary or a static archive) is built for macOS VERSION or older: a release that
# claims macOS 15 must not hold code built for a newer one, which may call what macOS 15 lacks. Reads
# every object's LC_BUILD_VERSION (minos), or LC_VERSION_MIN_MACOSX (version) from older toolchains, with
# otool -l; prints the newest found in each file.
#
#   scripts/check-macos-target.sh VERSION FILE...
set -eu
target=${1:?usage: check-macos-target.sh VERSION FILE...}
shift
[ $# -gt 0 ] || { echo "usage: check-macos-target.sh VERSION FILE..." >&2; exit 2; }
status=0
for file in "$@"; do
    otool -l "$file" | awk -v target="$target" -v file="$file" '
        function newer(a, b,    x, y, i) {
            split(a, x, "."); split(b, y, ".")
            for (i = 1; i <= 3; i++) if (x[i] + 0 != y[i] + 0) return x[i] + 0 > y[i] + 0
            return 0
        }
        $1 == "cmd" { command = $2 }
        (command == "LC_BUILD_VERSION" && $1 == "minos") || (command == "LC_VERSION_MIN_MACOSX" && $1 == "version") {
            if (newest == "" || newer($2, newest)) newest = $2
        }
        END {
            if (newest == "") { print "check-macos-target: " file " names no macOS version" > "/dev/stderr"; exit 1 }
            if (newer(newest, target)) {
                print "check-macos-target: " file " is built for macOS " newest ", newer than the " target \
                    " the release claims" > "/dev/stderr"
                exit 1
            }
            print "check-macos-target: " file ": macOS " newest
        }' || status=1
done
exit "$status"
