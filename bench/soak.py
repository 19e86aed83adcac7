#!/usr/bin/env python3
"""make bench-soak: the process's memory under a steady mixed load, and whether it levels off.

A release-build server on loopback (a new data directory; --retain-devices 5000 --retain-events 20000
--journal-limit 2000) takes, at a fixed rate (SOAK_RATE requests/s, default 750, over SOAK_WORKERS
keep-alive connections, default 6), an even mix of Android registrations with distinct tokens, tracking
hits, SOAP logons (never logged off, as scripts that log on per run do) and admin lists (devices,
events, requests, alternately), while 3 clients read /_mock/stream and one of them reconnects every
SOAK_RECONNECT seconds (default 60). SOAK_MIX names the parts to send (default
"registration,hit,logon,admin"; "streams" is separate: SOAK_STREAMS=0 opens none), to take the load apart.

Every SOAK_SAMPLE seconds (default 15) it reads the server's /proc/<pid>/status (RssAnon, VmRSS) and
smaps_rollup (Anonymous), the requests sent and the load average; Linux only (on other systems it says so and stops). After SOAK_SECONDS (default 600) it
prints the samples, the lowest RssAnon of each SOAK_WINDOW (default 120 s) and the least-squares slope of
RssAnon over the second half in MB/min. Writes bench/results/soak-<time>.json. Exit 1 when the slope
over the second half times its length exceeds SOAK_LIMIT_MB (default 5), or requests failed.

    python3 bench/soak.py     (make bench-soak; CAMPAIGN_MOCK_BINARY measures another build;
                               SOAK_WRAPPER="heaptrack -o /tmp/soak" runs the server under a profiler)
"""
import datetime
import http.client
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time

import bench

SECONDS = int(os.environ.get("SOAK_SECONDS", "600"))
RATE = float(os.environ.get("SOAK_RATE", "750"))
WORKERS = int(os.environ.get("SOAK_WORKERS", "6"))
SAMPLE = int(os.environ.get("SOAK_SAMPLE", "15"))
WINDOW = int(os.environ.get("SOAK_WINDOW", "120"))
RECONNECT = int(os.environ.get("SOAK_RECONNECT", "60"))
STREAMS = int(os.environ.get("SOAK_STREAMS", "3"))
MIX = os.environ.get("SOAK_MIX", "registration,hit,logon,admin").split(",")
LIMIT_MB = float(os.environ.get("SOAK_LIMIT_MB", "5"))
WRAPPER = shlex.split(os.environ.get("SOAK_WRAPPER", ""))

FORM = {"Content-Type": "application/x-www-form-urlencoded;charset=UTF-8"}
SOAP = {"Content-Type": "text/xml; charset=utf-8", "SOAPAction": "xtk:session#Logon"}
LOGON = ("<soapenv:Envelope xmlns:soapenv='http://schemas.xmlsoap.org/soap/envelope/'><soapenv:Body>"
         "<Logon xmlns='urn:xtk:session'><sessiontoken/><strLogin>admin</strLogin><strPassword>admin</strPassword>"
         "<elemParameters/></Logon></soapenv:Body></soapenv:Envelope>")
ADMIN_LISTS = ["/_mock/devices?limit=50", "/_mock/events?limit=50", "/_mock/requests?limit=50"]


def request(worker, n, kind):
    """The (method, path, body, headers) of the n-th request of a kind."""
    if kind == "registration":
        body = (f"registrationToken=soak{worker}x{n}&mobileAppUuid=campaign-mock-demo-android&userKey=user{n}%40example.com"
                "&deviceName=Pixel%208&osName=android&osVersion=14&osLanguage=en_US"
                "&additionalParams=%3CadditionalParameters%3E%3Cparam%20name%3D%22plan%22%20value%3D%22gold%22%2F%3E"
                "%3C%2FadditionalParameters%3E")
        return "POST", "/nms/mobile/1/registerAndroid.jssp", body, FORM
    if kind == "hit":
        return "GET", f"/r/?id=h3039,d{worker}-{n},{1 + n % 2}", None, {}
    if kind == "logon":
        return "POST", "/nl/jsp/soaprouter.jsp", LOGON, SOAP
    return "GET", ADMIN_LISTS[n % len(ADMIN_LISTS)], None, {}


class Load:
    def __init__(self, port):
        self.port = port
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.sent = 0
        self.failed = 0
        self.reconnects = 0

    def worker(self, index):
        """Sends rate/WORKERS requests a second on one keep-alive connection, on a fixed schedule."""
        interval = WORKERS / RATE
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        due = time.monotonic()
        n = 0
        while not self.stop.is_set():
            method, path, body, headers = request(index, n // len(MIX), MIX[n % len(MIX)])
            n += 1
            try:
                connection.request(method, path, body, headers)
                response = connection.getresponse()
                response.read()
                ok = response.status < 400
            except (OSError, http.client.HTTPException):
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
                ok = False
            with self.lock:
                self.sent += 1
                self.failed += not ok
            due += interval
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            elif delay < -1:
                due = time.monotonic()  # behind by more than a second: the machine is busy; do not burst

    def stream(self, reconnecting):
        """Reads /_mock/stream; the reconnecting one closes it and resumes every RECONNECT seconds."""
        while not self.stop.is_set():
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
            try:
                connection.request("GET", "/_mock/stream")
                response = connection.getresponse()
                opened = time.monotonic()
                while not self.stop.is_set() and not (reconnecting and time.monotonic() - opened > RECONNECT):
                    try:
                        response.read1(65536)
                    except TimeoutError:
                        pass
            except (OSError, http.client.HTTPException):
                time.sleep(1)
            finally:
                connection.close()
            with self.lock:
                self.reconnects += reconnecting


def memory(pid):
    """RssAnon and VmRSS from /proc/<pid>/status, Anonymous from smaps_rollup, in MB."""
    values = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("RssAnon", "VmRSS"):
                values[name] = int(value.split()[0]) / 1024
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        for line in rollup:
            name, _, value = line.partition(":")
            if name == "Anonymous":
                values["Anonymous"] = int(value.split()[0]) / 1024
    return values


def slope(points):
    """Least-squares slope of (minutes, MB) points, in MB/min."""
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread if spread else 0.0


def server_pid(process):
    """The server's pid: the process itself, or (under SOAK_WRAPPER) its campaign-mock descendant."""
    if not WRAPPER:
        return process.pid
    for _ in range(100):
        found = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
        for pid in found:
            if "campaign-mock" in open(f"/proc/{pid}/cmdline").read():
                return int(pid)
        time.sleep(0.1)
    raise RuntimeError("the server did not start under the wrapper")


def main():
    if not os.path.exists("/proc/self/smaps_rollup"):
        sys.exit("make bench-soak is Linux-only: it measures anonymous memory (RssAnon in /proc/<pid>/status, "
                 "Anonymous in smaps_rollup), which this system does not show; run it on Linux")
    work = tempfile.mkdtemp(prefix="soak-")
    port = bench.free_port()
    server = subprocess.Popen(
        WRAPPER + [bench.BINARY, "serve", "--port", str(port), "--data-dir", os.path.join(work, "data"),
                   "--log-level", "error", "--retain-devices", "5000", "--retain-events", "20000",
                   "--journal-limit", "2000"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    samples = []
    pid = server.pid
    try:
        bench.wait_ready(port, server, limit=60)
        pid = server_pid(server)
        load = Load(port)
        threads = [threading.Thread(target=load.worker, args=(i,), daemon=True) for i in range(WORKERS)]
        threads += [threading.Thread(target=load.stream, args=(i == 0,), daemon=True) for i in range(STREAMS)]
        for thread in threads:
            thread.start()
        started = time.monotonic()
        print(f"soak: {SECONDS} s at {RATE:.0f} requests/s ({','.join(MIX)}; {STREAMS} streams), pid {pid}")
        print(f"{'min':>6} {'RssAnon':>8} {'Anon':>8} {'VmRSS':>8} {'req/s':>7} {'failed':>6} {'load':>5}")
        last_sent, last_time = 0, started
        while time.monotonic() - started < SECONDS:
            time.sleep(SAMPLE - (time.monotonic() - started) % SAMPLE)
            now = time.monotonic()
            with load.lock:
                sent, failed = load.sent, load.failed
            sample = {"minute": round((now - started) / 60, 2), **memory(pid),
                      "rate": round((sent - last_sent) / (now - last_time)), "failed": failed,
                      "load": os.getloadavg()[0]}
            last_sent, last_time = sent, now
            samples.append(sample)
            print(f"{sample['minute']:6.2f} {sample['RssAnon']:8.1f} {sample['Anonymous']:8.1f} "
                  f"{sample['VmRSS']:8.1f} {sample['rate']:7d} {failed:6d} {sample['load']:5.2f}", flush=True)
        load.stop.set()
        elapsed = time.monotonic() - started
    finally:
        os.kill(pid, signal.SIGTERM)
        server.wait()

    second_half = [s for s in samples if s["minute"] * 60 >= SECONDS / 2]
    per_minute = slope([(s["minute"], s["RssAnon"]) for s in second_half])
    windows = {}
    for s in samples:
        window = int(s["minute"] * 60 // WINDOW)
        windows[window] = min(windows.get(window, s["RssAnon"]), s["RssAnon"])
    growth = per_minute * (SECONDS / 2 / 60)
    results = {
        "when": datetime.datetime.now().isoformat(timespec="seconds"), "seconds": SECONDS, "rate_asked": RATE,
        "rate_achieved": round(load.sent / elapsed), "failed": load.failed, "mix": MIX, "streams": STREAMS,
        "reconnects": load.reconnects, "load_average": os.getloadavg(),
        "rss_anon_slope_mb_per_min": round(per_minute, 4), "rss_anon_growth_second_half_mb": round(growth, 2),
        "rss_anon_min_per_window_mb": [round(windows[w], 1) for w in sorted(windows)], "samples": samples,
    }
    print(f"achieved {results['rate_achieved']} requests/s ({load.failed} failed, {load.reconnects} reconnects), "
          f"load average {results['load_average'][0]:.2f}")
    print(f"lowest RssAnon per {WINDOW} s: " + " -> ".join(f"{m:.1f}" for m in results["rss_anon_min_per_window_mb"]))
    print(f"RssAnon over the second half: {per_minute:+.3f} MB/min ({growth:+.1f} MB over {SECONDS / 120:.1f} min; "
          f"goal within {LIMIT_MB} MB)")
    bench.save_results("soak", results)
    sys.exit(1 if abs(growth) > LIMIT_MB or load.failed else 0)


if __name__ == "__main__":
    main()
