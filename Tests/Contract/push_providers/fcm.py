"""FakeFCM: a local Firebase Cloud Messaging HTTP v1 API with its OAuth 2.0 token endpoint, strict the way
fcm.googleapis.com and oauth2.googleapis.com are.

It serves HTTPS (HTTP/1.1, keep-alive) on 127.0.0.1 and a free port, in background threads:

    POST /token                               the service account's token_uri: the JWT-bearer grant of
                                              "Using OAuth 2.0 for Server to Server Applications"
    POST /v1/projects/<project>/messages:send  the HTTP v1 send, with "Authorization: Bearer <access token>"

    account = ServiceAccount("my-project")
    with FakeFCM(certificates, account) as fcm:
        key_file = account.write(directory + "/service-account.json", fcm.token_uri)
        fcm.register("device-token-1")
        … point the sender at fcm.url (and key_file), trusting certificates.ca_path …
        assert fcm.delivered[0].message["data"] == {"k": "v"}

The token endpoint answers {"access_token", "expires_in", "token_type": "Bearer"}, or 400 with
{"error", "error_description"}:
    grant_type not urn:ietf:params:oauth:grant-type:jwt-bearer    unsupported_grant_type
    no assertion, or a body that is not a form                     invalid_request
    an assertion that does not parse, alg not RS256, kid not the
      key's private_key_id, or a signature that does not verify    invalid_grant ("Invalid JWT Signature.")
    iss not the account's client_email                             invalid_grant (account not found)
    aud not the token_uri                                          invalid_grant
    iat/exp not integers, exp - iat over 3600 s, iat in the
      future or exp in the past                                    invalid_grant (not short-lived / timeframe)
    scope lacking .../auth/firebase.messaging (or cloud-platform)   invalid_scope

messages:send answers 200 {"name": "projects/<project>/messages/<id>"}, or Google's error shape
{"error": {"code", "message", "status", "details": [...]}}; FCM's own error codes travel in details as
{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": ...}:
    no, unknown or expired access token                            401 UNAUTHENTICATED
    <project> not the service account's                            403 PERMISSION_DENIED, errorCode SENDER_ID_MISMATCH
    a body that is not JSON, fields the API does not define, not
      exactly one of token/topic/condition, data values that are
      not strings, notification fields that are not strings       400 INVALID_ARGUMENT (google.rpc.BadRequest)
    a failure queued for the token with fail()                     as queued: QUOTA_EXCEEDED 429, UNAVAILABLE 503,
                                                                   INTERNAL 500, THIRD_PARTY_AUTH_ERROR 401, …
    a token marked with unregister()                               404 NOT_FOUND, errorCode UNREGISTERED
    any other token not registered                                 400 INVALID_ARGUMENT, errorCode INVALID_ARGUMENT
A message to a topic or a condition is accepted whenever it is valid. "validate_only": true checks the
message and answers as a send would, without counting it as delivered.
"""
import dataclasses
import http.server
import json
import re
import secrets
import socket
import threading
import time
import urllib.parse

from . import jwt

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
MESSAGING_SCOPES = {"https://www.googleapis.com/auth/firebase.messaging",
                    "https://www.googleapis.com/auth/cloud-platform"}
FCM_ERROR = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"
# FCM's error codes as messages:send answers them: errorCode -> (HTTP status, canonical status, message).
FCM_ERRORS = {
    "INVALID_ARGUMENT": (400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token"),
    "UNREGISTERED": (404, "NOT_FOUND", "Requested entity was not found."),
    "SENDER_ID_MISMATCH": (403, "PERMISSION_DENIED", "SenderId mismatch"),
    "QUOTA_EXCEEDED": (429, "RESOURCE_EXHAUSTED", "Quota exceeded for sending messages."),
    "UNAVAILABLE": (503, "UNAVAILABLE", "The service is currently unavailable."),
    "INTERNAL": (500, "INTERNAL", "Internal error encountered."),
    "THIRD_PARTY_AUTH_ERROR": (401, "UNAUTHENTICATED", "Auth error from APNS or Web Push Service"),
}
# The fields messages:send defines, at the top of the body and in a message.
REQUEST_FIELDS = {"validate_only", "message"}
MESSAGE_FIELDS = {"name", "data", "notification", "android", "webpush", "apns", "fcm_options", "fcmOptions",
                  "token", "topic", "condition"}
NOTIFICATION_FIELDS = {"title", "body", "image"}
_SEND_PATH = re.compile(r"^/v1/projects/([^/]+)/messages:send$")
_TOPIC = re.compile(r"^(/topics/)?[a-zA-Z0-9_.~%-]+$")


@dataclasses.dataclass
class HTTPRequest:
    """Any request the fake received."""
    connection: int  # which TLS connection carried it: 1 for the first the fake accepted, 2 for the next, …
    method: str
    path: str
    headers: dict  # name (lower case) -> value
    body: bytes


@dataclasses.dataclass
class TokenRequest:
    """A POST to the token endpoint and its answer."""
    form: dict  # the form's fields (the first value of each)
    jwt_header: dict  # the assertion's decoded header and claims, when it parsed; else None
    jwt_claims: dict
    status: int
    response: dict  # the JSON answered
    access_token: str = None  # what was granted, for a 200
    expires_at: float = None  # when it stops being accepted (the fake's clock)


@dataclasses.dataclass
class SendRequest:
    """A POST to messages:send and its answer."""
    project: str
    access_token: str  # from the Authorization header, or None
    body: bytes
    request: object  # the body decoded from JSON, or None
    message: dict  # request["message"] when it is an object, else None
    status: int
    response: dict  # the JSON answered
    error_code: str = None  # the FcmError errorCode answered, or the canonical status of an error without one


@dataclasses.dataclass
class _Refusal(Exception):
    status: int
    body: dict
    headers: dict = dataclasses.field(default_factory=dict)


class FakeFCM:
    """A fake FCM for the service account `account` (credentials.ServiceAccount).

    Attributes a test reads: `url`, `token_uri`, `requests` (HTTPRequest), `token_requests` (TokenRequest),
    `sends` (SendRequest), `connections` (TLS connections accepted). Attributes it may set: `expires_in`
    (seconds an access token lives; 3599), `clock` (time.time).
    """

    def __init__(self, certificates, account, *, expires_in=3599):
        self.account = account
        self.expires_in = expires_in
        self.clock = time.time
        self.requests = []
        self.token_requests = []
        self.sends = []
        self.connections = 0
        self.url = self.token_uri = None
        self._context = certificates.server_context(["http/1.1"])
        self._devices = set()
        self._unregistered = set()
        self._failures = {}  # token -> [(errorCode, retry_after), …] still to answer
        self._access_tokens = {}  # access token -> expiry (the fake's clock)
        self._sockets = set()
        self._lock = threading.Condition()

    # -- what the test arranges -----------------------------------------------------------------------------

    def register(self, device_token):
        """Makes `device_token` a registration token of a live app instance."""
        with self._lock:
            self._devices.add(device_token)
            self._unregistered.discard(device_token)

    def unregister(self, device_token):
        """Makes `device_token` answer 404 UNREGISTERED, as a token of an uninstalled app does."""
        with self._lock:
            self._unregistered.add(device_token)

    def fail(self, device_token, error_code, times=1, retry_after=None):
        """Answers the next `times` valid sends to `device_token` with the FCM error `error_code` (a key of
        FCM_ERRORS), with a Retry-After header when `retry_after` (seconds) is given."""
        if error_code not in FCM_ERRORS:
            raise ValueError(f"error_code is one of {sorted(FCM_ERRORS)}")
        with self._lock:
            self._failures.setdefault(device_token, []).extend([(error_code, retry_after)] * times)

    def expire_access_tokens(self):
        """Every access token granted so far answers 401 from now on, as if its expires_in had passed."""
        with self._lock:
            self._access_tokens = dict.fromkeys(self._access_tokens, float("-inf"))

    # -- what the test reads --------------------------------------------------------------------------------

    @property
    def grants(self):
        """The token requests answered with an access token."""
        with self._lock:
            return [request for request in self.token_requests if request.status == 200]

    @property
    def delivered(self):
        """The sends answered 200 (validate_only ones left out)."""
        with self._lock:
            return [send for send in self.sends
                    if send.status == 200 and not (send.request or {}).get("validate_only")]

    def wait_for_sends(self, count, timeout=10):
        """Waits until at least `count` sends have been answered; returns them, or raises AssertionError."""
        with self._lock:
            if not self._lock.wait_for(lambda: len(self.sends) >= count, timeout):
                raise AssertionError(f"FakeFCM answered {len(self.sends)} sends in {timeout} s, not {count}")
            return list(self.sends)

    # -- the server -----------------------------------------------------------------------------------------

    def __enter__(self):
        self._server = _TLSServer(self)
        port = self._server.server_address[1]
        self.url = f"https://127.0.0.1:{port}"
        self.token_uri = f"{self.url}/token"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_):
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            open_sockets = list(self._sockets)
        for sock in open_sockets:  # keep-alive connections, their threads waiting for a next request
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._thread.join(timeout=5)

    def _handle(self, number, method, path, headers, body):
        """Answers one request: (status, JSON body, extra headers)."""
        with self._lock:
            self.requests.append(HTTPRequest(number, method, path, headers, body))
        if path == "/token" and method == "POST":
            return self._token(headers, body)
        send = _SEND_PATH.match(path)
        if send and method == "POST":
            return self._send(urllib.parse.unquote(send.group(1)), headers, body)
        return 404, _google_error(404, "NOT_FOUND", f"{method} {path} is not a method of this API."), {}

    # -- POST /token ----------------------------------------------------------------------------------------

    def _token(self, headers, body):
        record = TokenRequest(form={}, jwt_header=None, jwt_claims=None, status=200, response=None)
        try:
            record.access_token, record.expires_at = self._grant(headers, body, record)
            record.response = {"access_token": record.access_token, "expires_in": self.expires_in,
                               "token_type": "Bearer"}
        except _Refusal as refusal:
            record.status, record.response = refusal.status, refusal.body
        with self._lock:
            self.token_requests.append(record)
            self._lock.notify_all()
        return record.status, record.response, {"Cache-Control": "no-store"}

    def _grant(self, headers, body, record):
        if not headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
            raise _oauth_error("invalid_request", "The body must be an application/x-www-form-urlencoded form.")
        try:
            form = urllib.parse.parse_qs(body.decode("utf-8"), strict_parsing=True)
        except (UnicodeDecodeError, ValueError):
            raise _oauth_error("invalid_request", "The form does not parse.") from None
        record.form = {name: values[0] for name, values in form.items()}
        if record.form.get("grant_type") != JWT_BEARER:
            raise _oauth_error("unsupported_grant_type", f"Invalid grant_type: {record.form.get('grant_type', '')}")
        if "assertion" not in record.form:
            raise _oauth_error("invalid_request", "Missing required parameter: assertion")
        try:
            header, claims, signing_input, signature = jwt.decode(record.form["assertion"])
        except jwt.InvalidToken:
            raise _oauth_error("invalid_grant", "Invalid JWT Signature.") from None
        record.jwt_header, record.jwt_claims = header, claims
        if claims.get("iss") != self.account.client_email:
            raise _oauth_error("invalid_grant", "Invalid grant: account not found")
        if header.get("alg") != "RS256" or header.get("kid") != self.account.private_key_id:
            raise _oauth_error("invalid_grant", "Invalid JWT Signature.")
        try:
            jwt.verify(signing_input, signature, self.account.public_key)
        except jwt.InvalidToken:
            raise _oauth_error("invalid_grant", "Invalid JWT Signature.") from None
        if claims.get("aud") != self.token_uri:
            raise _oauth_error("invalid_grant", f"Invalid JWT: the audience must be {self.token_uri}.")
        issued_at, expires = claims.get("iat"), claims.get("exp")
        now = self.clock()
        if (not all(isinstance(value, int) and not isinstance(value, bool) for value in (issued_at, expires))
                or not 0 < expires - issued_at <= 3600 or issued_at > now + 60 or expires < now):
            raise _oauth_error("invalid_grant", "Invalid JWT: the token must be short-lived (60 minutes at most) "
                                                "and current; check its iat and exp claims.")
        scopes = claims.get("scope")
        if not isinstance(scopes, str) or not MESSAGING_SCOPES & set(scopes.split(" ")):
            raise _oauth_error("invalid_scope", "Invalid OAuth scope or ID token audience provided.")
        access_token = "ya29.fake-" + secrets.token_urlsafe(32)
        with self._lock:
            self._access_tokens[access_token] = now + self.expires_in
        return access_token, now + self.expires_in

    # -- POST /v1/projects/<project>/messages:send ----------------------------------------------------------

    def _send(self, project, headers, body):
        request = _json_or_none(body)
        record = SendRequest(project=project, access_token=None, body=body, request=request,
                             message=request.get("message") if isinstance(request, dict) else None,
                             status=200, response=None)
        if not isinstance(record.message, dict):
            record.message = None
        extra = {}
        try:
            with self._lock:
                record.response = self._check_send(project, headers, request, record)
        except _Refusal as refusal:
            record.status, record.response, extra = refusal.status, refusal.body, refusal.headers
            error = refusal.body["error"]
            codes = [detail["errorCode"] for detail in error.get("details", []) if detail.get("@type") == FCM_ERROR]
            record.error_code = codes[0] if codes else error["status"]
        with self._lock:
            self.sends.append(record)
            self._lock.notify_all()
        return record.status, record.response, extra

    def _check_send(self, project, headers, request, record):
        scheme, _, token = headers.get("authorization", "").partition(" ")
        record.access_token = token if scheme.lower() == "bearer" and token else None
        if self._access_tokens.get(record.access_token, float("-inf")) <= self.clock():
            raise _Refusal(401, _google_error(401, "UNAUTHENTICATED", "Request had invalid authentication "
                                                                      "credentials. Expected an OAuth 2 access token."),
                           {"WWW-Authenticate": 'Bearer realm="https://accounts.google.com/"'})
        if project != self.account.project_id:
            raise _fcm_error("SENDER_ID_MISMATCH")

        if not isinstance(request, dict):
            raise _bad_request("", "Invalid JSON payload received: the body must be a JSON object.")
        for name in request:
            if name not in REQUEST_FIELDS:
                raise _bad_request("", f'Invalid JSON payload received. Unknown name "{name}": Cannot find field.')
        message = record.message
        if message is None:
            raise _bad_request("message", "The message is missing or not an object.")
        for name in message:
            if name not in MESSAGE_FIELDS:
                raise _bad_request("message", f'Invalid JSON payload received. Unknown name "{name}" at '
                                              "'message': Cannot find field.")
        targets = [name for name in ("token", "topic", "condition") if name in message]
        if len(targets) != 1:
            raise _bad_request("message", "Exactly one of message.token, message.topic or message.condition "
                                          "must be given.")
        if not isinstance(message[targets[0]], str) or not message[targets[0]]:
            raise _bad_request(f"message.{targets[0]}", f"message.{targets[0]} must be a non-empty string.")
        data = message.get("data", {})
        if not isinstance(data, dict):
            raise _bad_request("message.data", "message.data must be a map of strings to strings.")
        for index, (key, value) in enumerate(data.items()):
            if not isinstance(value, str):
                raise _bad_request(f"message.data[{index}].value",
                                   f"Invalid value at 'message.data[{index}].value' (TYPE_STRING), {json.dumps(value)}")
        notification = message.get("notification", {})
        if not isinstance(notification, dict):
            raise _bad_request("message.notification", "message.notification must be an object.")
        for name, value in notification.items():
            if name not in NOTIFICATION_FIELDS:
                raise _bad_request("message.notification", f'Invalid JSON payload received. Unknown name "{name}" '
                                                           "at 'message.notification': Cannot find field.")
            if not isinstance(value, str):
                raise _bad_request(f"message.notification.{name}",
                                   f"Invalid value at 'message.notification.{name}' (TYPE_STRING)")
        if "topic" in message and not _TOPIC.match(message["topic"]):
            raise _bad_request("message.topic", "Invalid topic name.")

        if "token" in message:
            device = message["token"]
            if self._failures.get(device):
                error_code, retry_after = self._failures[device].pop(0)
                raise _fcm_error(error_code, {"Retry-After": str(retry_after)} if retry_after is not None else {})
            if device in self._unregistered:
                raise _fcm_error("UNREGISTERED")
            if device not in self._devices:
                raise _fcm_error("INVALID_ARGUMENT")
        message_id = "fake_message_id" if request.get("validate_only") else str(secrets.randbits(63))
        return {"name": f"projects/{project}/messages/{message_id}"}


class _TLSServer(http.server.ThreadingHTTPServer):
    """http.server over TLS; each connection's handshake happens in its own thread, not in the accept loop."""

    daemon_threads = True

    def __init__(self, fake):
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)

    def get_request(self):
        sock, address = self.socket.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # the status line, headers and body go at once
        return self.fake._context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), address

    def handle_error(self, request, client_address):
        pass  # a client that hangs up or fails the handshake is no news for a test


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: a sender may reuse its connection

    def setup(self):
        fake = self.server.fake
        self.request.settimeout(10)
        self.request.do_handshake()
        self.request.settimeout(None)
        with fake._lock:
            fake.connections += 1
            self.connection_number = fake.connections
            fake._sockets.add(self.request)
        super().setup()

    def finish(self):
        with self.server.fake._lock:
            self.server.fake._sockets.discard(self.request)
        super().finish()

    def do_POST(self):
        self._respond()

    def do_GET(self):
        self._respond()

    def _respond(self):
        headers = {name.lower(): value for name, value in self.headers.items()}
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = self._read_chunked()
        else:
            body = self.rfile.read(int(headers.get("content-length") or 0))
        status, answer, extra = self.server.fake._handle(self.connection_number, self.command, self.path, headers,
                                                         body)
        content = json.dumps(answer).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(content)))
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(content)

    def _read_chunked(self):
        body = bytearray()
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip(), 16)
            if size == 0:
                while self.rfile.readline().strip():  # trailers, up to the blank line
                    pass
                return bytes(body)
            body += self.rfile.read(size)
            self.rfile.readline()

    def log_message(self, *_):
        pass


def _json_or_none(body):
    try:
        return json.loads(body)
    except ValueError:
        return None


def _google_error(code, status, message, details=None):
    error = {"code": code, "message": message, "status": status}
    if details:
        error["details"] = details
    return {"error": error}


def _fcm_error(error_code, headers=None):
    code, status, message = FCM_ERRORS[error_code]
    return _Refusal(code, _google_error(code, status, message, [{"@type": FCM_ERROR, "errorCode": error_code}]),
                    headers or {})


def _bad_request(field, description):
    return _Refusal(400, _google_error(400, "INVALID_ARGUMENT", description, [
        {"@type": BAD_REQUEST, "fieldViolations": [{"field": field, "description": description}]}]))


def _oauth_error(error, description):
    return _Refusal(400, {"error": error, "error_description": description})
