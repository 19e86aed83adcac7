"""Adobe's own Campaign client, acc-js-sdk, against a live campaign-mock.

What it needs, and the skip that says what is missing: acc_js_sdk_setup.py. `acc_js_sdk_flows.js` runs the flows and reports each.

Run by `make test` (pytest Tests/Contract).
"""
import json
import os
import pathlib
import re
import subprocess
import urllib.request

import pytest

from acc_js_sdk_setup import SDK_DIR, missing, node_path
from live_server import LiveServer

SCHEMAS = pathlib.Path(__file__).resolve().parents[2] / "Sources" / "CampaignMock" / "SOAP" / "Schemas"


pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")


def catalogue():
    ids = []
    for document in sorted(SCHEMAS.glob("*.xml")):
        text = document.read_text(encoding="utf-8")
        ids.append(re.search(r'namespace="([^"]+)"', text).group(1) + ":" + re.search(r' name="([^"]+)"', text).group(1))
    return ids


@pytest.fixture(scope="module")
def results():
    with LiveServer() as server:
        body = ("registrationToken=acc-js-sdk-token&mobileAppUuid=campaign-mock-demo-android&userKey=node%40example.com"
                "&additionalParams=%3CadditionalParameters%3E%3C%2FadditionalParameters%3E").encode()
        request = urllib.request.Request(f"{server.url}/nms/mobile/1/registerAndroid.jssp", data=body,
                                         headers={"Content-Type": "application/x-www-form-urlencoded;charset=UTF-8"})
        assert urllib.request.urlopen(request, timeout=10).read() == b"OK"
        script = pathlib.Path(__file__).with_name("acc_js_sdk_flows.js")
        run = subprocess.run(["node", str(script), server.url, str(pathlib.Path(SDK_DIR) / "acc-js-sdk" / "src" / "index.js")],
                             capture_output=True, text=True, timeout=120,
                             env=dict(node_environment(), CATALOGUE_SCHEMAS=json.dumps(catalogue())))
        assert run.returncode == 0, run.stderr
        outcome = json.loads(run.stdout)
        outcome["_base"] = server.url
        yield outcome


def node_environment(**extra):
    """NODE_PATH for Debian's Node packages and the shims that stand in for npm packages Debian lacks."""
    return dict(os.environ, NODE_PATH=node_path(), **extra)


def admin(results, path):
    with urllib.request.urlopen(results["_base"] + path, timeout=10) as response:
        return json.load(response)


FLOWS = ["logon with user and password", "hasPackage", "getSchema of an unknown schema is null",
         "getOption XtkDatabaseId", "setOption then getOption", "getOption of an unknown option", "getServerTime",
         "getNewIdsEx", "executeQuery finds the device registered over HTTP",
         "executeQuery on an attribute the schema lacks is a fault", "subscribe and unsubscribe",
         "pushEvent for a registered device", "write then query a recipient",
         "write to a schema that is not writable is a fault naming the writable ones",
         "pushEvent for e-mail, then get the rtEvent by @id", "installPackage (XML) makes its option readable",
         "installPackage (JSON) makes its enumeration queryable",
         "executeQuery: getIfExists miss, empty select, paging, analyze, alias", "selectAll, buildQuery and buildQueryEx",
         "an installed package is listed at the next logon", "mcPing", "ping and test",
         "logon with a session and security token", "logon with a bearer token (BearerTokenLogon)",
         "IMS bearer token on every call", "a wrong bearer token is refused", "anonymous getServerTime", "logoff"]


@pytest.mark.parametrize("flow", FLOWS + [f"getSchema {id}" for id in catalogue()])
def test_flow(results, flow):
    assert flow in results, f"the flow did not run: {flow}"
    assert str(results[flow]).startswith("ok"), f"{flow}: {results[flow]}"


# The SDK's own samples, which exercise most of the API, on the mock's defaults. 600 logs on as mc/mc, as a
# Message Center would: an operator the mock accepts by default besides admin/admin.
SAMPLES = ["000 - basics - logon.js", "001 - basics - queries.js", "002 - basics - schemas.js",
           "004 - basics - writer.js", "009 - basics - health.js", "011 - basics - packages.js",
           "600 - message center - push event.js"]


@pytest.mark.parametrize("sample", SAMPLES)
def test_sample_runs_to_the_end(sample):
    login = "mc" if sample.startswith("600") else "admin"
    with LiveServer() as server:
        run = subprocess.run(["node", sample], cwd=pathlib.Path(SDK_DIR) / "acc-js-sdk" / "samples",
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120,
                             env=node_environment(ACC_URL=server.url, ACC_USER=login, ACC_PASSWORD=login))
    output = run.stdout
    assert run.returncode == 0, output[-2000:]
    # Each sample prints a banner per part; a part that failed prints the exception. sdk.ip() needs the
    # internet, so 000's "outbound IP address" part may fail here, and only that one.
    parts = re.split(r"^={20,}$", output, flags=re.M)
    failed = [part.strip().splitlines()[0] for part in parts
              if re.search(r"Failed to run sample|CampaignException|Error:", part) and "outbound IP address" not in part]
    assert not failed, f"{sample}: parts that failed: {failed}\n{output[-3000:]}"
    assert "Sample ..........." in output or sample.startswith("004")


def test_subscriptions_show_in_the_journal(results):
    """What the SDK did is visible through /_mock/: its Subscribe and Unsubscribe calls, answered 200."""
    journal = admin(results, "/_mock/requests?endpoint=soap&limit=1000")["requests"]
    for method in ("Subscribe", "Unsubscribe"):
        calls = [r for r in journal if f"nms:subscription#{method}" in r["target"] or f":{method} " in r["body"]
                 or f"<m:{method} " in r["body"]]
        assert calls and all(r["status"] == 200 for r in calls), f"no {method} in the journal"


def test_the_mobile_push_event_is_a_push_linked_to_the_device(results):
    plid = results["pushEvent for a registered device"].split()[-1]
    push = admin(results, f"/_mock/push/{plid}")
    assert push["messages"][0]["registrationToken"] == "acc-js-sdk-token"
    device = admin(results, "/_mock/devices/acc-js-sdk-token")
    assert [m["messageId"] for m in device["messages"]] == [push["messages"][0]["messageId"]]


def test_the_sdks_calls_leave_no_error_finding(results):
    """What acc-js-sdk sent (SOAP calls, a push event for a registered device) integrates without an error
    finding of the integration checks (docs/checks.md)."""
    assert admin(results, "/_mock/checks?severity=error")["findings"] == []
