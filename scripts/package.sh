#!/bin/sh
# Packs the files of STAGE (campaign-mock, README.md, LICENSE) at the top level of TARBALL, and writes
# TARBALL.sha256: one `sha256sum` line, "<hex>  <tarball's file name>", which `sha256sum -c` and
# `shasum -a 256 -c` check from the tarball's directory.
#
#   scripts/package.sh STAGE TARBALL
set -eu
stage=${1:?usage: package.sh STAGE TARBALL}
tarball=${2:?usage: package.sh STAGE TARBALL}
[ -x "$stage/campaign-mock" ] || { echo "package: $stage/campaign-mock is missing" >&2; exit 1; }
mkdir -p "$(dirname "$tarball")"
files=campaign-mock
for extra in README.md LICENSE; do
    [ ! -f "$stage/$extra" ] || files="$files $extra"
done
# shellcheck disable=SC2086 # $files is a list of plain names
tar -czf "$tarball" -C "$stage" $files
name=$(basename "$tarball")
if command -v sha256sum >/dev/null 2>&1; then
    digest=$(sha256sum "$tarball" | awk '{ print $1 }')
else
    digest=$(shasum -a 256 "$tarball" | awk '{ print $1 }')
fi
printf '%s  %s\n' "$digest" "$name" > "$tarball.sha256"
