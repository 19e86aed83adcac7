"""Web pages attacking campaign-mock from a real headless Chromium (docs/security.md).

A page on another site must not read or change the mock: DNS rebinding (the attacker's name resolving to
127.0.0.1, simulated with Chromium's --host-resolver-rules), cross-site no-cors `fetch` and form posts,
images that would run xcrun or adb, a registration and a SOAP PushEvent that would make --auto-send push
the page's text, and framing the console. The console on its own origin keeps working (test_console.py).
"""
import http.server
import json
import os
import tempfile
import threading

import pytest
import requests

from live_server import LiveServer
from test_console import CHROMIUM, DRIVER, FORM, IOS_BODY, find, wait_for
from test_push_sending import ATTACKER_TOKEN, IOS_TOKEN, apns_key, call, certificates, folder, ios_sender

assert apns_key and certificates and folder  # the fixtures, imported for the tests below

pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                reason="needs Chromium and its driver (Debian: chromium chromium-driver)")

EVIL = "evil.example"


@pytest.fixture
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,900",
                     "--disable-background-networking", "--disable-component-update", "--no-first-run",
                     # The attacker's name resolves to this machine, as a rebinding DNS server would make it.
                     f"--host-resolver-rules=MAP {EVIL} 127.0.0.1"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


class AttackerSite:
    """A web server on port 0 serving one page: what a malicious site would serve."""

    def __init__(self, page):
        body = page.encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://{EVIL}:{self.server.server_address[1]}/"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_):
        self.server.shutdown()
        self.server.server_close()


def register(server):
    assert requests.post(f"{server.url}/nms/mobile/1/registerIOS.jssp", data=IOS_BODY, headers=FORM).text == "OK"


def test_dns_rebinding_reads_and_wipes_nothing(browser):
    with LiveServer() as server:
        register(server)
        port = server.url.rsplit(":", 1)[1]
        # The page's origin is evil.example:PORT, now resolving to the mock: its fetches are same-origin.
        browser.get(f"http://{EVIL}:{port}/_mock/ui/")
        assert "--allowed-host evil.example" in browser.page_source
        results = browser.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const paths = ['/_mock/state', '/_mock/devices', '/_mock/requests', '/_mock/info', '/_mock/stream'];
            Promise.all(paths.map(p => fetch(p).then(r => r.status)))
              .then(reads => fetch('/_mock/reset', {method: 'POST'}).then(r => done([...reads, r.status])))
              .catch(e => done(String(e)));
        """)
        assert results == [403] * 6, results
        assert len(requests.get(f"{server.url}/_mock/devices").json()["devices"]) == 1


def test_cross_site_posts_change_nothing(browser):
    with LiveServer() as server:
        register(server)
        page = f"""<!doctype html><body>
        <form id="wipe" method="POST" action="{server.url}/_mock/reset" enctype="text/plain" target="sink">
          <input name="x" value="y"></form><iframe name="sink"></iframe>
        <script>
          const fault = JSON.stringify({{endpoint: "any", status: 500, body: "pwned"}});
          Promise.all([
            fetch("{server.url}/_mock/faults", {{method: "POST", mode: "no-cors", body: fault,
                                                 headers: {{"Content-Type": "text/plain"}}}}),
            fetch("{server.url}/_mock/push", {{method: "POST", mode: "no-cors",
                                               body: new URLSearchParams({{title: "x"}})}}),
            fetch("{server.url}/_mock/apps", {{method: "POST", mode: "no-cors", body: new FormData()}}),
          ]).finally(() => {{ document.getElementById("wipe").submit(); document.title = "sent"; }});
        </script></body>"""
        with AttackerSite(page) as site:
            browser.get(site.url)
            wait_for(lambda: browser.title == "sent", what="the attack to be sent")
            # The form post navigates the frame: wait until the mock answered it.
            wait_for(lambda: browser.execute_script(
                "try { return frames['sink'].location.href } catch (e) { return 'answered' }") == "answered",
                what="the form post's answer")
        assert requests.get(f"{server.url}/_mock/faults").json()["faults"] == []
        assert len(requests.get(f"{server.url}/_mock/devices").json()["devices"]) == 1
        assert [a["integrationKey"] for a in requests.get(f"{server.url}/_mock/apps").json()["apps"]] == [
            "campaign-mock-demo-android", "campaign-mock-demo-ios"]


def test_the_console_cannot_be_framed(browser):
    with LiveServer() as server:
        page = f'<!doctype html><iframe id="f" src="{server.url}/_mock/ui/" width="800" height="600"></iframe>'
        with AttackerSite(page) as site:
            browser.get(site.url)
            wait_for(lambda: any("frame" in entry["message"].lower() and ("ancestors" in entry["message"]
                                                                           or "X-Frame-Options" in entry["message"])
                                 for entry in browser.get_log("browser")),
                     what="Chromium refusing to frame the console")
        headers = requests.get(f"{server.url}/_mock/ui/").headers
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert headers["X-Frame-Options"] == "DENY"


def fake_tools(folder):
    """A fake `adb` and `xcrun` in `folder` that record each run in `folder/runs`, as PATH for the server."""
    for name in ("adb", "xcrun"):
        path = os.path.join(folder, name)
        with open(path, "w") as script:
            script.write(f"#!/bin/sh\necho \"{name} $*\" >> '{folder}/runs'\necho 'List of devices attached'\n")
        os.chmod(path, 0o755)
    return os.path.join(folder, "runs")


def test_a_page_runs_no_tool(browser):
    with tempfile.TemporaryDirectory() as folder:
        runs = fake_tools(folder)
        with LiveServer(env={"PATH": folder}) as server:
            # Images and a no-cors fetch: GETs any page may send anywhere.
            page = f"""<!doctype html><body>
            <img src="{server.url}/_mock/emulators"><img src="{server.url}/_mock/simulators">
            <script>
              Promise.all([...document.images].map((image) => new Promise((done) => {{
                image.onerror = image.onload = done; }})))
                .then(() => fetch("{server.url}/_mock/emulators", {{mode: "no-cors"}}))
                .finally(() => {{ document.title = "sent"; }});
            </script></body>"""
            with AttackerSite(page) as site:
                browser.get(site.url)
                wait_for(lambda: browser.title == "sent", what="the requests to be sent")
            assert not os.path.exists(runs)
            # The same call from a client that is not a browser, with the header a page cannot send, runs the tool;
            # without it, 428 (a browser without Fetch Metadata sends an <img> GET as curl does).
            assert requests.get(f"{server.url}/_mock/emulators").status_code == 428
            assert requests.get(f"{server.url}/_mock/emulators",
                                headers={"Campaign-Mock-Client": "curl"}).status_code == 200
            with open(runs) as recorded:
                assert recorded.read() == "adb devices\n"


def test_a_page_cannot_push_through_auto_send(browser, certificates, apns_key):
    """A page registers its own token under the allowed userKey and sends a SOAP PushEvent on the default
    session, both as simple cross-site requests: the registration endpoints and the SOAP router refuse other
    sites' pages, so nothing is registered or composed, and with --auto-send nothing reaches APNs."""
    with ios_sender(certificates, apns_key, "--send-allow", "userKey:*@example.com", "--auto-send") as (apns, server):
        apns.register(ATTACKER_TOKEN)
        assert call(server, "POST", f"/_mock/devices/{IOS_TOKEN}/trust")[0] == 200
        envelope = (
            '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:urn="urn:nms:rtEvent">'
            "<soapenv:Body><urn:PushEvent><urn:sessiontoken>admin/admin</urn:sessiontoken><urn:domEvent>"
            '<rtEvent wishedChannel="41" type="rt_Sale" registrationToken="TOKEN" xmlns="">'
            '<mobileApp uuid="shop-ios" _operation="none"/><ctx><title>Free money</title></ctx></rtEvent>'
            "</urn:domEvent></urn:PushEvent></soapenv:Body></soapenv:Envelope>")
        page = f"""<!doctype html><body><script>
          const soap = (token) => fetch("{server.url}/nl/jsp/soaprouter.jsp", {{method: "POST", mode: "no-cors",
            headers: {{"Content-Type": "text/plain"}}, body: {json.dumps(envelope)}.replace("TOKEN", token)}});
          fetch("{server.url}/nms/mobile/1/registerIOS.jssp", {{method: "POST", mode: "no-cors",
            body: new URLSearchParams({{registrationToken: "{ATTACKER_TOKEN}", mobileAppUuid: "shop-ios",
                                        userKey: "jane@example.com"}})}})
            .then(() => soap("{ATTACKER_TOKEN}")).then(() => soap("{IOS_TOKEN}"))
            .finally(() => {{ document.title = "sent"; }});
        </script></body>"""
        with AttackerSite(page) as site:
            browser.get(site.url)
            wait_for(lambda: browser.title == "sent", what="the requests to be sent")
        # The registration and both SOAP calls came from another site's page: refused, nothing composed.
        assert call(server, "GET", "/_mock/push/1")[0] == 404
        devices = call(server, "GET", "/_mock/devices")[1]["devices"]
        assert ATTACKER_TOKEN not in [device["registrationToken"] for device in devices]
        assert apns.requests == []
