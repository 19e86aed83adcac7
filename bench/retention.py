#!/usr/bin/env python3
"""make bench-retention: registrations while retention sweeps, against the same load without retention.

Two release-build servers, one after the other, each on a new data directory, take Android registrations
with distinct tokens (bench.py's wrk script, 64 connections, RETENTION_SECONDS, default 20): the first with
retention off (--retain-devices 0), the second with --retain-devices RETENTION_CAP (default 20,000, so
that the store passes it within seconds). Prints requests/s and p50/p99 of both, the ratio, the devices
stored when the load stopped and how long the store took to come back to its cap after it, and the
longest pause of the store's writer the server reported. Writes bench/results/retention-<time>.json.

    python3 bench/retention.py        (make bench-retention; CAMPAIGN_MOCK_BINARY measures another build)
"""
import datetime
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

import bench

SECONDS = int(os.environ.get("RETENTION_SECONDS", "20"))
bench.BINARY = os.environ.get("CAMPAIGN_MOCK_BINARY", bench.BINARY)
CAP = int(os.environ.get("RETENTION_CAP", "20000"))


def devices(database):
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10) as db:
        return db.execute("SELECT count(*) FROM devices").fetchone()[0]


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


def main():
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
