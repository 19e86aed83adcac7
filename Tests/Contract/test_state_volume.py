"""GET and PUT /_mock/state at volume (docs/ci.md): the snapshot is streamed as it is read, only as fast as
the client takes it, and an import waits in a temporary file and is written a row at a time, so the
server's memory stays flat whatever the store's size; the document is whole, imports back, and an import
with a problem at its very end changes nothing.

The store is written straight into a data directory's SQLite file (as bench/volume.py does): 30,000
devices with five history rows each and 300,000 tracking events, a document of about 60 MB. Before the
export was streamed, the server held the whole document and its parts at once (659 MB at its peak here, against 83 MB streamed).
"""
import json
import os
import sqlite3
import tempfile
import time

import pytest
import requests

from live_server import LiveServer

DEVICES = 30_000
EVENTS = 300_000


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def populate(path, devices=DEVICES, events=EVENTS):
    db = sqlite3.connect(path)
    db.executescript(f"""
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {devices})
        INSERT INTO devices (application_id, registration_token, user_key, device_model, os_name, os_version, params,
            created_at, updated_at)
        SELECT 1 + i % 2, printf('token-%06d', i), printf('user%d@example.com', i), 'Pixel 8', 'android', '14',
            '[{{"name":"plan","type":"string","value":"gold"}}]', 1700000000000000 + i, 1700000000000000 + i FROM n;
        WITH RECURSIVE k(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM k WHERE j < 5)
        INSERT INTO registrations (device_id, received_at, changes, user_key, fields, params)
        SELECT id, created_at + j, 'new', user_key, '{{"deviceModel":"Pixel 8"}}', params FROM devices, k;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {events})
        INSERT INTO tracking_events (received_at, raw_id, message_hex, message_value, delivery_id, tag, application_id)
        SELECT 1700000000000000 + i, printf('h%x,d%d,%d', 1000 + i % 500, i, 1 + i % 2), printf('%x', 1000 + i % 500),
            1000 + i % 500, printf('d%d', i), 1 + i % 2, 1 + i % 2 FROM n;
    """)
    db.commit()
    db.close()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the peak memory from /proc/PID/status, which only Linux has")
def test_a_large_state_is_streamed_in_flat_memory_whole_and_importable():
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "data")
        with LiveServer(data_dir=data):  # makes the schema
            pass
        populate(os.path.join(data, "campaign-mock.sqlite3"))
        with LiveServer(data_dir=data) as server:
            url, pid = server.url, server.process.pid
            before = peak_rss_mb(pid)
            path = os.path.join(work, "state.json")
            with requests.get(f"{url}/_mock/state", stream=True, timeout=60) as answer:
                assert answer.status_code == 200
                assert answer.headers["Transfer-Encoding"] == "chunked"
                with open(path, "wb") as out:
                    for index, chunk in enumerate(answer.iter_content(64 * 1024)):
                        out.write(chunk)
                        if index < 20:
                            time.sleep(0.05)  # a slow reader at first: the server waits, it does not buffer
            size = os.path.getsize(path)
            peak = peak_rss_mb(pid)
            assert size > 40 << 20, f"the document is {size} bytes"
            assert peak < 100, f"the export took the server from {before:.0f} to {peak:.0f} MB"
            with open(path) as handle:
                state = json.load(handle)
            assert (len(state["devices"]), len(state["events"])) == (DEVICES, EVENTS)
            assert [len(device["history"]) for device in state["devices"][:3]] == [5, 5, 5]
            assert state["devices"][0]["registrationToken"] == "token-000001"
            assert state["format"] == "campaign-mock-state" and state["version"] == 1

        # Into an empty server: the body is sent as it is read from the file, and the import's memory is
        # as flat as the export's.
        with LiveServer(data_dir=os.path.join(work, "other")) as other:
            before = peak_rss_mb(other.process.pid)
            with open(path, "rb") as body:
                answer = requests.put(f"{other.url}/_mock/state", data=body, timeout=300)
            assert answer.status_code == 200, answer.text
            assert answer.json() == {"applications": 2, "devices": DEVICES, "events": EVENTS, "faults": 0,
                                     "messages": 0}
            peak = peak_rss_mb(other.process.pid)
            assert peak < 100, f"the import took the server from {before:.0f} to {peak:.0f} MB"
            again = requests.get(f"{other.url}/_mock/state", timeout=120).content
            with open(path, "rb") as handle:
                assert again == handle.read()


def status_mb(pid, field):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) / 1024 for line in status if line.startswith(field + ":"))


def export_growth(work, devices, events):
    """What exporting a store of this size added to the server's peak memory, in MB (its peak resident size,
    file pages included, over its resident size before), and the document's size in bytes."""
    data = os.path.join(work, f"store-{devices}")
    with LiveServer(data_dir=data):
        pass
    populate(os.path.join(data, "campaign-mock.sqlite3"), devices=devices, events=events)
    with LiveServer(data_dir=data) as server:
        before = status_mb(server.process.pid, "VmRSS")
        with requests.get(f"{server.url}/_mock/state", stream=True, timeout=120) as answer:
            assert answer.status_code == 200
            size = sum(len(chunk) for chunk in answer.iter_content(64 * 1024))
        return status_mb(server.process.pid, "VmHWM") - before, size


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the peak memory from /proc/PID/status, which only Linux has")
def test_what_an_export_holds_does_not_grow_with_the_store():
    # Four times the rows take the peak no higher: nothing is kept per row, and the pages read are not kept
    # resident (the readers' memory map of the file once kept every page the export read, 45 MB more for a
    # 39 MB document). Its buffers are full from about 10,000 devices on: the smaller store is past that.
    with tempfile.TemporaryDirectory() as work:
        small, small_size = export_growth(work, 10_000, 100_000)
        large, large_size = export_growth(work, 40_000, 400_000)
        assert large_size > 3.5 * small_size
        assert large < small + 6, (f"exporting {small_size / 1e6:.0f} MB added {small:.1f} MB to the server's peak, "
                                   f"exporting {large_size / 1e6:.0f} MB added {large:.1f} MB")


def test_an_import_refused_at_its_last_row_changes_nothing_and_any_section_order_is_read():
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "data")
        with LiveServer(data_dir=data):
            pass
        populate(os.path.join(data, "campaign-mock.sqlite3"), devices=3_000, events=20_000)
        with LiveServer(data_dir=data) as server:
            url = server.url
            before = requests.get(f"{url}/_mock/state", timeout=60).content
            state = json.loads(before)
            # The last event names a message that is not in the document: found after 20,000 rows went in.
            state["events"][-1]["messageId"] = "12345"
            answer = requests.put(f"{url}/_mock/state", data=json.dumps(state), timeout=120)
            assert answer.status_code == 400
            assert answer.json()["error"] == (
                f"snapshot refused, nothing changed: events[{len(state['events']) - 1}]: no message '12345'")
            assert requests.get(f"{url}/_mock/state", timeout=60).content == before
            # Sections in another order than the export's (events and devices before applications) import
            # the same.
            del state["events"][-1]["messageId"]
            reordered = {key: state[key] for key in reversed(list(state))}
            assert list(reordered)[0] == "version"
            answer = requests.put(f"{url}/_mock/state", data=json.dumps(reordered, indent=1), timeout=120)
            assert answer.status_code == 200, answer.text
            assert answer.json()["events"] == len(state["events"])
            assert requests.get(f"{url}/_mock/state", timeout=60).json() == state


def test_an_import_is_held_to_its_own_limit_not_the_body_limit():
    with tempfile.TemporaryDirectory() as work:
        arguments = ("--max-state-size", "64KiB", "--max-body-size", "1KiB")
        with LiveServer(*arguments, data_dir=os.path.join(work, "data")) as server:
            before = requests.get(f"{server.url}/_mock/state", timeout=10).content
            state = json.loads(before)
            rules = [{"endpoint": "soap", "status": 500, "id": f"rule-{i}"} for i in range(2_000)]
            answer = requests.put(f"{server.url}/_mock/state", data=json.dumps(dict(state, faults=rules)), timeout=30)
            assert answer.status_code == 413
            assert "larger than 65536 bytes" in answer.text
            assert requests.get(f"{server.url}/_mock/state", timeout=10).content == before
            # 50 rules are past --max-body-size and within --max-state-size.
            body = json.dumps(dict(state, faults=rules[:50]))
            assert 1024 < len(body) < 65536
            answer = requests.put(f"{server.url}/_mock/state", data=body, timeout=30)
            assert answer.status_code == 200, answer.text
            assert answer.json()["faults"] == 50


def test_a_reader_that_leaves_midway_stops_the_export_and_the_server_goes_on():
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "data")
        with LiveServer(data_dir=data):
            pass
        populate(os.path.join(data, "campaign-mock.sqlite3"), devices=5_000, events=50_000)
        with LiveServer(data_dir=data) as server:
            url = server.url
            with requests.get(f"{url}/_mock/state", stream=True, timeout=60) as answer:
                next(answer.iter_content(64 * 1024))
            # The export's reader connection is given back: more exports and writes go on.
            for _ in range(3):
                assert requests.get(f"{url}/_mock/state", timeout=60).json()["version"] == 1
            assert requests.post(f"{url}/_mock/reset?only=events", timeout=30).status_code == 200
