"""The console's links, trust, removal, list of pushes, export and import, in a real headless Chromium at 1,280
and 1,024 px against a store of thousands of devices. Screenshots go to $CAMPAIGN_MOCK_ARTIFACTS
(default .build/test-artifacts/), named console-links-*.png.
"""
import json
import os
import tempfile

import pytest
import requests

from live_server import LiveServer
from test_console import (CHROMIUM, DRIVER, browser, check_clean, click, find, open_console, register_many, screenshot,
                          wait_for)

pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                reason="needs Chromium and its driver (Debian: chromium chromium-driver)")
assert browser  # the fixture, imported for the tests below

WIDTHS = [1280, 1024]


def fits(driver, selector):
    """Whether the element's content fits its box (nothing cut, no scroll bar inside it)."""
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e.scrollWidth <= e.clientWidth + 1;", selector)


def page_fits(driver):
    return driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth;")


def trust_state(driver):
    """The drawer's trust state as (data-trusted, text), read together so a redraw cannot split them."""
    state = find(driver, "[data-testid=device-trust-state]")[0]
    return state.get_attribute("data-trusted"), state.text


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_fits_and_a_device_request_and_push_have_links_that_open_them(browser, width):
    browser.set_window_size(width, 900)
    with LiveServer() as server:
        register_many(server.url, range(2500))
        token = "tok00007"
        push = requests.post(f"{server.url}/_mock/push", json={"token": token, "title": "Sale", "body": "20% off"}).json()
        requests.get(server.url + push["messages"][0]["tracking"]["receive"]).raise_for_status()
        # A finding: an open whose message was never composed here.
        requests.get(f"{server.url}/r/?id=h1234abcd,{push['deliveryId']},2").raise_for_status()
        open_console(browser, server, "overview")
        # The Applications table (with its Checks column) fits its card; no page scrolls sideways.
        wait_for(lambda: find(browser, "#apps tr"), what="the applications")
        assert fits(browser, ".apps-card .table-wrap"), "the Applications table overflows its card"
        assert "Off:" in find(browser, "[data-testid=overview-sending]")[0].text
        screenshot(browser, f"links-overview-{width}")
        for view in ["overview", "devices", "events", "requests", "push", "faults", "checks"]:
            browser.get(f"{server.url}/_mock/ui/#{view}")
            wait_for(lambda: find(browser, "[data-testid=connection-status]")[0].text == "live", what="live")
            assert page_fits(browser), f"#{view} scrolls sideways at {width} px"
            screenshot(browser, f"links-{view}-{width}")
        # The fault form offers the unknown endpoint the API accepts.
        assert "unknown" in [o.get_attribute("value") for o in find(browser, "#fault-form select[name=endpoint] option")]

        # A device's drawer has a URL: paste it into a new page and the same drawer opens.
        browser.get(f"{server.url}/_mock/ui/#devices")
        wait_for(lambda: find(browser, "[data-testid=device-row]"), what="the devices")
        find(browser, "[data-testid=device-search]")[0].send_keys(token)
        wait_for(lambda: [r for r in find(browser, "[data-testid=device-row]") if r.get_attribute("data-token") == token],
                 what="the device's row")[0].click()
        wait_for(lambda: token in find(browser, "#drawer-title")[0].text, what="the drawer")
        url = browser.current_url
        assert url.endswith(f"#devices/{token}?app=campaign-mock-demo-ios"), url
        browser.get("about:blank")
        browser.get(url)
        wait_for(lambda: find(browser, "#drawer-title") and token in find(browser, "#drawer-title")[0].text,
                 10, "the pasted link's drawer")
        assert not find(browser, "[data-testid=drawer]")[0].get_attribute("hidden") is not None
        # Closing goes to the list's URL; back opens the device again, forward closes it.
        click(browser, "[data-testid=drawer-close]")
        wait_for(lambda: browser.current_url.endswith("#devices"), what="the list's URL")
        browser.back()
        wait_for(lambda: find(browser, "[data-testid=drawer]")[0].get_attribute("hidden") is None, what="back opens it")
        browser.forward()
        wait_for(lambda: find(browser, "[data-testid=drawer]")[0].get_attribute("hidden") is not None, what="forward closes it")

        # A request's URL, and a push's.
        request_id = requests.get(f"{server.url}/_mock/requests?limit=1").json()["requests"][0]["id"]
        browser.get(f"{server.url}/_mock/ui/#requests/{request_id}")
        wait_for(lambda: "→" in find(browser, "#drawer-title")[0].text, 10, "the request's drawer")
        browser.get(f"{server.url}/_mock/ui/#push/{push['id']}")
        wait_for(lambda: f"#{push['id']}" in find(browser, "[data-testid=push-id]")[0].text, 10, "the push's card")
        # The Push page lists composed pushes with their hits; a row opens its push.
        [row] = wait_for(lambda: find(browser, "[data-testid=push-row]"), what="the list of pushes")
        assert "1 receive · 0 open" in row.text and "not sent" in row.text
        screenshot(browser, f"links-push-opened-{width}")
        # A finding's URL.
        browser.get(f"{server.url}/_mock/ui/#checks")
        link = wait_for(lambda: find(browser, "[data-testid=check-link]"), 10, "a finding's link")[0]
        href = link.get_attribute("href")
        browser.get(href)
        wait_for(lambda: find(browser, "[data-testid=check-finding].linked"), 10, "the linked finding")
        check_clean(browser, server)


@pytest.mark.parametrize("width", WIDTHS)
def test_trust_is_shown_as_state_and_a_device_is_removed_from_its_drawer(browser, width):
    browser.set_window_size(width, 900)
    with LiveServer() as server:
        register_many(server.url, range(2000))
        token = "tok00010"
        requests.post(f"{server.url}/_mock/push", json={"token": token, "body": "Hi"}).raise_for_status()
        browser.get(f"{server.url}/_mock/ui/#devices/{token}?app=campaign-mock-demo-ios")
        trusted, text = wait_for(lambda: trust_state(browser), 10, "the trust state")
        assert trusted == "false" and "not trusted" in text, (trusted, text)
        click(browser, "[data-testid=device-trust]")
        wait_for(lambda: trust_state(browser)[0] == "true", what="trusted")
        wait_for(lambda: find(browser, "[data-testid=device-trust]")[0].text == "Stop trusting", what="Stop trusting")
        assert requests.get(f"{server.url}/_mock/devices/{token}/trust").json()["trusted"] is True
        # It survives reopening, and the list marks the device.
        click(browser, "[data-testid=drawer-close]")
        find(browser, "[data-testid=device-search]")[0].send_keys(token)

        def open_the_marked_row():
            rows = [r for r in find(browser, "[data-testid=device-row]")
                    if r.get_attribute("data-token") == token and find(r, "[data-testid=device-trusted]")]
            return rows and (rows[0].click() or True)
        wait_for(open_the_marked_row, what="the trusted marker")
        wait_for(lambda: trust_state(browser)[0] == "true", what="still trusted")
        screenshot(browser, f"links-trusted-{width}")
        click(browser, "[data-testid=device-trust]")
        wait_for(lambda: trust_state(browser)[0] == "false", what="no longer trusted")
        # Remove it: the drawer closes, the notice counts what went and what stayed.
        click(browser, "[data-testid=device-remove]")
        browser.switch_to.alert.accept()
        notice = wait_for(lambda: find(browser, "[data-testid=devices-notice]")[0].text, what="the removal's notice")
        assert f"Removed {token}" in notice and "1 push kept" in notice, notice
        assert requests.get(f"{server.url}/_mock/devices/{token}").status_code == 404
        wait_for(lambda: requests.get(f"{server.url}/_mock/devices").json()["total"] == 1999, what="one fewer")
        screenshot(browser, f"links-removed-{width}")
        check_clean(browser, server)


def test_export_and_import_from_the_header_with_the_refusal_in_words(browser):
    browser.set_window_size(1280, 900)
    with tempfile.TemporaryDirectory() as folder, LiveServer() as server:
        register_many(server.url, range(1000))
        snapshot = requests.get(f"{server.url}/_mock/state").content
        good, bad = os.path.join(folder, "good.json"), os.path.join(folder, "bad.json")
        document = json.loads(snapshot)
        document["devices"] = document["devices"][:10]
        document["messages"], document["events"] = [], []
        open(good, "w").write(json.dumps(document))
        open(bad, "w").write('{"format": "campaign-mock-state", "version": 99}')
        open_console(browser, server, "overview")
        assert find(browser, "[data-testid=export-state]")[0].is_displayed()
        find(browser, "[data-testid=import-state]")[0].send_keys(bad)
        browser.switch_to.alert.accept()
        notice = wait_for(lambda: find(browser, "[data-testid=state-notice]")[0].text, what="the refusal")
        assert notice.startswith("Not imported, nothing changed: ") and "version" in notice, notice
        screenshot(browser, "links-import-refused-1280")
        assert requests.get(f"{server.url}/_mock/devices").json()["total"] == 1000
        find(browser, "[data-testid=import-state]")[0].send_keys(good)
        browser.switch_to.alert.accept()
        wait_for(lambda: find(browser, "[data-testid=state-notice]")[0].text.startswith("Imported good.json: "),
                 what="the import")
        assert requests.get(f"{server.url}/_mock/devices").json()["total"] == 10
        # The refused import's 400 is the one error the browser logged.
        errors = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        assert len(errors) == 1 and "/_mock/state" in errors[0] and "400" in errors[0], errors
