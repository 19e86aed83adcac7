"""A campaign-mock process for the contract tests: started on a free port with an in-memory store in a
temporary directory, ready once its banner is printed, stopped (and its directory removed) on exit.

    with LiveServer("--app", "ios:key") as server:
        requests.get(server.url + "/_mock/health")
"""
import os
import re
import shutil
import subprocess
import tempfile

BINARY = os.path.abspath(os.environ.get("CAMPAIGN_MOCK_BINARY", ".build/debug/campaign-mock"))


class LiveServer:
    """`data_dir` keeps the store in that folder instead of memory; `env` is added to the environment."""

    def __init__(self, *arguments, data_dir=None, env=None):
        store = ["--data-dir", data_dir] if data_dir else ["--in-memory"]
        self.arguments = ["serve", "--port", "0", *store, "--log-level", "warning", *arguments]
        self.env = dict(os.environ, **(env or {}))
        self.url = None

    def __enter__(self):
        self.directory = tempfile.mkdtemp()
        # The log (stderr) goes to a file, read with `log()`; a pipe nobody reads could fill and stall it.
        self.log_path = os.path.join(self.directory, "stderr.log")
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen([BINARY, *self.arguments], stdout=subprocess.PIPE, stderr=log,
                                            text=True, cwd=self.directory, env=self.env)
        for line in self.process.stdout:
            match = re.search(r"(http://127\.0\.0\.1:\d+)", line)
            if match and self.url is None:
                self.url = match.group(1)
            if "Stop with Ctrl-C" in line:
                break
        if self.url is None:
            self.__exit__(None, None, None)
            raise AssertionError("campaign-mock did not start")
        return self

    def log(self):
        """What the server has written to stderr so far (its log)."""
        with open(self.log_path) as log:
            return log.read()

    def __exit__(self, *_):
        self.process.terminate()
        self.process.wait(timeout=10)
        self.final_log = self.log()
        shutil.rmtree(self.directory, ignore_errors=True)
