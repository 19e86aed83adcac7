"""What a device or a page chose reaches the terminal and CI logs escaped (docs/security.md, "Terminal and CI
output"), and a page can neither drive the SOAP router nor run a tool (docs/security.md, "Cross-site
requests"): through the real binary, as a user runs it.
"""
import json
import os
import subprocess
import tempfile
import urllib.error
import urllib.request

import pytest

from live_server import BINARY, LiveServer
from push_providers import APNsKey, TestCertificates
from test_push_sending import IOS_TOKEN, ios_sender, register

# A clipboard write (iTerm2, kitty, WezTerm, tmux), a window title, a cleared screen, DEL and a C1 control.
HOSTILE = "jane\x1b]52;c;aGk=\x07\x1b]0;owned\x07\x1b[2J\x7f\u0085\r\n::add-mask::x@example.com"
RAW = [b"\x1b", b"\x07", b"\x7f", "\u0085".encode(), b"\r"]


def assert_no_controls(output, what):
    for raw in RAW:
        assert raw not in output, f"{what} holds {raw!r}: {output!r}"


@pytest.fixture
def sender():
    with tempfile.TemporaryDirectory() as folder:
        certificates, key = TestCertificates(folder), APNsKey(folder)
        with ios_sender(certificates, key, "--send-allow", "userKey:nobody@example.com") as (apns, server):
            register(server, "ios", IOS_TOKEN, "shop-ios", user_key=HOSTILE)
            yield server


def test_push_send_escapes_what_the_device_chose(sender):
    """The send's explanation quotes the device's userKey: the line shows its escapes, not its effects."""
    result = subprocess.run([BINARY, "push", "--server", sender.url, "--token", IOS_TOKEN, "--title", "Sale",
                             "--send"], capture_output=True, timeout=60)
    assert result.returncode == 1, result.stderr
    assert_no_controls(result.stderr, "stderr")
    assert_no_controls(result.stdout, "stdout")
    line = result.stderr.decode().splitlines()[0]
    assert line.startswith("blocked: apns token=" + IOS_TOKEN)
    assert "jane\\u{1B}]52;c;aGk=\\u{7}\\u{1B}]0;owned\\u{7}\\u{1B}[2J\\u{7F}\\u{85}\\r\\n::add-mask::x" in line
    # No line of the output begins with a workflow command.
    assert not any(text.startswith("::") for text in result.stderr.decode().splitlines())


def test_the_servers_json_escapes_del_and_c1_and_the_cli_json_stays_json(sender):
    with urllib.request.urlopen(sender.url + "/_mock/devices", timeout=10) as response:
        body = response.read()
    assert_no_controls(body, "GET /_mock/devices")
    [device] = json.loads(body)["devices"]
    assert device["userKey"] == HOSTILE
    result = subprocess.run([BINARY, "check", "--server", sender.url, "--json"], capture_output=True, timeout=30)
    assert_no_controls(result.stdout, "check --json")
    json.loads(result.stdout)


def test_a_soap_call_from_another_sites_page_is_refused():
    envelope = ('<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" '
                'xmlns:urn="urn:xtk:session"><soapenv:Body><urn:Logon><urn:sessiontoken/><urn:strLogin>admin'
                '</urn:strLogin><urn:strPassword>admin</urn:strPassword><urn:elemParameters/></urn:Logon>'
                '</soapenv:Body></soapenv:Envelope>').encode()

    def logon(server, headers):
        request = urllib.request.Request(server.url + "/nl/jsp/soaprouter.jsp", data=envelope, headers={
            "Content-Type": "text/plain", "SOAPAction": "xtk:session#Logon", **headers})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    with LiveServer() as server:
        host = server.url.split("//")[1]
        for headers in [{"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"},
                        {"Origin": f"http://{host}", "Sec-Fetch-Site": "cross-site"}]:
            status, answer = logon(server, headers)
            assert status == 403 and "does not answer a page on" in answer, (headers, status, answer)
        # Backends send neither header; the console's own origin may call it.
        assert logon(server, {})[0] == 200
        assert logon(server, {"Origin": f"http://{host}", "Sec-Fetch-Site": "same-origin"})[0] == 200


def fake_adb(folder):
    path = os.path.join(folder, "adb")
    with open(path, "w") as script:
        script.write(f"#!/bin/sh\necho \"adb $*\" >> '{folder}/runs'\necho 'List of devices attached'\n")
    os.chmod(path, 0o755)
    return os.path.join(folder, "runs")


def status(url, headers=None):
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_a_tool_runs_only_for_a_request_a_page_cannot_send():
    """A GET with neither Origin nor Sec-Fetch-Site is what curl sends, and also what a cross-site <img> is in a
    browser without Fetch Metadata: it runs no tool without Campaign-Mock-Client or Authorization."""
    with tempfile.TemporaryDirectory() as folder:
        runs = fake_adb(folder)
        with LiveServer(env={"PATH": folder}) as server:
            code, answer = status(server.url + "/_mock/emulators")
            assert code == 428 and "Campaign-Mock-Client" in answer, answer
            code, answer = status(server.url + "/_mock/push/1/emulator")
            assert not os.path.exists(runs)
            assert status(server.url + "/_mock/emulators", {"Campaign-Mock-Client": "x"})[0] == 200
            with open(runs) as recorded:
                assert recorded.read() == "adb devices\n"
        with LiveServer("--admin-token", "s3cret-token", env={"PATH": folder}) as server:
            assert status(server.url + "/_mock/emulators", {"Authorization": "Bearer s3cret-token"})[0] == 200
