"""Shared by every contract test: the local CA of `--tls auto` and `ca export` lives in a folder of this
run (`CAMPAIGN_MOCK_CAROOT`), never in the user's home. A test that wants its own names it in `env`."""
import os
import shutil
import tempfile

import pytest

_CAROOT = tempfile.mkdtemp(prefix="campaign-mock-test-ca-")
os.environ["CAMPAIGN_MOCK_CAROOT"] = os.path.join(_CAROOT, "ca")


@pytest.fixture(scope="session", autouse=True)
def _remove_the_test_ca():
    yield
    shutil.rmtree(_CAROOT, ignore_errors=True)
