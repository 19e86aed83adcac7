"""Adobe's own Campaign client, acc-js-sdk, against a live campaign-mock.

ACC_JS_SDK_DIR names a folder holding `acc-js-sdk/` (the SDK, unmodified) and `shims/` (stand-ins for
npm packages Debian lacks); Node.js and Debian's node-axios and node-jsdom must be installed. Without
them these tests are skipped, saying why. `acc_js_sdk_flows.js` runs the flows and reports each.

Run by `make test` (pytest Tests/Contract).
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import urllib.request

import pytest

BINARY = os.environ.get("CAMPAIGN_MOCK_BINARY", ".build/debug/campaign-mock")
SDK_DIR = os.environ.get("ACC_JS_SDK_DIR")
SCHEMAS = pathlib.Path(__file__).resolve().parents[2] / "Sources" / "CampaignMock" / "SOAP" / "Schemas"


def missing():
    if not SDK_DIR:
        return "ACC_JS_SDK_DIR is not set (it names the folder with acc-js-sdk/ and shims/)"
    if not (pathlib.Path(SDK_DIR) / "acc-js-sdk" / "src" / "index.js").is_file():
        return f"no acc-js-sdk/src/index.js in ACC_JS_SDK_DIR={SDK_DIR}"
    if not shutil.which("node"):
        return "node is not installed (Debian: nodejs node-axios node-jsdom)"
    return None


pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")


def catalogue():
    ids = []
    for document in sorted(SCHEMAS.glob("*.xml")):
        text = document.read_text(encoding="utf-8")
        ids.append(re.search(r'namespace="([^"]+)"', text).group(1) + ":" + re.search(r' name="([^"]+)"', text).group(1))
    return ids


@pytest.fixture(scope="module")
def results():
    work = tempfile.mkdtemp()
    server = subprocess.Popen([os.path.abspath(BINARY), "serve", "--port", "0", "--in-memory", "--log-level", "warning"],
                              stdout=subprocess.PIPE, text=True, cwd=work)
    base = None
    for line in server.stdout:
        match = re.search(r"(http://127\.0\.0\.1:\d+)", line)
        if match and base is None:
            base = match.group(1)
        if "Stop with Ctrl-C" in line:
            break
    assert base, "campaign-mock did not start"
    body = ("registrationToken=acc-js-sdk-token&mobileAppUuid=campaign-mock-demo-android&userKey=node%40example.com"
            "&additionalParams=%3CadditionalParameters%3E%3C%2FadditionalParameters%3E").encode()
    request = urllib.request.Request(f"{base}/nms/mobile/1/registerAndroid.jssp", data=body,
                                     headers={"Content-Type": "application/x-www-form-urlencoded;charset=UTF-8"})
    assert urllib.request.urlopen(request, timeout=10).read() == b"OK"
    env = dict(os.environ, NODE_PATH=os.pathsep.join(["/usr/share/nodejs", str(pathlib.Path(SDK_DIR) / "shims")]),
               CATALOGUE_SCHEMAS=json.dumps(catalogue()))
    script = pathlib.Path(__file__).with_name("acc_js_sdk_flows.js")
    run = subprocess.run(["node", str(script), base, str(pathlib.Path(SDK_DIR) / "acc-js-sdk" / "src" / "index.js")],
                         capture_output=True, text=True, timeout=120, env=env)
    server.terminate()
    server.wait(timeout=10)
    shutil.rmtree(work, ignore_errors=True)
    assert run.returncode == 0, run.stderr
    outcome = json.loads(run.stdout)
    outcome["_base"] = base
    return outcome


FLOWS = ["logon with user and password", "hasPackage", "getSchema of an unknown schema is null",
         "getOption XtkDatabaseId", "setOption then getOption", "getOption of an unknown option", "getServerTime",
         "getNewIdsEx", "executeQuery finds the device registered over HTTP",
         "executeQuery on an attribute the schema lacks is a fault", "subscribe and unsubscribe",
         "pushEvent for a registered device", "write then query a recipient",
         "write to a schema that is not writable is a fault naming the writable ones", "mcPing", "ping and test",
         "logon with a session and security token", "logon with a bearer token (BearerTokenLogon)",
         "IMS bearer token on every call", "a wrong bearer token is refused", "anonymous getServerTime", "logoff"]


@pytest.mark.parametrize("flow", FLOWS + [f"getSchema {id}" for id in catalogue()])
def test_flow(results, flow):
    assert flow in results, f"the flow did not run: {flow}"
    assert str(results[flow]).startswith("ok"), f"{flow}: {results[flow]}"
