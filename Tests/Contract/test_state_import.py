"""PUT /_mock/state runs off the event loops (docs/ci.md, "Snapshots"): while a server with a single event
loop imports a document of 10,000 devices, it still answers other requests.
"""
import json
import os
import select
import socket
import urllib.request

import pytest

from live_server import LiveServer


def document(count):
    time = "2026-01-01T00:00:00.000Z"
    devices = [{"createdAt": time, "device": {}, "disabled": False, "integrationKey": "k1", "params": [],
                "history": [{"changes": ["new"], "device": {}, "params": [], "receivedAt": time, "userKey": f"u{n}"}],
                "registrationToken": f"{n:064x}", "updatedAt": time, "userKey": f"u{n}"} for n in range(count)]
    return json.dumps({"applications": [{"enabled": True, "integrationKey": "k1", "name": "k1", "platform": "ios"}],
                       "devices": devices, "events": [], "faults": [], "format": "campaign-mock-state",
                       "messages": [], "version": 1}).encode()


def spooled(pid, size):
    """Whether the server holds a deleted temporary file of `size` bytes: the import's whole body."""
    folder = f"/proc/{pid}/fd"
    for name in os.listdir(folder):
        try:
            if os.readlink(f"{folder}/{name}").endswith("(deleted)") and os.stat(f"{folder}/{name}").st_size == size:
                return True
        except OSError:
            pass
    return False


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads the server's descriptors in /proc")
def test_an_import_leaves_the_event_loop_answering():
    body = document(10_000)
    with LiveServer("--app", "ios:k1", "--event-loops", "1") as server:
        host, port = server.url.removeprefix("http://").split(":")
        importing = socket.create_connection((host, int(port)))
        importing.sendall(f"PUT /_mock/state HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                          f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        while not spooled(server.process.pid, len(body)):
            pass
        # The whole body has arrived, so the import runs now; the only event loop still answers.
        with urllib.request.urlopen(server.url + "/_mock/health", timeout=60) as response:
            assert response.status == 200
        assert select.select([importing], [], [], 0)[0] == [], "the import was over before the health check"
        importing.settimeout(120)
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += importing.recv(65536)
        assert answer.startswith(b"HTTP/1.1 200"), answer
        importing.close()
