"""Broken push providers, for the tests that the sender stays bounded against them: an APNs (HTTP/2 over TLS)
and an FCM with its token endpoint (HTTP/1.1 over TLS) that answer with headers without end, a body without
end, or a byte at a time, as a broken endpoint or proxy could. Each is told what to do with the next request
by `behaviour`; "ok" answers as the real service would, so a test can show the sender moves on.

    with HostileAPNs(certificates) as apns:
        apns.behaviour = "endless-body"
        … a send through the sender fails …
        assert apns.sent < HostileAPNs.TARGET     # it was cut off

Behaviours (both servers):
    "ok"             a normal answer (APNs 200 with apns-id; FCM messages:send 200 with a name)
    "informational"  informational (1xx) answers, one after another, without end
    "headers"        one answer whose headers never end
    "endless-body"   a 200 whose body goes on for TARGET bytes
    "trickle"        a 200 whose body comes one byte at a time, a byte every TRICKLE_INTERVAL seconds, without end
FCM's token endpoint answers `grant` (a dict; by default a valid access token) to every grant request.
"""
import json
import socket
import threading
import time
import uuid

import h2.config
import h2.connection
import h2.events
import h2.exceptions

TARGET = 256 << 20  # what an endless answer would send, had the client kept reading
TRICKLE_INTERVAL = 0.2


class _Hostile:
    def __init__(self, certificates, alpn):
        self.behaviour = "ok"
        self.sent = 0  # bytes written for the last hostile answer
        self.requests = 0
        self._context = certificates.server_context(alpn)
        self._sockets = set()
        self._lock = threading.Lock()

    def __enter__(self):
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"https://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *_):
        _shut(self._listener)
        with self._lock:
            for sock in list(self._sockets):
                _shut(sock)

    def _accept(self):
        while True:
            try:
                raw, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve_raw, args=(raw,), daemon=True).start()

    def _serve_raw(self, raw):
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        raw.settimeout(30)
        with self._lock:
            self._sockets.add(raw)
        try:
            sock = self._context.wrap_socket(raw, server_side=True)
            self._serve(sock)
        except (OSError, h2.exceptions.ProtocolError):
            pass  # the client gave up on the answer: what these tests want
        finally:
            with self._lock:
                self._sockets.discard(raw)
            _shut(raw)

    def _write(self, sock, data):
        sock.sendall(data)
        self.sent += len(data)


class HostileAPNs(_Hostile):
    def __init__(self, certificates):
        super().__init__(certificates, ["h2"])

    def _serve(self, sock):
        connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
        connection.initiate_connection()
        sock.sendall(connection.data_to_send())
        while True:
            data = sock.recv(65536)
            if not data:
                return
            for event in connection.receive_data(data):
                if isinstance(event, h2.events.StreamEnded):
                    self.requests += 1
                    self.sent = 0
                    self._answer(sock, connection, event.stream_id)
            sock.sendall(connection.data_to_send())

    def _answer(self, sock, connection, stream):
        behaviour = self.behaviour
        if behaviour == "ok":
            connection.send_headers(stream, [(":status", "200"), ("apns-id", str(uuid.uuid4()))], end_stream=True)
        elif behaviour == "informational":
            while True:
                connection.send_headers(stream, [(":status", "100")])
                self._write(sock, connection.data_to_send())
        elif behaviour == "headers":
            # One header block of endless CONTINUATION frames: h2 would refuse to make it, so it is written raw.
            block = b"\x88"  # :status 200 (HPACK static index 8)
            self._write(sock, _frame(0x1, 0x0, stream, block))  # HEADERS without END_HEADERS
            field = b"\x00\x05x-pad\x7f\x81\x07" + b"a" * 1024  # a literal field of 1024 bytes, not indexed
            while True:
                self._write(sock, _frame(0x9, 0x0, stream, field * 8))  # CONTINUATION, more to come
        elif behaviour in ("endless-body", "trickle"):
            connection.send_headers(stream, [(":status", "200"), ("apns-id", str(uuid.uuid4()))])
            self._write(sock, connection.data_to_send())
            piece = b"x" if behaviour == "trickle" else b"x" * 16384
            while self.sent < TARGET:
                while connection.local_flow_control_window(stream) < len(piece):
                    data = sock.recv(65536)  # the client's WINDOW_UPDATE
                    if not data:
                        return
                    connection.receive_data(data)
                connection.send_data(stream, piece)
                self._write(sock, connection.data_to_send())
                if behaviour == "trickle":
                    time.sleep(TRICKLE_INTERVAL)


class HostileFCM(_Hostile):
    def __init__(self, certificates):
        super().__init__(certificates, ["http/1.1"])
        self.grant = None
        self.grants = 0

    @property
    def token_uri(self):
        return self.url + "/token"

    def _serve(self, sock):
        head = b""
        while b"\r\n\r\n" not in head:
            data = sock.recv(65536)
            if not data:
                return
            head += data
        lines = head.split(b"\r\n\r\n", 1)[0].decode().split("\r\n")
        length = next((int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:")), 0)
        body = head.split(b"\r\n\r\n", 1)[1]
        while len(body) < length:
            body += sock.recv(65536)
        if lines[0].startswith("POST /token "):
            self.grants += 1
            grant = self.grant or {"access_token": "ya29.hostile-" + uuid.uuid4().hex, "expires_in": 3599,
                                   "token_type": "Bearer"}
            return self._json(sock, 200, grant)
        self.requests += 1
        self.sent = 0
        behaviour = self.behaviour
        if behaviour == "ok":
            self._json(sock, 200, {"name": f"projects/hostile/messages/{uuid.uuid4().int >> 65}"})
        elif behaviour == "informational":
            while True:
                self._write(sock, b"HTTP/1.1 100 Continue\r\n\r\n")
        elif behaviour == "headers":
            self._write(sock, b"HTTP/1.1 200 OK\r\n")
            while True:
                self._write(sock, b"X-Pad: " + b"a" * 1024 + b"\r\n")
        elif behaviour == "endless-body":
            self._write(sock, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n")  # to the end of the connection
            while self.sent < TARGET:
                self._write(sock, b" " * 65536)
        elif behaviour == "trickle":
            self._write(sock, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
            while True:
                self._write(sock, b" ")
                time.sleep(TRICKLE_INTERVAL)

    def _json(self, sock, status, answer):
        content = json.dumps(answer).encode()
        sock.sendall(f"HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\nContent-Length: {len(content)}\r\n"
                     f"Connection: close\r\n\r\n".encode() + content)


def _frame(kind, flags, stream, payload):
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def _shut(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()
