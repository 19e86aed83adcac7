"""One device's trust, its removal, the list of composed pushes, and the warning of a list filtered by an
unknown key (docs/admin-api.md), through a real campaign-mock on a free port.
"""
import json
import urllib.error
import urllib.parse
import urllib.request

from live_server import LiveServer

IOS_TOKEN = "80f1a2b3c4d5e6f708192a3b4c5d6e7f80f1a2b3c4d5e6f708192a3b4c5d6e7f"
OTHER_TOKEN = "90f1a2b3c4d5e6f708192a3b4c5d6e7f80f1a2b3c4d5e6f708192a3b4c5d6e7f"
APPS = ["--app", "ios:shop-ios", "--app", "android:shop-android"]


def call(server, method, path, body=None, raw=None):
    """(status, JSON answer) of an admin call."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(server.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def register(server, platform, token, app, user_key="jane@example.com"):
    form = urllib.parse.urlencode({"registrationToken": token, "mobileAppUuid": app, "userKey": user_key}).encode()
    path = "/nms/mobile/1/registerIOS.jssp" if platform == "ios" else "/nms/mobile/1/registerAndroid.jssp"
    with urllib.request.urlopen(urllib.request.Request(server.url + path, data=form), timeout=10) as response:
        assert response.status == 200


def hit(server, path):
    with urllib.request.urlopen(server.url + path, timeout=10) as response:
        assert response.status == 200


def test_trust_is_state_on_the_device_and_its_own_route():
    with LiveServer(*APPS, "--send-allow", "userKey:*@example.com") as server:
        register(server, "ios", IOS_TOKEN, "shop-ios")
        device = call(server, "GET", f"/_mock/devices/{IOS_TOKEN}")[1]
        # Matched by a pattern, but not trusted: the two are said apart.
        assert device["trusted"] is False and device["sendAllowMatch"] == "userKey:*@example.com"
        assert call(server, "GET", f"/_mock/devices/{IOS_TOKEN}/trust") == \
            (200, {"registrationToken": IOS_TOKEN, "trusted": False})
        assert call(server, "POST", f"/_mock/devices/{IOS_TOKEN}/trust")[0] == 200
        assert call(server, "GET", f"/_mock/devices/{IOS_TOKEN}/trust")[1]["trusted"] is True
        assert call(server, "GET", f"/_mock/devices/{IOS_TOKEN}")[1]["trusted"] is True
        [listed] = call(server, "GET", "/_mock/devices")[1]["devices"]
        assert listed["trusted"] is True
        assert call(server, "DELETE", f"/_mock/devices/{IOS_TOKEN}/trust")[0] == 200
        assert call(server, "GET", f"/_mock/devices")[1]["devices"][0]["trusted"] is False
        assert call(server, "GET", "/_mock/devices/ffff/trust")[0] == 404


def test_a_device_no_pattern_matches_has_no_match_and_a_token_pattern_is_named_first():
    with LiveServer(*APPS, "--send-allow", "userKey:*@example.com", "--send-allow", "token:80f1*") as server:
        register(server, "ios", IOS_TOKEN, "shop-ios")
        register(server, "ios", OTHER_TOKEN, "shop-ios", user_key="joe@elsewhere.org")
        assert call(server, "GET", f"/_mock/devices/{IOS_TOKEN}")[1]["sendAllowMatch"] == "token:80f1*"
        other = call(server, "GET", f"/_mock/devices/{OTHER_TOKEN}")[1]
        assert "sendAllowMatch" not in other and other["trusted"] is False


def test_an_import_never_grants_trust():
    with LiveServer(*APPS) as server:
        register(server, "ios", IOS_TOKEN, "shop-ios")
        assert call(server, "POST", f"/_mock/devices/{IOS_TOKEN}/trust")[0] == 200
        with urllib.request.urlopen(server.url + "/_mock/state", timeout=10) as response:
            snapshot = response.read()
        assert b"trust" not in snapshot
        assert call(server, "PUT", "/_mock/state", raw=snapshot)[0] == 200
        # The same device, back from the snapshot: not trusted until trusted again here.
        assert call(server, "GET", f"/_mock/devices/{IOS_TOKEN}")[1]["trusted"] is False
        assert call(server, "GET", f"/_mock/devices/{IOS_TOKEN}/trust")[1]["trusted"] is False


def test_removing_a_device_takes_its_history_trust_and_findings_and_keeps_its_events_and_pushes():
    with LiveServer(*APPS) as server:
        # An APNs token under the Android key: a token-platform-mismatch finding about this device.
        register(server, "android", IOS_TOKEN, "shop-android")
        register(server, "android", IOS_TOKEN, "shop-android", user_key="jane2@example.com")
        register(server, "ios", OTHER_TOKEN, "shop-ios")
        findings = call(server, "GET", f"/_mock/checks?token={IOS_TOKEN}")[1]["findings"]
        assert [f["rule"] for f in findings] == ["token-platform-mismatch"], findings
        status, push = call(server, "POST", "/_mock/push", {"token": IOS_TOKEN, "title": "Sale", "body": "Hi"})
        assert status == 201, push
        hit(server, push["messages"][0]["tracking"]["receive"])
        hit(server, push["messages"][0]["tracking"]["open"])
        assert call(server, "POST", f"/_mock/devices/{IOS_TOKEN}/trust")[0] == 200

        status, answer = call(server, "DELETE", f"/_mock/devices/{IOS_TOKEN}")
        assert status == 200, answer
        assert answer == {
            "deleted": {"registrationToken": IOS_TOKEN, "app": "shop-android", "registrations": 2,
                        "eventsUnlinked": 2, "messagesUnlinked": 1, "pushesKept": 1},
            "trustRemoved": True, "findingsCleared": 1}
        assert call(server, "GET", f"/_mock/devices/{IOS_TOKEN}")[0] == 404
        assert call(server, "GET", f"/_mock/checks?token={IOS_TOKEN}")[1]["findings"] == []
        # Its events and push stay, linked to no device; the other device is untouched.
        events = call(server, "GET", f"/_mock/events?deliveryId={push['deliveryId']}")[1]["events"]
        assert len(events) == 2
        assert call(server, "GET", f"/_mock/push/{push['id']}")[0] == 200
        assert call(server, "GET", "/_mock/devices")[1]["total"] == 1
        assert call(server, "DELETE", f"/_mock/devices/{IOS_TOKEN}")[0] == 404
        # The device registers again: new, with no trust and one registration.
        register(server, "android", IOS_TOKEN, "shop-android")
        again = call(server, "GET", f"/_mock/devices/{IOS_TOKEN}")[1]
        assert again["trusted"] is False and again["registrationCount"] == 1


def test_a_token_in_two_applications_is_removed_from_the_one_app_names():
    with LiveServer("--app", "ios:shop-ios", "--app", "ios:club-ios") as server:
        register(server, "ios", IOS_TOKEN, "shop-ios")
        register(server, "ios", IOS_TOKEN, "club-ios")
        assert call(server, "POST", f"/_mock/devices/{IOS_TOKEN}/trust")[0] == 200
        status, answer = call(server, "DELETE", f"/_mock/devices/{IOS_TOKEN}")
        assert status == 409 and "several applications (shop-ios, club-ios); add ?app=KEY" in answer["error"], answer
        status, answer = call(server, "DELETE", f"/_mock/devices/{IOS_TOKEN}?app=club-ios")
        assert status == 200 and answer["deleted"]["app"] == "club-ios", answer
        # Trust is by token, and another application still has it.
        assert answer["trustRemoved"] is False
        assert call(server, "GET", f"/_mock/devices/{IOS_TOKEN}")[1]["application"]["integrationKey"] == "shop-ios"
        assert call(server, "GET", f"/_mock/devices/{IOS_TOKEN}/trust")[1]["trusted"] is True
        assert call(server, "DELETE", f"/_mock/devices/{IOS_TOKEN}?app=club-ios")[0] == 404
        assert call(server, "DELETE", f"/_mock/devices/{IOS_TOKEN}?bogus=1")[0] == 400


def test_composed_pushes_are_listed_newest_first_with_their_sends_and_hits():
    with LiveServer(*APPS) as server:
        assert call(server, "GET", "/_mock/push") == (200, {"pushes": [], "total": 0})
        register(server, "ios", IOS_TOKEN, "shop-ios")
        pushes = [call(server, "POST", "/_mock/push", {"token": IOS_TOKEN, "title": f"n{n}", "body": "b"})[1]
                  for n in range(3)]
        hit(server, pushes[1]["messages"][0]["tracking"]["receive"])
        hit(server, pushes[1]["messages"][0]["tracking"]["open"])
        hit(server, pushes[1]["messages"][0]["tracking"]["open"])
        status, page = call(server, "GET", "/_mock/push?limit=2")
        assert status == 200, page
        assert [p["id"] for p in page["pushes"]] == [pushes[2]["id"], pushes[1]["id"]]
        assert page["total"] == 3 and page["nextCursor"] == pushes[1]["id"]
        assert page["pushes"][1]["hits"] == {"receive": 1, "open": 2}
        assert page["pushes"][0]["hits"] == {"receive": 0, "open": 0} and page["pushes"][0]["sends"] == []
        rest = call(server, "GET", f"/_mock/push?before={page['nextCursor']}")[1]
        assert [p["id"] for p in rest["pushes"]] == [pushes[0]["id"]] and "nextCursor" not in rest
        assert "hits" not in call(server, "GET", f"/_mock/push/{pushes[1]['id']}")[1]
        assert call(server, "GET", "/_mock/push?limit=0")[0] == 400
        assert call(server, "GET", "/_mock/push?app=x")[0] == 400


def test_a_list_filtered_by_an_unknown_key_says_so_as_a_wait_does():
    with LiveServer(*APPS) as server:
        register(server, "ios", IOS_TOKEN, "shop-ios")
        status, page = call(server, "GET", "/_mock/devices?app=YOUR-KEY")
        assert status == 200 and page["devices"] == [] and page["total"] == 0
        assert page["warning"] == "no application has the key 'YOUR-KEY' (keys: shop-android, shop-ios)"
        status, waited = call(server, "GET", "/_mock/wait?for=registration&app=YOUR-KEY&timeout=100ms")
        assert status == 408 and page["warning"] in waited["error"], waited
        assert "warning" not in call(server, "GET", "/_mock/devices?app=shop-ios")[1]
        assert call(server, "GET", "/_mock/requests?app=YOUR-KEY")[1]["warning"] == page["warning"]
        assert "warning" not in call(server, "GET", "/_mock/requests?app=shop-ios")[1]


def test_a_reset_of_an_applications_devices_takes_back_the_trust_of_their_tokens_only():
    android_token = "fcm-" + "a" * 60
    with LiveServer(*APPS) as server:
        register(server, "ios", IOS_TOKEN, "shop-ios")
        register(server, "android", android_token, "shop-android")
        for token in (IOS_TOKEN, android_token):
            assert call(server, "POST", f"/_mock/devices/{token}/trust")[0] == 200
        assert call(server, "POST", "/_mock/reset?only=devices&app=shop-ios")[0] == 200
        # Its device is gone, so is its trust; the other application's device keeps its own.
        assert call(server, "GET", f"/_mock/devices/{IOS_TOKEN}")[0] == 404
        assert call(server, "GET", f"/_mock/devices/{android_token}/trust")[1]["trusted"] is True
        register(server, "ios", IOS_TOKEN, "shop-ios")
        assert call(server, "GET", f"/_mock/devices/{IOS_TOKEN}/trust")[1]["trusted"] is False
        assert call(server, "POST", "/_mock/reset?only=devices")[0] == 200
        register(server, "android", android_token, "shop-android")
        assert call(server, "GET", f"/_mock/devices/{android_token}/trust")[1]["trusted"] is False


def test_removing_a_device_with_a_long_token_clears_the_findings_about_it():
    """Tokens up to 4 KiB are taken, and the checks keep a long one shortened (with a hash): removing the
    device still finds what they remember of it."""
    long_token = "f" * 300
    with LiveServer(*APPS) as server:
        register(server, "ios", long_token, "shop-ios", user_key="")
        register(server, "ios", IOS_TOKEN, "shop-ios")
        register(server, "ios", OTHER_TOKEN, "shop-ios", user_key="joe@example.com")
        findings = call(server, "GET", "/_mock/checks")[1]["findings"]
        assert any(finding["rule"] == "user-key-missing" for finding in findings), findings
        status, removed = call(server, "DELETE", f"/_mock/devices/{long_token}")
        assert status == 200 and removed["findingsCleared"] >= 1, removed
        after = call(server, "GET", "/_mock/checks")[1]["findings"]
        assert not any(long_token[:200] in json.dumps(finding) for finding in after), after
