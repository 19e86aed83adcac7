#!/usr/bin/env python3
"""How the admin API's lists answer on a long-lived instance's store: 100,000 devices and 1,000,000
tracking events (VOLUME_DEVICES, VOLUME_EVENTS), written straight into a new data directory's SQLite
file, then served by the release build. Prints the median of 5 answers of each request the console's
first screen and its filters send, in milliseconds.

    python3 bench/volume.py        (make bench-volume)
"""
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.environ.get("CAMPAIGN_MOCK_BINARY", os.path.join(ROOT, ".build", "release", "campaign-mock"))
DEVICES = int(os.environ.get("VOLUME_DEVICES", "100000"))
EVENTS = int(os.environ.get("VOLUME_EVENTS", "1000000"))


def serve(data):
    # CAMPAIGN_MOCK_ARGS: more options, e.g. a larger --max-body-size for a build from before imports were spooled.
    extra = os.environ.get("CAMPAIGN_MOCK_ARGS", "").split()
    process = subprocess.Popen([BINARY, "serve", "--port", "0", "--data-dir", data, "--log-level", "warning", *extra],
                               stdout=subprocess.PIPE, text=True)
    for line in process.stdout:
        match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        if match:
            return process, f"http://127.0.0.1:{match.group(1)}"
    raise SystemExit("the server did not start")


def populate(path):
    """Devices in the two demo applications, a registration each, hits spread over them, and a composed
    message for every tenth device (token-000042 among them), which one hit in ten names."""
    db = sqlite3.connect(path)
    now = int(time.time() * 1_000_000)
    db.executescript(f"""
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {DEVICES})
        INSERT INTO devices (application_id, registration_token, user_key, device_model, os_name, os_version, params,
            created_at, updated_at)
        SELECT 1 + i % 2, printf('token-%06d', i), printf('user%d@example.com', i % 5000),
            CASE i % 2 WHEN 0 THEN 'Pixel 8' ELSE 'iPhone15,2' END, CASE i % 2 WHEN 0 THEN 'android' ELSE 'iOS' END,
            '17.0', '[{{"name":"plan","type":"string","value":"gold"}}]', {now} - ({DEVICES} - i) * 1000,
            {now} - ({DEVICES} - i) * 1000 FROM n;
        INSERT INTO registrations (device_id, received_at, changes, user_key, fields, params)
        SELECT id, created_at, 'new', user_key, '{{}}', params FROM devices;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {EVENTS})
        INSERT INTO tracking_events (received_at, raw_id, message_hex, message_value, delivery_id, tag, device_id,
            application_id)
        SELECT {now} - ({EVENTS} - i) * 100, printf('h%x,d%d,%d', 1000 + i % 500, i, 1 + i % 2),
            printf('%x', 1000 + i % 500), 1000 + i % 500, printf('d%d', i), 1 + i % 2,
            CASE WHEN i % 10 = 0 THEN 1 + i % {DEVICES} END, 1 + i % 2 FROM n;
        INSERT INTO messages (message_id, numeric_value, low32, delivery_id, device_id, application_id, created_at)
        SELECT printf('%d', 1000000 + id), 1000000 + id, 1000000 + id, printf('d%d', id), id, application_id,
            created_at FROM devices WHERE id % 10 = 2;
        UPDATE tracking_events SET message_ref = 1 + (id / 20) % (SELECT count(*) FROM messages) WHERE id % 20 IN (0, 1);
    """)
    db.commit()
    db.close()


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmHWM:"))


def median_ms(url):
    times = []
    for _ in range(5):
        started = time.perf_counter()
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Host": "localhost"})) as answer:
            answer.read()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main():
    work = tempfile.mkdtemp(prefix="volume-")
    data = os.path.join(work, "data")
    process, _ = serve(data)  # creates the schema
    process.terminate()
    process.wait()
    started = time.monotonic()
    populate(os.path.join(data, "campaign-mock.sqlite3"))
    print(f"wrote {DEVICES:,} devices and {EVENTS:,} events in {time.monotonic() - started:.1f} s")
    process, base = serve(data)
    try:
        for what, path in [
            ("devices, first page", "/_mock/devices?limit=100"),
            ("devices, page 500 (before=cursor)", f"/_mock/devices?limit=100&before={DEVICES - 50_000}"),
            ("devices, search q=token-0999", "/_mock/devices?limit=100&q=token-0999"),
            ("devices, by userKey", "/_mock/devices?limit=100&userKey=user42%40example.com"),
            ("events, first page", "/_mock/events?limit=100"),
            ("events, type=open", "/_mock/events?limit=100&type=open"),
            ("events, messageId (reads every event)", "/_mock/events?limit=100&messageId=1000"),
            ("events of one device (the drawer)", "/_mock/events?limit=200&token=token-000042"),
            ("one device with history and a message (the drawer)", "/_mock/devices/token-000042"),
            ("devices, param.plan=gold (reads the params)", "/_mock/devices?limit=100&param.plan=gold"),
            ("requests, first page", "/_mock/requests?limit=100"),
        ]:
            print(f"{what:42} {median_ms(base + path):8.1f} ms")
        # The whole state, streamed: its time, its size and what it did to the server's peak memory.
        before = peak_rss_mb(process.pid)
        started = time.perf_counter()
        size = 0
        document = os.path.join(work, "state.json")
        with urllib.request.urlopen(urllib.request.Request(base + "/_mock/state", headers={"Host": "localhost"})) as answer, \
                open(document, "wb") as out:
            while chunk := answer.read(1 << 16):
                size += len(chunk)
                out.write(chunk)
        print(f"{'GET /_mock/state (streamed)':42} {(time.perf_counter() - started) * 1000:8.0f} ms, "
              f"{size / 1e6:.0f} MB, peak RSS {before:.0f} -> {peak_rss_mb(process.pid):.0f} MB")
        # A reset of everything, and what it gives back.
        path = os.path.join(data, "campaign-mock.sqlite3")
        on_disk = os.path.getsize(path) + os.path.getsize(path + "-wal")
        started = time.perf_counter()
        urllib.request.urlopen(urllib.request.Request(base + "/_mock/reset", method="POST", headers={"Host": "localhost"})).read()
        after = os.path.getsize(path) + os.path.getsize(path + "-wal")
        print(f"{'POST /_mock/reset (everything)':42} {(time.perf_counter() - started) * 1000:8.0f} ms, "
              f"{on_disk / 1e6:.0f} MB -> {after / 1e6:.1f} MB on disk")
        # The document back into the emptied store, by a server started afresh (its peak is the import's).
        process.terminate()
        process.wait()
        process, base = serve(data)
        before = peak_rss_mb(process.pid)
        started = time.perf_counter()
        with open(document, "rb") as body:
            request = urllib.request.Request(base + "/_mock/state", data=body, method="PUT", headers={
                "Host": "localhost", "Content-Type": "application/json", "Content-Length": str(size)})
            urllib.request.urlopen(request, timeout=600).read()
        print(f"{'PUT /_mock/state (the same document)':42} {(time.perf_counter() - started) * 1000:8.0f} ms, "
              f"{size / 1e6:.0f} MB, peak RSS {before:.0f} -> {peak_rss_mb(process.pid):.0f} MB")
    finally:
        process.terminate()
        process.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
