#!/usr/bin/env bash
# Contract test of the admin API: starts campaign-mock on a free loopback port with a throwaway
# in-memory store, and runs schemathesis against the OpenAPI description it serves. Every response
# must conform to the document and nothing may answer 5xx. Bounded: a few examples per operation.
#
#   Tests/Contract/schemathesis.sh [path/to/campaign-mock]
set -euo pipefail

binary=${1:-.build/debug/campaign-mock}
python=${PYTHON:-python3}
# The interpreter's own scripts folder first: a pyenv shim may not exist yet right after the install.
st="$("$python" -c 'import sysconfig; print(sysconfig.get_path("scripts"))')/st"
[ -x "$st" ] || st=$(command -v st) || { echo "schemathesis is not installed: run make setup"; exit 1; }
examples=${SCHEMATHESIS_EXAMPLES:-25}
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$work"' EXIT

# PATH and HOME name only the empty work folder and the Android SDK variables are empty: the server finds
# no xcrun or adb, so the operations that run them (POST /_mock/push/{id}/simulator and /emulator,
# GET /_mock/simulators and /_mock/emulators) answer without starting anything, whatever is installed
# on this machine.
PATH="$work" HOME="$work" ANDROID_HOME="" ANDROID_SDK_ROOT="" "$binary" serve --port 0 --in-memory --log-level warning > "$work/banner" 2> "$work/log" &
server=$!
for _ in $(seq 1 100); do
    grep -q 'Stop with Ctrl-C' "$work/banner" 2>/dev/null && break
    sleep 0.05
done
url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/banner" | head -n 1)
[ -n "$url" ] || { echo "campaign-mock did not start:"; cat "$work/log"; exit 1; }

# /_mock/wait is a long poll whose timeout a generated request may set to minutes, and /_mock/stream
# never ends by itself; the Swift tests cover both instead.
"$st" --config-file "$(dirname "$0")/schemathesis.toml" run "$url/_mock/openapi.json" \
    --max-examples "$examples" \
    --seed 20261122 \
    --request-timeout 10 \
    --exclude-path /_mock/wait \
    --exclude-path /_mock/stream \
    --no-color
kill -0 "$server" || { echo "campaign-mock died during the run:"; cat "$work/log"; exit 1; }
