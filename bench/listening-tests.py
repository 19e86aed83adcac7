#!/usr/bin/env python3
"""Which tests open a listening socket, and which start the campaign-mock binary.

Runs the built test bundle one test at a time under strace (listen, execve and the clone family, every
thread and child followed) with the Swift Testing event stream on, then charges each successful
listen() and each start of the binary to the test running at its time. A listen() counts for the test
when the test bundle's own process made it (a started binary's listen() is counted as the start).

    python3 bench/listening-tests.py [--bundle PATH] [--list FILE]

The bundle defaults to the debug build's (`swift build --build-tests` first); the binary it starts is the
one beside it. Needs strace. `--list` writes each counted test, `L` (listens) or `B` (starts the binary),
with its count. A serial run under strace takes several times as long as `swift test`.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(bundle, trace, events):
    """The serial run under strace; its own pass or fail does not matter to the count."""
    subprocess.run(
        ["strace", "-f", "-qq", "-tt", "-e", "trace=listen,execve,clone,clone3,fork,vfork", "-e", "signal=none",
         "-o", trace, bundle, "--testing-library", "swift-testing", "--no-parallel",
         "--event-stream-output-path", events, "--event-stream-version", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=os.path.dirname(bundle))


def test_intervals(events):
    """(start, end, test id) of each test function, in seconds since 1970."""
    functions, started, intervals = set(), {}, []
    with open(events) as lines:
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            payload = record.get("payload", {})
            if record.get("kind") == "test":
                if payload.get("kind") == "function":
                    functions.add(payload["id"])
                continue
            test = payload.get("testID")
            if record.get("kind") != "event" or test not in functions:
                continue
            if payload.get("kind") == "testStarted":
                started[test] = payload["instant"]["since1970"]
            elif payload.get("kind") == "testEnded" and test in started:
                intervals.append((started.pop(test), payload["instant"]["since1970"], test))
    return sorted(intervals)


def calls(trace):
    """(time of day in seconds, process id, call, arguments, result) of each finished call; a thread's calls
    are its process's (clone with CLONE_THREAD)."""
    process_of, pending = {}, {}
    line_pattern = re.compile(r"^(\d+)\s+(\d\d):(\d\d):(\d\d\.\d+)\s+(.*)$")
    with open(trace) as lines:
        for line in lines:
            match = line_pattern.match(line.rstrip("\n"))
            if not match:
                continue
            tid, rest = int(match.group(1)), match.group(5)
            seconds = int(match.group(2)) * 3600 + int(match.group(3)) * 60 + float(match.group(4))
            process = process_of.setdefault(tid, tid)
            if rest.endswith("<unfinished ...>"):
                pending[tid] = rest[: -len("<unfinished ...>")]
                continue
            resumed = re.match(r"<\.\.\. (\w+) resumed>(.*)", rest)
            if resumed:
                rest = pending.pop(tid, resumed.group(1) + "(") + resumed.group(2)
            call = re.match(r"(\w+)\((.*)\)\s+=\s+(-?\d+)", rest)
            if not call:
                continue
            name, arguments, result = call.group(1), call.group(2), int(call.group(3))
            if name in ("clone", "clone3", "fork", "vfork") and result > 0:
                process_of[result] = process if "CLONE_THREAD" in arguments else result
            yield seconds, process, name, arguments, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bundle")
    parser.add_argument("--list")
    options = parser.parse_args()
    bundle = options.bundle or os.path.join(
        subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True,
                       check=True).stdout.strip(), "campaign-mockPackageTests.xctest")
    bundle = os.path.abspath(bundle)
    with tempfile.TemporaryDirectory() as folder:
        trace, events = os.path.join(folder, "trace"), os.path.join(folder, "events")
        run(bundle, trace, events)
        intervals = test_intervals(events)
        if not intervals:
            sys.exit("no test ran (is the bundle built?)")
        # strace gives the time of day; the event stream gives seconds since 1970 (both UTC).
        midnight = intervals[0][0] - intervals[0][0] % 86400

        def test_at(seconds):
            moment = midnight + seconds
            return next((test for start, end, test in intervals if start <= moment <= end), None)

        bundles, listening, binary = set(), collections.Counter(), collections.Counter()
        for seconds, process, name, arguments, result in calls(trace):
            if name == "execve" and result == 0:
                program = arguments.split(",")[0].strip('"')
                if program.endswith(".xctest"):
                    bundles.add(process)
                elif program.endswith("/campaign-mock") and test_at(seconds):
                    binary[test_at(seconds)] += 1
            elif name == "listen" and result == 0 and process in bundles and test_at(seconds):
                listening[test_at(seconds)] += 1
    print(f"tests run: {len(intervals)}")
    print(f"tests whose own process listens: {len(listening)} (listen calls: {sum(listening.values())})")
    for target, count in sorted(collections.Counter(test.split(".")[0] for test in listening).items()):
        print(f"  {target}: {count}")
    print(f"tests that start the campaign-mock binary: {len(binary)} (starts: {sum(binary.values())})")
    if options.list:
        with open(options.list, "w") as out:
            for test in sorted(listening):
                out.write(f"L {listening[test]} {test}\n")
            for test in sorted(binary):
                out.write(f"B {binary[test]} {test}\n")


if __name__ == "__main__":
    main()
