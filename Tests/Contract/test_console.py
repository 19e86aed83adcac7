"""The console (/_mock/ui/) in a real headless Chromium, driven by selenium, against a live server.

Needs Debian's `chromium` and `chromium-driver` (`make setup-test` installs them); skipped, saying why,
without them. Screenshots go to $CAMPAIGN_MOCK_ARTIFACTS (default .build/test-artifacts/).

Run by `make test` (pytest Tests/Contract).
"""
import json
import os
import pathlib
import shutil
import time

import pytest
import requests

from live_server import LiveServer

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
ARTIFACTS = pathlib.Path(os.environ.get("CAMPAIGN_MOCK_ARTIFACTS", ".build/test-artifacts"))

pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                reason="needs Chromium and its driver (Debian: chromium chromium-driver)")

IOS_BODY = ("registrationToken=c0ffee&mobileAppUuid=campaign-mock-demo-ios&userKey=jane%40example.com"
            "&deviceName=iPhone&osName=iOS&osVersion=iOS%2017.0"
            "&additionalParams=%3CadditionalParams%3E%3Cparam%20name%3D%22plan%22%20value%3D%22gold%22%20%2F%3E%3C%2FadditionalParams%3E")
FORM = {"Content-Type": "application/x-www-form-urlencoded;charset=UTF-8"}


@pytest.fixture
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
                     "--disable-background-networking", "--disable-component-update", "--no-first-run"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def wait_for(condition, seconds=5.0, what="condition"):
    """Polls `condition`. The console redraws live lists as events arrive, so an element found a moment
    ago may be gone (stale) when read: that counts as "not yet", not as a failure."""
    from selenium.common.exceptions import StaleElementReferenceException
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            result = condition()
        except StaleElementReferenceException:
            result = None
        if result:
            return result
        time.sleep(0.05)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


def find(driver, selector):
    from selenium.webdriver.common.by import By
    return driver.find_elements(By.CSS_SELECTOR, selector)


def screenshot(driver, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"console-{name}.png"))


def requested_urls(driver):
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def check_clean(driver, server):
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, f"console errors: {errors}"
    outside = [url for url in requested_urls(driver)
               if not (url.startswith(server.url + "/") or url.startswith("data:") or url.startswith("blob:"))]
    assert not outside, f"requests that left the server: {outside}"


def open_console(driver, server, view="overview"):
    driver.get(f"{server.url}/#{view}")
    wait_for(lambda: driver.current_url.startswith(f"{server.url}/_mock/ui"), what="the redirect to /_mock/ui/")
    wait_for(lambda: find(driver, "[data-testid=connection-status]")[0].text == "live", what="the live indicator")


def test_devices_and_events_appear_live(browser):
    with LiveServer() as server:
        open_console(browser, server, "devices")
        assert requests.post(f"{server.url}/nms/mobile/1/registerIOS.jssp", data=IOS_BODY, headers=FORM).text == "OK"
        row = wait_for(lambda: find(browser, "[data-testid=device-row][data-token=c0ffee]"), 2.0, "the device row")[0]
        assert "plan=gold" in row.text and "jane@example.com" in row.text
        row.click()
        wait_for(lambda: "Registration history" in find(browser, "#device-detail")[0].text, what="the device detail")
        screenshot(browser, "devices")

        browser.get(f"{server.url}/_mock/ui/#events")
        wait_for(lambda: find(browser, "[data-testid=connection-status]")[0].text == "live", what="live again")
        assert requests.get(f"{server.url}/r/?id=hd7e15e5c,7a0042,2").status_code == 200
        event = wait_for(lambda: find(browser, "[data-testid=event-row][data-delivery-id='7a0042']"), 2.0, "the event row")[0]
        assert "open" in event.text
        browser.get(f"{server.url}/_mock/ui/#requests")
        wait_for(lambda: len(find(browser, "[data-testid=request-row]")) >= 2, what="the journal")
        next(row for row in find(browser, "[data-testid=request-row]") if "registerIOS" in row.text).click()
        detail = wait_for(lambda: find(browser, "#request-detail:not([hidden])"), what="the request detail")[0]
        # The form body is shown field by field, the additionalParams XML indented.
        assert "userKey = jane@example.com" in detail.text
        assert '<param name="plan" value="gold" />' in detail.text
        screenshot(browser, "requests")
        check_clean(browser, server)


def test_a_push_is_composed_and_previewed(browser):
    from selenium.webdriver.support.ui import Select
    with LiveServer() as server:
        assert requests.post(f"{server.url}/nms/mobile/1/registerIOS.jssp", data=IOS_BODY, headers=FORM).text == "OK"
        open_console(browser, server, "push")
        form = wait_for(lambda: find(browser, "[data-testid=push-form]"), what="the push form")[0]
        wait_for(lambda: Select(find(browser, "#push-device")[0]).options, what="the device choice")
        find(browser, "[data-testid=push-form] [name=title]")[0].send_keys("Weekend sale")
        find(browser, "[data-testid=push-form] [name=body]")[0].send_keys("20% off today")
        find(browser, "[data-testid=push-form] [name=variables]")[0].send_keys("coupon=SAVE20")
        for platform in ("ios", "android"):
            preview = find(browser, f"[data-testid=push-preview-{platform}]")[0]
            shown = preview.text.lower()  # iOS shows the app's name in capitals
            assert "weekend sale" in shown and "20% off today" in shown and "demo ios app" in shown
        find(browser, "[data-testid=push-submit]")[0].click()
        wait_for(lambda: find(browser, "#push-result:not([hidden])"), what="the composed push")
        push = requests.get(f"{server.url}/_mock/push/1").json()
        apns = push["messages"][0]["apns"]
        assert apns["aps"]["alert"] == {"title": "Weekend sale", "body": "20% off today"} and apns["coupon"] == "SAVE20"
        assert "simctl" in find(browser, "#payloads")[0].text
        assert form.is_displayed()
        screenshot(browser, "push")
        check_clean(browser, server)


def test_a_fault_added_in_the_form_makes_the_next_registration_fail(browser):
    from selenium.webdriver.support.ui import Select
    with LiveServer() as server:
        open_console(browser, server, "faults")
        form = find(browser, "[data-testid=fault-form]")[0]
        Select(form.find_element("name", "endpoint")).select_by_visible_text("registration-ios")
        form.find_element("name", "status").send_keys("503")
        form.find_element("name", "body").send_keys("maintenance")
        form.find_element("css selector", "button[type=submit]").click()
        try:
            row = wait_for(lambda: find(browser, "[data-testid=fault-row]"), what="the fault row")[0]
        except AssertionError:
            screenshot(browser, "faults-failed")
            raise AssertionError(f"no fault row; browser log: {browser.get_log('browser')}")
        assert "registration-ios" in row.text
        response = requests.post(f"{server.url}/nms/mobile/1/registerIOS.jssp", data=IOS_BODY, headers=FORM)
        assert (response.status_code, response.text) == (503, "maintenance")
        wait_for(lambda: find(browser, "[data-testid=fault-row] .fired")[0].text == "1", 2.0, "the fired count")
        screenshot(browser, "faults")
        check_clean(browser, server)


def test_with_an_admin_token_the_console_asks_for_it_once(browser):
    with LiveServer("--admin-token", "s3cret-token") as server:
        browser.get(f"{server.url}/_mock/ui/#devices")
        dialog = wait_for(lambda: [d for d in find(browser, "#token-dialog") if d.get_attribute("open") is not None],
                          what="the token dialog")[0]
        dialog.find_element("id", "token-input").send_keys("s3cret-token")
        dialog.find_element("css selector", "button[type=submit]").click()
        wait_for(lambda: find(browser, "[data-testid=connection-status]")[0].text == "live", what="the live indicator")
        assert requests.post(f"{server.url}/nms/mobile/1/registerIOS.jssp", data=IOS_BODY, headers=FORM).text == "OK"
        wait_for(lambda: find(browser, "[data-testid=device-row][data-token=c0ffee]"), 2.0, "the device row")
        # Kept for the tab: a reload does not ask again.
        browser.refresh()
        wait_for(lambda: find(browser, "[data-testid=connection-status]")[0].text == "live", what="live after reload")
        assert not [d for d in find(browser, "#token-dialog") if d.get_attribute("open") is not None]
        # 401s while the token was not given yet are expected; nothing else went wrong.
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE" and "401" not in e["message"]]
        assert not errors, errors


def test_overview_shows_urls_keys_and_sdk_configuration(browser):
    with LiveServer("--tls", "auto", "--tls-port", "0") as server:
        open_console(browser, server, "overview")
        wait_for(lambda: "campaign-mock-demo-ios" in find(browser, "#apps")[0].text, what="the applications")
        text = find(browser, "#view-overview")[0].text
        assert "10.0.2.2" in text and "https://localhost:" in text and "campaign-mock-demo-android" in text
        assert "setMarketingHost" in text and "campaignclassic.marketingServer" in text
        assert not find(browser, "#ca")[0].get_attribute("hidden")
        screenshot(browser, "overview")
        check_clean(browser, server)
