"""Runs the examples of the README and of every page of docs/, so none can rot.

Each document runs against a live server of its own, started from the binary under test when the
document's first example runs. In each, every ```sh block runs with bash (-e, -o pipefail), every ```python block with this interpreter and every
```js block with Node.js (with Adobe's acc-js-sdk from ACC_JS_SDK_DIR as `@adobe/acc-js-sdk`; skipped,
saying why, without them), in the
document's order, in one temporary directory, with that binary on PATH as `campaign-mock` (as after `make install`). The server listens on a free
port; the examples' `127.0.0.1:8080` / `localhost:8080` are pointed at it, and any other 80xx port an
example uses at another free port. A block passes when it exits 0.

An HTML comment on the line before a block changes how it runs:

    <!-- example: serve -->          each line starts a server; it must print its banner, then stop
                                     cleanly on SIGTERM (its port is replaced by a free one)
    <!-- example: skip REASON -->    not run here (a simulator, an emulator, a Docker engine, …)

Run by `make test` (pytest Tests/Contract).
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

import acc_js_sdk_setup

BINARY = os.path.abspath(os.environ.get("CAMPAIGN_MOCK_BINARY", ".build/debug/campaign-mock"))
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOCUMENTS = ["README.md"] + sorted(
    os.path.join("docs", name) for name in os.listdir(os.path.join(ROOT, "docs")) if name.endswith(".md"))
# The APNs device token of the examples: 32 bytes, as Apple issues them (a shorter one gets BadDeviceToken).
IOS_TOKEN = "6e65772d6170706c652d746f6b656e2d6578616d706c652d33322d6279746573"
FENCE = re.compile(r"^```(\w*)\s*$")
MARK = re.compile(r"^<!--\s*example:\s*(serve|skip)\b\s*(.*?)\s*-->\s*$")


def examples(document):
    """(document, line number, language, mode, reason, code) of every sh/bash/python/js block of a document."""
    lines = open(os.path.join(ROOT, document), encoding="utf-8").read().splitlines()
    found = []
    index = 0
    while index < len(lines):
        fence = FENCE.match(lines[index])
        if not fence:
            index += 1
            continue
        language = fence.group(1)
        end = index + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        mark = MARK.match(lines[index - 1]) if index > 0 else None
        if language in ("sh", "bash", "python", "js"):
            mode, reason = (mark.group(1), mark.group(2)) if mark else ("run", "")
            found.append((document, index + 1, language, mode, reason, "\n".join(lines[index + 1:end])))
        index = end + 1
    return found


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Ports:
    """The examples' fixed ports, each mapped to a free one for this run (8080 to the shared server)."""

    def __init__(self, main):
        self.mapping = {"8080": str(main)}

    def rewrite(self, code):
        def port(match):
            number = match.group(2)
            if number not in self.mapping:
                self.mapping[number] = str(free_port())
            return match.group(1) + self.mapping[number]
        return re.sub(r"((?:127\.0\.0\.1|localhost):|--(?:tls-)?port )(8[0-9]{3})\b", port, code)


def start_server(arguments, cwd, env):
    """Starts `campaign-mock ARGUMENTS` and returns (process, banner) once the banner is complete."""
    process = subprocess.Popen(arguments, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    banner = []
    deadline = time.monotonic() + 60
    for line in process.stdout:
        banner.append(line)
        if "Stop with Ctrl-C" in line or time.monotonic() > deadline:
            break
    return process, "".join(banner)


class Sessions:
    """One live server per document, started when the document's first example needs it."""

    def __init__(self):
        self.work = tempfile.mkdtemp(prefix="doc-examples-")
        self.started = {}
        self.processes = []

    def get(self, document):
        if document not in self.started:
            self.started[document] = self.start(document)
        return self.started[document]

    def start(self, document):
        work = tempfile.mkdtemp(prefix=os.path.basename(document) + "-", dir=self.work)
        bin_dir = os.path.join(work, "bin")
        os.mkdir(bin_dir)
        os.symlink(BINARY, os.path.join(bin_dir, "campaign-mock"))
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"])
        home = os.path.join(work, "home")
        os.mkdir(home)
        process, banner = start_server(["campaign-mock", "serve", "--port", "0"], cwd=home, env=env)
        self.processes.append(process)
        match = re.search(r"http://127\.0\.0\.1:(\d+)", banner)
        assert match and "Stop with Ctrl-C" in banner, f"the server did not start: {banner}{process.stderr.read()}"
        env["CAMPAIGN_MOCK_SERVER"] = f"http://127.0.0.1:{match.group(1)}"
        return {"home": home, "env": env, "ports": Ports(int(match.group(1))), "work": work, "document": document}

    def close(self):
        for process in self.processes:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=30)
        shutil.rmtree(self.work, ignore_errors=True)


@pytest.fixture(scope="module")
def sessions():
    sessions = Sessions()
    yield sessions
    sessions.close()


ALL = [example for document in DOCUMENTS for example in examples(document)]


def test_the_docs_have_the_core_examples():
    """The flows a newcomer looks for are in the docs as runnable examples, not only in prose."""
    runnable = "\n".join(code for _, _, _, mode, _, code in ALL if mode == "run")
    for needle in ["registerIOS.jssp", "registerAndroid.jssp", "additionalParams=", "additionalParameters",
                   "/r/?id=h", ",1\"", ",2\"", "xtk:session#Logon", "xtk:queryDef#ExecuteQuery",
                   "campaign-mock replay", "campaign-mock push"]:
        assert needle in runnable, f"no runnable example contains {needle}"
    skipped = [(document, line, reason) for document, line, _, mode, reason, _ in ALL if mode == "skip"]
    for document, line, reason in skipped:
        assert reason, f"{document}:{line}: a skipped example must say why"


def test_the_ios_device_tokens_of_the_examples_are_apns_tokens():
    """An APNs device token is 32 bytes, 64 hex digits: an example registering a shorter hex token for an iOS
    app would get BadDeviceToken from Apple when sent for real."""
    commands = [command for _, _, _, mode, _, code in ALL if mode == "run"
                for command in code.replace("\\\n", " ").splitlines() if "registerIOS.jssp" in command]
    tokens = [token for command in commands for token in re.findall(r"registrationToken=([^\s&'\"]+)", command)]
    assert IOS_TOKEN in tokens
    short = [token for token in tokens if re.fullmatch(r"[0-9a-f]+", token) and len(token) != 64]
    assert not short, f"hex iOS tokens of the examples that are not 64 digits: {short}"


def test_the_readme_stays_a_front_door():
    """The README is the first screen: short, and every page of docs/ is one link away from it."""
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    assert len(readme.splitlines()) <= 300, "the README has grown past 300 lines: move the detail into docs/"
    unlinked = [page for page in DOCUMENTS[1:] if f"]({page})" not in readme and f"]({page}#" not in readme]
    assert not unlinked, f"pages the README does not link to: {unlinked}"


def test_the_configuration_page_lists_every_flag_of_serve():
    """docs/configuration.md is the settings reference: every flag `serve --help` lists is in it."""
    help_text = subprocess.run([BINARY, "serve", "--help"], capture_output=True, text=True, timeout=30).stdout
    flags = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", help_text)) - {"--help", "--version"}
    page = open(os.path.join(ROOT, "docs", "configuration.md"), encoding="utf-8").read()
    assert flags, help_text
    missing = sorted(flag for flag in flags if f"`{flag}`" not in page and f"`{flag} " not in page)
    assert not missing, f"flags of serve --help that docs/configuration.md does not list: {missing}"


@pytest.mark.parametrize("document,line,language,mode,reason,code", ALL, ids=[f"{e[0]}:{e[1]}" for e in ALL])
def test_doc_example(sessions, document, line, language, mode, reason, code):
    if mode == "skip":
        pytest.skip(f"{document}:{line}: {reason}")
    session = sessions.get(document)
    code = session["ports"].rewrite(code)
    if mode == "serve":
        run_servers(session, line, code)
        return
    env = session["env"]
    if language in ("sh", "bash"):
        command = ["bash", "-e", "-o", "pipefail", "-c", code]
    elif language == "python":
        command = [sys.executable, "-c", code]
    else:
        command, env = node_command(session, line, code)
    process = subprocess.Popen(command, cwd=session["home"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=120)
    finally:
        # Servers an example started in the background go with it.
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    assert process.returncode == 0, f"{document}:{line} exited {process.returncode}:\n{code}\n--- output:\n{output}"


def node_command(session, line, code):
    document = session["document"]
    """`node -e CODE` with acc-js-sdk resolvable as `@adobe/acc-js-sdk`, or a skip saying what is missing."""
    if acc_js_sdk_setup.missing():
        pytest.skip(f"{document}:{line}: needs Adobe's acc-js-sdk: {acc_js_sdk_setup.missing()}")
    sdk_dir = acc_js_sdk_setup.SDK_DIR
    modules = os.path.join(session["work"], "node_modules")
    if not os.path.exists(os.path.join(modules, "@adobe", "acc-js-sdk")):
        os.makedirs(os.path.join(modules, "@adobe"), exist_ok=True)
        os.symlink(os.path.join(sdk_dir, "acc-js-sdk"), os.path.join(modules, "@adobe", "acc-js-sdk"))
    env = dict(session["env"], NODE_PATH=acc_js_sdk_setup.node_path(modules))
    return ["node", "-e", code], env


def run_servers(session, line, code):
    """Each command line of a `serve` block starts, prints its banner and stops cleanly."""
    for command in code.splitlines():
        command = command.split("  #")[0].strip()
        if not command or command.startswith("#"):
            continue
        words = command.split()
        if "--port" not in words:
            words += ["--port", "0"]
        if any(word.startswith("--tls") for word in words) and "--tls-port" not in words:
            words += ["--tls-port", "0"]
        cwd = tempfile.mkdtemp(dir=session["work"])
        process, banner = start_server(words, cwd=cwd, env=session["env"])
        try:
            assert "Stop with Ctrl-C" in banner, (
                f"{session['document']}:{line}: `{command}` did not start:\n{banner}{process.stderr.read() if process.poll() is not None else ''}")
        finally:
            process.send_signal(signal.SIGTERM)
            code_ = process.wait(timeout=30)
        assert code_ == 0, f"{session['document']}:{line}: `{command}` exited {code_} on SIGTERM"


def get(session, path, **params):
    import requests
    answer = requests.get(session["env"]["CAMPAIGN_MOCK_SERVER"] + path, params=params, timeout=10)
    answer.raise_for_status()
    return answer.json()


def jane_registered(session, expected):
    devices = get(session, "/_mock/devices", userKey="jane@example.com")["devices"]
    assert {(d["registrationToken"], d["application"]["platform"]) for d in devices} == expected
    ios = next(d for d in devices if d["registrationToken"] == IOS_TOKEN)
    assert {p["name"]: (p["type"], p["value"]) for p in ios["params"]} == {
        "plan": ("string", "gold"), "points": ("integer", "42")}
    events = get(session, "/_mock/events", messageId="-673096100", after=0)["events"]
    assert [e["type"] for e in events][:2] == ["receive", "open"]


def pushed(session):
    assert get(session, "/_mock/push/1")["messages"][0]["registrationToken"] == IOS_TOKEN
    assert os.path.exists(os.path.join(session["home"], "silent.apns"))


def replayed(session):
    requests_ = get(session, "/_mock/requests", endpoint="registration-ios", limit=1000)["requests"]
    assert any(h[0] == "X-Campaign-Mock-Replay" for r in requests_ for h in r["headers"]), \
        "the replay against the document's server did not arrive"


MARKS = {
    "README.md": lambda session: jane_registered(session, {(IOS_TOKEN, "ios")}),
    "docs/mobile-endpoints.md": lambda session: jane_registered(session, {(IOS_TOKEN, "ios"), ("fcm-token-1", "android")}),
    "docs/push.md": pushed,
    "docs/https.md": lambda session: os.path.exists(
        os.path.join(session["home"], "app/src/debug/res/xml/network_security_config.xml")) or pytest.fail(
        "no network_security_config.xml"),
    "docs/recording.md": replayed,
}


@pytest.mark.parametrize("document", sorted(MARKS))
def test_examples_left_their_mark(sessions, document):
    """Run after the examples (pytest keeps file order): what a document's examples sent is in its
    server's store, so an example that quietly did nothing fails here."""
    MARKS[document](sessions.get(document))


# The error findings a document's examples cause on purpose, to show what the app or the check would see
# (docs/checks.md): any other means an example integrates the SDK wrongly.
DELIBERATE_ERRORS = {
    # An Android build with a mistyped key, then with the iOS build's token: the page's own example.
    "docs/checks.md": {"registration-refused", "token-platform-mismatch"},
    # The key the server does not know, for the legacy iOS SDK's FailureUnknownUUID.
    "docs/legacy-sdk.md": {"registration-refused"},
}


@pytest.mark.parametrize("document", DOCUMENTS)
def test_the_examples_leave_no_error_finding_but_the_deliberate_ones(sessions, document):
    """Run after the examples: the integration checks of each document's server found no `error` in what its
    examples sent, but the mistakes they make on purpose."""
    session = sessions.started.get(document)
    if session is None:
        pytest.skip(f"{document}: none of its examples ran")
    findings = get(session, "/_mock/checks", severity="error")["findings"]
    assert {finding["rule"] for finding in findings} == DELIBERATE_ERRORS.get(document, set()), \
        [finding["message"] for finding in findings]
