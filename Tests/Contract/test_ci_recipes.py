"""The CI recipes in .github/ run as written: the composite action installs campaign-mock from a release
folder (a file:// URL of `make dist` output, as a GitHub release holds it), refuses a tarball whose
checksum does not match, builds from source when the version has no release, serves with the CA given as
inputs and hands the URLs to later steps; Xcode is selected by one script; the workflow runs the README's
test command; the job recipes of docs/ci.md have the shape they describe and pass actionlint.

The action's steps run here as a runner runs them (run_action below): each `run:` step with its `env:`
(inputs and earlier steps' outputs filled in), GITHUB_OUTPUT, GITHUB_ENV and GITHUB_PATH carried to the
next; the actions/cache steps are not run (a cache miss). The release folder is $CAMPAIGN_MOCK_DIST_DIR
(default dist/) when `make dist` left this machine's artifact there, else the binary under test packed by
scripts/package.sh, make dist's last step.

Run by `make test` (pytest Tests/Contract).
"""
import json
import os
import pathlib
import platform
import re
import signal
import shutil
import subprocess
import tarfile
import time

import pytest
import requests
import yaml

from live_server import LiveServer

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = os.path.abspath(os.environ.get("CAMPAIGN_MOCK_BINARY", ".build/debug/campaign-mock"))
ACTION = ROOT / ".github/actions/campaign-mock"
DIST = pathlib.Path(os.environ.get("CAMPAIGN_MOCK_DIST_DIR", ROOT / "dist")).resolve()
ARCH = platform.machine()
RUNNER_ARCH = {"x86_64": "X64", "aarch64": "ARM64"}.get(ARCH, ARCH)  # the runner's name for it
# The release tarball the action takes on this machine, named as install.sh names it (one universal on macOS).
RELEASE_PLATFORM = "macos-universal" if platform.system() == "Darwin" else f"linux-{ARCH}"
EXPRESSION = re.compile(r"\$\{\{\s*(inputs\.[\w-]+|steps\.[\w-]+\.outputs\.[\w-]+)\s*\}\}")


def test_the_workflows_run_the_readme_test_command_select_xcode_26_by_one_script_and_use_the_action():
    workflow = yaml.safe_load((ROOT / ".github/workflows/ci.yml").read_text())
    jobs = workflow["jobs"]
    assert [step.get("run") for step in jobs["linux"]["steps"]].count(".ci/run") == 1
    assert "make lint test" in (ROOT / ".ci/run").read_text()
    assert jobs["macos"]["runs-on"].startswith("macos")
    assert any("swift test" in (step.get("run") or "") for step in jobs["macos"]["steps"])
    release = yaml.safe_load((ROOT / ".github/workflows/release.yml").read_text())["jobs"]
    for job in (jobs["macos"], release["macos"]):
        runs = [step.get("run") or "" for step in job["steps"]]
        assert "scripts/select-xcode.sh" in runs, runs
        assert not any("xcode-select" in run for run in runs), runs
    action_job = next(step for step in jobs["action"]["steps"] if step.get("uses") == "./.github/actions/campaign-mock")
    assert action_job["with"]["release-url"] == "dist" and action_job["with"]["install"] == "release"
    assert any("make dist" in (step.get("run") or "") for step in jobs["action"]["steps"])


# The action's steps, run as a runner runs them.

def packed_release(folder):
    """A release folder: make dist's artifact for this machine, else the binary under test packed as make
    dist packs it (scripts/package.sh). Returns (folder, version, tarball)."""
    found = sorted(DIST.glob(f"campaign-mock-*-{RELEASE_PLATFORM}.tar.gz"), key=lambda path: path.stat().st_mtime)
    folder.mkdir(parents=True, exist_ok=True)
    if found:
        tarball = found[-1]
        version = re.fullmatch(rf"campaign-mock-(.+)-{RELEASE_PLATFORM}\.tar\.gz", tarball.name).group(1)
        for path in (tarball, tarball.with_name(tarball.name + ".sha256")):
            shutil.copy2(path, folder)
        return folder, version, folder / tarball.name
    version = subprocess.run([BINARY, "version"], capture_output=True, text=True, check=True).stdout.split()[1]
    stage = folder.parent / "stage"
    stage.mkdir()
    shutil.copy2(BINARY, stage / "campaign-mock")
    tarball = folder / f"campaign-mock-{version}-{RELEASE_PLATFORM}.tar.gz"
    subprocess.run([ROOT / "scripts/package.sh", stage, tarball], check=True)
    return folder, version, tarball


class Runner:
    """A job's runner for the action: its temp folder, tool cache, and the files a step writes for the next."""

    def __init__(self, folder, path_dirs=()):
        self.folder = pathlib.Path(folder)
        self.temp = self.folder / "temp"
        self.tool_cache = self.folder / "tool-cache"
        self.temp.mkdir(parents=True)
        self.tool_cache.mkdir()
        self.path = [*map(str, path_dirs), *os.environ["PATH"].split(os.pathsep)]
        self.job_env = {}
        self.pids = []
        # What every step printed, as the job's log shows it.
        self.log = ""

    def run_action(self, **inputs):
        """Runs action.yml's `run:` steps in order with INPUTS (names as in action.yml, - or _). Returns
        (outputs by step id, the last step's completed process); stops at the first step that fails."""
        action = yaml.safe_load((ACTION / "action.yml").read_text())
        values = {name: spec.get("default", "") for name, spec in action["inputs"].items()}
        unknown = {name.rstrip("_").replace("_", "-") for name in inputs} - set(values)
        assert not unknown, f"action.yml has no inputs {unknown}"
        values.update({name.rstrip("_").replace("_", "-"): value for name, value in inputs.items()})
        outputs = {}
        step = None
        for spec in action["runs"]["steps"]:
            if "uses" in spec:
                assert spec["uses"].startswith("actions/cache/"), spec
                continue
            assert "if" not in spec, "a run: step the runner always runs"

            def fill(match):
                kind, *rest = match.group(1).split(".")
                if kind == "inputs":
                    return values[rest[0]]
                return outputs.get(rest[0], {}).get(rest[2], "")

            env = {name: EXPRESSION.sub(fill, str(value)) for name, value in spec.get("env", {}).items()}
            files = {name: self.folder / f"{spec.get('id', 'step')}.{name}" for name in ("output", "env", "path")}
            for file in files.values():
                file.write_text("")
            environment = dict(os.environ, **self.job_env, **env, PATH=os.pathsep.join(self.path),
                               RUNNER_TEMP=str(self.temp), RUNNER_TOOL_CACHE=str(self.tool_cache), RUNNER_OS="Linux",
                               RUNNER_ARCH=RUNNER_ARCH,
                               GITHUB_ACTION_PATH=str(ACTION), GITHUB_REPOSITORY="example-org/campaign-mock",
                               GITHUB_OUTPUT=str(files["output"]), GITHUB_ENV=str(files["env"]),
                               GITHUB_PATH=str(files["path"]))
            assert spec["shell"] == "bash"
            step = subprocess.run(["bash", "-e", "-c", spec["run"]], env=environment, capture_output=True, text=True,
                                  timeout=300, start_new_session=True)
            self.log += step.stdout + step.stderr
            produced = dict(line.split("=", 1) for line in files["output"].read_text().splitlines())
            outputs[spec.get("id", "")] = produced
            if "pid" in produced:
                self.pids.append(int(produced["pid"]))
            if step.returncode != 0:
                break
            self.job_env.update(line.split("=", 1) for line in files["env"].read_text().splitlines())
            self.path[:0] = reversed(files["path"].read_text().splitlines())
        return outputs, step

    def stop(self):
        for pid in self.pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass


def fake_make(folder):
    """A `make` that records its arguments and fails: a source build that must not happen."""
    folder.mkdir(parents=True, exist_ok=True)
    make = folder / "make"
    make.write_text(f'#!/bin/sh\necho "$@" >> "{folder}/make.log"\nexit 1\n')
    make.chmod(0o755)
    return folder


def test_the_action_installs_the_release_from_a_file_url_checked_and_cached_then_serves_https(tmp_path):
    releases, version, tarball = packed_release(tmp_path / "releases")
    runner = Runner(tmp_path / "runner", path_dirs=[fake_make(tmp_path / "no-build")])
    try:
        # The action's defaults: free ports for both listeners.
        outputs, step = runner.run_action(release_url=f"file://{releases}", install="release",
                                          args="--app ios:ci-key --in-memory --tls auto")
        assert step.returncode == 0, step.stdout + step.stderr
        resolved, installed, started = outputs["resolve"], outputs["install"], outputs["start"]
        assert resolved["version"] == version
        assert resolved["cache-key"] == f"campaign-mock-{version}-Linux-{RUNNER_ARCH}"
        assert installed["from"] == "release" and installed["bin-dir"] == resolved["dir"]
        assert pathlib.Path(resolved["dir"]).is_relative_to(runner.tool_cache)
        with tarfile.open(tarball) as packed:
            assert (pathlib.Path(resolved["dir"]) / "campaign-mock").read_bytes() == \
                packed.extractfile("campaign-mock").read()
        assert not (tmp_path / "no-build/make.log").exists()

        url, https_url = started["url"], started["https-url"]
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", url) and re.fullmatch(r"https://localhost:\d+", https_url)
        assert started["android-url"] == https_url.replace("localhost", "10.0.2.2")
        assert https_url != "https://localhost:8443" and not url.endswith(":8080")
        assert started["aep-host"] == https_url.removeprefix("https://")
        assert started["android-aep-host"] == started["aep-host"].replace("localhost", "10.0.2.2")
        assert runner.job_env["CAMPAIGN_MOCK_SERVER"] == runner.job_env["TEST_RUNNER_CAMPAIGN_MOCK_SERVER"] == url
        # A later step: the app registers over HTTPS, trusting the server's CA; the test waits for it.
        ca = tmp_path / "ca.pem"
        ca.write_bytes(requests.get(f"{url}/_mock/ca", params={"format": "pem"}).content)
        registered = requests.post(f"{https_url}/nms/mobile/1/registerIOS.jssp", verify=str(ca),
                                   data={"registrationToken": "ci-token", "mobileAppUuid": "ci-key"})
        assert registered.text == "OK"
        waited = requests.get(f"{url}/_mock/wait", params={"for": "registration", "app": "ci-key", "since": "0",
                                                          "timeout": "5s"})
        assert waited.status_code == 200 and waited.json()["items"][0]["registrationToken"] == "ci-token"
    finally:
        runner.stop()

    # The next job on this runner (or after actions/cache restored the folder) takes it from the cache,
    # with the release folder gone.
    shutil.rmtree(releases)
    again = subprocess.run([ACTION / "install-binary.sh", "install"], capture_output=True, text=True, env=dict(
        os.environ, VERSION=version, RELEASE_URL=f"file://{releases}", RUNNER_TOOL_CACHE=str(runner.tool_cache),
        RUNNER_TEMP=str(runner.temp), RUNNER_ARCH=RUNNER_ARCH))
    assert again.returncode == 0, again.stderr
    assert "from=cache" in again.stdout.splitlines()


def test_the_action_seeds_the_server_from_a_snapshot_and_writes_one_when_stopped(tmp_path):
    releases = packed_release(tmp_path / "releases")[0]
    seed, written = tmp_path / "seed.json", tmp_path / "out" / "state.json"
    written.parent.mkdir()
    seed.write_text(json.dumps({
        "format": "campaign-mock-state", "version": 1, "faults": [], "messages": [], "events": [],
        "applications": [{"enabled": True, "integrationKey": "ci-key", "name": "ci", "platform": "ios"}],
        "devices": [{"createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z",
                     "device": {}, "disabled": False, "integrationKey": "ci-key", "params": [],
                     "registrationToken": "seeded", "userKey": "u",
                     "history": [{"changes": ["new"], "device": {}, "params": [],
                                  "receivedAt": "2026-01-01T00:00:00.000Z", "userKey": "u"}]}]}))
    runner = Runner(tmp_path / "runner")
    try:
        outputs, step = runner.run_action(release_url=str(releases), port="0", import_=str(seed),
                                          export_on_exit=str(written))
        assert step.returncode == 0, runner.log
        # The folder went on GITHUB_PATH: no advice for a shell profile in the job's log.
        assert "profile" not in runner.log, runner.log
        url = outputs["start"]["url"]
        assert [d["registrationToken"] for d in requests.get(f"{url}/_mock/devices").json()["devices"]] == ["seeded"]
        requests.post(f"{url}/nms/mobile/1/registerIOS.jssp",
                      data={"registrationToken": "added", "mobileAppUuid": "ci-key"}).raise_for_status()
        pid = int(outputs["start"]["pid"])
        assert outputs["start"]["pid"] and not written.exists()
    finally:
        runner.stop()
    for _ in range(100):
        if written.exists():
            break
        time.sleep(0.1)
    tokens = sorted(d["registrationToken"] for d in json.loads(written.read_text())["devices"])
    assert tokens == ["added", "seeded"] and pid


def test_the_action_refuses_a_missing_snapshot_before_serving(tmp_path):
    releases = packed_release(tmp_path / "releases")[0]
    runner = Runner(tmp_path / "runner")
    try:
        outputs, step = runner.run_action(release_url=str(releases), port="0", import_=str(tmp_path / "none.json"))
        assert step.returncode != 0 and "import: no file" in step.stderr
        assert "pid" not in outputs.get("start", {})
    finally:
        runner.stop()


def test_the_action_refuses_a_release_whose_checksum_does_not_match_and_builds_nothing(tmp_path):
    releases, version, tarball = packed_release(tmp_path / "releases")
    with open(tarball, "ab") as packed:
        packed.write(b"tampered")
    runner = Runner(tmp_path / "runner", path_dirs=[fake_make(tmp_path / "no-build")])
    outputs, step = runner.run_action(release_url=str(releases))  # install: auto
    assert step.returncode != 0
    assert f"checksum mismatch for {tarball.name}" in step.stderr
    assert "install" in outputs and "from" not in outputs["install"] and "start" not in outputs
    assert not list(runner.tool_cache.rglob("campaign-mock")), "nothing is installed"
    assert not (tmp_path / "no-build/make.log").exists(), "a bad checksum is not a reason to build from source"


def test_the_action_builds_from_source_when_the_version_has_no_release(tmp_path):
    releases = tmp_path / "empty-release"
    releases.mkdir()
    version = subprocess.run([BINARY, "version"], capture_output=True, text=True, check=True).stdout.split()[1]
    # Stands in for `make install PREFIX=…` (the real build is `make install`, tested by make test itself):
    # it records what it was asked and puts the binary under test where make install would.
    build = tmp_path / "build"
    build.mkdir()
    (build / "make").write_text(f'#!/bin/sh\necho "$@" > "{build}/make.log"\nfor arg; do case "$arg" in '
                                f'PREFIX=*) mkdir -p "${{arg#PREFIX=}}/bin"; cp "{BINARY}" "${{arg#PREFIX=}}/bin/" ;; '
                                'esac; done\n')
    (build / "make").chmod(0o755)
    refused = Runner(tmp_path / "refused").run_action(release_url=f"file://{releases}", install="release")[1]
    assert refused.returncode != 0 and f"no campaign-mock-{version}-{RELEASE_PLATFORM}.tar.gz.sha256" in refused.stderr

    runner = Runner(tmp_path / "runner", path_dirs=[build])
    # On macOS the build first picks a released Xcode 26 (scripts/select-xcode.sh), which a Mac's own
    # /Applications may not have under that name: here it finds one (Linux does not look).
    (tmp_path / "Applications/Xcode_26.0.app").mkdir(parents=True)
    runner.job_env["XCODE_APPLICATIONS"] = str(tmp_path / "Applications")
    try:
        outputs, step = runner.run_action(release_url=f"file://{releases}", port="0", args="--in-memory")
        assert step.returncode == 0, step.stdout + step.stderr
        assert outputs["install"]["from"] == "source"
        assert (build / "make.log").read_text().split() == ["-C", str(ROOT), "install",
                                                            f"PREFIX={runner.temp}/campaign-mock-build"]
        # Kept out of the tool cache, which is for releases.
        assert outputs["install"]["bin-dir"] == f"{runner.temp}/campaign-mock-build/bin"
        assert requests.get(f"{outputs['start']['url']}/_mock/ready").json() == {"ready": True}
    finally:
        runner.stop()


@pytest.mark.parametrize("swift", ['echo "Swift version 5.10.1 (swift-5.10.1-RELEASE)"', None])
def test_the_from_source_fallback_says_which_swift_it_needs_on_a_bare_runner(tmp_path, swift):
    """A bare ubuntu-24.04 image has no Swift, or an older one: the job stops with what to do, not in the build."""
    releases = tmp_path / "empty-release"
    releases.mkdir()
    tools = fake_make(tmp_path / "tools")
    path = [str(tools)]
    if swift:
        (tools / "swift").write_text(f"#!/bin/sh\n{swift}\n")
        (tools / "swift").chmod(0o755)
        path += os.environ["PATH"].split(os.pathsep)
    else:
        # PATH without swift: only what the scripts need.
        bare = tmp_path / "bare"
        bare.mkdir()
        for name in ("sh", "bash", "sed", "awk", "head", "uname", "cat", "mkdir", "dirname", "grep", "curl", "tr", "cut"):
            found = shutil.which(name)
            if found:
                (bare / name).symlink_to(found)
        path.append(str(bare))
    runner = Runner(tmp_path / "runner")
    runner.path = path
    outputs, step = runner.run_action(release_url=f"file://{releases}", port="0")
    assert step.returncode != 0
    assert "building from source needs Swift 6.2 or newer" in step.stderr, step.stderr
    assert ("swift is 5.10" if swift else "no swift on PATH") in step.stderr and "container: swift:6.2" in step.stderr
    assert not (tools / "make.log").exists(), "make ran"


def make_ca(folder):
    """A CA as `openssl` makes one: (certificate PEM, key PEM)."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", folder / "key.pem", "-out", folder / "cert.pem", "-days", "30",
                    "-subj", "/CN=campaign-mock CI CA", "-addext", "basicConstraints=critical,CA:TRUE",
                    "-addext", "keyUsage=critical,keyCertSign,cRLSign"], check=True, capture_output=True)
    return (folder / "cert.pem").read_text(), (folder / "key.pem").read_text()


def test_the_action_writes_the_ca_inputs_to_a_private_caroot_for_the_server_and_later_steps(tmp_path):
    releases = packed_release(tmp_path / "releases")[0]
    certificate, key = make_ca(tmp_path / "ca")
    runner = Runner(tmp_path / "runner")
    try:
        outputs, step = runner.run_action(release_url=str(releases), port="0", args="--in-memory --tls auto "
                                          "--tls-port 0", ca_cert=certificate, ca_key=key)
        assert step.returncode == 0, step.stdout + step.stderr
        caroot = pathlib.Path(runner.job_env["CAMPAIGN_MOCK_CAROOT"])
        assert caroot == runner.temp / "campaign-mock-ca"
        assert (caroot / "ca-cert.pem").read_text().strip() == certificate.strip()
        assert (caroot / "ca-key.pem").read_text().strip() == key.strip()
        assert caroot.stat().st_mode & 0o777 == 0o700 and (caroot / "ca-key.pem").stat().st_mode & 0o777 == 0o600
        assert key.strip() not in step.stdout + step.stderr
        # The server took the CA from CAMPAIGN_MOCK_CAROOT (a build that has `campaign-mock ca path`).
        ca_path = subprocess.run([BINARY, "ca", "path"], capture_output=True, text=True,
                                 env=dict(os.environ, CAMPAIGN_MOCK_CAROOT=str(caroot)))
        if ca_path.returncode != 0:
            pytest.skip("this build has no CAMPAIGN_MOCK_CAROOT (`campaign-mock ca path`): the files are checked")
        served = requests.get(f"{outputs['start']['url']}/_mock/ca", params={"format": "pem"}).text
        assert served.strip() == certificate.strip()
    finally:
        runner.stop()


@pytest.mark.parametrize("given, message", [
    ({"ca_cert": "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----"}, "ca-cert and ca-key go together"),
    ({"ca_cert": "not a certificate", "ca_key": "-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----"},
     "ca-cert is not a PEM certificate"),
    ({"ca_cert": "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----", "ca_key": "secret text"},
     "ca-key is not a PEM private key"),
])
def test_the_action_refuses_half_or_malformed_ca_inputs_before_serving(tmp_path, given, message):
    releases = packed_release(tmp_path / "releases")[0]
    runner = Runner(tmp_path / "runner")
    try:
        outputs, step = runner.run_action(release_url=str(releases), port="0", args="--in-memory", **given)
        assert step.returncode != 0 and message in step.stderr
        assert "pid" not in outputs.get("start", {}) and "secret text" not in step.stdout + step.stderr
    finally:
        runner.stop()


def test_the_action_resolves_its_own_version_a_given_one_and_refuses_nonsense(tmp_path):
    def resolve(version):
        return subprocess.run([ACTION / "install-binary.sh", "resolve"], capture_output=True, text=True,
                              env=dict(os.environ, VERSION=version, RUNNER_TOOL_CACHE=str(tmp_path), RUNNER_OS="macOS",
                                       RUNNER_ARCH="ARM64", GITHUB_OUTPUT=""))

    source = re.search(r'current = "([^"]+)"',
                       (ROOT / "Sources/CampaignMockModel/CampaignMockVersion.swift").read_text()).group(1)
    assert subprocess.run([BINARY, "version"], capture_output=True, text=True).stdout.split()[1] == source
    assert resolve("").stdout.splitlines() == [f"version={source}", f"dir={tmp_path}/campaign-mock/{source}/ARM64",
                                               f"cache-key=campaign-mock-{source}-macOS-ARM64"]
    assert resolve("v1.2.3").stdout.splitlines()[0] == "version=1.2.3"
    refused = resolve("main")
    assert refused.returncode != 0 and "'main' is not a version X.Y.Z" in refused.stderr


def test_select_xcode_takes_the_newest_released_xcode_26_never_a_beta_or_release_candidate(tmp_path):
    applications = tmp_path / "Applications"
    for name in ("Xcode_16.4.app", "Xcode_26.0.app", "Xcode_26.0.1.app", "Xcode_26.1.app", "Xcode_26.10.app",
                 "Xcode_26.11_beta_2.app", "Xcode_26.12_Release_Candidate.app", "Xcode_26.13-Beta.app", "Xcode.app"):
        (applications / name).mkdir(parents=True)

    def select(folder):
        return subprocess.run([ROOT / "scripts/select-xcode.sh", "--print"], capture_output=True, text=True,
                              env=dict(os.environ, XCODE_APPLICATIONS=str(folder)))

    assert select(applications).stdout.strip() == f"{applications}/Xcode_26.10.app"
    for name in ("Xcode_26.10.app", "Xcode_26.1.app", "Xcode_26.0.1.app", "Xcode_26.0.app"):
        (applications / name).rmdir()
    none = select(applications)
    assert none.returncode != 0 and "no released Xcode 26" in none.stderr and "Xcode_26.11_beta_2.app" in none.stderr


def test_select_xcode_takes_the_oldest_released_xcode_16_when_told(tmp_path):
    applications = tmp_path / "Applications"
    for name in ("Xcode_16.0_beta_3.app", "Xcode_16.1.app", "Xcode_16.2.app", "Xcode_16.4.app", "Xcode_160.app",
                 "Xcode_26.0.app"):
        (applications / name).mkdir(parents=True)

    def select(major, pick):
        return subprocess.run([ROOT / "scripts/select-xcode.sh", "--print"], capture_output=True, text=True,
                              env=dict(os.environ, XCODE_APPLICATIONS=str(applications), XCODE_MAJOR=major,
                                       XCODE_PICK=pick))

    assert select("16", "oldest").stdout.strip() == f"{applications}/Xcode_16.1.app"
    assert select("16", "newest").stdout.strip() == f"{applications}/Xcode_16.4.app"
    assert select("26", "oldest").stdout.strip() == f"{applications}/Xcode_26.0.app"
    assert "no released Xcode 15" in select("15", "oldest").stderr
    assert "neither newest nor oldest" in select("16", "middle").stderr
    assert "not a number" in select("16.x", "oldest").stderr


def test_ci_builds_the_ios_example_for_the_simulator_the_client_on_xcode_16_and_runs_the_actions_macos_path():
    jobs = yaml.safe_load((ROOT / ".github/workflows/ci.yml").read_text())["jobs"]

    def runs(job):
        return [step.get("run") or "" for step in jobs[job]["steps"]]

    def ios_builds(job):
        return [step for step in jobs[job]["steps"] if "xcodebuild build-for-testing" in (step.get("run") or "")]

    # The docs' XCUITest, compiled for iOS (its #if os(iOS) part), by Xcode 26 and by Xcode 16.
    for job in ("macos", "xcode-16"):
        [build] = ios_builds(job)
        assert build["working-directory"] == "Examples/SwiftClientConsumer"
        assert "-scheme SwiftClientConsumer -sdk iphonesimulator" in build["run"]
        assert '-destination "generic/platform=iOS Simulator"' in build["run"]
    # The Xcode 16 job selects it before anything else runs, resolves the package and builds the client alone.
    xcode16 = runs("xcode-16")
    assert jobs["xcode-16"]["runs-on"] == "macos-15"
    assert xcode16[1] == "XCODE_MAJOR=16 XCODE_PICK=oldest scripts/select-xcode.sh"
    assert "swift package resolve" in xcode16 and "swift build --target CampaignMockClient" in xcode16
    assert not any("brew install" in run or "--build-tests" in run for run in xcode16)
    # Warnings are errors where the server is built: a flag, since the manifest has no setting for it.
    assert "swift build --build-tests -Xswiftc -warnings-as-errors" in runs("macos")
    # The action's macOS path: built from source on a Mac, then started and asked for a registration.
    action = jobs["action-macos"]
    assert action["runs-on"].startswith("macos")
    mock = next(step for step in action["steps"] if step.get("uses") == "./.github/actions/campaign-mock")
    assert mock["with"]["install"] == "source" and "--tls auto" in mock["with"]["args"]
    check = action["steps"][action["steps"].index(mock) + 1]["run"]
    assert "registerIOS.jssp" in check and "/_mock/wait?for=registration" in check


def test_the_ios_recipe_of_ci_md_selects_its_xcode_before_xcodebuild_test():
    jobs = [yaml.safe_load(block)["jobs"] for block in ci_md_workflows()]
    steps = next(job["ui-tests"] for job in jobs if "ui-tests" in job)["steps"]
    runs = [step.get("run") or "" for step in steps]
    select = next(index for index, run in enumerate(runs) if "xcode-select --switch" in run)
    test = next(index for index, run in enumerate(runs) if "xcodebuild test" in run)
    assert select < test


def ci_md_workflows():
    """The ```yaml blocks of docs/ci.md that are whole jobs, as text."""
    text = (ROOT / "docs/ci.md").read_text()
    return [block for block in re.findall(r"^```yaml\n(.*?)^```", text, re.S | re.M) if block.startswith("jobs:")]


def test_the_android_recipe_starts_the_mock_with_the_ca_and_hands_the_emulator_its_url():
    jobs = [yaml.safe_load(block)["jobs"] for block in ci_md_workflows()]
    android = next(job["android-tests"] for job in jobs if "android-tests" in job)
    steps = android["steps"]
    mock = next(step for step in steps if "/.github/actions/campaign-mock@" in step.get("uses", ""))
    assert "--tls auto" in mock["with"]["args"]
    assert mock["with"]["ca-cert"] == "${{ secrets.CAMPAIGN_MOCK_CA_CERT }}"
    assert mock["with"]["ca-key"] == "${{ secrets.CAMPAIGN_MOCK_CA_KEY }}"
    emulator = next(step for step in steps if step.get("uses", "").startswith("reactivecircus/android-emulator-runner@"))
    assert emulator["env"]["ANDROID_URL"] == "${{ steps.%s.outputs.android-url }}" % mock["id"]
    assert "-Pandroid.testInstrumentationRunnerArguments.campaignMockServer=\"$ANDROID_URL\"" in emulator["with"]["script"]
    after = steps[steps.index(emulator) + 1]
    assert "/_mock/wait?for=registration" in after["run"]
    # The argument's name is the one the client reads.
    client = (ROOT / "clients/jvm/campaign-mock-client/src/main/java/campaignmock/client/CampaignMockClient.java").read_text()
    assert 'setting("campaignMockServer", "CAMPAIGN_MOCK_SERVER"' in client


def test_actionlint_passes_the_recipes_of_ci_md(tmp_path):
    actionlint = shutil.which("actionlint") or shutil.which("actionlint", path=str(ROOT / ".venv/bin"))
    if actionlint is None:
        pytest.skip("actionlint is not installed (make setup-lint installs it)")
    files = []
    for index, block in enumerate(ci_md_workflows()):
        files.append(tmp_path / f"recipe{index}.yml")
        files[-1].write_text("on: push\n" + block)
    lint = subprocess.run([actionlint, "-shellcheck=" + (shutil.which("shellcheck") or ""), *map(str, files)],
                          capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_two_servers_with_https_run_side_by_side_on_free_ports(tmp_path):
    """Two jobs on one machine, as the recipes start them (`--port 0 --tls auto --tls-port 0`): neither
    takes 8443, and each is reached over HTTPS on its own port, with its own devices."""
    environment = {"CAMPAIGN_MOCK_CAROOT": str(tmp_path / "ca")}
    arguments = ("--tls", "auto", "--tls-port", "0", "--app", "ios:side-key")
    # The first makes the CA; the second takes the same one.
    with LiveServer(*arguments, env=environment) as first, LiveServer(*arguments, env=environment) as second:
        ca = tmp_path / "ca.pem"
        ca.write_bytes(requests.get(f"{first.url}/_mock/ca", params={"format": "pem"}).content)
        https = [requests.get(f"{server.url}/_mock/info").json()["httpsURL"] for server in (first, second)]
        assert all(re.fullmatch(r"https://localhost:\d+", url) for url in https), https
        assert https[0] != https[1] and "https://localhost:8443" not in https
        for index, url in enumerate(https):
            registered = requests.post(f"{url}/nms/mobile/1/registerIOS.jssp", verify=str(ca),
                                       data={"registrationToken": f"side-{index}", "mobileAppUuid": "side-key"})
            assert registered.text == "OK"
        for index, server in enumerate((first, second)):
            devices = requests.get(f"{server.url}/_mock/devices").json()["devices"]
            assert [device["registrationToken"] for device in devices] == [f"side-{index}"]
