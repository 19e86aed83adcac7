#!/usr/bin/env python3
"""make bench-instructions: instructions per request, counted by valgrind's callgrind.

Requests per second move with whatever else the machine does; instruction counts do not (the same
binary, inputs and environment give the same count). For each load this starts the release build under
callgrind, sends REQUESTS requests over one keep-alive connection, one at a time, stops the server and
reads the instructions it executed; a run with no request gives the cost of starting and stopping,
which is subtracted. The store's checkpoint thread is counted apart (how often it runs depends on how
valgrind interleaved the threads), so the first column repeats from run to run. Prints instructions per request and writes bench/results/instructions-<time>.json.

    python3 bench/instructions.py [--requests N] [--binary PATH]
"""
import argparse
import datetime
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from bench import ROOT, free_port, save_results  # the sibling script: one way to pick ports and save results

REGISTRATION = ("registrationToken=bench{n}&mobileAppUuid=campaign-mock-demo-android&userKey=user{n}%40example.com"
                "&deviceImei=&deviceName=Pixel%208&deviceModel=Pixel%208&deviceBrand=google&deviceManufacturer=Google"
                "&osName=android&osVersion=14&osLanguage=en_US&additionalParams=%3CadditionalParameters%3E%3Cparam"
                "%20name%3D%22plan%22%20value%3D%22gold%22%2F%3E%3C%2FadditionalParameters%3E")

LOADS = {
    "nothing": None,
    "tracking hit": lambda n: f"GET /r/?id=h3039,d{n},1 HTTP/1.1\r\nHost: b\r\n\r\n",
    "registration": lambda n: ("POST /nms/mobile/1/registerAndroid.jssp HTTP/1.1\r\nHost: b\r\n"
                               "Content-Type: application/x-www-form-urlencoded;charset=UTF-8\r\n"
                               f"Content-Length: {len(REGISTRATION.format(n=n))}\r\n\r\n{REGISTRATION.format(n=n)}"),
    "/_mock/health": lambda n: "GET /_mock/health HTTP/1.1\r\nHost: b\r\n\r\n",
}
# The same hits again while this many clients read GET /_mock/stream?type=receive (what streams cost).
STREAMS = 10
# The write path's targets in instructions (docs/performance.md); a miss is reported, not an error.
TARGETS = {"tracking hit": 55_000, "registration": 110_000}


def open_streams(port, count):
    """`count` stream readers, drained by one thread; returns a function that closes them."""
    readers = []
    for _ in range(count):
        reader = socket.create_connection(("127.0.0.1", port), timeout=60)
        reader.sendall(b"GET /_mock/stream HTTP/1.1\r\nHost: localhost\r\n\r\n")
        reader.recv(65536)  # the head and the opening comment: the stream is subscribed
        reader.setblocking(False)
        readers.append(reader)
    stop = threading.Event()

    def drain():
        while not stop.is_set():
            for reader in readers:
                try:
                    reader.recv(1 << 16)
                except BlockingIOError:
                    pass
            time.sleep(0.005)

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()

    def close():
        stop.set()
        thread.join()
        for reader in readers:
            reader.close()

    return close


def read_response(connection, buffer):
    while b"\r\n\r\n" not in buffer:
        buffer += connection.recv(65536)
    head, _, rest = buffer.partition(b"\r\n\r\n")
    length = int(re.search(rb"Content-Length: (\d+)", head).group(1))
    while len(rest) < length:
        rest += connection.recv(65536)
    status = int(head.split(b" ")[1])
    return status, rest[length:]


def count(binary, load, requests, work, streams=0):
    """Instructions the server executed for `requests` requests of `load` (with start and stop), with
    `streams` event streams open meanwhile."""
    out = os.path.join(work, f"callgrind.{time.monotonic_ns()}")
    port = free_port()
    server = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, "serve", "--port", str(port),
         "--data-dir", os.path.join(work, f"data-{time.monotonic_ns()}"), "--log-level", "error", "--event-loops", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while True:
        try:
            connection = socket.create_connection(("127.0.0.1", port), timeout=60)
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit(f"the server did not start under valgrind: {server.stderr.read().decode()[-500:]}")
            time.sleep(0.2)
    buffer = b""
    with connection:
        connection.sendall(b"GET /_mock/ready HTTP/1.1\r\nHost: b\r\n\r\n")
        status, buffer = read_response(connection, buffer)
        close_streams = open_streams(port, streams) if streams else None
        for n in range(requests if load else 0):
            connection.sendall(load(n).encode())
            status, buffer = read_response(connection, buffer)
            if status != 200:
                raise SystemExit(f"request {n} answered {status}")
        if close_streams:
            time.sleep(0.5)  # the last batch reaches the streams
            close_streams()
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=120)
    with open(out) as handle:
        totals = re.search(r"^(?:summary|totals): (\d+)", handle.read(), re.M)
    return int(totals.group(1)), checkpoint_instructions(out)


def checkpoint_instructions(out):
    """What the store's checkpoint thread executed (inclusive cost of its loop). It checkpoints when the
    WAL passes 100 pages, so how often it ran depends on how the threads interleaved under valgrind:
    counted apart, it does not blur the per-request figures."""
    annotated = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
                               capture_output=True, text=True, check=True).stdout
    for line in annotated.splitlines():
        if "CheckpointerC3run" in line:
            return int(line.split()[0].replace(",", ""))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=int(os.environ.get("BENCH_REQUESTS", "1000")))
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "campaign-mock"))
    arguments = parser.parse_args()
    subprocess.run(["make", "--no-print-directory", "release"], cwd=ROOT, check=True)
    results = {"requests": arguments.requests,
               "when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    with tempfile.TemporaryDirectory() as work:
        # Without its debug information: valgrind 3.19 cannot read the DWARF 5 that clang writes for the C
        # target (CBuildInfo) and gives up. The symbols stay; the instructions are the same.
        binary = os.path.join(work, "campaign-mock")
        subprocess.run(["objcopy", "--strip-debug", arguments.binary, binary], check=True)
        base, _ = count(binary, None, 0, work)
        results["start_and_stop"] = base
        print(f"{'load':<28}{'instructions / request':>24}{'checkpoint thread':>20}")
        runs = [(name, load, 0) for name, load in LOADS.items() if load is not None]
        runs.append((f"tracking hit, {STREAMS} streams", LOADS["tracking hit"], STREAMS))
        for name, load, streams in runs:
            total, checkpoint = count(binary, load, arguments.requests, work, streams=streams)
            results[name] = round((total - checkpoint - base) / arguments.requests)
            results[f"{name}: checkpoint thread"] = round(checkpoint / arguments.requests)
            print(f"{name:<28}{results[name]:>24,}{results[f'{name}: checkpoint thread']:>20,}", flush=True)
    results["targets_met"] = {f"{name} ≤ {limit:,}": results[name] <= limit for name, limit in TARGETS.items()}
    for target, met in results["targets_met"].items():
        print(f"target {target}: {'met' if met else 'MISSED'}")
    save_results("instructions", results)


if __name__ == "__main__":
    sys.exit(main())
