#!/bin/sh
# The release's smoke test: a built campaign-mock serves, answers /_mock/ready, takes a device's
# registration as an iPhone's SDK sends it, lists the device, and stops cleanly on SIGTERM.
#
#   scripts/smoke-test.sh BINARY              start BINARY on a free port, check it, stop it (exit 0)
#   scripts/smoke-test.sh --server URL        check a server already running at URL (a container);
#                                             CAMPAIGN_MOCK_ADMIN_TOKEN, when set, is sent to /_mock/
#
# Needs curl. Run by the release workflow on every artifact and image, and by make test
# (Tests/Contract/test_release.py) on the Linux artifact.
set -eu

fail() {
    echo "smoke test: $*" >&2
    exit 1
}

# check URL: readiness, a registration, the device in the admin API.
check() {
    url=$1
    token="smoke-$$-$(date +%s)"
    ready=$(curl -fsS "$url/_mock/ready") || fail "GET $url/_mock/ready failed"
    [ "$ready" = '{"ready":true}' ] || fail "/_mock/ready answered $ready"
    answer=$(curl -fsS "$url/nms/mobile/1/registerIOS.jssp" \
        -H 'Content-Type: application/x-www-form-urlencoded;charset=UTF-8' \
        -d "registrationToken=$token" -d mobileAppUuid=campaign-mock-demo-ios -d userKey=smoke%40example.com \
        -d deviceModel=iPhone -d osName=iOS) || fail "the registration was refused"
    [ "$answer" = OK ] || fail "the registration answered $answer"
    if [ -n "${CAMPAIGN_MOCK_ADMIN_TOKEN:-}" ]; then
        devices=$(curl -fsS -H "Authorization: Bearer $CAMPAIGN_MOCK_ADMIN_TOKEN" "$url/_mock/devices?token=$token")
    else
        devices=$(curl -fsS "$url/_mock/devices?token=$token")
    fi
    case "$devices" in
    *"\"registrationToken\":\"$token\""*) ;;
    *) fail "the device is not in /_mock/devices: $devices" ;;
    esac
    echo "smoke test: $url is ready, registered $token and lists it"
}

if [ "${1:-}" = --server ]; then
    check "${2:?usage: smoke-test.sh --server URL}"
    exit 0
fi

binary=${1:?usage: smoke-test.sh BINARY | --server URL}
version=$("$binary" version) || fail "$binary version failed"
case "$version" in
"campaign-mock "[0-9]*) echo "smoke test: $version" ;;
*) fail "$binary version printed: $version" ;;
esac

work=$(mktemp -d)
pid=""
cleanup() {
    if [ -n "$pid" ]; then kill -KILL "$pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

"$binary" serve --port 0 --in-memory > "$work/banner" 2> "$work/log" &
pid=$!
url=""
tries=0
# The banner names the URL once the server listens; 30 s at most.
while [ -z "$url" ]; do
    url=$(grep -o -m 1 'http://127\.0\.0\.1:[0-9]*' "$work/banner" || true)
    if [ -z "$url" ]; then
        kill -0 "$pid" 2>/dev/null || { cat "$work/banner" "$work/log" >&2; pid=""; fail "the server exited"; }
        tries=$((tries + 1))
        [ "$tries" -le 300 ] || { cat "$work/banner" "$work/log" >&2; fail "no banner after 30 s"; }
        sleep 0.1
    fi
done
check "$url"

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=""
[ "$status" -eq 0 ] || { cat "$work/log" >&2; fail "the server exited $status on SIGTERM"; }
echo "smoke test: stopped cleanly on SIGTERM"
