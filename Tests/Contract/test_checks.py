"""The integration checks' time-based rule end to end (docs/checks.md, sent-not-received): a push the local
fake FCM accepts, a server started with a short --check-receive-window, and the finding that appears when no
receive hit comes and clears when one does. Everything runs on this machine, over real sockets.
"""
import json
import os
import tempfile
import time
import urllib.request

from live_server import LiveServer
from push_providers import FakeFCM, ServiceAccount, TestCertificates
from test_push_sending import call, compose, register, send

ANDROID_TOKEN = "fcm-token-of-a-pixel"


def findings(server, **filters):
    query = urllib.parse.urlencode(filters)
    with urllib.request.urlopen(f"{server.url}/_mock/checks?{query}", timeout=10) as response:
        return json.loads(response.read())["findings"]


def wait_for(condition, what):
    """Asks again until `condition()` is true: the rule fires on the server's own tick, once a second."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"{what} did not happen within 30 s")


def test_an_accepted_push_without_its_receive_is_found_and_clears_when_the_receive_comes():
    with tempfile.TemporaryDirectory() as folder:
        certificates = TestCertificates(folder)
        account = ServiceAccount("shop-project")
        with FakeFCM(certificates, account) as fcm:
            key_file = account.write(os.path.join(folder, "service-account.json"), fcm.token_uri)
            fcm.register(ANDROID_TOKEN)
            with LiveServer("--app", "android:shop-android", "--fcm-service-account", key_file,
                            "--fcm-url", fcm.url, "--provider-ca", certificates.ca_path,
                            "--send-allow", "token:fcm-*", "--check-receive-window", "1s") as server:
                register(server, "android", ANDROID_TOKEN, "shop-android")
                push = compose(server, ANDROID_TOKEN)
                [sent] = send(server, push["id"])
                assert sent["outcome"] == "accepted", sent
                [finding] = wait_for(lambda: findings(server, severity="warning"), "the sent-not-received finding")
                assert finding["rule"] == "sent-not-received"
                assert finding["registrationToken"] == ANDROID_TOKEN and finding["app"] == "shop-android"
                assert finding["messageId"] == push["messages"][0]["messageId"]
                assert "FCM accepted message" in finding["message"] and "within 1 s" in finding["message"]
                # The phone's SDK tracks the receive after all: the loop works, the finding clears.
                receive = push["messages"][0]["tracking"]["receive"]
                with urllib.request.urlopen(server.url + receive, timeout=10) as response:
                    assert response.status == 200
                assert findings(server) == []
                assert call(server, "GET", "/_mock/checks?severity=info")[1]["counts"] == {
                    "error": 0, "warning": 0, "info": 0}
