"""Web pages attacking campaign-mock from a real headless Chromium (docs/security.md).

A page on another site must not read or change the mock: DNS rebinding (the attacker's name resolving to
127.0.0.1, simulated with Chromium's --host-resolver-rules), cross-site no-cors `fetch` and form posts,
and framing the console. The console on its own origin keeps working (test_console.py).
"""
import http.server
import threading

import pytest
import requests

from live_server import LiveServer
from test_console import CHROMIUM, DRIVER, FORM, IOS_BODY, find, wait_for

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
