#!/bin/sh
# Selects the newest released Xcode 26 of this Mac (Swift 6.2, which Package.swift needs): the
# newest /Applications/Xcode_26[.x[.y]].app, never a beta or a release candidate (GitHub's macOS images
# name those Xcode_26.1_beta_2.app, Xcode_26.1_Release_Candidate.app, ...). The runner's default Xcode may
# be older. Used by .github/workflows/ci.yml, release.yml and the GitHub Action's build from source.
#
#   scripts/select-xcode.sh           sudo xcode-select --switch to it, then print swift --version
#   scripts/select-xcode.sh --print   only print its path
#
# Environment: XCODE_APPLICATIONS (default /Applications), the folder to look in.
set -eu
applications=${XCODE_APPLICATIONS:-/Applications}
newest=""
for candidate in "$applications"/Xcode_26*.app; do
    name=$(basename "$candidate")
    # Only digits and dots after Xcode_: Xcode_26.app, Xcode_26.0.app, Xcode_26.0.1.app.
    if ! printf '%s\n' "$name" | grep -Eq '^Xcode_26(\.[0-9]+)*\.app$'; then continue; fi
    newest=$(printf '%s\n%s\n' "$newest" "$candidate" | sed '/^$/d' | sort -V | tail -n 1)
done
if [ -z "$newest" ]; then
    echo "select-xcode: no released Xcode 26 in $applications (betas and release candidates are not used):" >&2
    ls -d "$applications"/Xcode*.app >&2 2>/dev/null || true
    exit 1
fi
if [ "${1:-}" = --print ]; then
    echo "$newest"
    exit 0
fi
echo "select-xcode: $newest"
sudo xcode-select --switch "$newest"
swift --version
