"""The CI recipes in .github/ run as written: the composite action's start step serves campaign-mock,
waits for /_mock/ready and hands the URL to later steps; the workflow runs the README's test command.

Run by `make test` (pytest Tests/Contract).
"""
import os
import pathlib
import signal
import subprocess
import tempfile

import requests
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = os.path.abspath(os.environ.get("CAMPAIGN_MOCK_BINARY", ".build/debug/campaign-mock"))


def test_the_workflow_runs_the_readme_test_command_on_linux_and_builds_on_macos():
    workflow = yaml.safe_load((ROOT / ".github/workflows/ci.yml").read_text())
    jobs = workflow["jobs"]
    assert [step.get("run") for step in jobs["linux"]["steps"]].count(".ci/run") == 1
    assert "make lint test" in (ROOT / ".ci/run").read_text()
    assert jobs["macos"]["runs-on"].startswith("macos")
    assert any("swift test" in (step.get("run") or "") for step in jobs["macos"]["steps"])
    assert any(step.get("uses") == "./.github/actions/campaign-mock" for step in jobs["action"]["steps"])


def test_the_action_starts_the_server_and_exports_its_url():
    action = yaml.safe_load((ROOT / ".github/actions/campaign-mock/action.yml").read_text())
    start = next(step for step in action["runs"]["steps"] if step.get("id") == "start")["run"]
    inputs = {name: spec.get("default", "") for name, spec in action["inputs"].items()}
    inputs.update(port="0", args="--app ios:ci-key --in-memory")
    for name, value in inputs.items():
        start = start.replace("${{ inputs.%s }}" % name, value)
    with tempfile.TemporaryDirectory() as runner:
        bin_dir = pathlib.Path(runner, "campaign-mock", "bin")
        bin_dir.mkdir(parents=True)
        (bin_dir / "campaign-mock").symlink_to(BINARY)
        output, env_file = pathlib.Path(runner, "output"), pathlib.Path(runner, "env")
        environment = dict(os.environ, RUNNER_TEMP=runner, GITHUB_OUTPUT=str(output), GITHUB_ENV=str(env_file))
        step = subprocess.run(["bash", "-e", "-c", start], env=environment, capture_output=True, text=True, timeout=120,
                              start_new_session=True)
        try:
            assert step.returncode == 0, step.stdout + step.stderr
            url = output.read_text().strip().removeprefix("url=")
            assert env_file.read_text().strip() == f"CAMPAIGN_MOCK_SERVER={url}"
            # A later step: the app registers, the test waits for it.
            assert requests.post(f"{url}/nms/mobile/1/registerIOS.jssp",
                                 data={"registrationToken": "ci-token", "mobileAppUuid": "ci-key"}).text == "OK"
            waited = requests.get(f"{url}/_mock/wait", params={"for": "registration", "app": "ci-key", "since": "0",
                                                              "timeout": "5s"})
            assert waited.status_code == 200 and waited.json()["items"][0]["registrationToken"] == "ci-token"
        finally:
            subprocess.run(["pkill", "-f", "--", f"--data-dir {runner}/campaign-mock-data"], check=False)
