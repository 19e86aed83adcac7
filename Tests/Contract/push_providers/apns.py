"""FakeAPNs: a local Apple Push Notification service, strict the way api.push.apple.com is.

It speaks HTTP/2 over TLS (ALPN "h2" only; a client that does not negotiate h2 is dropped after the handshake)
on 127.0.0.1 and a free port, in background threads, and answers POST /3/device/<token> as Apple documents
in "Sending notification requests to APNs", "Establishing a token-based connection to APNs" and "Handling
notification responses from APNs": 200 with an apns-id header, or an error status with {"reason": ...}.

    with FakeAPNs(certificates, key, topics=["com.example.app"]) as apns:
        apns.register("ab12…")            # a device token this environment knows
        … point the sender at apns.url, trusting certificates.ca_path …
        assert apns.requests[0].payload["aps"]["alert"] == "Hello"

Each fake is one environment: a token registered with the "sandbox" fake is unknown to a "production" one
and answers BadDeviceToken there, as a development token does on Apple's production servers.

The checks, in the order they are made, and what a failing request gets (status, reason):
    :method other than POST                                  405 MethodNotAllowed
    :path other than /3/device/<token>                        404 BadPath
    /3/device/ with no token                                  400 MissingDeviceToken
    a header sent twice                                       400 DuplicateHeaders
    apns-id present but not a UUID                            400 BadMessageId
    no authorization header                                   403 MissingProviderToken
    authorization not "bearer <JWT>", a JWT that does not
      parse, alg not ES256, kid not the key's, iss not the
      team id, iat not an integer or in the future, or a
      signature that does not verify (a DER signature too)    403 InvalidProviderToken
    iat more than `provider_token_max_age` (1 hour) ago, or
      a token `expire_provider_tokens()` retired               403 ExpiredProviderToken
    a new token on a connection whose previous token is
      still valid and less than `token_update_interval`
      (20 minutes) old: Apple's "refresh at most every 20
      minutes, at least every hour"                           429 TooManyProviderTokenUpdates
    no apns-topic                                             400 MissingTopic
    apns-topic not one of `topics` (an app of another team;
      suffixes such as .voip are allowed on an app's id)      400 TopicDisallowed
    apns-push-type not one Apple defines                      400 InvalidPushType
    apns-priority not 1, 5 or 10, or 10 with background       400 BadPriority
    apns-expiration not a non-negative integer                400 BadExpirationDate
    apns-collapse-id longer than 64 bytes                     400 BadCollapseId
    empty body                                                400 PayloadEmpty
    body over 4096 bytes (5120 for voip)                      413 PayloadTooLarge
    body not a JSON dictionary: Apple lists no reason of its
      own for it; this fake answers PayloadEmpty (no usable
      payload), so tests should rely on the 400 alone         400 PayloadEmpty
    a failure queued for the token with fail()                as queued (e.g. 429 TooManyRequests)
    a token registered for another app of the team            400 DeviceTokenNotForTopic
    a token marked with unregister()                          410 Unregistered, with "timestamp" (ms)
    any other token not registered in this environment        400 BadDeviceToken
Every answer carries apns-id: the request's, or a new UUID. A 200 from a "sandbox" fake also carries
apns-unique-id, as Apple's development environment does.
"""
import dataclasses
import json
import re
import select
import socket
import threading
import time
import uuid

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings

from . import jwt

# The apns-push-type values Apple defines.
PUSH_TYPES = {"alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity",
              "pushtotalk", "widgets", "controls"}
# What some push types append to the app's bundle id in apns-topic (com.example.app.voip, …).
TOPIC_SUFFIXES = (".voip", ".complication", ".pushkit.fileprovider", ".location-query", ".push-type.liveactivity",
                  ".voip-ptt")
MAX_PAYLOAD = 4096
MAX_VOIP_PAYLOAD = 5120
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_PATH = re.compile(r"^/3/device/([^/?#]*)$")


@dataclasses.dataclass
class APNsRequest:
    """One request the fake answered, whatever the answer."""
    connection: int  # which TLS connection carried it: 1 for the first the fake accepted, 2 for the next, …
    stream_id: int
    headers: dict  # name -> value, pseudo-headers (":method", ":path", …) included; the last value of a repeat
    body: bytes
    payload: object  # the body decoded from JSON, or None when it is not JSON
    device_token: str  # from :path, or None
    provider_token: str  # the JWT of the authorization header, or None
    jwt_header: dict  # the JWT's decoded header and claims, when it parsed; else None
    jwt_claims: dict
    status: int
    reason: str  # None for a 200
    apns_id: str  # the apns-id the fake answered with
    timestamp: int = None  # the 410's "timestamp" (milliseconds since the epoch), else None


@dataclasses.dataclass
class _Refusal(Exception):
    status: int
    reason: str
    timestamp: int = None


class _Link:
    """One client connection: its socket, its HTTP/2 state, the streams being received, the last token."""

    def __init__(self, number, sock):
        self.number = number
        self.sock = sock
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        # Apple lets a connection carry up to 1000 concurrent streams (h2 would say 100); announced in the
        # server's first SETTINGS frame.
        self.h2.local_settings = h2.settings.Settings(client=False, initial_values={
            h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1000,
            h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE: 2**16})
        self.write_lock = threading.Lock()
        self.streams = {}  # stream id -> (header list, bytearray body)
        # The last provider token accepted on this connection, its iat, and when the fake first saw it here.
        self.provider_token = None
        self.provider_token_iat = None
        self.provider_token_seen = None
        self.dropped = False  # drop_connections() ended it: what arrives is discarded
        # Only the link's own thread touches its TLS object (OpenSSL's are not for two threads at once, and
        # Python's SSLSocket.shutdown() drops it, so a write racing one went out as plain bytes): other threads
        # leave a request in `goodbye` and wake that thread through this pair.
        self.goodbye = None  # the reason of a GOAWAY close_connections() asked for
        self._wake_reader, self._wake_writer = socket.socketpair()
        self.ended = threading.Event()  # set once its thread has let the connection go

    def ask_goodbye(self, reason):
        """Has the link's thread send a GOAWAY with {"reason": reason} and end the connection; waits for it."""
        self.goodbye = reason
        try:
            self._wake_writer.send(b"!")
        except OSError:
            pass  # the thread is gone already
        self.ended.wait(timeout=5)

    def say_goodbye(self):
        """On the link's thread: the GOAWAY ``ask_goodbye`` asked for."""
        try:
            self.h2.close_connection(additional_data=json.dumps({"reason": self.goodbye}).encode())
            self.flush()
        except (OSError, h2.exceptions.ProtocolError):
            pass  # the client went away first

    def wait_readable(self):
        """Blocks until the client has sent something or another thread woke the link; False for a wake."""
        if self.sock.pending():
            return True  # TLS already holds decrypted bytes, which select() cannot see
        readable, _, _ = select.select([self.sock, self._wake_reader], [], [])
        return self._wake_reader not in readable

    def end(self):
        for sock in (self._wake_reader, self._wake_writer):
            sock.close()
        self.ended.set()

    def flush(self):
        with self.write_lock:
            data = self.h2.data_to_send()
            if data:
                self.sock.sendall(data)


class FakeAPNs:
    """A fake APNs environment ("sandbox" or "production") that trusts the provider tokens of `key`
    (credentials.APNsKey) for the apps (bundle ids) in `topics`.

    Attributes a test reads: `url`, `requests` (APNsRequest, in the order answered), `connections` (TLS
    connections that negotiated h2), `provider_tokens` (the distinct JWTs seen, in order). Attributes it may
    set: `provider_token_max_age` (3600 s), `token_update_interval` (1200 s), `clock` (time.time).
    """

    def __init__(self, certificates, key, *, topics=("com.example.app",), environment="sandbox"):
        if environment not in ("sandbox", "production"):
            raise ValueError("environment is 'sandbox' or 'production'")
        self.key = key
        self.topics = list(topics)
        self.environment = environment
        self.provider_token_max_age = 3600
        self.token_update_interval = 20 * 60
        self.clock = time.time
        self.requests = []
        self.connections = 0
        self.provider_tokens = []
        self.url = None
        self._context = certificates.server_context(["h2"])
        self._devices = {}  # token -> bundle id
        self._unregistered = {}  # token -> timestamp (ms)
        self._failures = {}  # token -> [(status, reason), …] still to answer
        self._expired_tokens = set()
        self._links = set()
        self._handshaking = set()  # sockets accepted whose TLS handshake is not over
        self._lock = threading.Condition()
        self._threads = []

    # -- what the test arranges -----------------------------------------------------------------------------

    def register(self, device_token, topic=None):
        """Makes `device_token` a live device of this environment, for the app (bundle id) `topic`; by default
        the first of `topics`."""
        with self._lock:
            self._devices[device_token] = topic or self.topics[0]
            self._unregistered.pop(device_token, None)

    def unregister(self, device_token, timestamp=None):
        """Makes `device_token` answer 410 Unregistered, with `timestamp` (ms; default: now) as when it left."""
        with self._lock:
            self._unregistered[device_token] = timestamp if timestamp is not None else int(self.clock() * 1000)

    def fail(self, device_token, status, reason, times=1):
        """Answers the next `times` pushes to `device_token` (once the request itself is valid) with `status`
        and `reason`: 429 TooManyRequests, 500 InternalServerError, 503 ServiceUnavailable, …"""
        with self._lock:
            self._failures.setdefault(device_token, []).extend([(status, reason)] * times)

    def expire_provider_tokens(self):
        """Every provider token seen so far answers ExpiredProviderToken from now on, as if an hour had passed."""
        with self._lock:
            self._expired_tokens.update(self.provider_tokens)

    def close_connections(self, reason="Shutdown"):
        """Ends every open connection with a GOAWAY frame carrying {"reason": reason}, as APNs does, then shuts
        it down, and returns once that is done. Each connection's own thread sends the frame and closes it:
        closed here, its descriptor could be reused by the test's next socket (a request to the mock) while that
        thread's TLS object still writes to the number, and the mock would read TLS records where a request
        begins."""
        with self._lock:
            links = list(self._links)
        for link in links:
            link.ask_goodbye(reason)

    def drop_connections(self):
        """Ends every open connection without a GOAWAY, as an idle timeout, a NAT or a proxy does: the client
        gets the end of the stream, and what it still writes is lost unread (as it is on its way to a far
        host that has closed, before that host's reset comes back)."""
        with self._lock:
            links = list(self._links)
        for link in links:
            link.dropped = True
            try:
                # The plain socket's shutdown: SSLSocket's would take the TLS object from under the link's
                # thread, which goes on reading (and discarding) what the client still sends.
                socket.socket.shutdown(link.sock, socket.SHUT_WR)
            except OSError:
                pass

    # -- what the test reads --------------------------------------------------------------------------------

    @property
    def delivered(self):
        """The requests answered 200."""
        with self._lock:
            return [request for request in self.requests if request.status == 200]

    def wait_for_requests(self, count, timeout=10):
        """Waits until at least `count` requests have been answered; returns them, or raises AssertionError."""
        with self._lock:
            if not self._lock.wait_for(lambda: len(self.requests) >= count, timeout):
                raise AssertionError(f"FakeAPNs answered {len(self.requests)} requests in {timeout} s, not {count}")
            return list(self.requests)

    # -- the server -----------------------------------------------------------------------------------------

    def __enter__(self):
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"https://127.0.0.1:{self._listener.getsockname()[1]}"
        self._start(self._accept)
        return self

    def __exit__(self, *_):
        _shut(self._listener)
        self.close_connections()
        with self._lock:
            handshaking = list(self._handshaking)
        for sock in handshaking:
            _shut(sock)
        for thread in self._threads:
            thread.join(timeout=5)

    def _start(self, target, *arguments):
        thread = threading.Thread(target=target, args=arguments, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept(self):
        while True:
            try:
                sock, _ = self._listener.accept()
            except OSError:
                return  # the listener was closed
            self._start(self._serve, sock)

    def _serve(self, raw):
        raw.settimeout(10)  # for the handshake; a connection then stays open as long as the client wants
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # answers leave at once, however split
        try:
            sock = self._context.wrap_socket(raw, server_side=True, do_handshake_on_connect=False)
        except OSError:
            raw.close()
            return
        with self._lock:
            self._handshaking.add(sock)
        try:
            sock.do_handshake()
            sock.settimeout(None)
        except OSError:  # ssl.SSLError included
            _shut(sock)
            return
        finally:
            with self._lock:
                self._handshaking.discard(sock)
        if sock.selected_alpn_protocol() != "h2":
            _shut(sock)  # APNs speaks HTTP/2 only
            return
        with self._lock:
            self.connections += 1
            link = _Link(self.connections, sock)
            self._links.add(link)
        try:
            link.h2.initiate_connection()
            link.flush()
            while True:
                if not link.wait_readable():
                    link.say_goodbye()
                    return
                data = sock.recv(65536)
                if not data:
                    return
                if link.dropped:
                    continue
                for event in link.h2.receive_data(data):
                    self._on_event(link, event)
                link.flush()
        except h2.exceptions.ProtocolError:
            try:
                link.flush()  # the GOAWAY (PROTOCOL_ERROR, …) h2 queued for a client that broke HTTP/2
            except OSError:
                pass
        except OSError:  # the client went away, or close_connections() shut it down
            pass
        finally:
            with self._lock:
                self._links.discard(link)
            _shut(sock)
            link.end()


    def _on_event(self, link, event):
        if isinstance(event, h2.events.RequestReceived):
            link.streams[event.stream_id] = (event.headers, bytearray())
        elif isinstance(event, h2.events.DataReceived):
            link.streams[event.stream_id][1].extend(event.data)
            # Gives the window back at once, so many requests (or a large one) never stall the connection.
            link.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.StreamEnded):
            headers, body = link.streams.pop(event.stream_id)
            self._answer(link, event.stream_id, headers, bytes(body))
        elif isinstance(event, h2.events.StreamReset):
            link.streams.pop(event.stream_id, None)
        # SETTINGS and PING are acknowledged by h2 itself; ConnectionTerminated ends in recv() returning b"".

    def _answer(self, link, stream_id, header_list, body):
        headers = dict(header_list)
        record = APNsRequest(connection=link.number, stream_id=stream_id, headers=headers, body=body,
                             payload=_json_or_none(body), device_token=None, provider_token=None, jwt_header=None,
                             jwt_claims=None, status=200, reason=None, apns_id=None)
        given_id = headers.get("apns-id")
        record.apns_id = given_id if given_id and _UUID.match(given_id) else str(uuid.uuid4())
        try:
            with self._lock:
                self._check(link, header_list, headers, body, record)
        except _Refusal as refusal:
            record.status, record.reason, record.timestamp = refusal.status, refusal.reason, refusal.timestamp
        answer = [(":status", str(record.status)), ("apns-id", record.apns_id)]
        if record.status == 200:
            content = b""
            if self.environment == "sandbox":
                answer.append(("apns-unique-id", str(uuid.uuid4())))
        else:
            error = {"reason": record.reason}
            if record.timestamp is not None:
                error["timestamp"] = record.timestamp
            content = json.dumps(error).encode()
            answer += [("content-type", "application/json"), ("content-length", str(len(content)))]
        try:
            with link.write_lock:
                link.h2.send_headers(stream_id, answer, end_stream=not content)
                if content:
                    link.h2.send_data(stream_id, content, end_stream=True)
        except h2.exceptions.StreamClosedError:
            pass  # the client reset the stream meanwhile; the request is recorded all the same
        with self._lock:
            self.requests.append(record)
            self._lock.notify_all()

    def _check(self, link, header_list, headers, body, record):
        """Fills `record` in as far as the request is understood; raises _Refusal at the first fault."""
        if headers.get(":method") != "POST":
            raise _Refusal(405, "MethodNotAllowed")
        path = _PATH.match(headers.get(":path", ""))
        if not path:
            raise _Refusal(404, "BadPath")
        record.device_token = path.group(1) or None
        if not record.device_token:
            raise _Refusal(400, "MissingDeviceToken")
        names = [name for name, _ in header_list]
        if len(names) != len(set(names)):
            raise _Refusal(400, "DuplicateHeaders")
        if "apns-id" in headers and not _UUID.match(headers["apns-id"]):
            raise _Refusal(400, "BadMessageId")

        self._check_provider_token(link, headers.get("authorization"), record)

        topic = headers.get("apns-topic")
        if not topic:
            raise _Refusal(400, "MissingTopic")
        app = _app_of(topic)
        if app not in self.topics:
            raise _Refusal(400, "TopicDisallowed")
        push_type = headers.get("apns-push-type")
        if push_type is not None and push_type not in PUSH_TYPES:
            raise _Refusal(400, "InvalidPushType")
        priority = headers.get("apns-priority")
        # Priority 10 wakes the device at once, which a background (content-available only) push may not ask.
        if priority is not None and (priority not in ("1", "5", "10")
                                     or (priority == "10" and push_type == "background")):
            raise _Refusal(400, "BadPriority")
        if "apns-expiration" in headers and not re.fullmatch(r"[0-9]+", headers["apns-expiration"]):
            raise _Refusal(400, "BadExpirationDate")
        if len(headers.get("apns-collapse-id", "").encode("utf-8")) > 64:
            raise _Refusal(400, "BadCollapseId")

        if not body:
            raise _Refusal(400, "PayloadEmpty")
        if len(body) > (MAX_VOIP_PAYLOAD if push_type == "voip" else MAX_PAYLOAD):
            raise _Refusal(413, "PayloadTooLarge")
        if not isinstance(record.payload, dict):
            raise _Refusal(400, "PayloadEmpty")

        token = record.device_token
        if self._failures.get(token):
            raise _Refusal(*self._failures[token].pop(0))
        if token in self._devices and self._devices[token] != app:
            raise _Refusal(400, "DeviceTokenNotForTopic")
        if token in self._unregistered:
            raise _Refusal(410, "Unregistered", self._unregistered[token])
        if token not in self._devices:
            raise _Refusal(400, "BadDeviceToken")

    def _check_provider_token(self, link, authorization, record):
        if authorization is None:
            raise _Refusal(403, "MissingProviderToken")
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise _Refusal(403, "InvalidProviderToken")
        record.provider_token = token
        if token not in self.provider_tokens:
            self.provider_tokens.append(token)
        try:
            header, claims, signing_input, signature = jwt.decode(token)
        except jwt.InvalidToken:
            raise _Refusal(403, "InvalidProviderToken") from None
        record.jwt_header, record.jwt_claims = header, claims
        issued_at = claims.get("iat")
        now = self.clock()
        if (header.get("alg") != "ES256" or header.get("kid") != self.key.key_id
                or claims.get("iss") != self.key.team_id
                or not isinstance(issued_at, int) or isinstance(issued_at, bool) or issued_at > now + 60):
            raise _Refusal(403, "InvalidProviderToken")
        try:
            jwt.verify(signing_input, signature, self.key.public_key)
        except jwt.InvalidToken:
            raise _Refusal(403, "InvalidProviderToken") from None
        if token in self._expired_tokens or now - issued_at > self.provider_token_max_age:
            raise _Refusal(403, "ExpiredProviderToken")
        if token != link.provider_token:
            previous_still_valid = (link.provider_token is not None and link.provider_token not in self._expired_tokens
                                    and now - link.provider_token_iat <= self.provider_token_max_age)
            if previous_still_valid and now - link.provider_token_seen < self.token_update_interval:
                raise _Refusal(429, "TooManyProviderTokenUpdates")
            link.provider_token, link.provider_token_iat, link.provider_token_seen = token, issued_at, now


def _app_of(topic):
    """The bundle id of an apns-topic: com.example.app.voip -> com.example.app."""
    for suffix in TOPIC_SUFFIXES:
        if topic.endswith(suffix):
            return topic[:-len(suffix)]
    return topic


def _json_or_none(body):
    try:
        return json.loads(body)
    except ValueError:
        return None


def _shut(sock):
    """Closes a socket another thread may be blocked on (shutdown wakes its accept() or recv())."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()
