#!/bin/sh
# The GitHub Action's start step (action.yml in this folder), as a script a test can run
# (Tests/Contract/test_ci_recipes.py): serves campaign-mock (from PATH) in the background for the rest of
# the job, waits for /_mock/ready, and hands its addresses to the steps after it.
#
# Environment (the action's inputs):
#   PORT, ARGS, TIMEOUT   serve's --port, more serve flags (split on spaces), seconds to wait for ready
#   TLS_PORT              serve's --tls-port (default 0: a free port), left out when ARGS give --tls-port
#   IMPORT                a snapshot file imported before the server listens (serve --import)
#   EXPORT_ON_EXIT        where the snapshot is written when the server stops on SIGTERM (--export-on-exit)
#   CA_CERT, CA_KEY       the PEM text of a CA to serve HTTPS with (from secrets): written to a folder only
#                         the runner's user can read, which becomes CAMPAIGN_MOCK_CAROOT for the server and
#                         for the steps after it (campaign-mock ca export, xcrun simctl keychain ...)
# Writes to $GITHUB_OUTPUT: url (http://127.0.0.1:PORT), https-url (https://localhost:TLS-PORT with --tls
# auto), android-url (the same
# server from the Android emulator, which reaches this machine as 10.0.2.2: the HTTPS one with --tls auto),
# aep-host and android-aep-host (localhost:TLS-PORT and 10.0.2.2:TLS-PORT with --tls auto: what an AEP app's
# settings name), pid; to $GITHUB_ENV: CAMPAIGN_MOCK_SERVER and TEST_RUNNER_CAMPAIGN_MOCK_SERVER (xcodebuild hands only
# TEST_RUNNER_-prefixed variables to the test runner, without the prefix). The log is
# $RUNNER_TEMP/campaign-mock.log.
set -eu
fail() {
    printf '::error::campaign-mock action: %s\n' "$*" >&2
    exit 1
}
# publish FILE NAME=VALUE: a line for a later step ($GITHUB_OUTPUT, $GITHUB_ENV), and on stdout.
publish() {
    echo "$2"
    if [ -n "$1" ]; then echo "$2" >> "$1"; fi
}
temp=${RUNNER_TEMP:?RUNNER_TEMP is not set}
outputs=${GITHUB_OUTPUT:-}
environment=${GITHUB_ENV:-}

if [ -n "${CA_CERT:-}" ] || [ -n "${CA_KEY:-}" ]; then
    if [ -z "${CA_CERT:-}" ] || [ -z "${CA_KEY:-}" ]; then fail "ca-cert and ca-key go together: give both or neither"; fi
    case "$CA_CERT" in *"-----BEGIN CERTIFICATE-----"*) ;; *) fail "ca-cert is not a PEM certificate" ;; esac
    case "$CA_KEY" in *"-----BEGIN "*"PRIVATE KEY-----"*) ;; *) fail "ca-key is not a PEM private key" ;; esac
    caroot="$temp/campaign-mock-ca"
    (
        umask 077
        mkdir -p "$caroot"
        printf '%s\n' "$CA_CERT" > "$caroot/ca-cert.pem"
        printf '%s\n' "$CA_KEY" > "$caroot/ca-key.pem"
    )
    CAMPAIGN_MOCK_CAROOT=$caroot
    export CAMPAIGN_MOCK_CAROOT
    publish "$environment" "CAMPAIGN_MOCK_CAROOT=$caroot"
fi

log="$temp/campaign-mock.log"
set -f
# shellcheck disable=SC2086 # ARGS is a list of flags, split on spaces (no globbing)
set -- ${ARGS:-}
set +f
# Free ports for both listeners unless told otherwise: parallel jobs on one machine do not collide.
case " ${ARGS:-} " in
    *" --tls-port "* | *" --tls-port="*) ;;
    *) set -- "$@" --tls-port "${TLS_PORT:-0}" ;;
esac
if [ -n "${IMPORT:-}" ]; then
    [ -f "$IMPORT" ] || fail "import: no file $IMPORT (a path in the job's workspace, as GET /_mock/state wrote it)"
    set -- "$@" --import "$IMPORT"
fi
if [ -n "${EXPORT_ON_EXIT:-}" ]; then set -- "$@" --export-on-exit "$EXPORT_ON_EXIT"; fi
nohup campaign-mock serve --port "${PORT:-0}" --data-dir "$temp/campaign-mock-data" "$@" > "$log" 2>&1 &
pid=$!

url=""
tries=$((${TIMEOUT:-60} * 10))
while [ "$tries" -gt 0 ]; do
    kill -0 "$pid" 2>/dev/null || { cat "$log"; fail "campaign-mock exited (its log is above)"; }
    url=$(grep -om1 'http://127\.0\.0\.1:[0-9]*' "$log" || true)
    if [ -n "$url" ] && curl -fs "$url/_mock/ready" >/dev/null 2>&1; then break; fi
    url=""
    tries=$((tries - 1))
    sleep 0.1
done
[ -n "$url" ] || { cat "$log"; fail "campaign-mock was not ready within ${TIMEOUT:-60} s (its log is above)"; }
# The banner's HTTPS line, and its lines for devices: the emulator's HTTPS address where there is one.
https_url=$(sed -n 's/^ *HTTPS  *\(https:[^ ]*\).*/\1/p' "$log" | head -n 1)
android_url=$(grep -om1 'https://10\.0\.2\.2:[0-9]*' "$log" || grep -om1 'http://10\.0\.2\.2:[0-9]*' "$log" || true)

publish "$outputs" "url=$url"
publish "$outputs" "https-url=$https_url"
publish "$outputs" "android-url=$android_url"
publish "$outputs" "aep-host=${https_url#https://}"
android_aep_host=""
case "$android_url" in https://*) android_aep_host=${android_url#https://} ;; esac
publish "$outputs" "android-aep-host=$android_aep_host"
publish "$outputs" "pid=$pid"
publish "$environment" "CAMPAIGN_MOCK_SERVER=$url"
publish "$environment" "TEST_RUNNER_CAMPAIGN_MOCK_SERVER=$url"
echo "campaign-mock is ready at $url${https_url:+ and $https_url} (log: $log)"
