"""campaign-mock out of file descriptors (docs/security.md): with a low RLIMIT_NOFILE and more open
/_mock/stream readers than it allows, the server must not spin, must go on serving the connections it
has, tell a new client at once with a 503 (a descriptor held in reserve makes room to answer it), say
so once in its log, and take new clients again by itself once some readers leave.
"""
import os
import re
import resource
import socket
import subprocess
import tempfile
import time

import pytest

from live_server import BINARY

# The server's CPU time is read from /proc/PID/stat, which macOS does not have.
pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc/PID/stat, which only Linux has")

LIMIT = 256
STREAMS = 400


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def health_over(connection):
    connection.sendall(b"GET /_mock/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    connection.settimeout(5)
    answer = b""
    while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
        chunk = connection.recv(4096)
        assert chunk, f"connection closed; got {answer!r}"
        answer += chunk
    return answer.split(b" ", 2)[1]


def wait_until(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


def test_out_of_descriptors_the_server_pauses_accepting_and_recovers():
    with tempfile.TemporaryDirectory() as directory:
        log_path = os.path.join(directory, "stderr.log")
        with open(log_path, "w") as log:
            process = subprocess.Popen(
                [BINARY, "serve", "--port", "0", "--in-memory", "--log-level", "warning"],
                stdout=subprocess.PIPE, stderr=log, text=True, cwd=directory,
                preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT)))
        streams = []
        try:
            port = None
            for line in process.stdout:
                match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
                port = port or (match and int(match.group(1)))
                if "Stop with Ctrl-C" in line:
                    break
            assert port, "campaign-mock did not start"
            kept = socket.create_connection(("127.0.0.1", port))
            assert health_over(kept) == b"200"

            for _ in range(STREAMS):
                stream = socket.create_connection(("127.0.0.1", port))
                stream.sendall(b"GET /_mock/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                streams.append(stream)
            wait_until(lambda: "out of file descriptors" in open(log_path).read(), 10, "the log line")

            # Idle but out of descriptors: the loop must sleep, not retry accept() as fast as it can.
            before = cpu_seconds(process.pid)
            time.sleep(2)
            used = cpu_seconds(process.pid) - before
            assert used < 0.5, f"the server used {used:.2f} s of CPU in 2 s while idle"
            assert health_over(kept) == b"200"

            # A new client is answered at once, with the reason, not left waiting (it need not even send:
            # a request arriving after the server closed would be answered with a reset, by the kernel).
            with socket.create_connection(("127.0.0.1", port), timeout=5) as refused:
                refused.settimeout(2)
                answer = b""
                while chunk := refused.recv(4096):
                    answer += chunk
            assert answer.startswith(b"HTTP/1.1 503"), answer[:200]
            assert b"out of file descriptors" in answer
            assert open(log_path).read().count("out of file descriptors") == 1

            for stream in streams[:300]:
                stream.close()
            del streams[:300]

            def a_new_client_is_served():
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=2) as fresh:
                        return health_over(fresh) == b"200"
                except OSError:
                    return False

            wait_until(a_new_client_is_served, 15, "a new client to be served")
            wait_until(lambda: "accepting connections again" in open(log_path).read(), 5, "the recovery line")
            assert process.poll() is None
        finally:
            for stream in streams:
                stream.close()
            process.terminate()
            process.wait(timeout=10)
