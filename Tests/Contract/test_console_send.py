"""The console's "Send to device" in a real headless Chromium, against a live server configured with the
local fake APNs (push_providers): the button sends, the provider's answer shows beside the message, and an
auto-sent push's answer arrives through the event stream. Skipped, saying why, without Chromium.
"""
import os
import tempfile

import pytest
import requests

from live_server import LiveServer
from push_providers import APNsKey, FakeAPNs, TestCertificates
from test_console import CHROMIUM, DRIVER, browser, check_clean, find, open_console, register_many, screenshot, wait_for

pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                reason="needs Chromium and its driver (Debian: chromium chromium-driver)")
assert browser  # the fixture, imported for the tests below

BUNDLE_ID = "com.example.app"
# APNs device tokens are hexadecimal (the sender refuses others): three phones among the console's devices.
KNOWN, UNKNOWN, AUTO = ("5e" * 31 + suffix for suffix in ("10", "11", "20"))


def register_phone(url, token, user_key):
    answer = requests.post(f"{url}/nms/mobile/1/registerIOS.jssp", data={
        "registrationToken": token, "mobileAppUuid": "campaign-mock-demo-ios", "userKey": user_key})
    assert answer.text == "OK", answer.text


@pytest.fixture
def apns():
    with tempfile.TemporaryDirectory() as folder:
        certificates = TestCertificates(folder)
        key = APNsKey(folder)
        with FakeAPNs(certificates, key, topics=[BUNDLE_ID]) as fake:
            fake.flags = ["--apns-key-file", key.path, "--apns-key-id", key.key_id, "--apns-team-id", key.team_id,
                          "--apns-url", fake.url, "--provider-ca", certificates.ca_path]
            yield fake


def choose_and_compose(driver, token):
    # A whole token typed in the search chooses its device at once.
    find(driver, "[data-testid=push-device-search]")[0].send_keys(token)
    wait_for(lambda: token in find(driver, "[data-testid=push-device]")[0].text, what="the chosen device")
    find(driver, "[data-testid=push-form] [name=title]")[0].send_keys("Weekend sale")
    find(driver, "[data-testid=push-submit]")[0].click()
    wait_for(lambda: find(driver, "#push-result:not([hidden])"), what="the composed push")


def test_send_to_device_shows_the_providers_answer(browser, apns):
    with LiveServer(*apns.flags, "--send-allow", "userKey:user1*@example.com") as server:
        register_many(server.url, range(1000))
        register_phone(server.url, KNOWN, "user10@example.com")
        register_phone(server.url, UNKNOWN, "user11@example.com")
        requests.put(f"{server.url}/_mock/apps/campaign-mock-demo-ios", json={"bundleId": BUNDLE_ID}).raise_for_status()
        # KNOWN (user10) is on the allow-list and known to APNs; UNKNOWN (user11) is on the list, unknown to APNs.
        apns.register(KNOWN)
        # The userKey pattern alone sends nothing: each device is trusted first, on its page.
        for token in (KNOWN, UNKNOWN):
            trust_on_its_page(browser, server, token)
        open_console(browser, server, "push")
        choose_and_compose(browser, KNOWN)
        assert "APNs sandbox" in wait_for(lambda: find(browser, "[data-testid=push-send]"), what="the button")[0].text
        click_send(browser)
        outcome = wait_for(lambda: [o for o in find(browser, "[data-testid=push-send-outcome]") if "accepted" in o.text],
                           what="the accepted answer")[0]
        assert "APNs (sandbox) accepted" in outcome.text
        assert apns.delivered[0].headers["apns-topic"] == BUNDLE_ID
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", outcome)
        screenshot(browser, "push-sent")

        find(browser, "[data-testid=push-device-search]")[0].clear()
        choose_and_compose(browser, UNKNOWN)
        click_send(browser)
        outcome = wait_for(lambda: [o for o in find(browser, "[data-testid=push-send-outcome]") if "refused" in o.text],
                           what="the refusal")[0]
        assert "BadDeviceToken" in outcome.text and "sandbox" in outcome.text
        check_clean(browser, server)


def click_send(driver):
    """Clicks Send to device. The message's block is redrawn as stream events arrive, so a button found a
    moment before may be gone: the click is retried on the one drawn now (wait_for takes a stale one as
    not yet)."""
    wait_for(lambda: (buttons := find(driver, "[data-testid=push-send]")) and (buttons[0].click() or True),
             what="the Send to device button")


def trust_on_its_page(driver, server, token):
    """Opens the device's page in the console and presses Trust for sending."""
    open_console(driver, server, "devices")
    find(driver, "#device-search")[0].send_keys(token)
    wait_for(lambda: [row for row in find(driver, "[data-testid=device-row]") if row.get_attribute("data-token") == token],
             what="the device's row")[0].click()
    wait_for(lambda: [b for b in find(driver, "[data-testid=device-trust]") if b.text == "Trust for sending"],
             what="the trust button")[0].click()
    # Trust is state: the drawer says so, and offers to take it back.
    wait_for(lambda: [s for s in find(driver, "[data-testid=device-trust-state]") if s.get_attribute("data-trusted") == "true"],
             what="the device shown trusted")
    assert wait_for(lambda: find(driver, "[data-testid=device-trust]"), what="the button")[0].text == "Stop trusting"


def test_an_auto_sent_push_shows_its_answer_from_the_stream(browser, apns):
    with LiveServer(*apns.flags, "--send-allow", f"token:{AUTO}", "--auto-send") as server:
        register_many(server.url, range(200))
        register_phone(server.url, AUTO, "user20@example.com")
        requests.put(f"{server.url}/_mock/apps/campaign-mock-demo-ios", json={"bundleId": BUNDLE_ID}).raise_for_status()
        apns.register(AUTO)
        open_console(browser, server, "push")
        choose_and_compose(browser, AUTO)
        wait_for(lambda: [o for o in find(browser, "[data-testid=push-send-outcome]") if "accepted" in o.text],
                 what="the auto-send's answer, from the stream")
        assert len(apns.delivered) == 1
        check_clean(browser, server)


def test_without_credentials_the_console_says_how_to_send(browser):
    with LiveServer() as server:
        register_many(server.url, range(30))
        open_console(browser, server, "push")
        choose_and_compose(browser, "tok00003")
        assert not find(browser, "[data-testid=push-send]")
        assert "--fcm-service-account" in find(browser, "#payloads")[0].text
        check_clean(browser, server)
