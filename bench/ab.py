#!/usr/bin/env python3
"""make bench-ab BASE=<rev>: this tree's release build against BASE's, alternately, in one sitting.

BASE's release binary is built in a git worktree of its own, .build-ab/<commit>/ (gitignored; kept, so a
second run against the same commit does not build it again; `make clean` removes it). This tree's is
`make release`. Then, for AB_ROUNDS rounds (default 3, at least 3), each build serves, on a fresh data
directory and a free loopback port, tracking hits and then Android registrations (the scripts of
bench/bench.py: distinct delivery ids and distinct tokens, the realistic body), each under
wrk -t2 -c64 for AB_SECONDS (default 8). The order of the two builds alternates from round to round
(BASE first in odd rounds), so drift of a shared machine's load does not favour one of them.

Prints each round (req/s, p99, the server's CPU time per request), the medians, HEAD/BASE per load and the p99s, and writes
bench/results/ab-<time>.json. Both builds run with the server's defaults (the checks and retention on)
plus AB_ARGS (e.g. AB_ARGS="--retain-devices 0 --retain-events 0"). Exit 1 when a load failed
(non-2xx answers or socket errors), never for a ratio: figures on a shared machine are for reading.
"""
import datetime
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (the wrk scripts, wrk's output, ports and readiness)

ROOT = bench.ROOT
LOADS = (("tracking", "GET /r/ tracking hit", bench.TRACKING_LUA),
         ("registration", "POST registerAndroid.jssp", bench.REGISTRATION_LUA))


def git(*arguments):
    return subprocess.run(["git", *arguments], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()


def base_binary(rev):
    """BASE's release binary, built once in .build-ab/<commit>/, a detached git worktree of that commit."""
    commit = git("rev-parse", "--verify", "--short=12", f"{rev}^{{commit}}")
    tree = os.path.join(ROOT, ".build-ab", commit)
    binary = os.path.join(tree, ".build", "release", "campaign-mock")
    if not os.path.isdir(tree):
        os.makedirs(os.path.dirname(tree), exist_ok=True)
        git("worktree", "add", "--detach", tree, commit)
    if not os.path.exists(binary):
        print(f"==> building {commit}'s release binary in {os.path.relpath(tree, ROOT)} (minutes the first time)",
              flush=True)
        static = ["--static-swift-stdlib"] if sys.platform.startswith("linux") else []
        environment = dict(os.environ, CAMPAIGN_MOCK_COMMIT=commit)
        subprocess.run([os.environ.get("SWIFT", "swift"), "build", "-c", "release", *static,
                        "--product", "campaign-mock"], cwd=tree, check=True, env=environment)
    return commit, binary


def head_binary():
    subprocess.run(["make", "--no-print-directory", "release"], cwd=ROOT, check=True)
    binary = subprocess.run([os.environ.get("SWIFT", "swift"), "build", "-c", "release", "--show-bin-path"],
                            cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    return os.path.join(binary, "campaign-mock")


def run_load(binary, script, seconds, work, arguments):
    """One load on a fresh server of `binary` with a fresh data directory: wrk's figures."""
    data = tempfile.mkdtemp(dir=work)
    port = bench.free_port()
    server = subprocess.Popen([binary, "serve", "--port", str(port), "--data-dir", data, "--log-level", "error",
                               *arguments], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        bench.wait_ready(port, server)
        time.sleep(1)
        cpu = bench.cpu_seconds(server.pid)
        figures = run_wrk(port, script, seconds)
        # The server's CPU time per answered request: steadier than the rate on a machine whose cores the
        # load generator shares, and what a change to the request or write path moves first.
        requests = figures["requests_per_second"] * seconds
        figures["cpu_us_per_request"] = (bench.cpu_seconds(server.pid) - cpu) * 1e6 / requests if requests else 0.0
        figures["peak_rss_mb"] = bench.rss_mb(server.pid, "VmHWM")
        return figures
    finally:
        server.terminate()
        server.wait()
        subprocess.run(["rm", "-rf", data], check=False)


def run_wrk(port, script, seconds, path="/"):
    output = subprocess.run(["wrk", "-t", str(bench.THREADS), "-c", str(bench.CONNECTIONS), "-d", f"{seconds}s",
                             "--latency", "-s", script, f"http://127.0.0.1:{port}{path}"],
                            capture_output=True, text=True, check=True).stdout
    return bench.wrk_figures(output)


def write_scripts(work):
    """The wrk scripts of LOADS, written into `work`: their paths by load name."""
    scripts = {}
    for name, _, text in LOADS:
        scripts[name] = os.path.join(work, f"{name}.lua")
        with open(scripts[name], "w") as handle:
            handle.write(text)
    return scripts


def summarise(load):
    """The medians of a load's rounds per build (req/s, p99), kept in `load` beside the rounds."""
    medians = {build: statistics.median(f["requests_per_second"] for f in load[build]) for build in load}
    p99 = {build: statistics.median(f["p99_ms"] for f in load[build]) for build in load}
    load["median_requests_per_second"], load["median_p99_ms"] = medians, p99
    return medians, p99


def failed(figures):
    return figures["non_2xx"] > 0 or bool(figures["socket_errors"])


def summary_line(label, figures):
    return (f"{label:<6}{figures['requests_per_second']:>10,.0f} req/s  p99 {figures['p99_ms']:6.2f} ms"
            f"  {figures['cpu_us_per_request']:5.1f} µs CPU")


def main():
    rev = os.environ.get("BASE") or (sys.argv[1] if len(sys.argv) > 1 else "")
    if not rev:
        raise SystemExit("usage: make bench-ab BASE=<rev>  (e.g. BASE=274d1f4)")
    rounds = max(3, int(os.environ.get("AB_ROUNDS", "3")))
    seconds = int(os.environ.get("AB_SECONDS", "8"))
    arguments = shlex.split(os.environ.get("AB_ARGS", ""))
    if not any(os.access(os.path.join(p, "wrk"), os.X_OK) for p in os.environ["PATH"].split(os.pathsep)):
        raise SystemExit("wrk is missing: make setup-bench")
    commit, base = base_binary(rev)
    head = head_binary()
    head_commit = os.environ.get("CAMPAIGN_MOCK_COMMIT") or git("rev-parse", "--short=12", "HEAD")
    results = {"base": commit, "head": head_commit, "rounds": rounds, "seconds": seconds, "arguments": arguments,
               "connections": bench.CONNECTIONS, "threads": bench.THREADS, "cpus": os.cpu_count(),
               "when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "loads": {name: {"BASE": [], "HEAD": []} for name, _, _ in LOADS}}
    problems = []
    print(f"BASE {commit} against HEAD {head_commit}: {rounds} rounds, wrk -t{bench.THREADS} "
          f"-c{bench.CONNECTIONS} {seconds} s a load, server arguments {arguments or 'the defaults'}", flush=True)
    with tempfile.TemporaryDirectory(prefix="campaign-mock-ab-") as work:
        scripts = write_scripts(work)
        for round_number in range(1, rounds + 1):
            order = (("BASE", base), ("HEAD", head)) if round_number % 2 else (("HEAD", head), ("BASE", base))
            for name, label, _ in LOADS:
                line = []
                for build, binary in order:
                    figures = run_load(binary, scripts[name], seconds, work, arguments)
                    results["loads"][name][build].append(figures)
                    line.append(summary_line(build, figures))
                    if failed(figures):
                        problems.append(f"round {round_number}, {name}, {build}: {figures['non_2xx']} non-2xx, "
                                        f"socket errors {figures['socket_errors']}")
                print(f"round {round_number}  {name:<13}" + "   ".join(line), flush=True)

    print(f"\n{'load':<28}{'BASE req/s':>12}{'HEAD req/s':>12}{'HEAD/BASE':>11}"
          f"{'BASE p99 ms':>13}{'HEAD p99 ms':>13}")
    for name, label, _ in LOADS:
        load = results["loads"][name]
        p99_range = {build: (min(f["p99_ms"] for f in load[build]), max(f["p99_ms"] for f in load[build]))
                     for build in load}
        medians, p99 = summarise(load)
        load["ratio"] = medians["HEAD"] / medians["BASE"]
        print(f"{label:<28}{medians['BASE']:>12,.0f}{medians['HEAD']:>12,.0f}{load['ratio']:>10.2f}×"
              f"{p99['BASE']:>13.2f}{p99['HEAD']:>13.2f}")
        print(f"{'':<28}p99 range: BASE {p99_range['BASE'][0]:.2f}–{p99_range['BASE'][1]:.2f} ms, "
              f"HEAD {p99_range['HEAD'][0]:.2f}–{p99_range['HEAD'][1]:.2f} ms; peak RSS (median) "
              f"BASE {statistics.median(f['peak_rss_mb'] for f in load['BASE']):.1f} MB, "
              f"HEAD {statistics.median(f['peak_rss_mb'] for f in load['HEAD']):.1f} MB")
        print(f"{'':<28}server CPU per request (median): "
              + ", ".join(f"{build} {statistics.median(f['cpu_us_per_request'] for f in load[build]):.1f} µs"
                          for build in ("BASE", "HEAD")))
    results["problems"] = problems
    for problem in problems:
        print(f"  ERROR   {problem}")
    bench.save_results("ab", results)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
