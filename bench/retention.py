#!/usr/bin/env python3
"""make bench-retention: registrations while retention sweeps, against the same load without retention.

Two release-build servers, one after the other, each on a new data directory, take Android registrations
with distinct tokens (bench.py's wrk script, 64 connections, RETENTION_SECONDS, default 20): the first with
retention off (--retain-devices 0), the second with --retain-devices RETENTION_CAP (default 20,000, so
that the store passes it within seconds). Prints requests/s and p50/p99 of both, the ratio, the devices
stored when the load stopped and how long the store took to come back to its cap after it, and the
longest pause of the store's writer the server reported. Writes bench/results/retention-<time>.json.

    python3 bench/retention.py        (make bench-retention; CAMPAIGN_MOCK_BINARY measures another build)
    python3 bench/retention.py steady (make bench-retention-steady)

The steady mode holds the caps under an ordinary load: one server with --retain-devices STEADY_DEVICES
(default 5,000) and --retain-events STEADY_EVENTS (20,000) takes a mixed load at a fixed rate,
STEADY_RATE requests/s in all (default 750): 1/3 registrations with distinct tokens, 1/3 tracking hits,
1/6 SOAP logons, 1/6 admin lists (devices and events, 50 each), each part a wrk thread that sends a
request every 1/rate s on the first of its connections that is free, while 3 clients read
/_mock/stream. Once the store has reached both caps (the warm-up: the event cap over the hits' rate, and
10 s more) it samples the devices and events in the SQLite file (read only) every second for
STEADY_SECONDS (default 120): the lowest and highest counts and their ratio to the caps, and each part's
p50/p99 meanwhile, as the sweeps run all along. Then a flood of registrations (64 connections, unpaced,
FLOOD_SECONDS, default 10) on top of the same load, the most devices sampled meanwhile, and how long
the store takes after it to come back within 1.2 × its caps while the steady load goes on, and to its
caps once the load stops. The load average (1 minute) is read before and after each part: the machine
is shared.
"""
import datetime
import math
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

import bench

SECONDS = int(os.environ.get("RETENTION_SECONDS", "20"))
bench.BINARY = os.environ.get("CAMPAIGN_MOCK_BINARY", bench.BINARY)
CAP = int(os.environ.get("RETENTION_CAP", "20000"))


STEADY_DEVICES = int(os.environ.get("STEADY_DEVICES", "5000"))
STEADY_EVENTS = int(os.environ.get("STEADY_EVENTS", "20000"))
STEADY_RATE = int(os.environ.get("STEADY_RATE", "750"))
STEADY_SECONDS = int(os.environ.get("STEADY_SECONDS", "120"))
FLOOD_SECONDS = int(os.environ.get("FLOOD_SECONDS", "10"))
# The steady load's parts: (name, share of STEADY_RATE, connections).
STEADY_MIX = (("registration", 1 / 3, 16), ("tracking", 1 / 3, 16), ("soap_logon", 1 / 6, 8),
              ("admin_list", 1 / 6, 8))

# Paces a wrk thread's requests to one every {period} ms, whichever of its connections is free: each
# request takes the next slot (a request late by up to a second is sent at once, so that the rate holds
# while answers are slow), on the monotonic clock (LuaJIT's FFI; wrk's Lua has none of its own). Its id is
# the system's (1 on Linux, 6 on macOS), as Python's time module has it.
PACING_LUA = """
local ffi = require("ffi")
ffi.cdef[[
typedef struct {{ long seconds; long nanoseconds; }} pacing_time;
int clock_gettime(int clock, pacing_time *now);
]]
local clock = ffi.new("pacing_time")
local slot = nil
function delay()
  ffi.C.clock_gettime({clock_id}, clock)
  local now = tonumber(clock.seconds) * 1000 + tonumber(clock.nanoseconds) / 1000000
  if slot == nil or slot < now - 1000 then slot = now end
  slot = slot + {period}
  return math.max(0, math.floor(slot - now))
end
"""

SOAP_LOGON_LUA = """
local body = "<soapenv:Envelope xmlns:soapenv='http://schemas.xmlsoap.org/soap/envelope/'><soapenv:Body>"
  .. "<Logon xmlns='urn:xtk:session'><sessiontoken/><strLogin>admin</strLogin><strPassword>admin</strPassword>"
  .. "<elemParameters/></Logon></soapenv:Body></soapenv:Envelope>"
function request()
  return wrk.format("POST", "/nl/jsp/soaprouter.jsp",
    {["Content-Type"] = "text/xml; charset=utf-8", ["SOAPAction"] = "xtk:session#Logon"}, body)
end
"""

ADMIN_LIST_LUA = """
local n = 0
function request()
  n = n + 1
  return wrk.format("GET", n % 2 == 0 and "/_mock/devices?limit=50" or "/_mock/events?limit=50")
end
"""


def devices(database):
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10) as db:
        return db.execute("SELECT count(*) FROM devices").fetchone()[0]


def stored(database):
    """(devices, events) in the store."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10) as db:
        return (db.execute("SELECT count(*) FROM devices").fetchone()[0],
                db.execute("SELECT count(*) FROM tracking_events").fetchone()[0])


def load_average():
    return os.getloadavg()[0]


def run(work, name, retain_devices):
    data = os.path.join(work, name)
    port = bench.free_port()
    server = subprocess.Popen(
        [bench.BINARY, "serve", "--port", str(port), "--data-dir", data, "--log-level", "error",
         "--retain-devices", str(retain_devices)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        bench.wait_ready(port, server)
        bench.SECONDS = SECONDS
        result = bench.wrk(port, "/", os.path.join(work, "registration.lua"))
        database = os.path.join(data, "campaign-mock.sqlite3")
        result["devices_when_load_stopped"] = devices(database)
        if retain_devices:
            started = time.monotonic()
            while devices(database) > retain_devices and time.monotonic() - started < 120:
                time.sleep(0.25)
            result["seconds_back_to_cap"] = round(time.monotonic() - started, 2)
            result["devices_after"] = devices(database)
        return result
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()


class Sampler:
    """Counts the devices and events in `database` every second, from start to stop."""

    def __init__(self, database):
        self.database = database
        self.samples = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop.wait(1.0):
            self.samples.append((time.monotonic(), *stored(self.database)))

    def finish(self):
        self.stop.set()
        self.thread.join(10)
        return self.samples


def steady_scripts(work, phase):
    """name -> the wrk script of each part of the steady load, paced to its share of STEADY_RATE, and its
    connections; the registrations' tokens start with `phase`, new in each phase."""
    bodies = {"registration": bench.REGISTRATION_LUA.replace("=bench", f"={phase}"), "tracking": bench.TRACKING_LUA,
              "soap_logon": SOAP_LOGON_LUA, "admin_list": ADMIN_LIST_LUA}
    scripts = {}
    for name, share, connections in STEADY_MIX:
        period = 1000 / (STEADY_RATE * share)
        path = os.path.join(work, f"{phase}-{name}.lua")
        with open(path, "w") as handle:
            handle.write(bodies[name] + PACING_LUA.format(period=period, clock_id=time.CLOCK_MONOTONIC))
        scripts[name] = (path, connections)
    return scripts


def start_wrk(port, script, connections, seconds):
    command = ["wrk", "-t", "1", "-c", str(connections), "-d", f"{seconds}s", "--latency", "-s", script,
               f"http://127.0.0.1:{port}/"]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def parse_wrk(process):
    """What bench.wrk reads from wrk's output, for a wrk started by start_wrk."""
    return bench.wrk_figures(process.communicate()[0])


def start_steady_load(work, phase, port, seconds):
    """Starts every part of the steady load for `seconds`: name -> its wrk."""
    return {name: start_wrk(port, path, connections, seconds)
            for name, (path, connections) in steady_scripts(work, phase).items()}


def figures(running):
    """name -> wrk's figures, once each wrk of `running` is done."""
    return {name: parse_wrk(process) for name, process in running.items()}


def band(samples, since, until=math.inf):
    """The lowest and highest (devices, events) sampled between `since` and `until`."""
    chosen = [sample for sample in samples if since <= sample[0] <= until]
    return {"samples": len(chosen),
            "devices": [min(s[1] for s in chosen), max(s[1] for s in chosen)],
            "events": [min(s[2] for s in chosen), max(s[2] for s in chosen)]}


def seconds_until(database, within, started, limit=120):
    """Seconds from `started` until the store holds at most `within` (devices, events), or None."""
    while time.monotonic() - started < limit:
        devices_now, events_now = stored(database)
        if devices_now <= within[0] and events_now <= within[1]:
            return round(time.monotonic() - started, 1)
        time.sleep(0.25)
    return None


def steady(work):
    """The steady mode (see the module's text)."""
    caps = (STEADY_DEVICES, STEADY_EVENTS)
    hits_per_second = STEADY_RATE * dict((name, share) for name, share, _ in STEADY_MIX)["tracking"]
    warm_up = math.ceil(STEADY_EVENTS / hits_per_second) + 10
    results = {"when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "caps": {"devices": caps[0], "events": caps[1]}, "rate": STEADY_RATE, "warm_up_seconds": warm_up,
               "steady_seconds": STEADY_SECONDS, "flood_seconds": FLOOD_SECONDS, "load_average": {}}
    data = os.path.join(work, "steady")
    port = bench.free_port()
    server = subprocess.Popen(
        [bench.BINARY, "serve", "--port", str(port), "--data-dir", data, "--log-level", "error",
         "--retain-devices", str(caps[0]), "--retain-events", str(caps[1])],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        bench.wait_ready(port, server)
        database = os.path.join(data, "campaign-mock.sqlite3")
        readers = bench.StreamReaders(port, 3)
        sampler = Sampler(database)
        results["load_average"]["start"] = load_average()
        print(f"warm-up: {STEADY_RATE} requests/s for {warm_up} s…", flush=True)
        results["warm_up"] = figures(start_steady_load(work, "warmup", port, warm_up))
        results["load_average"]["after_warm_up"] = load_average()
        print(f"steady: {STEADY_RATE} requests/s for {STEADY_SECONDS} s…", flush=True)
        since = time.monotonic()
        results["steady"] = figures(start_steady_load(work, "steady", port, STEADY_SECONDS))
        results["steady_band"] = band(sampler.samples, since)
        results["load_average"]["after_steady"] = load_average()

        print(f"flood: registrations, 64 connections, for {FLOOD_SECONDS} s on top of the steady load…", flush=True)
        with open(os.path.join(work, "registration.lua"), "w") as handle:
            handle.write(bench.REGISTRATION_LUA.replace("bench", "flood"))
        after = 60
        running = start_steady_load(work, "after", port, FLOOD_SECONDS + after)
        flood_started = time.monotonic()
        bench.SECONDS = FLOOD_SECONDS
        results["flood"] = bench.wrk(port, "/", os.path.join(work, "registration.lua"))
        flood_stopped = time.monotonic()
        results["flood"]["stored_when_it_stopped"] = stored(database)
        results["flood_band"] = band(sampler.samples, flood_started, flood_stopped)
        results["seconds_back_within_1_2"] = seconds_until(
            database, (caps[0] * 1.2, caps[1] * 1.2), flood_stopped, after - 5)
        results["after_flood"] = figures(running)
        results["after_flood_band"] = band(sampler.samples, flood_stopped + after - 20)
        results["load_average"]["after_flood"] = load_average()
        load_stopped = time.monotonic()
        results["seconds_back_to_caps_once_idle"] = seconds_until(database, caps, load_stopped)
        results["stored_at_end"] = stored(database)
        sampler.finish()
        results["streams_received"] = readers.finish()
        results["samples"] = [[round(t - since, 1), d, e] for t, d, e in sampler.samples]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()

    steady_band, registration = results["steady_band"], results["steady"]["registration"]
    device_ratio = [round(value / caps[0], 2) for value in steady_band["devices"]]
    event_ratio = [round(value / caps[1], 2) for value in steady_band["events"]]
    results["steady_ratio_to_caps"] = {"devices": device_ratio, "events": event_ratio}
    sent = sum(part["requests_per_second"] for part in results["steady"].values())
    print(f"\nsteady load: {sent:.0f} requests/s answered ("
          + ", ".join(f"{name} {part['requests_per_second']:.0f} (p99 {part['p99_ms']:.1f} ms)"
                      for name, part in results["steady"].items())
          + f"), {sum(part['non_2xx'] for part in results['steady'].values())} not 2xx")
    print(f"  devices {steady_band['devices'][0]:,}–{steady_band['devices'][1]:,} "
          f"({device_ratio[0]}–{device_ratio[1]} × {caps[0]:,}), events {steady_band['events'][0]:,}–"
          f"{steady_band['events'][1]:,} ({event_ratio[0]}–{event_ratio[1]} × {caps[1]:,}), "
          f"{steady_band['samples']} samples (goal: ≤ 1.2 ×)")
    print(f"  registrations while sweeping: p50 {registration['p50_ms']:.1f} ms, p99 {registration['p99_ms']:.1f} ms "
          f"(goal ≤ 20 ms)")
    flood = results["flood"]
    print(f"flood: {flood['requests_per_second']:.0f} registrations/s, p99 {flood['p99_ms']:.1f} ms, "
          f"at most {results['flood_band']['devices'][1]:,} devices sampled during it, "
          f"{flood['stored_when_it_stopped'][0]:,} when it stopped; back within 1.2 × the caps "
          f"{results['seconds_back_within_1_2']} s later under the steady load, then "
          f"{results['after_flood_band']['devices']} devices over the last 20 s of it; back to the caps "
          f"{results['seconds_back_to_caps_once_idle']} s after the load stopped")
    print("load average (1 min): " + ", ".join(f"{k} {v:.2f}" for k, v in results["load_average"].items()))
    bench.save_results("retention-steady", results)
    met = device_ratio[1] <= 1.2 and event_ratio[1] <= 1.2 and registration["p99_ms"] <= 20
    return 0 if met and results["seconds_back_to_caps_once_idle"] is not None else 1


def main():
    if sys.argv[1:] == ["steady"]:
        sys.exit(steady(tempfile.mkdtemp(prefix="retention-")))
    work = tempfile.mkdtemp(prefix="retention-")
    with open(os.path.join(work, "registration.lua"), "w") as handle:
        handle.write(bench.REGISTRATION_LUA)
    results = {"when": datetime.datetime.now().isoformat(timespec="seconds"), "seconds": SECONDS, "cap": CAP}
    results["without"] = run(work, "without", 0)
    results["with"] = run(work, "with", CAP)
    ratio = results["with"]["requests_per_second"] / results["without"]["requests_per_second"]
    results["ratio"] = round(ratio, 3)
    for name in ("without", "with"):
        r = results[name]
        print(f"{name:8} retention: {r['requests_per_second']:9.0f} req/s  p50 {r['p50_ms']:6.1f} ms  "
              f"p99 {r['p99_ms']:6.1f} ms  {r['devices_when_load_stopped']:,} devices when the load stopped")
    w = results["with"]
    print(f"ratio {ratio:.2f} (goal >= 0.9), p99 {w['p99_ms']:.1f} ms (goal <= 20 ms); back to the cap of {CAP:,} "
          f"in {w['seconds_back_to_cap']} s ({w['devices_after']:,} devices)")
    bench.save_results("retention", results)
    failed = w["devices_after"] > CAP
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
