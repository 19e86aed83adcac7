#!/bin/sh
# Joins the two macOS release builds (scripts/dist.sh on an arm64 and on an Intel Mac) into the one
# the release ships: dist/campaign-mock-<version>-macos-universal.tar.gz and its .sha256.
#
#   scripts/macos-universal.sh dist/campaign-mock-X.Y.Z-macos-arm64.tar.gz dist/campaign-mock-X.Y.Z-macos-x86_64.tar.gz
#
# Each slice keeps its own ad-hoc signature; the joined binary must link only system libraries
# (scripts/check-linkage.sh). Environment: DIST_DIR (default dist).
set -eu
cd "$(dirname "$0")/.."
arm=${1:?usage: macos-universal.sh ARM64.tar.gz X86_64.tar.gz}
intel=${2:?usage: macos-universal.sh ARM64.tar.gz X86_64.tar.gz}
out=${DIST_DIR:-dist}

version=$(basename "$arm" | sed -n 's/^campaign-mock-\(.*\)-macos-arm64\.tar\.gz$/\1/p')
[ -n "$version" ] || { echo "macos-universal: $arm is not a campaign-mock-<version>-macos-arm64.tar.gz" >&2; exit 1; }
[ "$(basename "$intel")" = "campaign-mock-$version-macos-x86_64.tar.gz" ] \
    || { echo "macos-universal: $intel is not campaign-mock-$version-macos-x86_64.tar.gz" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/arm64" "$work/x86_64" "$work/stage"
tar -xzf "$arm" -C "$work/arm64"
tar -xzf "$intel" -C "$work/x86_64"
for slice in arm64 x86_64; do
    [ "$(lipo -archs "$work/$slice/campaign-mock")" = "$slice" ] \
        || { echo "macos-universal: the $slice tarball holds a $(lipo -archs "$work/$slice/campaign-mock") binary" >&2; exit 1; }
done
lipo -create -output "$work/stage/campaign-mock" "$work/arm64/campaign-mock" "$work/x86_64/campaign-mock"
archs=$(lipo -archs "$work/stage/campaign-mock")
case " $archs " in
*" arm64 "*" x86_64 "* | *" x86_64 "*" arm64 "*) echo "macos-universal: $archs" ;;
*) echo "macos-universal: the joined binary is $archs, not arm64 and x86_64" >&2; exit 1 ;;
esac
scripts/check-linkage.sh "$work/stage/campaign-mock"
cp "$work/arm64/README.md" "$work/stage/"
[ ! -f "$work/arm64/LICENSE" ] || cp "$work/arm64/LICENSE" "$work/stage/"
scripts/package.sh "$work/stage" "$out/campaign-mock-$version-macos-universal.tar.gz"
cat "$out/campaign-mock-$version-macos-universal.tar.gz.sha256"
