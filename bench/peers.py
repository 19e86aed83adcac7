#!/usr/bin/env python3
"""make bench-peers: campaign-mock beside WireMock 2.35.1 on the same loads, in the same run.

WireMock's standalone jar ships inside PyPI's `wiremock` 2.7.0 wheel: it is fetched once with
`pip download wiremock==2.7.0 --no-deps` into .build-peers/ (gitignored) and
wiremock/server/wiremock-standalone-2.35.1.jar is taken out of it. Java 17 runs it (Debian's OpenJDK 17:
JAVA, or the first of /usr/lib/jvm/java-17-openjdk-*/bin/java and `java`), on loopback, with a stub
answering 200 OK for each path and its default in-memory request journal (emptied between loads).

For each of PEERS_ROUNDS rounds (default 2; the order of the two servers alternates) and each load
(tracking hits, then Android registrations: the wrk scripts of bench/bench.py, distinct ids and tokens):
WireMock's JIT is warmed with the load for PEERS_WARMUP seconds (default 15), then each server is
measured under wrk -t2 -c64 for PEERS_SECONDS (default 8); campaign-mock (this tree's release build,
server defaults plus PEERS_ARGS) runs on a fresh data directory for each load. Prints both rates, both
p99s and campaign-mock/WireMock per load, and writes bench/results/peers-<time>.json.
"""
import datetime
import glob
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab  # noqa: E402
import bench  # noqa: E402

ROOT = bench.ROOT
CACHE = os.path.join(ROOT, ".build-peers")
JAR = os.path.join(CACHE, "wiremock-standalone-2.35.1.jar")
PATHS = {"tracking": "/r/", "registration": "/nms/mobile/1/registerAndroid.jssp"}


def wiremock_jar():
    if os.path.exists(JAR):
        return JAR
    os.makedirs(CACHE, exist_ok=True)
    wheels = glob.glob(os.path.join(CACHE, "wiremock-2.7.0-*.whl"))
    if not wheels:
        print("==> pip download wiremock==2.7.0 --no-deps (WireMock's standalone jar is inside it)", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                        "wiremock==2.7.0", "--no-deps", "-d", CACHE], check=True)
        wheels = glob.glob(os.path.join(CACHE, "wiremock-2.7.0-*.whl"))
    with zipfile.ZipFile(wheels[0]) as wheel, open(JAR + ".part", "wb") as out:
        out.write(wheel.read("wiremock/server/wiremock-standalone-2.35.1.jar"))
    os.replace(JAR + ".part", JAR)
    return JAR


def java():
    candidates = [os.environ.get("JAVA", "")] + sorted(glob.glob("/usr/lib/jvm/java-17-openjdk-*/bin/java"))
    candidates.append(shutil.which("java") or "")
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise SystemExit("no java: install openjdk-17-jre-headless (or set JAVA)")


def admin(port, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.status


def start_wiremock(work):
    port = bench.free_port()
    process = subprocess.Popen([java(), "-jar", wiremock_jar(), "--port", str(port), "--bind-address", "127.0.0.1",
                                "--disable-banner", "--root-dir", os.path.join(work, "wiremock")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while True:
        if process.poll() is not None:
            raise SystemExit(f"WireMock exited with {process.returncode}")
        try:
            admin(port, "GET", "/__admin/mappings")
            break
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                raise SystemExit("WireMock did not start within 60 s")
            time.sleep(0.2)
    for path in PATHS.values():
        admin(port, "POST", "/__admin/mappings",
              {"request": {"method": "ANY", "urlPath": path}, "response": {"status": 200, "body": "OK"}})
    return port, process


def main():
    rounds = int(os.environ.get("PEERS_ROUNDS", "2"))
    seconds = int(os.environ.get("PEERS_SECONDS", "8"))
    warmup = int(os.environ.get("PEERS_WARMUP", "15"))
    arguments = shlex.split(os.environ.get("PEERS_ARGS", ""))
    wiremock_jar()
    mock = ab.head_binary()
    results = {"when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "head": os.environ.get("CAMPAIGN_MOCK_COMMIT") or ab.git("rev-parse", "--short=12", "HEAD"),
               "rounds": rounds, "seconds": seconds, "warmup_seconds": warmup, "arguments": arguments,
               "java": subprocess.run([java(), "-version"], capture_output=True, text=True).stderr.splitlines()[0],
               "cpus": os.cpu_count(), "loads": {name: {"campaign-mock": [], "WireMock": []} for name in PATHS}}
    problems = []
    print(f"campaign-mock {results['head']} beside WireMock 2.35.1 ({results['java']}): {rounds} rounds, "
          f"wrk -t{bench.THREADS} -c{bench.CONNECTIONS} {seconds} s a load, WireMock warmed {warmup} s a load",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="campaign-mock-peers-") as work:
        scripts = ab.write_scripts(work)
        wiremock_port, wiremock = start_wiremock(work)
        try:
            for round_number in range(1, rounds + 1):
                for name, label, _ in ab.LOADS:
                    ab.run_wrk(wiremock_port, scripts[name], warmup)
                    admin(wiremock_port, "DELETE", "/__admin/requests")
                    order = ("WireMock", "campaign-mock") if round_number % 2 else ("campaign-mock", "WireMock")
                    line = []
                    for server in order:
                        if server == "WireMock":
                            figures = ab.run_wrk(wiremock_port, scripts[name], seconds)
                            figures["peak_rss_mb"] = bench.rss_mb(wiremock.pid, "VmHWM")
                            admin(wiremock_port, "DELETE", "/__admin/requests")
                        else:
                            figures = ab.run_load(mock, scripts[name], seconds, work, arguments)
                        results["loads"][name][server].append(figures)
                        line.append(f"{server} {figures['requests_per_second']:>9,.0f} req/s p99 "
                                    f"{figures['p99_ms']:7.2f} ms")
                        if ab.failed(figures):
                            problems.append(f"round {round_number}, {name}, {server}: {figures['non_2xx']} non-2xx, "
                                            f"socket errors {figures['socket_errors']}")
                    print(f"round {round_number}  {name:<13}" + "   ".join(line), flush=True)
        finally:
            wiremock.terminate()
            wiremock.wait()

    print(f"\n{'load':<28}{'mock req/s':>12}{'WireMock':>12}{'mock/WM':>9}{'mock p99':>11}{'WM p99':>10}")
    for name, label, _ in ab.LOADS:
        load = results["loads"][name]
        medians, p99 = ab.summarise(load)
        load["ratio"] = medians["campaign-mock"] / medians["WireMock"]
        rounds_ratios = [m["requests_per_second"] / w["requests_per_second"]
                         for m, w in zip(load["campaign-mock"], load["WireMock"])]
        print(f"{label:<28}{medians['campaign-mock']:>12,.0f}{medians['WireMock']:>12,.0f}{load['ratio']:>8.2f}×"
              f"{p99['campaign-mock']:>8.2f} ms{p99['WireMock']:>7.1f} ms   rounds: "
              + ", ".join(f"{ratio:.2f}×" for ratio in rounds_ratios))
    results["problems"] = problems
    for problem in problems:
        print(f"  ERROR   {problem}")
    bench.save_results("peers", results)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
