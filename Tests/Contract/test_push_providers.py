"""The fake push providers (push_providers/) answer as Apple's and Google's services do: driven here by small
clients built on the same libraries (h2 over an ssl socket for APNs, http.client for FCM), each trusting the
test CA alone. The success paths first, then every refusal the fakes document.
"""
import base64
import http.client
import json
import socket
import ssl
import time
import urllib.parse
import uuid

import h2.config
import h2.connection
import h2.events
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from push_providers import APNsKey, FakeAPNs, FakeFCM, ServiceAccount, TestCertificates
from push_providers import jwt

TOPIC = "com.example.app"
DEVICE = "a" * 64
OTHER_DEVICE = "b" * 64


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    return str(tmp_path_factory.mktemp("push-providers"))


@pytest.fixture(scope="module")
def certificates(directory):
    return TestCertificates(directory)


@pytest.fixture(scope="module")
def apns_key(directory):
    return APNsKey(directory, key_id="KEY1234567", team_id="TEAM765432")


@pytest.fixture(scope="module")
def account():
    return ServiceAccount("campaign-mock-test")


# -- credentials ------------------------------------------------------------------------------------------------

def test_the_credentials_files_are_shaped_as_apple_and_google_hand_them_out(certificates, apns_key, account,
                                                                            directory):
    assert apns_key.path.endswith("/AuthKey_KEY1234567.p8")
    pem = open(apns_key.path, "rb").read()
    assert pem.startswith(b"-----BEGIN PRIVATE KEY-----")  # PKCS#8
    loaded = serialization.load_pem_private_key(pem, password=None)
    assert isinstance(loaded, ec.EllipticCurvePrivateKey) and loaded.curve.name == "secp256r1"

    info = json.load(open(account.write(f"{directory}/service-account.json", "https://127.0.0.1:1/token")))
    assert info["type"] == "service_account" and info["project_id"] == "campaign-mock-test"
    assert info["token_uri"] == "https://127.0.0.1:1/token"
    assert {"private_key_id", "client_email", "client_id", "auth_uri"} <= set(info)
    key = serialization.load_pem_private_key(info["private_key"].encode(), password=None)
    assert isinstance(key, rsa.RSAPrivateKey) and key.key_size == 2048
    assert info["private_key"].startswith("-----BEGIN PRIVATE KEY-----")

    assert open(certificates.ca_path).read().startswith("-----BEGIN CERTIFICATE-----")


# -- APNs -------------------------------------------------------------------------------------------------------

class H2Client:
    """One HTTP/2 connection to a FakeAPNs; `post` sends a push and waits for its answer."""

    def __init__(self, url, certificates, alpn=("h2",)):
        host, port = urllib.parse.urlsplit(url).hostname, urllib.parse.urlsplit(url).port
        self.sock = certificates.client_context(list(alpn)).wrap_socket(
            socket.create_connection((host, port), timeout=5), server_hostname=host)
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.h2.initiate_connection()
        self.sock.sendall(self.h2.data_to_send())
        self.answers = {}  # stream id -> [status, headers, body, ended]
        self.events = []

    def start(self, token, headers, body, path=None, method="POST"):
        """Opens a stream with the request; returns its id (answers are read by `wait`)."""
        stream_id = self.h2.get_next_available_stream_id()
        request = [(":method", method), (":scheme", "https"), (":path", path or f"/3/device/{token}"),
                   (":authority", "127.0.0.1"), *headers]
        self.h2.send_headers(stream_id, request, end_stream=not body)
        if body:
            self.h2.send_data(stream_id, body, end_stream=True)
        self.sock.sendall(self.h2.data_to_send())
        return stream_id

    def wait(self, stream_id):
        """Reads until the stream's answer is complete: (status, headers, body decoded from JSON or None)."""
        while not self.answers.get(stream_id, [None, None, None, False])[3]:
            self.read()
        status, headers, body, _ = self.answers[stream_id]
        return status, headers, json.loads(body) if body else None

    def read(self):
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("the server closed the connection")
        for event in self.h2.receive_data(data):
            self.events.append(event)
            if isinstance(event, h2.events.ResponseReceived):
                headers = dict(event.headers)
                self.answers[event.stream_id] = [int(headers[":status"]), headers, b"", False]
            elif isinstance(event, h2.events.DataReceived):
                self.answers[event.stream_id][2] += event.data
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                self.answers[event.stream_id][3] = True
        self.sock.sendall(self.h2.data_to_send())

    def post(self, token, headers, body, **request):
        return self.wait(self.start(token, headers, body, **request))

    def close(self):
        self.sock.close()


_provider_tokens = {}


def push_headers(key, **overrides):
    """The headers of a correct alert push; `overrides` replace (or, given None, remove) some, "_" for "-".
    The provider token is made once per key and reused, as a sender must (Apple refuses a new one on a
    connection sooner than 20 minutes after the last)."""
    token = _provider_tokens.setdefault(key.key_id, key.token())
    headers = {"authorization": f"bearer {token}", "apns-topic": TOPIC, "apns-push-type": "alert",
               "apns-priority": "10"}
    for name, value in overrides.items():
        headers[name.replace("_", "-")] = value
    return [(name, value) for name, value in headers.items() if value is not None]


ALERT = json.dumps({"aps": {"alert": {"title": "Hello", "body": "World"}}}).encode()


@pytest.fixture
def apns(certificates, apns_key):
    with FakeAPNs(certificates, apns_key, topics=[TOPIC, "com.example.other"]) as fake:
        fake.register(DEVICE)
        yield fake


@pytest.fixture
def client(apns, certificates):
    connection = H2Client(apns.url, certificates)
    yield connection
    connection.close()


def test_apns_accepts_a_correct_push_and_records_it(apns, client, apns_key):
    apns_id = str(uuid.uuid4())
    status, headers, body = client.post(DEVICE, push_headers(apns_key, apns_id=apns_id, apns_expiration="0",
                                                             apns_collapse_id="news"), ALERT)
    assert (status, body) == (200, None)
    assert headers["apns-id"] == apns_id
    uuid.UUID(headers["apns-unique-id"])  # the sandbox's extra identifier
    [request] = apns.delivered
    assert request.device_token == DEVICE and request.apns_id == apns_id and request.connection == 1
    assert request.payload == {"aps": {"alert": {"title": "Hello", "body": "World"}}}
    assert request.headers["apns-topic"] == TOPIC and request.headers[":method"] == "POST"
    assert request.jwt_header == {"alg": "ES256", "kid": "KEY1234567"}
    assert request.jwt_claims["iss"] == "TEAM765432" and isinstance(request.jwt_claims["iat"], int)


def test_apns_makes_up_an_apns_id_when_the_request_has_none(apns, client, apns_key):
    status, headers, _ = client.post(DEVICE, push_headers(apns_key), ALERT)
    assert status == 200 and str(uuid.UUID(headers["apns-id"])) == headers["apns-id"]


def test_apns_serves_concurrent_streams_on_one_connection_and_counts_connections_and_tokens(
        apns, client, apns_key, certificates):
    apns.register(OTHER_DEVICE)
    token = apns_key.token()
    streams = [client.start(device, push_headers(apns_key, authorization=f"bearer {token}"), ALERT)
               for device in [DEVICE, OTHER_DEVICE] * 10]  # all sent before any answer is read
    assert [client.wait(stream)[0] for stream in streams] == [200] * 20
    client.h2.ping(b"12345678")
    client.sock.sendall(client.h2.data_to_send())
    while not any(isinstance(event, h2.events.PingAckReceived) for event in client.events):
        client.read()
    assert client.post(DEVICE, push_headers(apns_key, authorization=f"bearer {token}"), ALERT)[0] == 200
    assert apns.connections == 1 and apns.provider_tokens == [token]
    assert client.h2.remote_settings.max_concurrent_streams == 1000  # as Apple announces
    assert {request.connection for request in apns.requests} == {1}

    second = H2Client(apns.url, certificates)  # a new connection may bring a new token
    assert second.post(DEVICE, push_headers(apns_key, authorization=f"bearer {apns_key.token()}"), ALERT)[0] == 200
    second.close()
    assert apns.connections == 2 and len(apns.provider_tokens) == 2
    assert apns.wait_for_requests(22)[-1].connection == 2


def der_signed(key):
    """A provider token whose signature is DER-encoded, the mistake JOSE's ES256 forbids."""
    _, _, signing_input, _ = jwt.decode(key.token())
    der = key.private_key.sign(signing_input, ec.ECDSA(hashes.SHA256()))
    return f"{signing_input.decode()}.{jwt.b64url_encode(der)}"


def refusals(key):
    """(what is wrong, request arguments, status, reason), each request otherwise correct."""
    other_key = ec.generate_private_key(ec.SECP256R1())
    big = json.dumps({"aps": {"alert": "x" * 4100}}).encode()
    return [
        ("GET", dict(headers=push_headers(key), body=ALERT, method="GET"), 405, "MethodNotAllowed"),
        ("a path not /3/device/", dict(headers=push_headers(key), body=ALERT, path="/2/device/x"), 404, "BadPath"),
        ("no device token", dict(headers=push_headers(key), body=ALERT, path="/3/device/"), 400,
         "MissingDeviceToken"),
        ("a header twice", dict(headers=push_headers(key) + [("apns-topic", TOPIC)], body=ALERT), 400,
         "DuplicateHeaders"),
        ("apns-id not a UUID", dict(headers=push_headers(key, apns_id="42"), body=ALERT), 400, "BadMessageId"),
        ("no authorization", dict(headers=push_headers(key, authorization=None), body=ALERT), 403,
         "MissingProviderToken"),
        ("not bearer", dict(headers=push_headers(key, authorization=f"basic {key.token()}"), body=ALERT), 403,
         "InvalidProviderToken"),
        ("not a JWT", dict(headers=push_headers(key, authorization="bearer abc"), body=ALERT), 403,
         "InvalidProviderToken"),
        ("alg HS256", dict(headers=push_headers(key, authorization="bearer " + ".".join(
            [jwt.b64url_encode(b'{"alg":"HS256","kid":"KEY1234567"}')] + key.token().split(".")[1:])), body=ALERT),
         403, "InvalidProviderToken"),
        ("another kid", dict(headers=push_headers(key, authorization="bearer " + key.token(
            header={"kid": "OTHERKEY00"})), body=ALERT), 403, "InvalidProviderToken"),
        ("no kid", dict(headers=push_headers(key, authorization="bearer " + key.token(header={"kid": None})),
                        body=ALERT), 403, "InvalidProviderToken"),
        ("another team", dict(headers=push_headers(key, authorization="bearer " + key.token(
            claims={"iss": "OTHERTEAM0"})), body=ALERT), 403, "InvalidProviderToken"),
        ("iat a string", dict(headers=push_headers(key, authorization="bearer " + key.token(
            claims={"iat": str(int(time.time()))})), body=ALERT), 403, "InvalidProviderToken"),
        ("iat in the future", dict(headers=push_headers(key, authorization="bearer " + key.token(
            time.time() + 600)), body=ALERT), 403, "InvalidProviderToken"),
        ("signed by another key", dict(headers=push_headers(key, authorization="bearer " + key.token(
            private_key=other_key)), body=ALERT), 403, "InvalidProviderToken"),
        ("a DER signature", dict(headers=push_headers(key, authorization="bearer " + der_signed(key)), body=ALERT),
         403, "InvalidProviderToken"),
        ("iat over an hour ago", dict(headers=push_headers(key, authorization="bearer " + key.token(
            time.time() - 3700)), body=ALERT), 403, "ExpiredProviderToken"),
        ("no apns-topic", dict(headers=push_headers(key, apns_topic=None), body=ALERT), 400, "MissingTopic"),
        ("another team's app", dict(headers=push_headers(key, apns_topic="com.elsewhere.app"), body=ALERT), 400,
         "TopicDisallowed"),
        ("an unknown push type", dict(headers=push_headers(key, apns_push_type="banner"), body=ALERT), 400,
         "InvalidPushType"),
        ("priority 7", dict(headers=push_headers(key, apns_priority="7"), body=ALERT), 400, "BadPriority"),
        ("priority 10 in background", dict(headers=push_headers(key, apns_push_type="background"), body=ALERT),
         400, "BadPriority"),
        ("expiration not an integer", dict(headers=push_headers(key, apns_expiration="soon"), body=ALERT), 400,
         "BadExpirationDate"),
        ("collapse id over 64 bytes", dict(headers=push_headers(key, apns_collapse_id="c" * 65), body=ALERT), 400,
         "BadCollapseId"),
        ("an empty body", dict(headers=push_headers(key), body=b""), 400, "PayloadEmpty"),
        ("a body over 4096 bytes", dict(headers=push_headers(key), body=big), 413, "PayloadTooLarge"),
        ("a body that is not JSON", dict(headers=push_headers(key), body=b"hello"), 400, "PayloadEmpty"),
        ("a JSON array", dict(headers=push_headers(key), body=b"[1]"), 400, "PayloadEmpty"),
        ("a token of another app", dict(headers=push_headers(key, apns_topic="com.example.other"), body=ALERT), 400,
         "DeviceTokenNotForTopic"),
        ("an unknown token", dict(token=OTHER_DEVICE, headers=push_headers(key), body=ALERT), 400, "BadDeviceToken"),
    ]


def test_apns_refuses_each_fault_with_apples_status_and_reason(apns, client, apns_key):
    # All on one connection: a refusal leaves it open, and the tokens bent to be refused never count as
    # the connection's new token.
    for what, request, status, reason in refusals(apns_key):
        token = request.pop("token", DEVICE)
        answer = client.post(token, request.pop("headers"), request.pop("body"), **request)
        assert answer[0:3:2] == (status, {"reason": reason}), what
        assert answer[1]["content-type"] == "application/json" and "apns-unique-id" not in answer[1], what
        assert apns.requests[-1].status == status and apns.requests[-1].reason == reason, what
    assert not apns.delivered and apns.connections == 1


def test_apns_allows_5120_bytes_for_voip_and_a_suffixed_topic(apns, client, apns_key):
    voip = json.dumps({"aps": {}, "call": "x" * 5000}).encode()
    assert client.post(DEVICE, push_headers(apns_key, apns_push_type="voip", apns_topic=TOPIC + ".voip"),
                       voip)[0] == 200
    assert client.post(DEVICE, push_headers(apns_key, apns_push_type="background", apns_priority="5"),
                       b'{"aps":{"content-available":1}}')[0] == 200


def test_apns_answers_410_with_a_timestamp_for_an_unregistered_token(apns, client, apns_key):
    apns.unregister(DEVICE, timestamp=1700000000000)
    status, _, body = client.post(DEVICE, push_headers(apns_key), ALERT)
    assert (status, body) == (410, {"reason": "Unregistered", "timestamp": 1700000000000})
    assert apns.requests[-1].timestamp == 1700000000000


def test_a_sandbox_token_is_a_bad_device_token_in_production(certificates, apns_key, apns, client):
    with FakeAPNs(certificates, apns_key, topics=[TOPIC], environment="production") as production:
        production.register(OTHER_DEVICE)
        there = H2Client(production.url, certificates)
        status, headers, body = there.post(DEVICE, push_headers(apns_key), ALERT)
        assert (status, body) == (400, {"reason": "BadDeviceToken"})
        status, headers, _ = there.post(OTHER_DEVICE, push_headers(apns_key), ALERT)
        assert status == 200 and "apns-unique-id" not in headers  # production gives no unique id
        there.close()
    assert client.post(DEVICE, push_headers(apns_key), ALERT)[0] == 200


def test_apns_refuses_a_new_token_within_20_minutes_unless_the_old_one_expired(apns, client, apns_key):
    first = apns_key.token()
    assert client.post(DEVICE, push_headers(apns_key, authorization=f"bearer {first}"), ALERT)[0] == 200
    fresh = push_headers(apns_key, authorization=f"bearer {apns_key.token()}")  # a new token for every push
    status, _, body = client.post(DEVICE, fresh, ALERT)
    assert (status, body) == (429, {"reason": "TooManyProviderTokenUpdates"})

    apns.expire_provider_tokens()
    status, _, body = client.post(DEVICE, push_headers(apns_key, authorization=f"bearer {first}"), ALERT)
    assert (status, body) == (403, {"reason": "ExpiredProviderToken"})
    renewed = push_headers(apns_key, authorization=f"bearer {apns_key.token()}")
    assert client.post(DEVICE, renewed, ALERT)[0] == 200  # replacing an expired token is due, not too soon


def test_apns_answers_queued_failures_then_recovers(apns, client, apns_key):
    apns.fail(DEVICE, 503, "ServiceUnavailable")
    assert client.post(DEVICE, push_headers(apns_key), ALERT)[0:3:2] == (503, {"reason": "ServiceUnavailable"})
    assert client.post(DEVICE, push_headers(apns_key), ALERT)[0] == 200


def test_apns_speaks_http2_only(apns, certificates):
    with pytest.raises((ConnectionError, ssl.SSLError, OSError)):
        client = H2Client(apns.url, certificates, alpn=("http/1.1",))
        client.sock.sendall(b"POST /3/device/x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
        client.read()
    assert apns.connections == 0 and not apns.requests


def test_apns_says_goodbye_with_goaway_and_a_reason(apns, client, apns_key):
    assert client.post(DEVICE, push_headers(apns_key), ALERT)[0] == 200
    apns.close_connections("Shutdown")
    with pytest.raises(ConnectionError):
        while True:
            client.read()
    [goaway] = [event for event in client.events if isinstance(event, h2.events.ConnectionTerminated)]
    assert json.loads(goaway.additional_data) == {"reason": "Shutdown"}


def test_apns_says_goodbye_cleanly_while_it_answers_pings(apns, certificates, apns_key):
    """The goodbye comes while the fake's thread is busy writing (a PING's acknowledgement for each of the
    client's): every byte that reaches the client is still TLS, and the GOAWAY is the last frame."""
    for _ in range(20):
        client = H2Client(apns.url, certificates)
        assert client.post(DEVICE, push_headers(apns_key), ALERT)[0] == 200
        for number in range(200):
            client.h2.ping(number.to_bytes(8, "big"))
        client.sock.sendall(client.h2.data_to_send())
        apns.close_connections("Shutdown")
        with pytest.raises(ConnectionError):  # an ssl.SSLError here would be plain bytes read as TLS
            while True:
                client.read()
        client.close()
        assert isinstance(client.events[-1], h2.events.ConnectionTerminated)


# -- FCM --------------------------------------------------------------------------------------------------------

@pytest.fixture
def fcm(certificates, account, directory):
    with FakeFCM(certificates, account) as fake:
        account.write(f"{directory}/service-account.json", fake.token_uri)
        fake.register(DEVICE)
        yield fake


class HTTPSClient:
    """One keep-alive HTTPS connection to a FakeFCM."""

    def __init__(self, url, certificates):
        parts = urllib.parse.urlsplit(url)
        self.connection = http.client.HTTPSConnection(parts.hostname, parts.port, timeout=5,
                                                      context=certificates.client_context())

    def post(self, path, body, headers):
        self.connection.request("POST", path, body=body, headers=headers)
        response = self.connection.getresponse()
        return response.status, dict(response.getheaders()), json.loads(response.read())

    def grant(self, assertion, grant_type="urn:ietf:params:oauth:grant-type:jwt-bearer"):
        form = urllib.parse.urlencode({"grant_type": grant_type, "assertion": assertion})
        return self.post("/token", form, {"Content-Type": "application/x-www-form-urlencoded"})

    def send(self, access_token, body, project="campaign-mock-test"):
        headers = {"Content-Type": "application/json"}
        if access_token:
            headers["Authorization"] = f"Bearer {access_token}"
        return self.post(f"/v1/projects/{project}/messages:send", json.dumps(body), headers)

    def access_token(self, account):
        status, _, body = self.grant(account.assertion())
        assert status == 200, body
        return body["access_token"]


@pytest.fixture
def https(fcm, certificates):
    connection = HTTPSClient(fcm.url, certificates)
    yield connection
    connection.connection.close()


def test_fcm_grants_a_token_and_delivers_a_message_on_one_connection(fcm, https, account):
    status, headers, grant = https.grant(account.assertion())
    assert status == 200 and set(grant) == {"access_token", "expires_in", "token_type"}
    assert grant["token_type"] == "Bearer" and grant["expires_in"] == 3599
    message = {"token": DEVICE, "data": {"kind": "news"}, "notification": {"title": "Hi", "body": "There"}}
    status, _, body = https.send(grant["access_token"], {"message": message})
    assert status == 200 and body["name"].startswith("projects/campaign-mock-test/messages/")
    assert https.send(grant["access_token"], {"message": {"topic": "news", "data": {}}})[0] == 200
    assert https.send(grant["access_token"], {"message": {"condition": "'a' in topics", "data": {}},
                                              "validate_only": True})[0] == 200

    [token_request] = fcm.grants
    assert token_request.access_token == grant["access_token"]
    assert token_request.jwt_claims["iss"] == account.client_email and token_request.jwt_claims["aud"] == fcm.token_uri
    assert token_request.jwt_header == {"alg": "RS256", "typ": "JWT", "kid": account.private_key_id}
    assert [send.message.get("topic", send.message.get("token")) for send in fcm.delivered] == [DEVICE, "news"]
    assert fcm.sends[0].message == message and fcm.sends[0].access_token == grant["access_token"]
    assert fcm.wait_for_sends(3)[2].status == 200
    assert fcm.connections == 1 and {request.connection for request in fcm.requests} == {1}
    assert [request.path for request in fcm.requests][:1] == ["/token"]


def test_fcm_token_endpoint_refusals(fcm, https, account):
    other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cases = [
        ("another grant type", dict(assertion=account.assertion(), grant_type="client_credentials"),
         "unsupported_grant_type"),
        ("not a JWT", dict(assertion="abc"), "invalid_grant"),
        ("signed by another key", dict(assertion=account.assertion(private_key=other_key)), "invalid_grant"),
        ("another kid", dict(assertion=account.assertion(header={"kid": "0" * 40})), "invalid_grant"),
        ("alg ES256", dict(assertion=".".join([jwt.b64url_encode(json.dumps(
            {"alg": "ES256", "kid": account.private_key_id}).encode())] + account.assertion().split(".")[1:])),
         "invalid_grant"),
        ("another account", dict(assertion=account.assertion(claims={"iss": "x@y.iam.gserviceaccount.com"})),
         "invalid_grant"),
        ("another audience", dict(assertion=account.assertion(claims={"aud": "https://oauth2.googleapis.com/token"})),
         "invalid_grant"),
        ("two hours long", dict(assertion=account.assertion(lifetime=7200)), "invalid_grant"),
        ("already expired", dict(assertion=account.assertion(time.time() - 7200)), "invalid_grant"),
        ("issued in the future", dict(assertion=account.assertion(time.time() + 600)), "invalid_grant"),
        ("no scope", dict(assertion=account.assertion(claims={"scope": None})), "invalid_scope"),
        ("another scope", dict(assertion=account.assertion(
            claims={"scope": "https://www.googleapis.com/auth/userinfo.email"})), "invalid_scope"),
    ]
    for what, arguments, error in cases:
        status, _, body = https.grant(**arguments)
        assert (status, body["error"]) == (400, error), what
        assert isinstance(body["error_description"], str), what
    status, _, body = https.post("/token", json.dumps({"assertion": account.assertion()}),
                                 {"Content-Type": "application/json"})
    assert (status, body["error"]) == (400, "invalid_request")
    assert not fcm.grants and len(fcm.token_requests) == len(cases) + 1
    # The cloud-platform scope covers FCM too.
    assert https.grant(account.assertion(claims={"scope": "https://www.googleapis.com/auth/cloud-platform"}))[0] == 200


def test_fcm_refuses_missing_unknown_and_expired_access_tokens(fcm, https, account):
    message = {"message": {"token": DEVICE}}
    for access_token in [None, "ya29.made-up"]:
        status, headers, body = https.send(access_token, message)
        assert (status, body["error"]["status"]) == (401, "UNAUTHENTICATED")
        assert headers["WWW-Authenticate"].startswith("Bearer")
    access_token = https.access_token(account)
    assert https.send(access_token, message)[0] == 200
    fcm.expire_access_tokens()
    assert https.send(access_token, message)[0] == 401
    assert https.send(https.access_token(account), message)[0] == 200


def test_fcm_access_tokens_live_expires_in_seconds(fcm, https, account):
    fcm.expires_in = 30
    status, _, grant = https.grant(account.assertion())
    assert grant["expires_in"] == 30
    fcm.clock = lambda: time.time() + 31  # half a minute later, by the fake's clock
    assert https.send(grant["access_token"], {"message": {"token": DEVICE}})[0] == 401


def fcm_error(answer):
    status, _, body = answer
    codes = [detail.get("errorCode") for detail in body["error"].get("details", [])
             if detail["@type"].endswith("FcmError")]
    return status, body["error"]["status"], codes[0] if codes else None


def test_fcm_send_refusals(fcm, https, account):
    access_token = https.access_token(account)
    fcm.unregister(OTHER_DEVICE)
    cases = [
        ("another project", dict(body={"message": {"token": DEVICE}}, project="other-project"),
         (403, "PERMISSION_DENIED", "SENDER_ID_MISMATCH")),
        ("not an object", dict(body=["message"]), (400, "INVALID_ARGUMENT", None)),
        ("no message", dict(body={"validate_only": False}), (400, "INVALID_ARGUMENT", None)),
        ("an unknown top field", dict(body={"message": {"token": DEVICE}, "priority": "high"}),
         (400, "INVALID_ARGUMENT", None)),
        ("an unknown message field", dict(body={"message": {"token": DEVICE, "ttl": "60s"}}),
         (400, "INVALID_ARGUMENT", None)),
        ("no target", dict(body={"message": {"data": {"a": "b"}}}), (400, "INVALID_ARGUMENT", None)),
        ("two targets", dict(body={"message": {"token": DEVICE, "topic": "news"}}), (400, "INVALID_ARGUMENT", None)),
        ("a number in data", dict(body={"message": {"token": DEVICE, "data": {"count": 12}}}),
         (400, "INVALID_ARGUMENT", None)),
        ("data not a map", dict(body={"message": {"token": DEVICE, "data": ["a"]}}), (400, "INVALID_ARGUMENT", None)),
        ("a number in notification", dict(body={"message": {"token": DEVICE, "notification": {"title": 1}}}),
         (400, "INVALID_ARGUMENT", None)),
        ("a bad topic name", dict(body={"message": {"topic": "news!"}}), (400, "INVALID_ARGUMENT", None)),
        ("an unregistered token", dict(body={"message": {"token": OTHER_DEVICE}}), (404, "NOT_FOUND", "UNREGISTERED")),
        ("an unknown token", dict(body={"message": {"token": "c" * 64}}),
         (400, "INVALID_ARGUMENT", "INVALID_ARGUMENT")),
    ]
    for what, arguments, expected in cases:
        assert fcm_error(https.send(access_token, **arguments)) == expected, what
        assert fcm.sends[-1].status == expected[0], what
    status, _, body = https.send(access_token, {"message": {"token": DEVICE, "data": {"count": 12}}})
    [violation] = body["error"]["details"][0]["fieldViolations"]
    assert violation["field"] == "message.data[0].value"
    assert [send.error_code for send in fcm.sends][-2:] == ["INVALID_ARGUMENT", "INVALID_ARGUMENT"]
    assert fcm.sends[0].error_code == "SENDER_ID_MISMATCH" and not fcm.delivered


def test_fcm_answers_queued_failures_then_recovers(fcm, https, account):
    access_token = https.access_token(account)
    message = {"message": {"token": DEVICE}}
    fcm.fail(DEVICE, "QUOTA_EXCEEDED", retry_after=7)
    fcm.fail(DEVICE, "UNAVAILABLE")
    fcm.fail(DEVICE, "INTERNAL")
    fcm.fail(DEVICE, "THIRD_PARTY_AUTH_ERROR")
    status, headers, _ = answer = https.send(access_token, message)
    assert fcm_error(answer) == (429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED") and headers["Retry-After"] == "7"
    assert fcm_error(https.send(access_token, message)) == (503, "UNAVAILABLE", "UNAVAILABLE")
    assert fcm_error(https.send(access_token, message)) == (500, "INTERNAL", "INTERNAL")
    assert fcm_error(https.send(access_token, message)) == (401, "UNAUTHENTICATED", "THIRD_PARTY_AUTH_ERROR")
    assert https.send(access_token, message)[0] == 200


def test_fcm_serves_tls_only(fcm):
    parts = urllib.parse.urlsplit(fcm.url)
    plain = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
    with pytest.raises((http.client.HTTPException, ConnectionError, OSError)):
        plain.request("POST", "/token", body="grant_type=x")
        plain.getresponse()
    assert not fcm.requests


def test_jwt_base64url_is_strict():
    assert jwt.b64url_decode(jwt.b64url_encode(b"\xff\xfe")) == b"\xff\xfe"
    for text in ["//79", "_-8=", "a"]:
        with pytest.raises(jwt.InvalidToken):
            jwt.b64url_decode(text)
    assert base64.urlsafe_b64decode("_-8=") == b"\xff\xef"  # what a lenient decoder would have taken
