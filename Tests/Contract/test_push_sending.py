"""Sending composed pushes through APNs and FCM (docs/push-on-device.md), against the local fakes of
push_providers: a real HTTP/2 + TLS APNs that verifies each ES256 provider token with the key's public half,
and an FCM whose token endpoint verifies the RS256 assertion. Every test starts its own campaign-mock on a
free port and its own fakes; nothing leaves this machine.
"""
import contextlib
import json
import os
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest

from live_server import BINARY, LiveServer
from push_providers import APNsKey, FakeAPNs, FakeFCM, ServiceAccount, TestCertificates

IOS_TOKEN = "80f1a2b3c4d5e6f708192a3b4c5d6e7f80f1a2b3c4d5e6f708192a3b4c5d6e7f"
ANDROID_TOKEN = "fcm-token-of-a-pixel"
BUNDLE_ID = "com.example.app"


def call(server, method, path, body=None):
    """(status, JSON answer) of an admin call."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def register(server, platform, token, app, user_key="jane@example.com", headers=None):
    form = urllib.parse.urlencode({"registrationToken": token, "mobileAppUuid": app, "userKey": user_key}).encode()
    path = "/nms/mobile/1/registerIOS.jssp" if platform == "ios" else "/nms/mobile/1/registerAndroid.jssp"
    request = urllib.request.Request(server.url + path, data=form, headers=headers or {})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def compose(server, token, **fields):
    body = {key: value for key, value in {"token": token, "title": "Sale", "body": "20% off", **fields}.items()
            if value is not None}
    status, push = call(server, "POST", "/_mock/push", body)
    assert status == 201, push
    return push


def send(server, push_id, **options):
    status, answer = call(server, "POST", f"/_mock/push/{push_id}/send", options)
    assert status == 200, answer
    return answer["sends"]


@pytest.fixture
def folder():
    with tempfile.TemporaryDirectory() as directory:
        yield directory


@pytest.fixture
def certificates(folder):
    return TestCertificates(folder)


@pytest.fixture
def apns_key(folder):
    return APNsKey(folder)


def apns_flags(apns, key, certificates, environment="sandbox"):
    return ["--apns-key-file", key.path, "--apns-key-id", key.key_id, "--apns-team-id", key.team_id,
            "--apns-environment", environment, "--apns-url", apns.url, "--provider-ca", certificates.ca_path]


IOS_APP = ["--app", "ios:shop-ios", "--app", "android:shop-android"]


@contextlib.contextmanager
def ios_sender(certificates, key, *flags, signing_key=None, bundle_id=BUNDLE_ID):
    """A FakeAPNs that trusts `key` and knows IOS_TOKEN, and a server sending to it (signing with
    `signing_key`, by default `key`; more `flags`) where IOS_TOKEN is registered in shop-ios, whose bundle id
    is `bundle_id` (none when None)."""
    with FakeAPNs(certificates, key, topics=[BUNDLE_ID]) as apns, \
            LiveServer(*IOS_APP, *apns_flags(apns, signing_key or key, certificates), *flags) as server:
        apns.register(IOS_TOKEN)
        register(server, "ios", IOS_TOKEN, "shop-ios")
        if bundle_id:
            assert call(server, "PUT", "/_mock/apps/shop-ios", {"bundleId": bundle_id})[0] == 200
        yield apns, server


def test_an_ios_push_reaches_apns_with_a_verified_token_over_one_connection(certificates, apns_key):
    with ios_sender(certificates, apns_key, "--send-allow", "userKey:*@example.com") as (apns, server):
        # The userKey matches, but the token is not confirmed yet: the answer says which step confirms it.
        [sent] = send(server, compose(server, IOS_TOKEN)["id"])
        assert sent["outcome"] == "blocked" and apns.requests == []
        assert f"POST /_mock/devices/{IOS_TOKEN}/trust" in sent["explanation"], sent
        assert f"sendAllow 'token:{IOS_TOKEN}'" in sent["explanation"]
        assert call(server, "POST", f"/_mock/devices/{IOS_TOKEN}/trust") == \
            (200, {"registrationToken": IOS_TOKEN, "trusted": True})

        first = compose(server, IOS_TOKEN, variables={"uri": "shop://sale"})
        [sent] = send(server, first["id"])
        assert sent["outcome"] == "accepted", sent
        assert sent["status"] == 200 and sent["provider"] == "apns" and sent["destination"] == "sandbox"
        assert sent["providerId"] == apns.requests[0].apns_id
        request = apns.requests[0]
        assert request.headers["apns-topic"] == BUNDLE_ID
        assert request.headers["apns-push-type"] == "alert" and request.headers["apns-priority"] == "10"
        assert request.payload == first["messages"][0]["apns"]
        assert request.payload["_mId"] == first["messages"][0]["messageId"]

        # A silent push is a background push, priority 5; the same connection and the same token serve it.
        silent = compose(server, IOS_TOKEN, silent=True, title=None, body=None)
        [sent] = send(server, silent["id"])
        assert sent["outcome"] == "accepted", sent
        assert apns.requests[1].headers["apns-push-type"] == "background"
        assert apns.requests[1].headers["apns-priority"] == "5"
        assert apns.connections == 1
        assert len(apns.provider_tokens) == 1

        # The answer is stored with the push.
        status, stored = call(server, "GET", f"/_mock/push/{first['id']}")
        assert status == 200 and [entry["outcome"] for entry in stored["sends"]] == ["accepted"]

        # Taken back, the token is blocked again; a token no device has is not found.
        assert call(server, "DELETE", f"/_mock/devices/{IOS_TOKEN}/trust")[1]["trusted"] is False
        assert send(server, compose(server, IOS_TOKEN)["id"])[0]["outcome"] == "blocked"
        assert len(apns.requests) == 2
        status, answer = call(server, "POST", "/_mock/devices/ffff/trust")
        assert status == 404 and "no device" in answer["error"]


def test_apns_refusals_are_stored_and_explained(certificates, apns_key):
    with FakeAPNs(certificates, apns_key, topics=[BUNDLE_ID], environment="production") as apns, \
            LiveServer(*IOS_APP, *apns_flags(apns, apns_key, certificates, "production"), "--send-allow", "token:*") as server:
        assert call(server, "PUT", "/_mock/apps/shop-ios", {"bundleId": BUNDLE_ID})[0] == 200
        # A sandbox token sent to production: APNs knows nothing of it.
        register(server, "ios", IOS_TOKEN, "shop-ios")
        [sent] = send(server, compose(server, IOS_TOKEN)["id"])
        assert (sent["outcome"], sent["status"], sent["reason"]) == ("refused", 400, "BadDeviceToken")
        assert "sandbox token sent to production?" in sent["explanation"]

        gone = "aa" * 32
        apns.unregister(gone)
        register(server, "ios", gone, "shop-ios")
        [sent] = send(server, compose(server, gone)["id"])
        assert (sent["outcome"], sent["status"], sent["reason"]) == ("refused", 410, "Unregistered")
        assert "no longer valid" in sent["explanation"]

        # A topic of another team's app.
        apns.register(IOS_TOKEN)
        [sent] = send(server, compose(server, IOS_TOKEN)["id"], apnsTopic="com.other.app")
        assert (sent["status"], sent["reason"]) == (400, "TopicDisallowed")
        assert "com.other.app" in sent["explanation"]


def test_an_expired_provider_token_is_signed_again_once(certificates, apns_key):
    with ios_sender(certificates, apns_key, "--send-allow", "token:*") as (apns, server):
        assert send(server, compose(server, IOS_TOKEN)["id"])[0]["outcome"] == "accepted"
        # APNs now says the token is over an hour old (a clock that jumped): the sender signs a new one.
        apns.expire_provider_tokens()
        [sent] = send(server, compose(server, IOS_TOKEN)["id"])
        assert sent["outcome"] == "accepted", sent
        assert len(apns.provider_tokens) == 2
        assert [request.status for request in apns.requests] == [200, 403, 200]


def test_a_key_of_another_team_is_refused_as_an_invalid_provider_token(certificates, apns_key, folder):
    # Another key under the same key id and team id, as when the .p8 file of another key was copied.
    os.makedirs(os.path.join(folder, "other"))
    other = APNsKey(os.path.join(folder, "other"), key_id=apns_key.key_id, team_id=apns_key.team_id)
    with ios_sender(certificates, apns_key, "--send-allow", "token:*", signing_key=other) as (apns, server):
        [sent] = send(server, compose(server, IOS_TOKEN)["id"])
        assert (sent["outcome"], sent["status"], sent["reason"]) == ("refused", 403, "InvalidProviderToken")
        assert "key id" in sent["explanation"]


def test_apns_closing_its_connection_is_survived(certificates, apns_key):
    with ios_sender(certificates, apns_key, "--send-allow", "token:*") as (apns, server):
        assert send(server, compose(server, IOS_TOKEN)["id"])[0]["outcome"] == "accepted"
        apns.close_connections()
        [sent] = send(server, compose(server, IOS_TOKEN)["id"])
        assert sent["outcome"] == "accepted", sent
        assert apns.connections == 2
        assert len(apns.delivered) == 2


def test_the_allow_list_and_missing_settings_block_before_anything_is_sent(certificates, apns_key):
    with FakeAPNs(certificates, apns_key, topics=[BUNDLE_ID]) as apns:
        apns.register(IOS_TOKEN)
        # No allow-list: nothing goes out.
        with LiveServer(*IOS_APP, *apns_flags(apns, apns_key, certificates)) as server:
            register(server, "ios", IOS_TOKEN, "shop-ios")
            call(server, "PUT", "/_mock/apps/shop-ios", {"bundleId": BUNDLE_ID})
            [sent] = send(server, compose(server, IOS_TOKEN)["id"])
            assert sent["outcome"] == "blocked" and "allow-list is empty" in sent["explanation"]
        # A list that does not match this user.
        with LiveServer(*IOS_APP, *apns_flags(apns, apns_key, certificates), "--send-allow", "userKey:qa-*") as server:
            register(server, "ios", IOS_TOKEN, "shop-ios")
            call(server, "PUT", "/_mock/apps/shop-ios", {"bundleId": BUNDLE_ID})
            [sent] = send(server, compose(server, IOS_TOKEN)["id"])
            assert sent["outcome"] == "blocked" and "userKey:qa-*" not in sent["explanation"]
            assert "no sendAllow pattern matches" in sent["explanation"]
            # No bundle id: APNs needs a topic.
        with LiveServer(*IOS_APP, *apns_flags(apns, apns_key, certificates), "--send-allow", "token:*") as server:
            register(server, "ios", IOS_TOKEN, "shop-ios")
            [sent] = send(server, compose(server, IOS_TOKEN)["id"])
            assert sent["outcome"] == "blocked" and "bundleId" in sent["explanation"]
        assert apns.requests == []
    # APNs and FCM not configured: the explanation names the flags (and config keys) that configure them.
    with LiveServer(*IOS_APP, "--send-allow", "token:*") as server:
        register(server, "android", ANDROID_TOKEN, "shop-android")
        [sent] = send(server, compose(server, ANDROID_TOKEN)["id"])
        assert sent["outcome"] == "blocked" and "FCM is not configured" in sent["explanation"]
        assert "--fcm-service-account" in sent["explanation"]
        register(server, "ios", IOS_TOKEN, "shop-ios")
        [sent] = send(server, compose(server, IOS_TOKEN)["id"])
        assert sent["outcome"] == "blocked" and "APNs is not configured" in sent["explanation"]
        for flag in ["--apns-key-file", "--apns-key-id", "--apns-team-id"]:
            assert flag in sent["explanation"]


def test_an_android_push_goes_through_fcm_with_a_cached_access_token(certificates, folder):
    account = ServiceAccount("shop-project")
    with FakeFCM(certificates, account) as fcm:
        key_file = account.write(os.path.join(folder, "service-account.json"), fcm.token_uri)
        fcm.register(ANDROID_TOKEN)
        with LiveServer(*IOS_APP, "--fcm-service-account", key_file, "--fcm-url", fcm.url,
                        "--provider-ca", certificates.ca_path, "--send-allow", "app:shop-*") as server:
            register(server, "android", ANDROID_TOKEN, "shop-android")
            # The app: pattern lets the device through once it is trusted on this machine.
            assert call(server, "POST", f"/_mock/devices/{ANDROID_TOKEN}/trust")[0] == 200
            push = compose(server, ANDROID_TOKEN, variables={"uri": "shop://sale"})
            [sent] = send(server, push["id"])
            assert sent["outcome"] == "accepted", sent
            assert sent["destination"] == "shop-project"
            assert sent["providerId"].startswith("projects/shop-project/messages/")
            assert fcm.delivered[0].message == push["messages"][0]["fcm"]["message"]
            # A second send uses the same access token.
            assert send(server, compose(server, ANDROID_TOKEN)["id"])[0]["outcome"] == "accepted"
            assert len(fcm.grants) == 1
            # A token FCM forgot: refused, explained.
            fcm.unregister(ANDROID_TOKEN)
            [sent] = send(server, compose(server, ANDROID_TOKEN)["id"])
            assert (sent["outcome"], sent["status"], sent["reason"]) == ("refused", 404, "UNREGISTERED")
            # An access token FCM expired early: a new grant, and the send goes through.
            fcm.register(ANDROID_TOKEN)
            fcm.expire_access_tokens()
            assert send(server, compose(server, ANDROID_TOKEN)["id"])[0]["outcome"] == "accepted"
            assert len(fcm.grants) == 2


def test_a_service_account_the_token_endpoint_refuses_is_a_failed_send(certificates, folder):
    account = ServiceAccount("shop-project")
    stranger = ServiceAccount("shop-project")
    with FakeFCM(certificates, account) as fcm:
        # The key file of another account: its assertion does not verify.
        key_file = stranger.write(os.path.join(folder, "stranger.json"), fcm.token_uri)
        fcm.register(ANDROID_TOKEN)
        with LiveServer(*IOS_APP, "--fcm-service-account", key_file, "--fcm-url", fcm.url,
                        "--provider-ca", certificates.ca_path, "--send-allow", "token:*") as server:
            register(server, "android", ANDROID_TOKEN, "shop-android")
            [sent] = send(server, compose(server, ANDROID_TOKEN)["id"])
            assert sent["outcome"] == "failed" and "OAuth token endpoint refused" in sent["explanation"]
            assert fcm.delivered == []


def test_auto_send_sends_every_composed_push(certificates, apns_key):
    with ios_sender(certificates, apns_key, "--send-allow", "token:*", "--auto-send") as (apns, server):
        push = compose(server, IOS_TOKEN)
        apns.wait_for_requests(1)
        assert apns.requests[0].payload["_mId"] == push["messages"][0]["messageId"]


def test_the_push_command_sends_and_says_what_happened(certificates, apns_key):
    with ios_sender(certificates, apns_key, "--send-allow", "token:*") as (apns, server):
        done = subprocess.run([BINARY, "push", "--server", server.url, "--token", IOS_TOKEN, "--title", "Hi", "--send"],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert f"accepted: apns token={IOS_TOKEN} (200" in done.stderr
        unknown = "bb" * 32
        register(server, "ios", unknown, "shop-ios")
        done = subprocess.run([BINARY, "push", "--server", server.url, "--token", unknown, "--title", "Hi", "--send"],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 1
        assert "refused: apns" in done.stderr and "BadDeviceToken" in done.stderr


def test_credentials_never_reach_info_logs_or_state(certificates, apns_key, folder):
    account = ServiceAccount("shop-project")
    with FakeAPNs(certificates, apns_key, topics=[BUNDLE_ID]) as apns, FakeFCM(certificates, account) as fcm:
        key_file = account.write(os.path.join(folder, "service-account.json"), fcm.token_uri)
        apns.register(IOS_TOKEN)
        fcm.register(ANDROID_TOKEN)
        with LiveServer(*IOS_APP, *apns_flags(apns, apns_key, certificates), "--fcm-service-account", key_file,
                        "--fcm-url", fcm.url, "--send-allow", "token:*", "--log-level", "debug") as server:
            register(server, "ios", IOS_TOKEN, "shop-ios")
            register(server, "android", ANDROID_TOKEN, "shop-android")
            call(server, "PUT", "/_mock/apps/shop-ios", {"bundleId": BUNDLE_ID})
            assert send(server, compose(server, IOS_TOKEN)["id"])[0]["outcome"] == "accepted"
            assert send(server, compose(server, ANDROID_TOKEN)["id"])[0]["outcome"] == "accepted"
            status, info = call(server, "GET", "/_mock/info")
            assert info["sending"] == {"apns": "sandbox", "fcm": "shop-project", "allowList": ["token:*"], "autoSend": False}
            exported = urllib.request.urlopen(server.url + "/_mock/state", timeout=10).read().decode()
            journal = urllib.request.urlopen(server.url + "/_mock/requests", timeout=10).read().decode()
            pushes = json.dumps([call(server, "GET", f"/_mock/push/{number}")[1] for number in (1, 2)])
        assert "/_mock/push/1/send" in server.final_log, "the debug log shows the admin calls, so it was read"
        with open(apns_key.path) as file:
            key_lines = file.read().splitlines()[1:-1]
        secrets = [*key_lines, account.private_key_id, account.info("x")["private_key"].splitlines()[1],
                   apns.provider_tokens[0], fcm.grants[0].access_token, key_file, apns_key.path]
        for text in (json.dumps(info), exported, journal, pushes, server.final_log):
            for secret in secrets:
                assert secret not in text


def test_a_bad_key_file_stops_the_server_at_start_with_the_setting_named(folder):
    wrong = os.path.join(folder, "not-a-key.p8")
    with open(wrong, "w") as file:
        file.write("hello")
    done = subprocess.run([BINARY, "serve", "--port", "0", "--in-memory", "--apns-key-file", wrong,
                           "--apns-key-id", "A1B2C3D4E5", "--apns-team-id", "TEAM123456"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert "apnsKeyFile" in done.stderr and "hello" not in done.stderr
    done = subprocess.run([BINARY, "serve", "--port", "0", "--in-memory", "--apns-key-file", wrong],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode != 0 and "go together" in done.stderr
    done = subprocess.run([BINARY, "serve", "--port", "0", "--in-memory", "--send-allow", "user:x"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode != 0 and "userKey:GLOB" in done.stderr


def test_keys_given_as_text_in_the_environment_send_as_files_do(certificates, apns_key, folder, monkeypatch):
    account = ServiceAccount("shop-project")
    with FakeAPNs(certificates, apns_key, topics=[BUNDLE_ID]) as apns, FakeFCM(certificates, account) as fcm:
        key_file = account.write(os.path.join(folder, "service-account.json"), fcm.token_uri)
        with open(apns_key.path) as file:
            monkeypatch.setenv("CAMPAIGN_MOCK_APNS_KEY", file.read())
        with open(key_file) as file:
            monkeypatch.setenv("CAMPAIGN_MOCK_FCM_SERVICE_ACCOUNT_JSON", file.read())
        apns.register(IOS_TOKEN)
        fcm.register(ANDROID_TOKEN)
        with LiveServer(*IOS_APP, "--apns-key-id", apns_key.key_id, "--apns-team-id", apns_key.team_id,
                        "--apns-url", apns.url, "--fcm-url", fcm.url, "--provider-ca", certificates.ca_path,
                        "--send-allow", "token:*") as server:
            register(server, "ios", IOS_TOKEN, "shop-ios")
            register(server, "android", ANDROID_TOKEN, "shop-android")
            call(server, "PUT", "/_mock/apps/shop-ios", {"bundleId": BUNDLE_ID})
            assert send(server, compose(server, IOS_TOKEN)["id"])[0]["outcome"] == "accepted"
            assert send(server, compose(server, ANDROID_TOKEN)["id"])[0]["outcome"] == "accepted"
        # A file and a text for the same key is ambiguous: refused at start, naming both.
        done = subprocess.run([BINARY, "serve", "--port", "0", "--in-memory", "--apns-key-file", apns_key.path,
                               "--apns-key-id", apns_key.key_id, "--apns-team-id", apns_key.team_id],
                              capture_output=True, text=True, timeout=30)
        assert done.returncode != 0 and "CAMPAIGN_MOCK_APNS_KEY" in done.stderr and "BEGIN" not in done.stderr
        monkeypatch.setenv("CAMPAIGN_MOCK_APNS_KEY", "not a key at all")
        done = subprocess.run([BINARY, "serve", "--port", "0", "--in-memory",
                               "--apns-key-id", apns_key.key_id, "--apns-team-id", apns_key.team_id],
                              capture_output=True, text=True, timeout=30)
        assert done.returncode != 0 and "CAMPAIGN_MOCK_APNS_KEY is not a PEM private key" in done.stderr
        assert "not a key at all" not in done.stderr


def test_the_push_command_reads_an_auto_sends_answers_instead_of_sending_twice(certificates, apns_key):
    with ios_sender(certificates, apns_key, "--send-allow", "token:*", "--auto-send", bundle_id=None) as (apns, server):
        # The bundle id given when composing is the topic (the application has none).
        done = subprocess.run([BINARY, "push", "--server", server.url, "--token", IOS_TOKEN, "--title", "Hi",
                               "--bundle-id", BUNDLE_ID, "--send"], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert f"accepted: apns token={IOS_TOKEN}" in done.stderr
        assert len(apns.requests) == 1
        assert apns.requests[0].headers["apns-topic"] == BUNDLE_ID


def test_auto_send_sends_a_push_a_soap_push_event_composed(certificates, apns_key):
    with ios_sender(certificates, apns_key, "--send-allow", "token:*", "--auto-send") as (apns, server):
        envelope = (
            '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:urn="urn:nms:rtEvent">'
            "<soapenv:Header/><soapenv:Body><urn:PushEvent><urn:sessiontoken/><urn:domEvent>"
            f'<rtEvent wishedChannel="41" type="rt_Sale" registrationToken="{IOS_TOKEN}" xmlns="">'
            '<mobileApp uuid="shop-ios" _operation="none"/><ctx><title>Flash sale</title></ctx></rtEvent>'
            "</urn:domEvent></urn:PushEvent></soapenv:Body></soapenv:Envelope>")
        request = urllib.request.Request(
            server.url + "/nl/jsp/soaprouter.jsp", data=envelope.encode(), method="POST",
            headers={"Content-Type": "text/xml; charset=utf-8", "SOAPAction": "nms:rtEvent#PushEvent",
                     "Authorization": "Bearer campaign-mock-bearer-token"})
        with urllib.request.urlopen(request, timeout=10) as response:
            answer = response.read().decode()
        event_id = answer.split("<plId", 1)[1].split(">", 1)[1].split("<", 1)[0]
        assert int(event_id) > 0, answer
        [request] = apns.wait_for_requests(1)
        assert request.payload["aps"]["alert"]["title"] == "Flash sale"
        status, push = call(server, "GET", f"/_mock/push/{event_id}")
        assert request.payload["_mId"] == push["messages"][0]["messageId"]


def test_a_topic_or_token_not_of_the_providers_form_never_reaches_it(certificates, apns_key):
    with ios_sender(certificates, apns_key, "--send-allow", "token:*") as (apns, server):
        push = compose(server, IOS_TOKEN)
        for topic in ("com.example.app/../x", "com.example.app\r\napns-priority: 5", "com.example.app?x", ""):
            status, answer = call(server, "POST", f"/_mock/push/{push['id']}/send", {"apnsTopic": topic})
            assert status == 400 and "not a bundle id" in answer["error"], (topic, answer)
        assert apns.requests == []
        # The suffixes some push types add to the bundle id are topics too.
        [sent] = send(server, push["id"], apnsTopic=BUNDLE_ID + ".voip")
        assert sent["outcome"] == "accepted", sent

        # A token that is not hexadecimal: blocked when the push is sent, 400 when it is named.
        strange = "abcd/../../2/x"
        register(server, "ios", strange, "shop-ios")
        other = compose(server, strange)
        [sent] = send(server, other["id"])
        assert sent["outcome"] == "blocked" and "not an APNs device token" in sent["explanation"], sent
        status, answer = call(server, "POST", f"/_mock/push/{other['id']}/send", {"registrationToken": strange})
        assert status == 400 and "not an APNs device token" in answer["error"]
        assert len(apns.requests) == 1

        register(server, "android", "token with spaces", "shop-android")
        [sent] = send(server, compose(server, "token with spaces")["id"])
        assert sent["outcome"] == "blocked" and "not an FCM registration token" in sent["explanation"], sent


def test_apns_key_refusals_are_explained_each(certificates, apns_key):
    with ios_sender(certificates, apns_key, "--send-allow", "token:*") as (apns, server):
        for reason, words in [("BadEnvironmentKeyIdInToken", "not enabled for the sandbox environment"),
                              ("BadEnvironmentKeyInToken", "not enabled for the sandbox environment"),
                              ("UnrelatedKeyIdInToken", "does not relate the key to 'com.example.app'"),
                              ("Forbidden", "may not send"),
                              ("BadCertificateEnvironment", "authenticates with a token")]:
            apns.fail(IOS_TOKEN, 403, reason)
            [sent] = send(server, compose(server, IOS_TOKEN)["id"])
            assert (sent["outcome"], sent["status"], sent["reason"]) == ("refused", 403, reason)
            assert words in sent["explanation"], sent["explanation"]


def test_a_clock_running_ahead_is_named_before_the_key_id(certificates, apns_key):
    with ios_sender(certificates, apns_key, "--send-allow", "token:*") as (apns, server):
        # APNs' clock an hour behind this machine's: the token's iat is in its future.
        apns.clock = lambda: time.time() - 3600
        [sent] = send(server, compose(server, IOS_TOKEN)["id"])
        assert (sent["status"], sent["reason"]) == (403, "InvalidProviderToken")
        explanation = sent["explanation"]
        assert "clock runs ahead" in explanation
        assert explanation.index("clock") < explanation.index("key id")


def test_a_connection_apns_dropped_while_idle_costs_no_send(certificates, apns_key):
    with ios_sender(certificates, apns_key, "--send-allow", "token:*") as (apns, server):
        assert send(server, compose(server, IOS_TOKEN)["id"])[0]["outcome"] == "accepted"
        # Closed without a GOAWAY, as an idle timeout, a NAT or a proxy does.
        apns.drop_connections()
        [sent] = send(server, compose(server, IOS_TOKEN)["id"])
        assert sent["outcome"] == "accepted", sent
        assert apns.connections == 2
        # Each message reached APNs once.
        assert [request.connection for request in apns.requests] == [1, 2]


@pytest.mark.parametrize("status, reason", [(429, "TooManyRequests"), (500, "InternalServerError"),
                                            (503, "ServiceUnavailable")])
def test_apns_throttling_and_failures_are_answered_once_not_retried(certificates, apns_key, status, reason):
    with ios_sender(certificates, apns_key, "--send-allow", "token:*") as (apns, server):
        apns.fail(IOS_TOKEN, status, reason)
        [sent] = send(server, compose(server, IOS_TOKEN)["id"])
        assert (sent["outcome"], sent["status"], sent["reason"]) == ("refused", status, reason)
        assert "does not send again by itself" in sent["explanation"]
        assert len(apns.requests) == 1
        # Sending again is the developer's call, and goes through.
        assert send(server, compose(server, IOS_TOKEN)["id"])[0]["outcome"] == "accepted"
        assert len(apns.requests) == 2


@contextlib.contextmanager
def android_sender(certificates, folder):
    account = ServiceAccount("shop-project")
    with FakeFCM(certificates, account) as fcm:
        key_file = account.write(os.path.join(folder, "service-account.json"), fcm.token_uri)
        fcm.register(ANDROID_TOKEN)
        with LiveServer(*IOS_APP, "--fcm-service-account", key_file, "--fcm-url", fcm.url,
                        "--provider-ca", certificates.ca_path, "--send-allow", "token:*") as server:
            register(server, "android", ANDROID_TOKEN, "shop-android")
            yield fcm, server


@pytest.mark.parametrize("error_code, status", [("QUOTA_EXCEEDED", 429), ("UNAVAILABLE", 503), ("INTERNAL", 500)])
@pytest.mark.parametrize("retry_after", [None, 30])
def test_fcm_quota_and_failures_are_answered_once_not_retried(certificates, folder, error_code, status, retry_after):
    with android_sender(certificates, folder) as (fcm, server):
        fcm.fail(ANDROID_TOKEN, error_code, retry_after=retry_after)
        [sent] = send(server, compose(server, ANDROID_TOKEN)["id"])
        assert (sent["outcome"], sent["status"], sent["reason"]) == ("refused", status, error_code)
        assert "does not send again by itself" in sent["explanation"]
        if retry_after:
            assert "wait 30 s (Retry-After)" in sent["explanation"]
        assert len(fcm.sends) == 1 and len(fcm.grants) == 1
        assert send(server, compose(server, ANDROID_TOKEN)["id"])[0]["outcome"] == "accepted"
        assert len(fcm.sends) == 2


def test_fcm_third_party_auth_error_is_not_taken_for_an_expired_access_token(certificates, folder):
    with android_sender(certificates, folder) as (fcm, server):
        fcm.fail(ANDROID_TOKEN, "THIRD_PARTY_AUTH_ERROR")
        [sent] = send(server, compose(server, ANDROID_TOKEN)["id"])
        assert (sent["outcome"], sent["status"], sent["reason"]) == ("refused", 401, "THIRD_PARTY_AUTH_ERROR")
        assert "APNs key or certificate uploaded to the Firebase project" in sent["explanation"]
        # No new access token was asked for, and the message was not sent again.
        assert len(fcm.grants) == 1 and len(fcm.sends) == 1


def test_a_token_of_another_project_is_explained_as_such(certificates, folder):
    with android_sender(certificates, folder) as (fcm, server):
        fcm.fail(ANDROID_TOKEN, "SENDER_ID_MISMATCH")
        [sent] = send(server, compose(server, ANDROID_TOKEN)["id"])
        assert (sent["status"], sent["reason"]) == (403, "SENDER_ID_MISMATCH")
        assert "another Firebase project than 'shop-project'" in sent["explanation"]
        register(server, "android", "made-up-token", "shop-android")
        [sent] = send(server, compose(server, "made-up-token")["id"])
        assert (sent["status"], sent["reason"]) == (400, "INVALID_ARGUMENT")
        assert "another Firebase project" not in sent["explanation"]


PAGE = {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}
ATTACKER_TOKEN = "ee" * 32


def push_event(server, token, title, headers=None):
    """A SOAP PushEvent for `token` on the default admin/admin session, sent as a page can send it (a simple
    request: text/plain); the push it composed, once its sends are stored."""
    envelope = (
        '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:urn="urn:nms:rtEvent">'
        "<soapenv:Header/><soapenv:Body><urn:PushEvent><urn:sessiontoken>admin/admin</urn:sessiontoken><urn:domEvent>"
        f'<rtEvent wishedChannel="41" type="rt_Sale" registrationToken="{token}" xmlns="">'
        f'<mobileApp uuid="shop-ios" _operation="none"/><ctx><title>{title}</title></ctx></rtEvent>'
        "</urn:domEvent></urn:PushEvent></soapenv:Body></soapenv:Envelope>")
    request = urllib.request.Request(
        server.url + "/nl/jsp/soaprouter.jsp", data=envelope.encode(), method="POST",
        headers={"Content-Type": "text/plain", "SOAPAction": "nms:rtEvent#PushEvent", **(headers or {})})
    with urllib.request.urlopen(request, timeout=10) as response:
        answer = response.read().decode()
    event_id = answer.split("<plId", 1)[1].split(">", 1)[1].split("<", 1)[0]
    assert int(event_id) > 0, answer
    # The auto-send answers on the sender's queue: its outcome is stored with the push.
    for _ in range(200):
        status, push = call(server, "GET", f"/_mock/push/{event_id}")
        if push.get("sends"):
            return push
        time.sleep(0.05)
    raise AssertionError(f"no send stored for push {event_id}")


def refused_to_a_page(request):
    """The status a request a page sends (cross-site Origin and Fetch Metadata) is answered with."""
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    return refused.value.code


def test_a_web_page_or_a_lan_peer_cannot_make_the_mock_send(certificates, apns_key):
    """The documented setup, --auto-send with a userKey: allow-list. A page (cross-site Origin) can neither
    register a token nor send a PushEvent: both are refused before anything is stored. A LAN peer registers
    its own token under the allowed userKey and sends a PushEvent: composed, but nothing reaches APNs. The
    developer's phone, trusted on this machine, gets a backend's push, and never a page's."""
    with ios_sender(certificates, apns_key, "--send-allow", "userKey:*@example.com", "--auto-send") as (apns, server):
        apns.register(ATTACKER_TOKEN)
        form = urllib.parse.urlencode(
            {"registrationToken": ATTACKER_TOKEN, "mobileAppUuid": "shop-ios", "userKey": "jane@example.com"})
        assert refused_to_a_page(urllib.request.Request(
            server.url + "/nms/mobile/1/registerIOS.jssp", data=form.encode(), headers=PAGE)) == 403
        assert call(server, "GET", f"/_mock/devices/{ATTACKER_TOKEN}")[0] == 404

        # Without browser headers, as a LAN peer sends it: composed and auto-sent, but the token is its own.
        register(server, "ios", ATTACKER_TOKEN, "shop-ios")
        [sent] = push_event(server, ATTACKER_TOKEN, "Free money")["sends"]
        assert sent["outcome"] == "blocked" and "not confirmed on this machine" in sent["explanation"], sent

        # The developer trusts their phone here: a backend's PushEvent reaches it; a page's is refused.
        assert call(server, "POST", f"/_mock/devices/{IOS_TOKEN}/trust")[0] == 200
        envelope = (
            '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:urn="urn:nms:rtEvent">'
            "<soapenv:Body><urn:PushEvent><urn:sessiontoken>admin/admin</urn:sessiontoken><urn:domEvent>"
            f'<rtEvent type="rt_Sale" registrationToken="{IOS_TOKEN}" xmlns=""><mobileApp uuid="shop-ios"/>'
            "<ctx><title>Free money</title></ctx></rtEvent></urn:domEvent></urn:PushEvent></soapenv:Body></soapenv:Envelope>")
        assert refused_to_a_page(urllib.request.Request(
            server.url + "/nl/jsp/soaprouter.jsp", data=envelope.encode(), method="POST",
            headers={"Content-Type": "text/plain", "SOAPAction": "nms:rtEvent#PushEvent", **PAGE})) == 403
        [sent] = push_event(server, IOS_TOKEN, "Flash sale")["sends"]
        assert sent["outcome"] == "accepted", sent
        assert [(request.device_token, request.payload["aps"]["alert"]["title"]) for request in apns.requests] == \
            [(IOS_TOKEN, "Flash sale")]

        # A page cannot trust a token for itself either.
        assert refused_to_a_page(urllib.request.Request(
            server.url + f"/_mock/devices/{ATTACKER_TOKEN}/trust", method="POST", headers=PAGE)) == 403


def test_a_token_pattern_confirms_its_token_and_no_other(certificates, apns_key):
    with ios_sender(certificates, apns_key, "--send-allow", f"token:{IOS_TOKEN}", "--auto-send") as (apns, server):
        apns.register(ATTACKER_TOKEN)
        register(server, "ios", ATTACKER_TOKEN, "shop-ios")
        [sent] = push_event(server, ATTACKER_TOKEN, "Free money")["sends"]
        assert sent["outcome"] == "blocked" and "no sendAllow pattern matches" in sent["explanation"], sent
        [sent] = push_event(server, IOS_TOKEN, "Flash sale")["sends"]
        assert sent["outcome"] == "accepted", sent
        assert [request.device_token for request in apns.requests] == [IOS_TOKEN]
