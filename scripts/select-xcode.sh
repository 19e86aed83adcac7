#!/bin/sh
# Selects the newest released Xcode 26 of this Mac (Swift 6.2, which the server needs): the newest
# /Applications/Xcode_26[.x[.y]].app, never a beta or a release candidate (GitHub's macOS images name those
# Xcode_26.1_beta_2.app, Xcode_26.1_Release_Candidate.app, ...). The runner's default Xcode may be older.
# Used by .github/workflows/ci.yml, release.yml and the GitHub Action's build from source; ci.yml's
# xcode-16 job takes the oldest Xcode 16 with it (XCODE_MAJOR=16 XCODE_PICK=oldest), where an app team
# still on Xcode 16 builds the client.
#
#   scripts/select-xcode.sh           sudo xcode-select --switch to it, then print swift --version
#   scripts/select-xcode.sh --print   only print its path
#
# Environment: XCODE_APPLICATIONS (default /Applications), the folder to look in; XCODE_MAJOR (default 26),
# the major version; XCODE_PICK (default newest), newest or oldest of its released versions.
set -eu
applications=${XCODE_APPLICATIONS:-/Applications}
major=${XCODE_MAJOR:-26}
pick=${XCODE_PICK:-newest}
case "$major" in "" | *[!0-9]*) echo "select-xcode: XCODE_MAJOR is '$major', not a number" >&2; exit 1 ;; esac
case "$pick" in newest) choose="tail -n 1" ;; oldest) choose="head -n 1" ;;
*) echo "select-xcode: XCODE_PICK is '$pick', neither newest nor oldest" >&2; exit 1 ;; esac
found=""
for candidate in "$applications"/Xcode_"$major"*.app; do
    name=$(basename "$candidate")
    # Only digits and dots after Xcode_: Xcode_26.app, Xcode_26.0.app, Xcode_26.0.1.app.
    if ! printf '%s\n' "$name" | grep -Eq "^Xcode_$major(\\.[0-9]+)*\\.app\$"; then continue; fi
    found=$(printf '%s\n%s\n' "$found" "$candidate" | sed '/^$/d')
done
chosen=$(printf '%s\n' "$found" | sed '/^$/d' | sort -V | $choose)
if [ -z "$chosen" ]; then
    echo "select-xcode: no released Xcode $major in $applications (betas and release candidates are not used):" >&2
    ls -d "$applications"/Xcode*.app >&2 2>/dev/null || true
    exit 1
fi
if [ "${1:-}" = --print ]; then
    echo "$chosen"
    exit 0
fi
echo "select-xcode: $chosen"
sudo xcode-select --switch "$chosen"
xcodebuild -version
swift --version
