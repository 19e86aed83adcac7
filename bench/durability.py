#!/usr/bin/env python3
"""Durability under kill -9: a mixed load (Android and iOS registrations with distinct tokens, tracking
hits with distinct delivery ids) from several client threads; the server is killed with SIGKILL
mid-load, restarted on the same data directory, and killed again, --kills times. At the end every
request a client saw acknowledged (200) must be stored exactly once and be in the request journal
exactly once, and PRAGMA integrity_check must say ok.

    python3 bench/durability.py [--kills 5] [--binary PATH] [--seconds-per-round 1.0]

`make test` runs the short form (5 kills); `make durability` the long one (20). Exit 0 when every
check holds, 1 otherwise.
"""
import argparse
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def request(port, raw):
    """Sends one request on a new connection; the status, or None when the server went away."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
            connection.sendall(raw)
            data = b""
            while b"\r\n" not in data:
                chunk = connection.recv(4096)
                if not chunk:
                    return None
                data += chunk
            return int(data.split(b" ", 2)[1])
    except (OSError, ValueError, IndexError):
        return None


def registration(platform, token):
    key = "campaign-mock-demo-ios" if platform == "ios" else "campaign-mock-demo-android"
    path = "/nms/mobile/1/registerIOS.jssp" if platform == "ios" else "/nms/mobile/1/registerAndroid.jssp"
    body = f"registrationToken={token}&mobileAppUuid={key}&userKey=user-{token}&osName={platform}".encode()
    return (f"POST {path} HTTP/1.1\r\nHost: d\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body


def tracking(delivery):
    return f"GET /r/?id=h3039,{delivery},1 HTTP/1.1\r\nHost: d\r\nConnection: close\r\n\r\n".encode()


def start(binary, port, data):
    # A journal large enough to keep every request of the run, so all of them can be looked up at the end.
    process = subprocess.Popen([binary, "serve", "--port", str(port), "--data-dir", data, "--log-level", "error",
                                "--journal-limit", "10000000"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the server exited with {process.returncode}: {process.stderr.read().decode()}")
        if request(port, b"GET /_mock/ready HTTP/1.1\r\nHost: d\r\nConnection: close\r\n\r\n") == 200:
            return process
        time.sleep(0.01)
    raise SystemExit("the server did not become ready")


def journal_names(port):
    """How often each request name appears among the journal's entries answered 200 (read page by page)."""
    counts = {}
    after = 0
    while True:
        url = f"http://127.0.0.1:{port}/_mock/requests?limit=1000&after={after}"
        with urllib.request.urlopen(url, timeout=30) as response:
            page = json.load(response)
        for entry in page["requests"]:
            if entry["status"] != 200:
                continue
            if entry["endpoint"] == "tracking":
                name = entry["target"].split(",")[1]
            else:
                name = entry["body"].split("registrationToken=")[1].split("&")[0]
            counts[name] = counts.get(name, 0) + 1
        if page.get("nextCursor") is None:
            return counts
        after = page["nextCursor"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "campaign-mock"))
    parser.add_argument("--seconds-per-round", type=float, default=1.0)
    parser.add_argument("--clients", type=int, default=8)
    arguments = parser.parse_args()

    acknowledged = {"devices": set(), "events": set()}
    lock = threading.Lock()
    random.seed(7)
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "data")
        port = free_port()
        for round_number in range(1, arguments.kills + 1):
            server = start(arguments.binary, port, data)
            stop = threading.Event()

            def client(number):
                sent = 0
                while not stop.is_set():
                    sent += 1
                    name = f"r{round_number}c{number}n{sent}"
                    if sent % 3 == 0:
                        kind, raw = "events", tracking(name)
                    else:
                        kind, raw = "devices", registration("ios" if sent % 3 == 1 else "android", name)
                    if request(port, raw) == 200:
                        with lock:
                            acknowledged[kind].add(name)

            threads = [threading.Thread(target=client, args=(n,)) for n in range(arguments.clients)]
            for thread in threads:
                thread.start()
            time.sleep(arguments.seconds_per_round * random.uniform(0.5, 1.5))
            server.send_signal(signal.SIGKILL)
            server.wait()
            stop.set()
            for thread in threads:
                thread.join()
            print(f"kill {round_number}: {len(acknowledged['devices'])} registrations and "
                  f"{len(acknowledged['events'])} hits acknowledged so far", flush=True)

        # A clean start on the same directory must open it (recovering the WAL), then stop.
        server = start(arguments.binary, port, data)
        try:
            journaled = journal_names(port)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait()
        connection = sqlite3.connect(os.path.join(data, "campaign-mock.sqlite3"))
        integrity = connection.execute("PRAGMA integrity_check").fetchone()[0]
        tokens = [row[0] for row in connection.execute("SELECT registration_token FROM devices")]
        deliveries = [row[0] for row in connection.execute("SELECT delivery_id FROM tracking_events")]
        connection.close()

    problems = []
    if integrity != "ok":
        problems.append(f"integrity_check: {integrity}")
    for name, stored, wanted in (("registrations", tokens, acknowledged["devices"]),
                                 ("tracking hits", deliveries, acknowledged["events"])):
        missing = wanted - set(stored)
        if missing:
            problems.append(f"{len(missing)} acknowledged {name} lost, e.g. {sorted(missing)[:3]}")
        if len(stored) != len(set(stored)):
            problems.append(f"{len(stored) - len(set(stored))} {name} stored twice")
        not_journaled = [one for one in wanted if journaled.get(one, 0) != 1]
        if not_journaled:
            problems.append(f"{len(not_journaled)} acknowledged {name} not in the journal exactly once, "
                            f"e.g. {sorted(not_journaled)[:3]}")
    print(f"{arguments.kills} kills: {len(acknowledged['devices'])} registrations and {len(acknowledged['events'])} "
          f"hits acknowledged; stored {len(tokens)} and {len(deliveries)}; {sum(journaled.values())} journaled "
          f"with status 200; integrity_check {integrity}")
    for problem in problems:
        print("FAILED:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
