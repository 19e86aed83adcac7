"""Adobe's own AEP Campaign Classic extension for iOS (AEPCore 5.11.0, AEPCampaignClassic 5.0.0), built for
Linux from AEP_IOS_SDK_DIR with this project's driver app (Tests/Contract/aep_ios_driver), run against the
mock over HTTPS as an app's test suite runs it: several tests in one run, each with its mark.

One run of the driver is one launch of the app; its data folder (CFFIXED_USER_HOME) is the install, so the
same folder again is a relaunch and a new one a fresh install. The SDK is built in .build-aep/ (ignored by
git); the first build takes minutes, later ones seconds. Without AEP_IOS_SDK_DIR the test is skipped.
"""
import json
import os
import pathlib
import subprocess

import pytest
import requests

from live_server import BINARY, LiveServer

ROOT = pathlib.Path(__file__).resolve().parents[2]
SDK = os.environ.get("AEP_IOS_SDK_DIR")
BUILD = ROOT / ".build-aep"
KEY = "aep-ios-key"
TOKEN = "6165702d696f732d746f6b656e2d6f662d7468652d666972737420696e7374616c"

pytestmark = pytest.mark.skipif(
    not SDK, reason="AEP_IOS_SDK_DIR is not set: point it at Adobe's AEP iOS extension built for Linux "
                    "(../shared/clients/aep-ios, whose README says how); .ci/run sets it when it is there")


@pytest.fixture(scope="module")
def driver():
    sdk = pathlib.Path(SDK)
    package = BUILD / "package"
    BUILD.mkdir(exist_ok=True)
    subprocess.run([sdk / "linux/prepare.sh", package, ROOT / "Tests/Contract/aep_ios_driver"], check=True)
    built = subprocess.run(["swift", "build", "--package-path", package, "--product", "aep-campaign-driver"],
                           capture_output=True, text=True, timeout=3600)
    assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-4000:]
    cainfo = BUILD / "libcainfo.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", cainfo, sdk / "linux/cainfo/cainfo.c", "-ldl"],
                   check=True)
    return package / ".build/debug/aep-campaign-driver", cainfo


@pytest.fixture(scope="module")
def mock(tmp_path_factory):
    caroot = tmp_path_factory.mktemp("caroot")
    with LiveServer("--tls", "auto", "--tls-port", "0", "--app", f"ios:{KEY}",
                    env={"CAMPAIGN_MOCK_CAROOT": str(caroot)}) as server:
        ca = caroot / "served-ca.pem"
        ca.write_bytes(requests.get(f"{server.url}/_mock/ca", params={"format": "pem"}).content)
        server.https = requests.get(f"{server.url}/_mock/info").json()["httpsURL"]
        server.ca = ca
        yield server


class App:
    """The app under test: `launch` runs the driver once in an install's data folder."""

    def __init__(self, driver, mock, tmp_path):
        self.binary, self.cainfo = driver
        self.mock = mock
        self.tmp_path = tmp_path

    def install(self, name):
        folder = self.tmp_path / name
        folder.mkdir()
        return folder

    def environment(self, install, key):
        return dict(os.environ, CFFIXED_USER_HOME=str(install), LD_PRELOAD=str(self.cainfo),
                    AEP_LINUX_CAINFO=str(self.mock.ca), AEP_HOST=self.mock.https.removeprefix("https://"),
                    AEP_KEY=key, AEP_LINUX_SYSTEM_VERSION="17.0")

    def launch(self, install, *commands, key=KEY):
        run = subprocess.run([str(self.binary), *commands], capture_output=True, text=True,
                             env=self.environment(install, key), timeout=120)
        assert run.returncode == 0, run.stdout + run.stderr
        return [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]

    def launch_until(self, install, *commands, until, key=KEY):
        """Launches the app and keeps it running (the extension sends its hits on its own time) until
        `until()`, which waits on the mock for what the app must have sent, returns; then quits it."""
        app = subprocess.Popen([str(self.binary), *commands, "sleep:120000"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, env=self.environment(install, key))
        try:
            return until()
        finally:
            app.terminate()
            app.wait(timeout=30)

    def mark(self):
        return requests.post(f"{self.mock.url}/_mock/mark").json()["mark"]

    def wait(self, kind, since, timeout="15s", **filters):
        return requests.get(f"{self.mock.url}/_mock/wait",
                            params={"for": kind, "since": since, "timeout": timeout, **filters})


@pytest.fixture
def app(driver, mock, tmp_path):
    return App(driver, mock, tmp_path)


def test_a_suite_of_tests_in_one_run_with_marks(app):
    install = app.install("first-install")
    # Test 1: a fresh install registers, with its params typed.
    first = app.mark()
    [outcome] = app.launch(install, f"register:{TOKEN}:jane@example.com:typed")
    assert outcome["registrationstatus"] is True, outcome
    registered = app.wait("registration", first, app=KEY)
    assert registered.status_code == 200, registered.text
    item = registered.json()["items"][0]
    assert item["registrationToken"] == TOKEN and item["userKey"] == "jane@example.com"
    types = {param["name"]: param["type"] for param in item["params"]}
    assert types["plan"] == "string" and types["points"] == "integer", item["params"]

    # Test 2: the app is launched again; the identical registration is not sent, and the wait says why.
    second = app.mark()
    [outcome] = app.launch(install, f"register:{TOKEN}:jane@example.com:typed")
    assert outcome["registrationstatus"] is True, outcome
    nothing = app.wait("registration", second, timeout="2s", app=KEY)
    assert nothing.status_code == 408, nothing.text
    error = nothing.json()["error"]
    assert f"token {TOKEN}" in error and "sends no registration identical to its last one" in error, error

    # Test 3: the device of test 1 is still there and receives this test's push; receive and click linked.
    third = app.mark()
    push = requests.post(f"{app.mock.url}/_mock/push", json={"token": TOKEN, "title": "Sale"})
    assert push.status_code == 201, push.text
    message = push.json()["messages"][0]
    user_info = json.dumps(message["apns"])
    hits = app.launch_until(install, f"receive:{user_info}", f"click:{user_info}",
                            until=lambda: [app.wait(kind, third, token=TOKEN) for kind in ("receive", "open")])
    for hit in hits:
        assert hit.status_code == 200, hit.text
        assert hit.json()["items"][0]["linked"]["messageId"] == message["messageId"]

    # The checks are silent on this clean app, for each test and for the run.
    for mark in (first, second, third):
        report = requests.get(f"{app.mock.url}/_mock/checks", params={"since": mark, "severity": "warning"}).json()
        assert report["findings"] == [], report


def test_a_failed_registration_is_sent_again_and_opting_out_and_in_registers_again(app):
    install = app.install("faulted-install")
    token = TOKEN[:-4] + "fa17"
    start = app.mark()
    fault = requests.post(f"{app.mock.url}/_mock/faults",
                          json={"endpoint": "registration-ios", "status": 500, "times": 1})
    assert fault.status_code == 201, fault.text
    [failed] = app.launch(install, f"register:{token}:jim:typed")
    assert failed["registrationstatus"] is False, failed
    # The extension kept nothing: the same registration goes out again.
    [again] = app.launch(install, f"register:{token}:jim:typed")
    assert again["registrationstatus"] is True, again
    assert app.wait("registration", start, token=token).status_code == 200

    # Opting out deletes the stored registration; opted in again, the same one is sent.
    opted = app.mark()
    [out] = app.launch(install, "privacy:optedout")
    assert out["applied"] is True, out
    app.launch(install, "privacy:optedin", f"register:{token}:jim:typed")
    assert app.wait("registration", opted, token=token).status_code == 200


def test_the_checks_find_a_broken_app(app):
    start = app.mark()
    # A build with a mistyped key, and an app that tracks the click but never the receive.
    app.launch(app.install("typo-install"), f"register:{TOKEN[:-4]}7e57:jim:typed", key=KEY + "x")
    push = requests.post(f"{app.mock.url}/_mock/push", json={"token": TOKEN, "title": "Sale"}).json()
    app.launch_until(app.install("broken-install"), f"click:{json.dumps(push['messages'][0]['apns'])}",
                     until=lambda: app.wait("open", start, token=TOKEN))
    check = subprocess.run([BINARY, "check", "--server", app.mock.url, "--since", start, "--wait",
                            "--format", "json"], capture_output=True, text=True, timeout=60)
    assert check.returncode == 1, check.stdout + check.stderr
    rules = {finding["rule"] for finding in json.loads(check.stdout)["findings"]}
    assert {"registration-refused", "open-without-receive"} <= rules, rules
    assert "waited" in check.stderr


def test_what_the_extension_sends_for_params_and_hits(app):
    """What docs/protocol.md §3.4, §4.1 and §4.2 say of the iOS extension."""
    start = app.mark()
    token = TOKEN[:-4] + "9a7a"
    # §3.4: Swift values keep their types; NSNumbers from JSONSerialization do not.
    app.launch(app.install("typed-install"), f"register:{token}:jim:typed")
    typed = app.wait("registration", start, token=token).json()["items"][0]["params"]
    assert {(p["name"], p["value"], p["type"]) for p in typed} == {
        ("plan", "gold", "string"), ("points", "42", "integer"), ("vip", "true", "boolean"),
        ("ratio", "1.5", "decimal")}, typed
    json_token = TOKEN[:-4] + "150e"
    params = json.dumps({"flag": True, "off": False, "whole": 2.0, "half": 1.5, "n": 7, "s": "x", "nul": None,
                         "list": [1], "object": {"a": 1}})
    app.launch(app.install("json-install"), f"register:{json_token}:jim:{params}")
    from_json = app.wait("registration", start, token=json_token).json()["items"][0]["params"]
    assert {(p["name"], p["value"], p["type"]) for p in from_json} == {
        ("flag", "1", "integer"), ("off", "0", "integer"), ("whole", "2", "integer"), ("half", "1.5", "decimal"),
        ("n", "7", "integer"), ("s", "x", "string")}, from_json

    # §4.1: the SDK's User-Agent and Accept-Language on a tracking hit; §4.2: a large _mId's low 32 bits.
    hits = app.mark()
    app.launch_until(app.install("hits-install"), 'click:{"_mId": "4294967297", "_dId": "7a001"}',
                     until=lambda: app.wait("request", hits, endpoint="tracking"))
    entry = requests.get(f"{app.mock.url}/_mock/requests", params={"since": hits, "endpoint": "tracking"}).json()
    journaled = requests.get(f"{app.mock.url}/_mock/requests/{entry['requests'][0]['id']}").json()
    assert journaled["target"] == "/r/?id=h01,7a001,2", journaled
    headers = {name.lower(): value for name, value in journaled["headers"]}
    assert headers["user-agent"].startswith("Mozilla/5.0 (iPhone; CPU OS ") and headers.get("accept-language")
