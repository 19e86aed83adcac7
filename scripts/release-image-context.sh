#!/bin/sh
# Lays out the build context of docker/release.Dockerfile from the Linux release tarballs:
#
#   scripts/release-image-context.sh VERSION DIST CONTEXT
#
# CONTEXT/linux-amd64/campaign-mock and CONTEXT/linux-arm64/campaign-mock (Docker's names for
# x86_64 and aarch64, as TARGETARCH gives them), each checked against its .sha256 first, and an empty
# CONTEXT/data, the image's state volume.
set -eu
version=${1:?usage: release-image-context.sh VERSION DIST CONTEXT}
dist=${2:?usage: release-image-context.sh VERSION DIST CONTEXT}
context=${3:?usage: release-image-context.sh VERSION DIST CONTEXT}
mkdir -p "$context/data"
for pair in amd64:x86_64 arm64:aarch64; do
    docker_arch=${pair%%:*}
    arch=${pair#*:}
    name="campaign-mock-$version-linux-$arch.tar.gz"
    [ -f "$dist/$name" ] || { echo "release-image-context: $dist/$name is missing" >&2; exit 1; }
    expected=$(awk '{ print $1 }' "$dist/$name.sha256")
    actual=$(sha256sum "$dist/$name" | awk '{ print $1 }')
    [ "$expected" = "$actual" ] || { echo "release-image-context: $name does not match its .sha256" >&2; exit 1; }
    mkdir -p "$context/linux-$docker_arch"
    tar -xzf "$dist/$name" -C "$context/linux-$docker_arch" campaign-mock
    echo "release-image-context: $context/linux-$docker_arch/campaign-mock from $name"
done
