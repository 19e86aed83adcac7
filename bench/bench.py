#!/usr/bin/env python3
"""make bench: campaign-mock against an nginx baseline on this machine's loopback.

Measures, with the release build and wrk (64 keep-alive connections, BENCH_SECONDS each, default 10):
nginx answering a static 200 (the baseline; then driven by the tracking and registration loads' wrk
scripts, to show the client's share of the CPUs), tracking hits, tracking hits while 10 clients read
/_mock/stream (on a server of its own, as empty as the first), Android registrations with distinct
tokens, and /_mock/health; requests/s, p50/p99 and the ratio to nginx; start-to-ready (median of 10 starts), idle
and peak RSS. After each load it counts the stored rows: nothing lost, nothing duplicated. Prints a
table and writes bench/results/bench-<time>.json. Exit 1 when rows were lost or duplicated, or a load
failed; a missed target is reported, not an error.
"""
import contextlib
import datetime
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.environ.get("CAMPAIGN_MOCK_BINARY", os.path.join(ROOT, ".build", "release", "campaign-mock"))
SECONDS = int(os.environ.get("BENCH_SECONDS", "10"))
CONNECTIONS = 64
THREADS = 2
# The write path's targets (docs/performance.md): ratios to nginx in the same run.
TARGETS = {"tracking_ratio": 0.6, "tracking_p99_vs_nginx": 2.0, "registration_ratio": 0.4,
           "registration_p99_ms": 20.0, "health_ratio": 0.9, "start_ms": 15.0, "idle_rss_mb": 20.0,
           "peak_rss_mb": 48.0, "streams_cost": 0.10}

TRACKING_LUA = """
local threads = 0
function setup(thread) thread:set("tid", threads); threads = threads + 1 end
function init(args) n = 0 end
function request()
  n = n + 1
  return wrk.format("GET", "/r/?id=h3039,d" .. tid .. "-" .. n .. ",1")
end
"""

STREAMING_TRACKING_LUA = TRACKING_LUA.replace('h3039,d"', 'h3039,s"')

REGISTRATION_LUA = """
local threads = 0
function setup(thread) thread:set("tid", threads); threads = threads + 1 end
function init(args) n = 0 end
function request()
  n = n + 1
  local body = "registrationToken=bench" .. tid .. "x" .. n .. "&mobileAppUuid=campaign-mock-demo-android"
    .. "&userKey=user" .. n .. "%40example.com&deviceImei=&deviceName=Pixel%208&deviceModel=Pixel%208"
    .. "&deviceBrand=google&deviceManufacturer=Google&osName=android&osVersion=14&osLanguage=en_US"
    .. "&additionalParams=%3CadditionalParameters%3E%3Cparam%20name%3D%22plan%22%20value%3D%22gold%22%2F%3E"
    .. "%3Cparam%20name%3D%22points%22%20value%3D%2242%22%2F%3E%3C%2FadditionalParameters%3E"
  return wrk.format("POST", "/nms/mobile/1/registerAndroid.jssp",
    {["Content-Type"] = "application/x-www-form-urlencoded;charset=UTF-8"}, body)
end
"""


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def save_results(kind, results):
    """Writes bench/results/<kind>-<time>.json and prints its path."""
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    path = os.path.join(ROOT, "bench", "results", f"{kind}-{results['when'].replace(':', '')}.json")
    with open(path, "w") as handle:
        json.dump(results, handle, indent=2)
        handle.write("\n")
    print(f"\n{path}")


def get(port, path, timeout=2.0):
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        connection.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := connection.recv(65536):
            data += chunk
    return int(data.split(b" ", 2)[1])


def wait_ready(port, process, limit=10.0):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"campaign-mock exited with {process.returncode}")
        try:
            if get(port, "/_mock/ready", timeout=0.5) == 200:
                return
        except OSError:
            time.sleep(0.0002)
    raise SystemExit("campaign-mock did not become ready")


def rss_mb(pid, field="VmRSS"):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid):
    """The CPU time (user and system) process `pid` has used so far, in seconds (Linux: /proc)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(port, path, script=None):
    command = ["wrk", "-t", str(THREADS), "-c", str(CONNECTIONS), "-d", f"{SECONDS}s", "--latency"]
    if script:
        command += ["-s", script]
    output = subprocess.run(command + [f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True,
                            check=True).stdout
    return wrk_figures(output)


def wrk_figures(output):
    """Requests/s, requests completed, p50/p99, non-2xx answers and socket errors from wrk's --latency output."""
    def duration_ms(text):
        value, unit = re.match(r"([\d.]+)(us|ms|s)", text).groups()
        return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]

    percentiles = dict(re.findall(r"^\s+(50|99)(?:\.0+)?%\s+(\S+)", output, re.M))
    failures = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors = re.search(r"Socket errors: (.*)", output)
    return {"requests_per_second": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
            "completed": int(re.search(r"(\d+) requests in", output).group(1)),
            "p50_ms": duration_ms(percentiles["50"]), "p99_ms": duration_ms(percentiles["99"]),
            "non_2xx": int(failures.group(1)) if failures else 0, "socket_errors": errors.group(1) if errors else None}


def nginx_baseline(work, scripts):
    """nginx answering a static 200: with plain wrk (the baseline the ratios use), then driven by each of
    `scripts` (name -> Lua file), the scripts the loads of campaign-mock use. wrk shares the machine's
    CPUs with the server, and building each request in Lua costs the client more than a fixed request:
    those runs show how much of a ratio is the client's."""
    port = free_port()
    config = os.path.join(work, "nginx.conf")
    with open(config, "w") as handle:
        handle.write(f"""worker_processes auto;
daemon off;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {work}/body; proxy_temp_path {work}/proxy; fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi; scgi_temp_path {work}/scgi;
    keepalive_requests 1000000;
    server {{ listen 127.0.0.1:{port}; location / {{ return 200 "OK"; }} }}
}}
""")
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    process = subprocess.Popen([nginx, "-c", config, "-p", work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                if get(port, "/") == 200:
                    break
            except OSError:
                time.sleep(0.01)
        plain = wrk(port, "/")
        return plain, {name: wrk(port, "/", script) for name, script in scripts.items()}
    finally:
        process.terminate()
        process.wait()


def start_to_ready():
    """From the start of the process until GET /_mock/ready answers 200, asked once the banner's first
    line is out (the server prints it once it listens). A client polling every 0.2 ms from the start
    took about 3 ms of this machine's two CPUs away from the start it was timing."""
    times = []
    for _ in range(10):
        port = free_port()
        started = time.monotonic()
        process = subprocess.Popen([BINARY, "serve", "--in-memory", "--port", str(port), "--log-level", "error"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        process.stdout.readline()
        wait_ready(port, process)
        times.append((time.monotonic() - started) * 1000)
        process.stdout.close()
        process.send_signal(signal.SIGTERM)
        process.wait()
    return statistics.median(times)


def count(database, sql, port):
    """The first column of the first row (or the whole row, when the query selects several), read from the
    database file itself: every answered request is committed (docs/architecture.md). A read of the admin
    API first is kept, so that a build that kept answered writes in memory is counted the same way."""
    # One device looked up by its token (an index lookup, and a 404): a list would count every row through
    # the readers' memory map, which the peak RSS below would then include.
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/_mock/devices/bench-probe", timeout=30).read()
    except urllib.error.HTTPError as error:
        if error.code != 404:
            raise
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        row = connection.execute(sql).fetchone()
        return row[0] if len(row) == 1 else row
    finally:
        connection.close()


class StreamReaders:
    """`count` clients reading GET /_mock/stream as the console does (every type), each counting the receive events it gets."""

    def __init__(self, port, count):
        self.stop = threading.Event()
        self.counts = [0] * count
        self.threads = [threading.Thread(target=self.read, args=(port, index), daemon=True) for index in range(count)]
        for thread in self.threads:
            thread.start()

    def read(self, port, index):
        with socket.create_connection(("127.0.0.1", port)) as connection:
            connection.sendall(b"GET /_mock/stream HTTP/1.1\r\nHost: localhost\r\n\r\n")
            connection.settimeout(0.5)
            tail = b""
            while not self.stop.is_set():
                try:
                    data = connection.recv(1 << 16)
                except socket.timeout:
                    continue
                if not data:
                    return
                text = tail + data
                self.counts[index] += text.count(b"event: receive")
                tail = text[-20:]

    def finish(self):
        self.stop.set()
        for thread in self.threads:
            thread.join(5)
        return self.counts


@contextlib.contextmanager
def serving(data):
    """The release build serving `data` on a free port, ready and settled; stopped on leaving.
    Yields (port, process, database path)."""
    port = free_port()
    # Retention off: each load checks that every acknowledged request is stored, and the default caps
    # (100,000 devices) would be reached, and kept to, within a registration load.
    server = subprocess.Popen([BINARY, "serve", "--port", str(port), "--data-dir", data, "--log-level", "error",
                               "--retain-devices", "0", "--retain-events", "0"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(port, server)
        time.sleep(1)
        yield port, server, os.path.join(data, "campaign-mock.sqlite3")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()


def tracking_with_streams(work, results, problems):
    """The tracking load again while 10 clients read the stream, on a server of its own that starts as
    empty as the one of the tracking row: run on that server after it, the hits would also pay for the
    rows the first load left. Returns the server's peak RSS."""
    with serving(os.path.join(work, "data-streams")) as (port, server, database):
        with open(os.path.join(work, "streaming.lua"), "w") as handle:
            handle.write(STREAMING_TRACKING_LUA)
        readers = StreamReaders(port, 10)
        time.sleep(0.5)
        results["tracking_streams"] = wrk(port, "/", os.path.join(work, "streaming.lua"))
        time.sleep(1)
        received = readers.finish()
        results["tracking_streams"]["events_per_stream"] = received
        check_rows("tracking with streams", results["tracking_streams"],
                   *count(database, "SELECT count(*), count(DISTINCT delivery_id) FROM tracking_events", port), problems)
        if min(received) < results["tracking_streams"]["completed"]:
            problems.append(f"tracking with streams: a stream got {min(received)} of "
                            f"{results['tracking_streams']['completed']} events")
        return rss_mb(server.pid, "VmHWM")


def check_rows(name, load, stored, distinct, problems):
    """Stored rows must cover every completed request, at most the requests still in flight more, no repeats."""
    load["stored"] = stored
    if distinct != stored:
        problems.append(f"{name}: {stored - distinct} duplicated rows")
    if stored < load["completed"]:
        problems.append(f"{name}: {load['completed'] - stored} acknowledged requests not stored")
    if stored > load["completed"] + CONNECTIONS:
        problems.append(f"{name}: {stored} rows for {load['completed']} requests")
    if load["non_2xx"]:
        problems.append(f"{name}: {load['non_2xx']} answers were not 2xx")


def main():
    for tool in ("wrk", "nginx"):
        if not shutil.which(tool) and not os.path.exists(f"/usr/sbin/{tool}"):
            raise SystemExit(f"{tool} is missing: make setup-bench")
    subprocess.run(["make", "--no-print-directory", "release"], cwd=ROOT, check=True)
    results = {"seconds": SECONDS, "connections": CONNECTIONS, "cpus": os.cpu_count(),
               "when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    problems = []
    with tempfile.TemporaryDirectory() as work:
        for name in ("tracking.lua", "registration.lua"):
            with open(os.path.join(work, name), "w") as handle:
                handle.write(TRACKING_LUA if name == "tracking.lua" else REGISTRATION_LUA)
        print(f"nginx baseline ({SECONDS} s, then {SECONDS} s with each load's wrk script)…", flush=True)
        results["nginx"], results["nginx_with_scripts"] = nginx_baseline(
            work, {name: os.path.join(work, f"{name}.lua") for name in ("tracking", "registration")})
        print("start-to-ready (10 starts)…", flush=True)
        results["start_to_ready_ms"] = start_to_ready()

        with serving(os.path.join(work, "data")) as (port, server, database):
            results["idle_rss_mb"] = rss_mb(server.pid)
            print(f"tracking hits ({SECONDS} s)…", flush=True)
            results["tracking"] = wrk(port, "/", os.path.join(work, "tracking.lua"))
            check_rows("tracking", results["tracking"],
                       *count(database, "SELECT count(*), count(DISTINCT delivery_id) FROM tracking_events", port), problems)
            print(f"tracking hits with 10 event streams open ({SECONDS} s)…", flush=True)
            streams_peak_rss = tracking_with_streams(work, results, problems)
            print(f"registrations ({SECONDS} s)…", flush=True)
            results["registration"] = wrk(port, "/", os.path.join(work, "registration.lua"))
            check_rows("registration", results["registration"],
                       *count(database, "SELECT count(*), count(DISTINCT registration_token) FROM devices", port), problems)
            print(f"/_mock/health ({SECONDS} s)…", flush=True)
            results["health"] = wrk(port, "/_mock/health")
            results["peak_rss_mb"] = max(rss_mb(server.pid, "VmHWM"), streams_peak_rss)
            time.sleep(1)
            results["rss_after_load_mb"] = rss_mb(server.pid)
            results["requests_served"] = sum(results[name]["completed"]
                                             for name in ("tracking", "tracking_streams", "registration", "health"))

    baseline = results["nginx"]["requests_per_second"]
    for name in ("tracking", "tracking_streams", "registration", "health"):
        results[name]["ratio_to_nginx"] = results[name]["requests_per_second"] / baseline
    for name, nginx in results["nginx_with_scripts"].items():
        results[name]["ratio_to_nginx_same_script"] = results[name]["requests_per_second"] / nginx["requests_per_second"]
    streams_cost = 1 - results["tracking_streams"]["requests_per_second"] / results["tracking"]["requests_per_second"]
    results["tracking_streams"]["cost_vs_tracking"] = streams_cost
    nginx_p99 = results["nginx"]["p99_ms"]
    checks = {
        "tracking ≥ 0.6 × nginx": results["tracking"]["ratio_to_nginx"] >= TARGETS["tracking_ratio"],
        "tracking p99 ≤ 2 × nginx's p99":
            results["tracking"]["p99_ms"] <= TARGETS["tracking_p99_vs_nginx"] * nginx_p99,
        "registration ≥ 0.4 × nginx": results["registration"]["ratio_to_nginx"] >= TARGETS["registration_ratio"],
        "registration p99 ≤ 20 ms": results["registration"]["p99_ms"] <= TARGETS["registration_p99_ms"],
        "/_mock/health ≥ 0.9 × nginx": results["health"]["ratio_to_nginx"] >= TARGETS["health_ratio"],
        "start-to-ready ≤ 15 ms": results["start_to_ready_ms"] <= TARGETS["start_ms"],
        "idle RSS ≤ 20 MB": results["idle_rss_mb"] <= TARGETS["idle_rss_mb"],
        "peak RSS ≤ 48 MB": results["peak_rss_mb"] <= TARGETS["peak_rss_mb"],
        "10 open streams cost ≤ 10 % of tracking throughput": streams_cost <= TARGETS["streams_cost"],
    }
    results["targets_met"] = checks
    results["problems"] = problems

    print()
    print(f"{'load':<28}{'req/s':>11}{'p50 ms':>9}{'p99 ms':>9}{'× nginx':>9}{'stored':>9}")
    for name, label in (("nginx", "nginx static 200"), ("tracking", "GET /r/ tracking hit"),
                        ("tracking_streams", "tracking, 10 streams open"),
                        ("registration", "POST registerAndroid.jssp"), ("health", "GET /_mock/health")):
        load = results[name]
        ratio = f"{load['ratio_to_nginx']:.2f}" if "ratio_to_nginx" in load else "1.00"
        stored = str(load.get("stored", ""))
        print(f"{label:<28}{load['requests_per_second']:>11,.0f}{load['p50_ms']:>9.2f}{load['p99_ms']:>9.2f}"
              f"{ratio:>9}{stored:>9}")
    print("\nthe client's share (wrk shares the CPUs): nginx driven by the same wrk script as")
    for name, label in (("tracking", "tracking hits"), ("registration", "registrations")):
        nginx = results["nginx_with_scripts"][name]
        print(f"  {label:<14}{nginx['requests_per_second']:>11,.0f} req/s; {label} "
              f"{results[name]['ratio_to_nginx_same_script']:.2f} × that (the targets use the static 200 above)")
    print(f"\nstart-to-ready {results['start_to_ready_ms']:.1f} ms (median of 10), "
          f"idle RSS {results['idle_rss_mb']:.1f} MB, peak RSS {results['peak_rss_mb']:.1f} MB, "
          f"RSS {results['rss_after_load_mb']:.1f} MB idle again after {results['requests_served']:,} requests")
    for label, met in checks.items():
        print(f"  {'meets ' if met else 'MISSES'}  {label}")
    for problem in problems:
        print(f"  ERROR   {problem}")
    save_results("bench", results)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
