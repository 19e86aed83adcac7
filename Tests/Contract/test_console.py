"""The console (/_mock/ui/) in a real headless Chromium, driven by selenium, against a live server.

Needs Debian's `chromium` and `chromium-driver` (`make setup-test` installs them); skipped, saying why,
without them. Screenshots go to $CAMPAIGN_MOCK_ARTIFACTS (default .build/test-artifacts/).

Run by `make test` (pytest Tests/Contract).
"""
import json
import os
import pathlib
import re
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
    ago may be gone (stale) when read, and one about to be drawn may not be there yet (`find(...)[0]` on
    an empty list): both count as "not yet", not as a failure."""
    from selenium.common.exceptions import StaleElementReferenceException
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            result = condition()
        except (StaleElementReferenceException, IndexError):
            result = None
        if result:
            return result
        time.sleep(0.05)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


def find(driver, selector):
    from selenium.webdriver.common.by import By
    return driver.find_elements(By.CSS_SELECTOR, selector)


def click(driver, selector):
    """Clicks the first match, again if the console redrew it between the find and the click."""
    wait_for(lambda: find(driver, selector)[0].click() or True, what=f"a click on {selector}")


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


def register(url, index, platform=None):
    """Registers device `tok<index>` as the SDK of its platform would (every third one Android)."""
    platform = platform or ("android" if index % 3 == 0 else "ios")
    body = (f"registrationToken=tok{index:05d}&mobileAppUuid=campaign-mock-demo-{platform}"
            f"&userKey=user{index % 40}%40example.com&deviceModel={'Pixel%208' if platform == 'android' else 'iPhone15%2C2'}"
            f"&osName={platform}&osVersion=17.{index % 3}"
            "&additionalParams=%3CadditionalParams%3E%3Cparam%20name%3D%22plan%22%20value%3D%22"
            + ("gold" if index % 7 == 0 else "silver") + "%22%2F%3E%3C%2FadditionalParams%3E")
    path = "registerAndroid" if platform == "android" else "registerIOS"
    answer = requests.post(f"{url}/nms/mobile/1/{path}.jssp", data=body, headers=FORM)
    assert answer.text == "OK", answer.text


def register_many(url, indexes):
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda index: register(url, index), indexes))


def test_thousands_of_devices_newest_first_live_in_batches(browser):
    """1,300 devices before the console opens, 500 more in a burst while it is open: the newest are on
    top, the count says how many of how many, and the burst is on screen within seconds."""
    with LiveServer() as server:
        register_many(server.url, range(1298))
        register(server.url, 1298)  # one after the other, so that the order of the newest is known
        register(server.url, 1299)
        open_console(browser, server, "devices")
        assert find(browser, "[data-testid=device-count]")[0].text == "100 of 1,300"
        rows = find(browser, "[data-testid=device-row]")
        assert [row.get_attribute("data-token") for row in rows[:2]] == ["tok01299", "tok01298"]
        assert "Pixel 8 · android 17.0" in rows[0].text and "plan=silver" in rows[0].text  # 1299: Android
        assert "iPhone15,2 · ios 17.2" in rows[1].text
        assert find(browser, "nav a[aria-current=page]")[0].get_attribute("data-view") == "devices"
        requested_urls(browser)  # the log so far, read and dropped

        started = time.monotonic()
        register_many(server.url, range(1300, 1800))
        wait_for(lambda: find(browser, "[data-testid=device-count]")[0].text.endswith("of 1,800"), 5.0, "the burst")
        print(f"500 registrations on screen {time.monotonic() - started:.2f} s after the burst began")
        assert find(browser, "[data-testid=device-row]")[0].get_attribute("data-token") in {f"tok{i:05d}" for i in range(1790, 1800)}
        assert not [url for url in requested_urls(browser) if "/_mock/devices" in url], \
            "the live rows came from the stream, not from a fetch per event"

        more = find(browser, "#devices-more")[0]
        shown = len(find(browser, "[data-testid=device-row]"))
        more.click()
        wait_for(lambda: len(find(browser, "[data-testid=device-row]")) == shown + 100, what="the next page")
        tokens = [row.get_attribute("data-token") for row in find(browser, "[data-testid=device-row]")]
        assert len(tokens) == len(set(tokens)), "a device shown twice"

        search = find(browser, "[data-testid=device-search]")[0]
        search.send_keys("pixel")
        wait_for(lambda: find(browser, "[data-testid=device-count]")[0].text == "100 of 600", what="the search")
        search.clear()
        search.send_keys("gold")
        wait_for(lambda: find(browser, "[data-testid=device-count]")[0].text.endswith(f"of {len(range(0, 1800, 7)):,}"),
                 what="a search in the params")
        screenshot(browser, "devices-volume")
        check_clean(browser, server)


def test_the_drawer_shows_every_field_updates_live_and_closes(browser):
    from selenium.webdriver.common.keys import Keys
    with LiveServer() as server:
        register_many(server.url, range(1000))
        assert requests.post(f"{server.url}/nms/mobile/1/registerAndroid.jssp", headers=FORM, data=(
            "registrationToken=fcm-full&mobileAppUuid=campaign-mock-demo-android&userKey=jane%40example.com&deviceImei=35-209900"
            "&deviceName=emu64x&deviceModel=Pixel%208&deviceBrand=google&deviceManufacturer=Google&osName=android"
            "&osVersion=Android%2014&osLanguage=fr-FR")).text == "OK"
        open_console(browser, server, "devices")
        row = wait_for(lambda: find(browser, "[data-testid=device-row][data-token=fcm-full]"), what="the device")[0]
        row.click()
        body = wait_for(lambda: find(browser, "#drawer-body dl"), what="the drawer")[0].text
        for shown in ["emu64x", "Pixel 8", "google", "Google", "Android 14", "fr-FR", "35-209900", "jane@example.com"]:
            assert shown in body, f"{shown} is not in the drawer: {body}"
        # The SDK's osVersion names the OS already: it is not said twice.
        assert "android Android" not in body, body
        assert browser.execute_script("return window.scrollY") == 0, "the drawer opens beside the list, not below it"
        assert row.get_attribute("aria-selected") == "true"
        assert "None yet" in find(browser, "#drawer-body")[0].text

        push = requests.post(f"{server.url}/_mock/push", json={"token": "fcm-full", "title": "Hi"}).json()["messages"][0]
        requests.get(server.url + push["tracking"]["receive"])
        requests.get(server.url + push["tracking"]["open"])
        register(server.url, 0)  # another device: the drawer stays on its own
        wait_for(lambda: "receive" in find(browser, "#drawer-body")[0].text and "None yet" not in find(browser, "#drawer-body")[0].text,
                 what="the drawer's live update")
        pushes = find(browser, "#drawer-body")[0].text.split("Pushes")[1].split("Tracking events")[0]
        assert push["messageId"] in pushes and "—" not in pushes, pushes
        screenshot(browser, "drawer")

        find(browser, "body")[0].send_keys(Keys.ESCAPE)
        wait_for(lambda: find(browser, "#drawer")[0].get_attribute("hidden") is not None, what="Escape to close")
        assert row.get_attribute("aria-selected") == "false"
        row.click()
        wait_for(lambda: find(browser, "#drawer")[0].get_attribute("hidden") is None, what="the drawer again")
        click(browser, "[data-testid=drawer-close]")
        wait_for(lambda: find(browser, "#drawer")[0].get_attribute("hidden") is not None, what="the close button")
        check_clean(browser, server)


def test_events_and_requests_filter_and_the_journal_shows_the_answer(browser):
    from selenium.webdriver.support.ui import Select
    with LiveServer() as server:
        for index in range(1200):
            tag = 2 if index % 4 == 0 else 1
            assert requests.get(f"{server.url}/r/?id=hd7e15e5c,d{index},{tag}").status_code == 200
        assert requests.get(f"{server.url}/r/?id=h3039,other,2").status_code == 200
        assert requests.post(f"{server.url}/nms/mobile/1/registerIOS.jssp", data=IOS_BODY.replace("campaign-mock-demo-ios", "no-such-key"),
                             headers=FORM).status_code == 404
        open_console(browser, server, "events")
        assert find(browser, "#events-shown")[0].text == "100 of 1,201"
        # The message id as the README explains it: the hex as sent, unsigned and as a signed 32-bit _mId.
        assert "hd7e15e5c (3621871196 / -673096100)" in find(browser, "[data-testid=event-row]")[1].text
        Select(find(browser, "#event-type")[0]).select_by_value("open")
        wait_for(lambda: find(browser, "#events-shown")[0].text == "100 of 301", what="the type filter")
        find(browser, "#event-message")[0].send_keys("12345")
        wait_for(lambda: find(browser, "#events-shown")[0].text == "1 of 1", what="the message filter")
        assert find(browser, "[data-testid=event-row]")[0].get_attribute("data-delivery-id") == "other"

        browser.get(f"{server.url}/_mock/ui/#requests")
        wait_for(lambda: find(browser, "[data-testid=connection-status]")[0].text == "live", what="live again")
        find(browser, "#request-status")[0].send_keys("404")
        wait_for(lambda: find(browser, "#requests-shown")[0].text == "1 of 1", what="the status filter")
        find(browser, "[data-testid=request-row]")[0].click()
        drawer = wait_for(lambda: "Response 404" in find(browser, "#drawer-body")[0].text and find(browser, "#drawer-body")[0], what="the exchange")
        text = drawer.text
        assert "userKey = jane@example.com" in text and '<param name="plan" value="gold" />' in text
        assert "Unknown integration key (mobileAppUuid): no-such-key" in text.split("Response 404")[1]
        assert "--app" in text, "the reason names the flag that adds the key"
        Select(find(browser, "#request-endpoint")[0]).select_by_visible_text("tracking")
        wait_for(lambda: find(browser, "#requests-shown")[0].text == "0 of 0", what="endpoint and status combined")
        assert "No request matches" in find(browser, "#requests-empty")[0].text
        # A SOAP fault is spelled out above the answer's XML.
        assert requests.post(f"{server.url}/nl/jsp/soaprouter.jsp", headers={"Content-Type": "text/xml", "SOAPAction": "xtk:session#Nope"},
                             data="<Envelope xmlns='http://schemas.xmlsoap.org/soap/envelope/'><Body><Nope xmlns='urn:xtk:session'/></Body></Envelope>"
                             ).status_code == 500
        find(browser, "#request-status")[0].clear()
        Select(find(browser, "#request-endpoint")[0]).select_by_visible_text("soap")
        wait_for(lambda: find(browser, "#requests-shown")[0].text == "1 of 1", what="the SOAP call")
        find(browser, "[data-testid=request-row]")[0].click()
        wait_for(lambda: "SOAP fault: " in find(browser, "#drawer-body")[0].text, what="the fault")
        assert "SOP-330006" in find(browser, "#drawer-body .fault")[0].text
        screenshot(browser, "requests")
        check_clean(browser, server)


def test_a_push_is_composed_previewed_and_its_tracking_simulated(browser):
    with LiveServer() as server:
        register_many(server.url, range(1005))
        register(server.url, 5000, "android")
        open_console(browser, server, "push")
        picker = find(browser, "[data-testid=push-device-search]")[0]
        picker.send_keys("tok0500")
        options = wait_for(lambda: [o for o in find(browser, "#push-device-options li[role=option]") if "tok05000" in o.text]
                           if len(find(browser, "#push-device-options li[role=option]")) == 1 else None,
                           what="the device search narrowed to one")
        options[0].click()
        wait_for(lambda: "tok05000" in find(browser, "[data-testid=push-device]")[0].text, what="the chosen device")
        assert not find(browser, "#push-device-options")[0].is_displayed(), "the list closes once a device is chosen"
        find(browser, "[data-testid=push-form] [name=title]")[0].send_keys("Weekend sale")
        find(browser, "[data-testid=push-form] [name=body]")[0].send_keys("20% off today")
        find(browser, "[data-testid=push-form] [name=variables]")[0].send_keys("coupon=SAVE20")
        find(browser, "[data-testid=push-form] [name=mediaUrl]")[0].send_keys("https://images.example.com/sale.jpg")
        android = find(browser, "[data-testid=push-preview-android]")[0]
        assert android.is_displayed() and not find(browser, "[data-testid=push-preview-ios]")[0].is_displayed(), \
            "an Android device is previewed as Android only"
        assert "weekend sale" in android.text.lower() and "20% off today" in android.text and "Load image" in android.text
        find(browser, "[data-testid=push-submit]")[0].click()
        wait_for(lambda: find(browser, "#push-result:not([hidden])"), what="the composed push")
        push = requests.get(f"{server.url}/_mock/push/1").json()
        message = push["messages"][0]
        assert message["registrationToken"] == "tok05000" and message["fcm"]["message"]["data"]["coupon"] == "SAVE20"
        find(browser, "[data-testid=push-simulate-receive]")[0].click()
        find(browser, "[data-testid=push-simulate-open]")[0].click()
        wait_for(lambda: len(requests.get(f"{server.url}/_mock/events?token=tok05000").json()["events"]) == 2, what="the simulated hits")
        events = requests.get(f"{server.url}/_mock/events?token=tok05000&after=0").json()["events"]
        assert [e["rawId"] for e in events] == [message["tracking"]["receive"].split("id=")[1], message["tracking"]["open"].split("id=")[1]]
        screenshot(browser, "push")
        check_clean(browser, server)  # the media URL was typed, never loaded


def choose_push_device(browser, token):
    """Types a whole registration token into the device search, which chooses that device."""
    find(browser, "[data-testid=push-device-search]")[0].send_keys(token)
    wait_for(lambda: token in find(browser, "[data-testid=push-device]")[0].text, what=f"{token} chosen")


def test_the_payload_check_is_shown_beside_the_previews(browser):
    with LiveServer() as server:
        register(server.url, 1, "android")
        register(server.url, 2, "ios")
        open_console(browser, server, "push")
        choose_push_device(browser, "tok00001")
        find(browser, "[data-testid=push-form] [name=title]")[0].send_keys("Sale")
        # FCM reserves `from` (an error); `adb_uri` without a scheme opens nothing (a warning).
        find(browser, "[data-testid=push-form] [name=variables]")[0].send_keys("from=shop, adb_uri=sale")
        find(browser, "[data-testid=push-submit]")[0].click()
        panel = wait_for(lambda: [p for p in find(browser, "[data-testid=push-check]") if p.is_displayed()],
                         what="the payload check")[0]
        previews = find(browser, ".previews")[0]
        assert panel in find(previews, "[data-testid=push-check]"), "the check sits beside the previews"
        assert panel.location["x"] > find(browser, "[data-testid=push-preview-android]")[0].location["x"], \
            "the check is to the right of the phone"
        assert find(panel, "[data-testid=push-check-counts]")[0].text.split() == ["1", "error", "1", "warning"]
        findings = find(panel, "[data-testid=push-check-finding]")
        assert [(f.get_attribute("data-severity"), f.get_attribute("data-rule")) for f in findings] == [
            ("error", "fcm.data.reserved-key"), ("warning", "sdk.link.uri")]
        assert "message.data.from" in findings[0].text and "refuses the message" in findings[0].text
        assert "Tracked" in panel.text and not find(panel, "[data-testid=push-check-untracked]")
        check = requests.get(f"{server.url}/_mock/push/1").json()["messages"][0]["check"]
        assert [f["rule"] for f in check["findings"]] == [f.get_attribute("data-rule") for f in findings]
        screenshot(browser, "push-check")

        # A payload the SDK would not track says so above everything else (composed pushes always carry
        # their ids, so the panel is fed a check the API answered for a payload without them).
        untracked = requests.post(f"{server.url}/_mock/push/check", json={"apns": {"aps": {"alert": "Hi"}}}).json()
        browser.execute_script("showChecks(arguments[0])",
                               [{"platform": "ios", "registrationToken": "elsewhere", "check": untracked}])
        banner = wait_for(lambda: find(browser, "[data-testid=push-check-untracked]"), what="the untracked banner")[0]
        assert banner.is_displayed() and "would not track this push" in banner.text
        assert banner.get_attribute("role") == "alert"
        screenshot(browser, "push-check-untracked")

        choose_push_device(browser, "tok00002")
        find(browser, "[data-testid=push-form] [name=variables]")[0].clear()
        find(browser, "[data-testid=push-form] [name=silent]")[0].click()
        find(browser, "[data-testid=push-submit]")[0].click()
        wait_for(lambda: "ios tok00002" in find(browser, "[data-testid=push-check] h4")[0].text, what="the iOS check")
        panel = find(browser, "[data-testid=push-check]")[0]
        assert find(panel, "[data-testid=push-check-counts]")[0].text.split() == ["0", "errors", "0", "warnings"]
        assert [f.get_attribute("data-rule") for f in find(panel, "[data-testid=push-check-finding]")] == ["aps.background"]
        check_clean(browser, server)


def test_long_tokens_are_shortened_on_the_push_page_which_never_scrolls_sideways(browser):
    """Real tokens are long (64 hex digits from APNs, about 160 characters from FCM): among thousands of
    devices, a push to one of each keeps the page within 1,280 px, each token shortened in its card
    headers, whole on hover and copied on click."""
    apns_token = "6e6577" * 10 + "c0de"
    fcm_token = "fcm" + "A1b2C3d4E5f6G7h8" * 10 + ":APA91b"
    with LiveServer() as server:
        register_many(server.url, range(2000))
        for platform, token in (("ios", apns_token), ("android", fcm_token)):
            path = "registerIOS" if platform == "ios" else "registerAndroid"
            answer = requests.post(f"{server.url}/nms/mobile/1/{path}.jssp", headers=FORM,
                                   data={"registrationToken": token, "mobileAppUuid": f"campaign-mock-demo-{platform}",
                                         "userKey": "long@example.com"})
            assert answer.text == "OK"
        browser.set_window_size(1280, 1000)
        open_console(browser, server, "push")
        assert browser.execute_script("return window.innerWidth") <= 1280
        for token in (apns_token, fcm_token):
            choose_push_device(browser, token)
            find(browser, "[data-testid=push-form] [name=title]")[0].clear()
            find(browser, "[data-testid=push-form] [name=title]")[0].send_keys("Sale")
            find(browser, "[data-testid=push-submit]")[0].click()
            wait_for(lambda: [chip for chip in find(browser, "[data-testid=token-chip]") if chip.get_attribute("title")
                              and chip.get_attribute("title").startswith(token)], what="the shortened token")
            find(browser, "[data-testid=push-device-search]")[0].clear()
            sizes = browser.execute_script(
                "const page = document.scrollingElement; return [page.scrollWidth, page.clientWidth];")
            assert sizes[0] <= sizes[1], f"the page scrolls sideways: {sizes[0]} px of content in {sizes[1]}"
            chips = find(browser, "[data-testid=token-chip]")
            headers = [h.text for h in find(browser, "#view-push h4")]
            assert not [h for h in headers if token in h], f"a header shows the whole token: {headers}"
            assert [h for h in headers if h.startswith("Payload check (") and token[:8] in h and token[-6:] in h]
            assert all(chip.get_attribute("data-token") == token for chip in chips)
            assert all(chip.get_attribute("title").startswith(token) for chip in chips)
            for header in find(browser, "#view-push .payload h4"):
                box = browser.execute_script(
                    "const r = arguments[0].getBoundingClientRect(), p = arguments[0].parentElement.getBoundingClientRect();"
                    "return [r.right, p.right, arguments[0].scrollWidth, arguments[0].clientWidth];", header)
                assert box[0] <= box[1] + 0.5 and box[2] <= box[3], f"{header.text!r} runs out of its card: {box}"
        browser.execute_script("document.querySelector('#push-result').scrollIntoView()")
        screenshot(browser, "push-long-tokens")
        chip = find(browser, "#payloads [data-testid=token-chip]")[-1]
        shortened = chip.text
        chip.click()
        wait_for(lambda: chip.text == "Copied", what="the copy")
        wait_for(lambda: chip.text == shortened, what="the shortened token again")
        check_clean(browser, server)


def test_the_device_picker_chooses_with_enter_and_compose_needs_a_device(browser):
    from selenium.webdriver.common.keys import Keys
    with LiveServer() as server:
        open_console(browser, server, "push")
        # No device yet: Compose says what to do and sends nothing.
        find(browser, "[data-testid=push-submit]")[0].click()
        error = wait_for(lambda: [e for e in find(browser, "#push-error") if e.is_displayed()], what="the error")[0]
        assert "Choose a device first" in error.text
        assert requests.get(f"{server.url}/_mock/push/1").status_code == 404

        register_many(server.url, range(1200))
        picker = find(browser, "[data-testid=push-device-search]")[0]
        # A part of a token, then Enter at once: the highlighted (first) match is chosen, nothing is sent.
        picker.send_keys("tok0115" + Keys.ENTER)
        wait_for(lambda: "tok0115" in find(browser, "[data-testid=push-device]")[0].text, what="Enter choosing a match")
        assert not find(browser, "#push-device-options")[0].is_displayed()
        assert requests.get(f"{server.url}/_mock/push/1").status_code == 404, "Enter in the search box sent nothing"
        # Arrows move the highlight; Enter takes the highlighted one.
        picker.send_keys("tok0004")
        wait_for(lambda: [o for o in find(browser, "#push-device-options li[role=option]") if "tok0004" in o.text] == \
                 find(browser, "#push-device-options li[role=option]") and len(find(browser, "#push-device-options li[role=option]")) == 10,
                 what="the ten matches of tok0004")
        picker.send_keys(Keys.ARROW_DOWN, Keys.ARROW_DOWN)
        items = find(browser, "#push-device-options li[role=option]")
        assert [item.get_attribute("aria-selected") for item in items[:3]] == ["false", "false", "true"]
        third = re.search(r"tok\d{5}", items[2].get_attribute("textContent")).group(0)
        picker.send_keys(Keys.ENTER)
        wait_for(lambda: third in find(browser, "[data-testid=push-device]")[0].text, what="the third match chosen")
        # A whole token pasted is chosen by itself.
        picker.send_keys("tok00777")
        wait_for(lambda: "tok00777" in find(browser, "[data-testid=push-device]")[0].text, what="the exact token chosen")
        assert not find(browser, "#push-device-options")[0].is_displayed()
        find(browser, "[data-testid=push-form] [name=title]")[0].send_keys("Hello")
        find(browser, "[data-testid=push-submit]")[0].click()
        wait_for(lambda: find(browser, "#push-result:not([hidden])"), what="the composed push")
        assert requests.get(f"{server.url}/_mock/push/1").json()["messages"][0]["registrationToken"] == "tok00777"
        check_clean(browser, server)


def test_at_400_pixels_nothing_overflows_and_empty_views_say_what_to_do(browser):
    with LiveServer() as server:
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": 400, "height": 800, "deviceScaleFactor": 1, "mobile": True})
        open_console(browser, server, "devices")
        empty = find(browser, "#devices-empty")[0]
        assert empty.is_displayed() and "campaign-mock-demo-ios" in empty.text and "10.0.2.2" in empty.text
        register_many(server.url, range(300))
        wait_for(lambda: len(find(browser, "[data-testid=device-row]")) == 300, what="the devices")
        for view in ["overview", "devices", "events", "requests", "push", "faults"]:
            browser.get(f"{server.url}/_mock/ui/#{view}")
            wait_for(lambda: find(browser, "nav a[aria-current=page]")[0].get_attribute("data-view") == view, what=view)
            width = browser.execute_script("return document.documentElement.scrollWidth")
            assert width <= 400, f"#{view} is {width} px wide at 400"
            header = browser.execute_script("return document.querySelector('header').offsetHeight")
            assert header <= 110, f"the header takes {header} px"
            assert find(browser, "nav a[aria-current=page]")[0].get_attribute("data-view") == view
        browser.get(f"{server.url}/_mock/ui/#devices")
        wait_for(lambda: find(browser, "[data-testid=device-row]"), what="the devices again")
        screenshot(browser, "narrow")
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


def test_an_application_gets_its_bundle_id_or_package_name_in_the_form(browser):
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select
    with LiveServer("--app", "ios:shop-ios:Shop:com.example.shop") as server:
        open_console(browser, server, "overview")
        wait_for(lambda: "shop-ios" in find(browser, "#apps")[0].text, what="the applications")
        edits = find(browser, "[data-testid=app-identifier-edit]")
        assert [edit.get_attribute("value") for edit in edits] == ["com.example.shop"], "from --app"

        form = find(browser, "#app-form")[0]

        def add(platform, key, name, identifier):
            Select(form.find_element("name", "platform")).select_by_visible_text(platform)
            form.find_element("name", "integrationKey").send_keys(key)
            form.find_element("name", "name").send_keys(name)
            form.find_element("name", "identifier").send_keys(identifier)
            form.find_element("css selector", "button[type=submit]").click()

        add("android", "shop-android", "Shop", "com.example.shop.debug")
        wait_for(lambda: "shop-android" in find(browser, "#apps")[0].text, what="the Android application")
        apps = {app["integrationKey"]: app for app in requests.get(f"{server.url}/_mock/apps").json()["apps"]}
        assert apps["shop-android"]["packageName"] == "com.example.shop.debug"
        assert "bundleId" not in apps["shop-android"] or apps["shop-android"]["bundleId"] is None
        assert form.find_element("name", "identifier").get_attribute("value") == "", "the form is emptied"

        # A name that is no bundle id is refused with the server's reason, and nothing is added.
        add("ios", "broken", "Broken", "not a bundle id")
        error = wait_for(lambda: [e for e in find(browser, "#app-error") if e.is_displayed()], what="the error")[0]
        assert "bundleId" in error.text
        assert "broken" not in {app["integrationKey"] for app in requests.get(f"{server.url}/_mock/apps").json()["apps"]}
        for field in ("integrationKey", "name", "identifier"):
            form.find_element("name", field).clear()

        # An application that exists gets its id changed in its row.
        edit = find(browser, "[data-testid=app-identifier-edit][aria-label='Bundle id of Shop']")[0]
        edit.send_keys(Keys.CONTROL, "a")  # typed over, as a person would (clear() would save the empty field)
        edit.send_keys("com.example.renamed", Keys.TAB)
        wait_for(lambda: [app.get("bundleId") for app in requests.get(f"{server.url}/_mock/apps").json()["apps"]
                          if app["integrationKey"] == "shop-ios"] == ["com.example.renamed"], what="the changed bundle id")
        assert not find(browser, "#app-error")[0].is_displayed()
        screenshot(browser, "applications")
        # The refused application's 400 is expected; nothing else went wrong.
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"
                  and "/_mock/apps - Failed to load resource: the server responded with a status of 400" not in e["message"]]
        assert not errors, errors


def fake_tools(folder, adb_exit=0):
    """Fake `xcrun` and `adb` in `folder`, which record their arguments (one per line) to folder/calls."""
    calls = folder / "calls"
    record = f"#!/bin/sh\nfor argument in \"$@\"; do printf '%s\\n' \"$argument\" >> '{calls}'; done\necho --- >> '{calls}'\n"
    (folder / "xcrun").write_text(record + "echo \"Notification sent to '$4'\"\n")
    (folder / "adb").write_text(record + (f"echo 'error: no devices/emulators found' >&2\nexit {adb_exit}\n" if adb_exit
                                          else "echo 'Broadcast completed: result=0'\n"))
    for name in ("xcrun", "adb"):
        (folder / name).chmod(0o755)
    return calls


def compose_in_console(browser, token):
    """Chooses the device by its whole token (which the picker takes by itself) and composes a push to it."""
    find(browser, "[data-testid=push-device-search]")[0].send_keys(token)
    wait_for(lambda: token in find(browser, "[data-testid=push-device]")[0].text, what=f"the device {token}")
    for name, text in (("title", "Weekend sale"), ("body", "it's 20% off; $(reboot)")):
        field = find(browser, f"[data-testid=push-form] [name={name}]")[0]
        field.clear()
        field.send_keys(text)
    shown = find(browser, "#push-id")[0].text
    find(browser, "[data-testid=push-submit]")[0].click()
    wait_for(lambda: find(browser, "#push-result:not([hidden])") and find(browser, "#push-id")[0].text != shown,
             what="the composed push")


def test_a_composed_push_goes_to_the_simulator_or_emulator_in_one_click(browser, tmp_path):
    calls = fake_tools(tmp_path, adb_exit=1)
    with LiveServer(env={"PATH": f"{tmp_path}:{os.environ['PATH']}"}) as server:
        assert requests.get(f"{server.url}/_mock/info").json()["tools"] == {
            "xcrun": f"{tmp_path}/xcrun", "adb": f"{tmp_path}/adb", "lookup": {"xcrun": "found on PATH", "adb": "found on PATH"}}
        requests.put(f"{server.url}/_mock/apps/campaign-mock-demo-ios", json={"bundleId": "com.example.shop"}).raise_for_status()
        register(server.url, 1, "ios")
        register(server.url, 2, "android")
        open_console(browser, server, "push")

        compose_in_console(browser, "tok00001")
        assert not find(browser, "[data-testid=send-to-emulator]"), "an iOS message offers no emulator"
        find(browser, "[data-testid=push-to-simulator]")[0].click()
        output = wait_for(lambda: [o for o in find(browser, "[data-testid=push-to-simulator-output]") if "exit status 0" in o.text],
                          what="what simctl printed")[0]
        ran = calls.read_text().split("---\n")[0].splitlines()
        assert ran[:4] == ["simctl", "push", "booted", "com.example.shop"] and ran[4].endswith("/campaign-mock-1000001.apns"), ran
        assert f"$ {tmp_path}/xcrun simctl push booted com.example.shop {ran[4]}" in output.text
        assert "Notification sent to 'com.example.shop'" in output.text
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", output)
        screenshot(browser, "push-to-simulator")

        # Android: no package name known yet, then a tool that fails, reported as a failure.
        compose_in_console(browser, "tok00002")
        assert not find(browser, "[data-testid=push-to-simulator]"), "an Android message offers no simulator"
        find(browser, "[data-testid=send-to-emulator]")[0].click()
        wait_for(lambda: "Refused: no package name for campaign-mock-demo-android" in find(browser, "[data-testid=send-to-emulator-output]")[0].text,
                 what="the refusal")
        requests.put(f"{server.url}/_mock/apps/campaign-mock-demo-android", json={"packageName": "com.example.shop"}).raise_for_status()
        find(browser, "[data-testid=send-to-emulator]")[0].click()
        output = wait_for(lambda: [o for o in find(browser, "[data-testid=send-to-emulator-output]") if "exited with status 1" in o.text],
                          what="the failed adb")[0]
        assert "error: no devices/emulators found" in output.text and "$ " + f"{tmp_path}/adb shell " in output.text
        assert calls.read_text().split("---\n")[1].splitlines()[0] == "shell"
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", output)
        screenshot(browser, "send-to-emulator")
        # The refusal and the failure are answered 409 and 502, which the browser logs; nothing else.
        errors = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        assert [re.sub(r".*status of (\d+).*", r"\1", e) for e in errors] == ["409", "502"] \
            and all("/_mock/push/2/emulator" in e for e in errors), errors


def test_without_the_tools_the_console_offers_no_device_buttons(browser, tmp_path):
    # A PATH with neither tool, and no Android SDK to look in.
    with LiveServer(env={"PATH": str(tmp_path), "ANDROID_HOME": "", "ANDROID_SDK_ROOT": "", "HOME": str(tmp_path)}) as server:
        tools = requests.get(f"{server.url}/_mock/info").json()["tools"]
        assert "xcrun" not in tools and "adb" not in tools and tools["lookup"]["adb"].startswith("not found at start")
        register(server.url, 1, "ios")
        open_console(browser, server, "push")
        compose_in_console(browser, "tok00001")
        assert find(browser, "[data-testid=push-result] pre, #payloads pre"), "the composed payloads are shown"
        assert not find(browser, "[data-testid=push-to-simulator]") and not find(browser, "[data-testid=send-to-emulator]")
        assert requests.post(f"{server.url}/_mock/push/1/simulator", json={},
                             headers={"Campaign-Mock-Client": "test"}).status_code == 503
