"""The integration checks in the console, in a real headless Chromium against a live server whose traffic
makes real findings: the header's badge, the Checks view, the application's counts and the device's
drawer, live from the event stream, at volume (thousands of devices and events, hundreds of findings).
Skipped, saying why, without Chromium.
"""
import time

import pytest
import requests

from live_server import LiveServer
from test_console import (CHROMIUM, DRIVER, FORM, browser, check_clean, find, open_console, register_many,
                          requested_urls, screenshot, wait_for)

pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                reason="needs Chromium and its driver (Debian: chromium chromium-driver)")
assert browser  # the fixture, imported for the tests below

ANDROID = "campaign-mock-demo-android"


def apns_token(index):
    """An APNs device token (64 hex digits), different for each index."""
    return f"{index:08x}" * 8


def register_apns_token_with_the_android_key(url, index):
    """The iOS build registering with the Android integration key: a token-platform-mismatch error each."""
    answer = requests.post(f"{url}/nms/mobile/1/registerAndroid.jssp", headers=FORM, data={
        "registrationToken": apns_token(index), "mobileAppUuid": ANDROID, "userKey": f"user{index % 40}@example.com"})
    assert answer.text == "OK", answer.text


def register_mismatched(url, indexes):
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda index: register_apns_token_with_the_android_key(url, index), indexes))


def report(url):
    return requests.get(f"{url}/_mock/checks").json()


def wait_for_counts(url, **counts):
    return wait_for(lambda: report(url)["counts"] if all(report(url)["counts"][k] == v for k, v in counts.items()) else None,
                    30.0, f"the checks' counts {counts}")


def badge_counts(driver):
    """The header badge's numbers by severity, as shown."""
    return {item.get_attribute("data-severity"): int(item.text.split()[-1].replace(",", ""))
            for item in find(driver, "[data-testid=checks-badge] .count[data-severity]")}


def track_pushes(url, user_keys):
    """A push to every device of each user, received then opened as the SDK reports them: a clean loop."""
    hits = 0
    for user_key in user_keys:
        messages = [message for app in ("campaign-mock-demo-ios", ANDROID) for message in requests.post(
            f"{url}/_mock/push", json={"userKey": user_key, "app": app, "title": "Sale"}).json()["messages"]]
        for message in messages:
            for path in (message["tracking"]["receive"], message["tracking"]["open"]):
                assert requests.get(url + path).status_code == 200
                hits += 1
    return hits


def test_findings_show_in_the_header_the_view_the_app_and_the_device_live_at_volume(browser):
    with LiveServer() as server:
        # A correct integration at volume: 2,000 devices, their pushes received and opened.
        register_many(server.url, range(2000))
        hits = track_pushes(server.url, [f"user{n}@example.com" for n in range(0, 40, 2)])
        assert hits >= 2000
        assert report(server.url)["counts"]["error"] == 0, report(server.url)["findings"][:3]
        # Then 250 devices of the iOS build registered with the Android key: an error each.
        register_mismatched(server.url, range(250))
        counts = wait_for_counts(server.url, error=250)

        open_console(browser, server, "checks")
        wait_for(lambda: badge_counts(browser).get("error") == 250, what="the badge")
        badge = find(browser, "[data-testid=checks-badge]")[0]
        assert badge.get_attribute("data-state") == "error"
        assert badge.get_attribute("aria-label").startswith("Integration checks: 250 errors")
        assert browser.title.startswith(f"({counts['error'] + counts['warning']}) ")
        shown = sum(counts.values())
        assert find(browser, "[data-testid=checks-shown]")[0].text == f"{shown:,} of {shown:,}"
        first = find(browser, "[data-testid=check-finding][data-severity=error]")[0]
        finding = next(f for f in report(server.url)["findings"] if f["id"] == first.get_attribute("data-id"))
        for words in (finding["title"], finding["fix"]):
            assert words.replace("`", "") in first.text.replace("\n", " ")
        assert first.get_attribute("data-rule") == "token-platform-mismatch"

        # Live: 100 more while the view is open. The findings on screen stay the same nodes (only the new ones
        # are drawn), and nothing is fetched again.
        browser.execute_script(
            "for (const node of document.querySelectorAll('[data-testid=check-finding]')) node.dataset.before = 'yes'")
        requested_urls(browser)  # the log so far, read and dropped
        browser.execute_script("window.longTasks = []; new PerformanceObserver((list) => window.longTasks.push("
                               "...list.getEntries().map((entry) => entry.duration))).observe({ type: 'longtask' })")
        started = time.monotonic()
        register_mismatched(server.url, range(250, 350))
        wait_for(lambda: badge_counts(browser).get("error") == 350, 15.0, "the live badge")
        print(f"100 new findings on screen {time.monotonic() - started:.2f} s after the burst began; the page's tasks "
              f"over 50 ms meanwhile: {browser.execute_script('return window.longTasks')}")
        wait_for(lambda: len(find(browser, "[data-testid=check-finding][data-severity=error]")) == 350, 5.0, "the live findings")
        kept = browser.execute_script(
            "return document.querySelectorAll('[data-testid=check-finding][data-before=yes]').length")
        assert kept == shown, f"{shown - kept} findings on screen were drawn again"
        newest = find(browser, "[data-testid=check-finding][data-severity=error]")[0]
        assert newest.get_attribute("data-before") is None, "a new finding goes on top of its severity"
        assert not [url for url in requested_urls(browser) if "/_mock/checks" in url], \
            "the live findings came from the stream, not from a fetch per event"
        screenshot(browser, "checks-volume")

        # The application's row counts them; its link shows the view for that application only.
        browser.get(f"{server.url}/_mock/ui/#overview")
        wait_for(lambda: find(browser, "[data-testid=connection-status]")[0].text == "live", what="live again")
        cells = wait_for(lambda: [c for c in find(browser, "[data-testid=app-checks]") if "350 errors" in c.text], what="the app's count")
        cells[0].click()
        wait_for(lambda: find(browser, "[data-testid=checks-app]")[0].get_attribute("value") == ANDROID, what="the app's findings")
        assert find(browser, "nav a[aria-current=page], #checks-badge[aria-current=page]")[0].get_attribute("data-view") == "checks"

        # Beside the device: its drawer lists its finding, and the doc link opens the rule's section.
        device = find(browser, "[data-testid=check-device]")[0]
        token = next(f for f in report(server.url)["findings"]
                     if f["id"] == browser.execute_script("return arguments[0].closest('li').dataset.id", device))["registrationToken"]
        device.click()
        drawer = wait_for(lambda: [d for d in find(browser, "[data-testid=device-checks]") if d.is_displayed()], what="the device's findings")[0]
        assert "token-platform-mismatch" in drawer.text and token in find(browser, "#drawer-title")[0].text
        find(drawer, "[data-testid=check-doc]")[0].click()
        wait_for(lambda: "token-platform-mismatch" in find(browser, "#drawer-body")[0].text
                 and find(browser, "#drawer-body h3, #drawer-body h4"), what="the rule's doc section")
        screenshot(browser, "checks-doc")

        # A reset clears them: the badge says so.
        requests.post(f"{server.url}/_mock/reset").raise_for_status()
        wait_for(lambda: find(browser, "[data-testid=checks-badge]")[0].get_attribute("data-state") == "clean", 10.0, "the clean badge")
        assert browser.title == "campaign-mock console"
        check_clean(browser, server)


def test_an_open_devices_drawer_shows_its_new_finding_and_the_badge_fits_a_narrow_window(browser):
    with LiveServer() as server:
        register_many(server.url, range(300))
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": 400, "height": 800, "deviceScaleFactor": 1, "mobile": True})
        open_console(browser, server, "devices")
        badge = find(browser, "[data-testid=checks-badge]")[0]
        wait_for(lambda: badge.get_attribute("data-state") == "clean", what="the clean badge")
        find(browser, "[data-testid=device-row][data-token=tok00297]")[0].click()
        wait_for(lambda: "No finding about this device" in find(browser, "[data-testid=device-checks]")[0].text, what="the drawer")
        # Two handlers both track the receive: duplicate-hit, a warning about this device, while its drawer is open.
        message = requests.post(f"{server.url}/_mock/push", json={"token": "tok00297", "title": "Sale"}).json()["messages"][0]
        for _ in range(2):
            assert requests.get(server.url + message["tracking"]["receive"]).status_code == 200
        wait_for(lambda: "duplicate-hit" in find(browser, "[data-testid=device-checks]")[0].text, 10.0, "the finding in the drawer")
        wait_for(lambda: badge.get_attribute("data-state") == "warning", what="the badge")
        screenshot(browser, "checks-drawer-narrow")
        for view in ("devices", "checks"):
            browser.get(f"{server.url}/_mock/ui/#{view}")
            wait_for(lambda: find(browser, "[data-testid=connection-status]")[0].text == "live", what="live")
            assert browser.execute_script("return document.documentElement.scrollWidth") <= 400
            assert browser.execute_script("return document.querySelector('header').offsetHeight") <= 110
            assert find(browser, "[data-testid=checks-badge]")[0].is_displayed()
        check_clean(browser, server)
