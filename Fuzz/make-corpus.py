#!/usr/bin/env python3
"""Writes Fuzz/corpus/<target>/: the seed inputs of the fuzz targets, taken from the SDK exchanges in
Fixtures/sdk/ (requests, form bodies, additionalParams, tracking ids) plus SOAP envelopes of every
method the router speaks, state documents and their imports, payloads to check, config files,
APNs answers as HTTP/2 frames, HTTP/1.1 answers and request journal files. Run it from anywhere:
python3 Fuzz/make-corpus.py.
"""
import glob
import hashlib
import json
import os
import shutil
import struct
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "corpus")

ENVELOPE = ('<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:urn="urn:{service}">'
            '<soapenv:Header/><soapenv:Body><urn:{method}>{parameters}</urn:{method}></soapenv:Body></soapenv:Envelope>')
SOAP = [
    ("xtk:session", "Logon", "<urn:sessiontoken/><urn:strLogin>admin</urn:strLogin><urn:strPassword>admin</urn:strPassword>"
                             "<urn:elemParameters/>"),
    ("xtk:session", "Logoff", "<urn:sessiontoken>___0F4E6B3C-1C1E-4C39-9C0B-8E8E2E7E1A11</urn:sessiontoken>"),
    ("xtk:queryDef", "ExecuteQuery", "<urn:sessiontoken>admin/admin</urn:sessiontoken><urn:entity><queryDef "
     "schema='nms:appSubscriptionRcp' operation='select' lineCount='10'><select><node expr='@userKey'/></select>"
     "<where><condition expr=\"@registrationToken = 'abc' and (@created &gt; '2026-01-01' or @disabled = 0)\"/>"
     "</where><orderBy><node expr='@id' sortDesc='true'/></orderBy></queryDef></urn:entity>"),
    ("nms:subscription", "Subscribe", "<urn:sessiontoken>admin/admin</urn:sessiontoken><urn:strServiceName>Demo iOS app"
     "</urn:strServiceName><urn:elemRecipient><recipient _key='@email' email='a@b.c'/></urn:elemRecipient>"
     "<urn:bCreate>true</urn:bCreate>"),
    ("nms:rtEvent", "PushEvent", "<urn:sessiontoken>admin/admin</urn:sessiontoken><urn:domEvent><rtEvent "
     "wishedChannel='41' registrationToken='6e6577'><mobileApp uuid='integrationKey'/><ctx><title>Hi</title>"
     "</ctx></rtEvent></urn:domEvent>"),
]


APPLICATION = {"platform": "ios", "integrationKey": "campaign-mock-demo-ios", "name": "Demo iOS app",
               "enabled": True, "bundleId": "com.example.app"}
DEVICE = {"integrationKey": "campaign-mock-demo-ios", "registrationToken": "6e6577", "userKey": "jane@example.com",
          "device": {"deviceName": "iPhone", "deviceModel": "iPhone15,2", "deviceBrand": "Apple"},
          "params": [{"name": "tier", "value": "gold"}], "disabled": False,
          "createdAt": "2026-01-02T03:04:05.678Z", "updatedAt": "2026-01-02T03:04:05.678Z",
          "history": [{"receivedAt": "2026-01-02T03:04:05.678Z", "changes": ["userKey"], "userKey": "jane@example.com",
                       "device": {}, "params": []}]}
STATE = {"format": "campaign-mock-state", "version": 1, "applications": [APPLICATION], "devices": [DEVICE],
         "messages": [{"messageId": "1000001", "deliveryId": "7a001", "integrationKey": "campaign-mock-demo-ios",
                       "registrationToken": "6e6577", "createdAt": "2026-01-02T03:04:05.678Z"}],
         "events": [{"receivedAt": "2026-01-02T03:04:06.000Z", "rawId": "hf4241,7a001,1", "userAgent": "SDK/3",
                     "remoteAddress": "127.0.0.1", "messageId": "1000001"}],
         "faults": [{"id": "slow", "endpoint": "any", "delayMs": 100, "times": 2}]}
# What JSONCheck must tell apart: escapes, surrogates, numbers, nesting, and the mistakes it names.
JSON_TEXTS = [
    '{"a": "\\u00e9\\ud83d\\ude00\\n\\"\\/", "b": [-0.5e+3, 0, 1E-2, true, false, null, {}, []]}',
    '{"devices": [[[["deep"]]], {"x": {"y": [1, {"z": "\\\\"}]}}], "events": ["a,b", "]", "}", "[{"]}',
    '{"a": 1, "a": 2}', '{"a": [1, 2,]}', '{"a": 1,}', '// note\n{"a": 1}', '{"a": 01}', '{"a": "\\x"}',
    '{"a": "\\ud800"}', '[' * 70 + ']' * 70, '{"a":\n  "line\u0001"}', '{"a": tru}', '"\\u12"', '  [1, 2, 3]  ',
]
PAYLOADS = [
    {"apns": {"aps": {"alert": "Sale", "badge": "3"}, "_mId": 1000001, "_dId": "7a001"}},
    {"fcm": {"message": {"token": "fcm-token-1", "data": {"_mId": "1000001", "_dId": "7a001", "title": "Sale"}}}},
    {"apns": {"aps": {"alert": {"title": "Sale", "subtitle": "Today", "body": "20% off", "launch-image": "a.png",
                                "title-loc-key": "T", "title-loc-args": ["x"], "loc-key": "B", "loc-args": [1]},
                      "badge": 1, "sound": {"critical": 1, "name": "default", "volume": 0.5}, "mutable-content": 1,
                      "category": "SALE", "thread-id": "t", "interruption-level": "time-sensitive",
                      "relevance-score": 0.7, "target-content-id": "c"},
              "_mId": "1000001", "_dId": "7a001", "mediaUrl": "https://example.com/a.png", "uri": "myapp://sale"}},
    {"apns": {"aps": {"content-available": 1}, "_mId": "50000000000001", "_dId": "7a002"}},
    {"apns": {"aps": {"alert": "x" * 5000}, "_mId": "0F4E6B3C-1C1E-4C39-9C0B-8E8E2E7E1A11", "_dId": "7a003"}},
    {"fcm": {"message": {"topic": "news", "notification": {"title": "Sale", "body": "20% off", "image": "https://e/a"},
                         "data": {"_mId": "-1000001", "_dId": "7a004", "adb_image": "https://e/a.png",
                                  "adb_uri": "myapp://x", "adb_a_type": "WEBURL"},
                         "android": {"priority": "high", "ttl": "3.5s", "collapse_key": "k",
                                     "notification": {"channel_id": "c", "sound": "default"}}}}},
    {"fcm": {"message": {"condition": "'a' in topics", "data": {"_mId": 1, "n": 2}, "android": {"ttl": "1h"}}}},
    {"apns": {"aps": {}}, "fcm": {"message": {}}},
    {"apns": ["not", "an", "object"]},
]
CONFIGS = [
    {"port": 9000, "journalLimit": 500, "logFormat": "json"},
    {"apps": ["ios:KEY1:My app", {"platform": "android", "integrationKey": "KEY2", "name": "Shop", "enabled": False},
              {"platform": "ios", "integrationKey": "KEY3", "bundleId": "com.example.shop"},
              {"platform": "android", "integrationKey": "KEY4", "packageName": "com.example.shop"}]},
    {"host": "0.0.0.0", "dataDir": "/tmp/x", "inMemory": True, "logLevel": "warning", "retainEvents": 0,
     "retainDevices": 10, "retainDays": 3, "maxBodySize": "1MiB", "maxStateSize": "4GiB", "maxHeaderSize": "32k",
     "maxHeaderCount": 100, "maxRequestLine": "8KiB", "maxConnections": 4096, "poller": "poll",
     "headerTimeout": "10s", "bodyTimeout": "500ms", "idleTimeout": "1m", "shutdownGrace": "1h", "eventLoops": 2,
     "strictTracking": "yes", "adminToken": "secret", "allowedHosts": ["a.example", ".example.com"],
     "tls": "auto", "tlsPort": 8443, "tlsSans": ["10.0.0.1", "mock.local"], "noHttp": "off",
     "soapLogin": "admin", "soapPassword": "admin", "soapBearerTokens": ["t1", "t2"], "operators": ["mc:mc"],
     "soapSessionTimeout": "24h", "pushIdStyle": "v7-64", "record": "/tmp/rec", "noRedact": 1},
    {"upstream": "https://campaign.example.com", "upstreamCa": "/tmp/ca.pem", "apnsKeyFile": "/tmp/k.p8",
     "apnsKeyId": "ABCDEFGHIJ", "apnsTeamId": "TEAMID1234", "apnsEnvironment": "production",
     "apnsUrl": "https://127.0.0.1:4443", "fcmServiceAccount": "/tmp/sa.json", "fcmUrl": "https://127.0.0.1:4444",
     "providerCa": "/tmp/ca.pem", "sendAllow": ["userKey:*@example.com", "token:6e*", "app:demo-*"], "autoSend": True},
    {"tlsCert": "/tmp/c.pem", "tlsKey": "/tmp/k.pem", "tls": "off"},
    {"faults": [{"id": "slow", "endpoint": "any", "delayMs": 3000},
                {"endpoint": "registration", "status": 503, "body": "busy", "times": 2, "after": 1,
                 "probability": 0.5, "seed": 7}, {"endpoint": "tracking", "drop": True}]},
    {"apps": "ios:KEY1,android:KEY2:Shop", "allowedHosts": "a.example,b.example", "port": "0"},
]


def frame(kind, flags, stream, payload=b""):
    """An HTTP/2 frame (RFC 9113 §4.1)."""
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def literal(name, value, indexed=False):
    """An HPACK field with a new name, not Huffman-coded (RFC 7541 §6.2); `indexed` adds it to the table."""
    def text(data):
        assert len(data) < 127
        return bytes([len(data)]) + data
    return bytes([0x40 if indexed else 0x00]) + text(name.encode()) + text(value.encode())


SETTINGS, ACK, END_STREAM, END_HEADERS, PADDED = 4, 1, 1, 4, 8
STATUS_200, STATUS_400, STATUS_500 = b"\x88", b"\x8c", b"\x8e"


def apns_answers():
    """What an APNs server sends the client of HTTP2Connection for three requests (streams 1, 3, 5)."""
    preface = frame(SETTINGS, 0, 0, struct.pack(">HI", 3, 1000) + struct.pack(">HI", 4, 65535)) + \
        frame(SETTINGS, ACK, 0)
    ok = STATUS_200 + literal("apns-id", "0F4E6B3C-1C1E-4C39-9C0B-8E8E2E7E1A11")
    reason = b'{"reason":"BadDeviceToken"}'
    unregistered = b'{"reason":"Unregistered","timestamp":1700000000000}'
    json = literal("content-type", "application/json")
    yield preface + b"".join(frame(1, END_HEADERS | END_STREAM, stream, ok) for stream in (1, 3, 5))
    yield preface + b"".join(frame(1, END_HEADERS, stream, STATUS_400 + json) + frame(0, END_STREAM, stream, reason)
                             for stream in (1, 3, 5))
    yield preface + frame(1, END_HEADERS, 1, b"\x48\x03410" + json) + frame(0, 0, 1, unregistered[:10]) + \
        frame(0, END_STREAM, 1, unregistered[10:]) + frame(1, END_HEADERS | END_STREAM, 3, STATUS_500)
    # REFUSED_STREAM, then a GOAWAY that lets the stream after it through.
    yield preface + frame(3, 0, 1, struct.pack(">I", 7)) + frame(7, 0, 0, struct.pack(">II", 3, 0) + b"bye") + \
        frame(1, END_HEADERS | END_STREAM, 3, ok)
    yield preface + frame(7, 0, 0, struct.pack(">II", 0, 2))
    # An informational answer first, pings, window updates, padding, priority, a header block continued.
    yield preface + frame(6, 0, 0, b"12345678") + frame(8, 0, 0, struct.pack(">I", 1 << 20)) + \
        frame(1, END_HEADERS, 1, b"\x48\x03100") + \
        frame(1, PADDED | 0x20, 1, b"\x02" + struct.pack(">IB", 0, 15) + ok[:5] + b"\x00\x00") + \
        frame(9, END_HEADERS, 1, ok[5:]) + frame(8, 0, 1, struct.pack(">I", 100)) + \
        frame(0, PADDED, 1, b"\x03abc\x00\x00\x00") + frame(1, END_HEADERS | END_STREAM, 1, literal("x-trailer", "1"))
    # A field added to the dynamic table, then used by index (62) in the next answer.
    yield preface + frame(1, END_HEADERS | END_STREAM, 1, STATUS_200 + literal("apns-unique-id", "u-1", True)) + \
        frame(1, END_HEADERS | END_STREAM, 3, b"\x3f\xe1\x1f" + STATUS_200 + b"\xbe") + \
        frame(4, 0, 0, struct.pack(">HI", 1, 0)) + frame(1, END_HEADERS | END_STREAM, 5, STATUS_200)
    yield preface[:9]
    yield b""


def spooled_requests():
    """Imports as PUT /_mock/state takes them, and requests around them."""
    state = json.dumps(STATE).encode()
    head = b"PUT /_mock/state HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    yield head + b"Content-Length: %d\r\n\r\n" % len(state) + state
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(state[i:i + 100]), state[i:i + 100]) for i in range(0, len(state), 100))
    yield head + b"Transfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\nX-Trailer: 1\r\n\r\n"
    yield head + b"Expect: 100-continue\r\nContent-Length: 2\r\n\r\n{}" + \
        b"POST /r/?id=h1,2,1 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
    yield b"PUT /_mock/state?only=devices HTTP/1.1\r\nHost: x\r\nContent-Length: 40000\r\n\r\n" + b"{" * 100
    yield b"PUT /_mock/state HTTP/1.0\r\nContent-Length: 4\r\n\r\nnullGET /_mock/state HTTP/1.1\r\nHost: x\r\n\r\n"
    yield b"PUT /_mock/state HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n8000\r\n" + b"[]" * 100


def http_responses():
    """What an HTTP/1.1 server answers: upstreams, FCM and its token endpoint, broken ones included."""
    grant = b'{"access_token": "ya29.x", "expires_in": 3599, "token_type": "Bearer"}'
    yield b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(grant) + grant
    yield b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok"
    yield b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n0\r\nX-Trailer: 1\r\n\r\n"
    yield b"HTTP/1.1 404 Not Found\r\nContent-Length: -1\r\n\r\n"
    yield b"HTTP/1.1 -5 Status\r\nContent-Length: -5\r\n\r\nhello"
    yield b"HTTP/1.0 200 OK\r\nConnection: close\r\n\r\nto the end of the connection"
    yield b"HTTP/1.1 1000000 X\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n"


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def redo_record(sequence, operations):
    """A `W` record of the redo log older builds wrote (LeftoverRedoLog.swift): kind, length, CRC-32C."""
    def text(value):
        if value is None:
            return struct.pack("<I", 0xFFFFFFFF)
        data = value.encode("utf-8")
        return struct.pack("<I", len(data)) + data
    payload = struct.pack("<q", sequence)
    for operation in operations:
        if operation[0] == "hit":
            _, raw_id, user_agent, address, received = operation
            payload += b"H" + struct.pack("<q", received) + text(raw_id) + text(user_agent) + text(address)
        else:
            _, token, key, user_key, application, received, params = operation
            payload += b"G" + struct.pack("<qq", received, application) + text(token) + text(key) + text(user_key)
            payload += b"".join(text(field) for field in ("", "Pixel 8", None, None, None, "android", "14", "en_US"))
            payload += struct.pack("<I", len(params)) + b"".join(text(n) + text(v) + text("string") for n, v in params)
    head = b"W" + struct.pack("<I", len(payload))
    return head + struct.pack("<I", crc32c(payload, crc32c(head))) + payload


def redo_logs():
    """Redo logs as older builds left them: whole, cut short, damaged, with a sequence at Int64.max."""
    magic = b"campaign-mock redo 1\n"
    hit = ("hit", "h1,d1,1", "ua", "::1", 1_000)
    registration = ("registration", "tok1", "k", "user1@example.com", 1, 2_000, [("plan", "gold")])
    first, second = redo_record(1, [registration, hit]), redo_record(3, [hit])
    yield magic + first + second
    yield magic + first + second[:-3]
    yield magic + first + b"\x00" * 7 + second
    yield magic + first[:12] + b"\xff" + first[13:] + second
    yield magic + redo_record(2 ** 63 - 1, [hit, hit])
    yield magic
    yield b"not a redo log"


def journal_record(kind, payload, checksummed=True):
    """A record of the request journal's files (Sources/CampaignMockJournal/JournalFile.swift)."""
    head = kind + struct.pack("<I", len(payload))
    return head + (struct.pack("<I", crc32c(head + payload)) if checksummed else b"") + payload


def journal_text(text):
    return struct.pack("<I", 0xFFFFFFFF) if text is None else struct.pack("<I", len(text)) + text


def journal_entry(id, key=b"campaign-mock-demo-ios", kind=b"R"):
    fields = [b"POST", b"/nms/mobile/1/registerIOS.jssp", b"register", b'[["Host","x"]]', b"token=6e6577",
              None, key, b"127.0.0.1"] + ([b"[]", b"<ok/>"] if kind == b"R" else [])
    return kind + struct.pack("<qqqq", id, 1767323045678000 + id, 1200, 200) + b"".join(map(journal_text, fields))


def journal_files():
    """A request journal's files as the server writes them (checksummed), and in the first format."""
    magic = b"campaign-mock journal 2\n"
    for checksummed in (True, False):
        start = journal_record(b"S", struct.pack("<qqq", 3, 0, 1), checksummed)
        batches = journal_record(b"B", journal_entry(1) + journal_entry(2, kind=b"E"), checksummed)
        batches += journal_record(b"B", b"T" + struct.pack("<q", 2) + journal_entry(3, key=None), checksummed)
        batches += journal_record(b"B", b"C" + journal_text(b"other-key"), checksummed)
        kept = journal_record(b"K", journal_entry(4), checksummed)
        yield (magic if checksummed else b"") + start + kept + batches
        yield (magic if checksummed else b"") + start + batches[:-3]


def add(target, data):
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(directory, name), "wb") as handle:
        handle.write(data)


def main():
    shutil.rmtree(CORPUS, ignore_errors=True)
    for path in sorted(glob.glob(os.path.join(ROOT, "Fixtures", "sdk", "*", "0*.json"))):
        with open(path, encoding="utf-8") as handle:
            request = json.load(handle)["request"]
        body = request.get("body", "").encode("utf-8")
        head = f"{request['method']} {request['target']} HTTP/1.1\r\nHost: fixture\r\n"
        head += "".join(f"{line}\r\n" for line in request["headers"])
        if body:
            head += f"Content-Length: {len(body)}\r\n"
        add("http-request", head.encode("utf-8") + b"\r\n" + body)
        if "form" in request:
            add("form", body)
            for field in urllib.parse.parse_qsl(request["body"], keep_blank_values=True):
                if field[0] == "additionalParams" and field[1]:
                    add("additional-params", field[1].encode("utf-8"))
        if request["target"].startswith("/r/?id="):
            add("tracking-id", urllib.parse.unquote(request["target"][len("/r/?id="):]).encode("utf-8"))
    for service, method, parameters in SOAP:
        add("soap-envelope", ENVELOPE.format(service=service, method=method, parameters=parameters).encode("utf-8"))
    add("http-request", b"POST /r/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    for document in [STATE, dict(STATE, devices=[DEVICE] * 3, faults=[])]:
        add("state-document", json.dumps(document).encode("utf-8"))
        add("state-document", json.dumps(document, indent=2, ensure_ascii=False).encode("utf-8"))
    for text in JSON_TEXTS:
        add("state-document", text.encode("utf-8"))
    for request in spooled_requests():
        add("spooled-request", request)
    for payload in PAYLOADS:
        add("payload-check", json.dumps(payload).encode("utf-8"))
    for config in CONFIGS:
        add("config-file", json.dumps(config).encode("utf-8"))
    add("config-file", b'{"port": 9000, "port": 9001}')
    for answer in apns_answers():
        add("http2-response", answer)
    for log in redo_logs():
        add("redo-log", log)
    for answer in http_responses():
        add("http-response", answer)
    for journal in journal_files():
        add("journal-file", journal)
    for target in sorted(os.listdir(CORPUS)):
        print(target, len(os.listdir(os.path.join(CORPUS, target))))


if __name__ == "__main__":
    main()
