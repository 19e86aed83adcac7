"""The CI recipes in .github/ run as written: the composite action's start step serves campaign-mock,
waits for /_mock/ready and hands the URL to later steps; the workflow runs the README's test command; the
job recipes of docs/ci.md have the shape they describe and pass actionlint.

Run by `make test` (pytest Tests/Contract).
"""
import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile

import pytest
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
