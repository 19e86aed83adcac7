"""`serve --import FILE` and `--export-on-exit FILE` (docs/ci.md, "Snapshots"), and the `.gitignore` a data
directory the server makes holds: real processes, real files, real signals.
"""
import json
import os
import signal
import subprocess
import tempfile
import urllib.request

import pytest

from live_server import BINARY, LiveServer

TOKEN = "80f1a2b3c4d5e6f708192a3b4c5d6e7f80f1a2b3c4d5e6f708192a3b4c5d6e7f"


def get(server, path):
    with urllib.request.urlopen(server.url + path, timeout=10) as response:
        return json.loads(response.read())


def register(server, token=TOKEN, app="shop-ios"):
    form = urllib.parse.urlencode({"registrationToken": token, "mobileAppUuid": app, "userKey": "jane"}).encode()
    with urllib.request.urlopen(urllib.request.Request(server.url + "/nms/mobile/1/registerIOS.jssp", data=form),
                                timeout=10) as response:
        assert response.status == 200


@pytest.fixture
def folder():
    with tempfile.TemporaryDirectory() as directory:
        yield directory


def test_a_snapshot_exported_on_sigterm_seeds_the_next_start(folder):
    snapshot = os.path.join(folder, "seed.json")
    with LiveServer("--app", "ios:shop-ios", "--export-on-exit", snapshot) as server:
        register(server)
        assert not os.path.exists(snapshot)
    # LiveServer stops it with SIGTERM: the whole document, and no temporary file left beside it.
    with open(snapshot) as file:
        document = json.load(file)
    assert document["format"] == "campaign-mock-state"
    assert [d["registrationToken"] for d in document["devices"]] == [TOKEN]
    assert os.listdir(folder) == ["seed.json"]
    with LiveServer("--import", snapshot) as server:
        [device] = get(server, "/_mock/devices")["devices"]
        assert device["registrationToken"] == TOKEN and device["trusted"] is False
        assert [a["integrationKey"] for a in get(server, "/_mock/apps")["apps"]] == ["shop-ios"]


def test_sigint_exports_too(folder):
    snapshot = os.path.join(folder, "out.json")
    server = LiveServer("--app", "ios:shop-ios", "--export-on-exit", snapshot)
    with server:
        register(server)
        server.process.send_signal(signal.SIGINT)
        assert server.process.wait(timeout=10) == 0
    assert json.load(open(snapshot))["devices"][0]["registrationToken"] == TOKEN


def test_a_refused_snapshot_stops_the_start_with_the_words_of_a_refused_import(folder):
    bad = os.path.join(folder, "bad.json")
    with open(bad, "w") as file:
        json.dump({"format": "campaign-mock-state", "version": 1, "applications": [], "devices": [{}],
                   "messages": [], "events": [], "faults": []}, file)
    with LiveServer() as server:
        request = urllib.request.Request(server.url + "/_mock/state", data=open(bad, "rb").read(), method="PUT")
        try:
            urllib.request.urlopen(request, timeout=10)
            raise AssertionError("the import was accepted")
        except urllib.error.HTTPError as error:
            assert error.code == 400
            words = json.loads(error.read())["error"]
    started = subprocess.run([BINARY, "serve", "--port", "0", "--in-memory", "--import", bad],
                             capture_output=True, text=True, timeout=30, cwd=folder)
    assert started.returncode != 0
    assert words in started.stderr and bad in started.stderr, started.stderr
    assert "Stop with Ctrl-C" not in started.stdout
    missing = subprocess.run([BINARY, "serve", "--port", "0", "--in-memory", "--import", folder + "/none.json"],
                             capture_output=True, text=True, timeout=30, cwd=folder)
    assert missing.returncode != 0 and "cannot read" in missing.stderr and "none.json" in missing.stderr


def test_a_data_directory_the_server_makes_keeps_itself_out_of_git(folder):
    made = os.path.join(folder, "app", ".campaign-mock")
    with LiveServer(data_dir=made):
        pass
    with open(os.path.join(made, ".gitignore")) as file:
        assert file.read().splitlines()[-1] == "*"
    # A directory that was there is the user's: nothing is added to it.
    own = os.path.join(folder, "own")
    os.mkdir(own)
    with LiveServer(data_dir=own):
        pass
    assert not os.path.exists(os.path.join(own, ".gitignore"))
    if subprocess.run(["git", "--version"], capture_output=True).returncode == 0:
        repository = os.path.join(folder, "app")
        subprocess.run(["git", "init", "-q", repository], check=True)
        status = subprocess.run(["git", "-C", repository, "status", "--porcelain", "--untracked-files=all"],
                                capture_output=True, text=True, check=True)
        assert status.stdout == "", status.stdout


def test_ca_export_android_nsc_says_when_the_app_has_its_own_network_security_config(folder):
    app = os.path.join(folder, "app", "src")
    os.makedirs(os.path.join(app, "main", "res", "xml"))
    caroot = os.path.join(folder, "ca")
    env = dict(os.environ, CAMPAIGN_MOCK_CAROOT=caroot)

    def export():
        return subprocess.run([BINARY, "ca", "export", "--format", "android-nsc", "--out", os.path.join(app, "debug", "res")],
                              capture_output=True, text=True, env=env, cwd=folder, timeout=30)

    plain = export()
    assert plain.returncode == 0 and "warning" not in plain.stderr, plain.stderr
    written = open(os.path.join(app, "debug", "res", "xml", "network_security_config.xml")).read()
    # One file for both team setups: the committed team CA, and each developer's own installed as a user CA.
    assert '<certificates src="@raw/campaign_mock_ca" />' in written and '<certificates src="user" />' in written
    open(os.path.join(app, "main", "res", "xml", "network_security_config.xml"), "w").write("<network-security-config/>")
    open(os.path.join(app, "main", "AndroidManifest.xml"), "w").write(
        '<manifest><application android:networkSecurityConfig="@xml/network_rules"/></manifest>')
    clashing = export()
    assert clashing.returncode == 0
    assert "main/res/xml/network_security_config.xml exists" in clashing.stderr, clashing.stderr
    assert 'android:networkSecurityConfig="@xml/network_rules"' in clashing.stderr
    assert 'tools:replace="android:networkSecurityConfig"' in clashing.stderr


def test_a_data_directory_under_a_linked_folder_serves_and_keeps_its_files_where_the_link_leads(tmp_path):
    """A home folder or a workspace that is a link (macOS's /tmp is one): the server starts there and its
    database lands in the folder the link leads to."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "linked").symlink_to(real)
    with LiveServer("--app", "ios:shop-ios", data_dir=str(tmp_path / "linked" / "data")) as server:
        register(server)
        assert get(server, f"/_mock/devices/{TOKEN}")["registrationToken"] == TOKEN
    assert (real / "data" / "campaign-mock.sqlite3").is_file()
