"""What a LAN peer or a hostile server can make the server keep or do (docs/security.md, "Bounded state"): SOAP
logoffs in one bit each, and an upstream (`--upstream`) that answers a negative length, an absurd status or
headers without end is answered 502 while the server stays up. Sent as a LAN peer sends them: no browser
headers.
"""
import http.client
import re
import socket
import threading
import urllib.parse

import pytest

from live_server import LiveServer

ENVELOPE = ('<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:urn="urn:{service}">'
            '<soapenv:Header/><soapenv:Body><urn:{method}>{parameters}</urn:{method}></soapenv:Body>'
            '</soapenv:Envelope>')


def anonymous_memory(server):
    """The server's anonymous resident memory (bytes), or None where there is no /proc."""
    try:
        with open(f"/proc/{server.process.pid}/status") as status:
            return next(int(line.split()[1]) * 1024 for line in status if line.startswith("RssAnon:"))
    except OSError:
        return None


class SOAP:
    """One keep-alive connection to the SOAP router."""

    def __init__(self, server):
        parsed = urllib.parse.urlparse(server.url)
        self.connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=10)

    def call(self, service, method, parameters, headers=None):
        body = ENVELOPE.format(service=service, method=method, parameters=parameters).encode()
        self.connection.request("POST", "/nl/jsp/soaprouter.jsp", body=body, headers={
            "Content-Type": "text/xml; charset=utf-8", "SOAPAction": f"{service}#{method}", **(headers or {})})
        response = self.connection.getresponse()
        return response.status, response.read().decode()

    def user_info(self, token, security):
        return self.call("xtk:session", "GetUserInfo", f"<urn:sessiontoken>{token}</urn:sessiontoken>",
                         {"X-Security-Token": security})


def pipelined(server, calls):
    """Sends SOAP calls (service, method, parameters, headers) on one connection, a thousand at a time
    without waiting (HTTP/1.1 pipelining), and returns the answers' bodies in order."""
    parsed = urllib.parse.urlparse(server.url)
    answers = []
    with socket.create_connection((parsed.hostname, parsed.port), timeout=30) as connection:
        stream = connection.makefile("rb")
        for start in range(0, len(calls), 1000):
            batch = calls[start:start + 1000]
            requests = []
            for service, method, parameters, headers in batch:
                body = ENVELOPE.format(service=service, method=method, parameters=parameters).encode()
                extra = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
                requests.append(f"POST /nl/jsp/soaprouter.jsp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                f"Content-Type: text/xml\r\nSOAPAction: {service}#{method}\r\n{extra}"
                                f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            connection.sendall(b"".join(requests))
            for _ in batch:
                status = stream.readline()
                assert b" 200 " in status, status
                length = 0
                while (line := stream.readline()) not in (b"\r\n", b""):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                answers.append(stream.read(length).decode())
    return answers


LOGON = ("xtk:session", "Logon", "<urn:sessiontoken/><urn:strLogin>admin</urn:strLogin>"
         "<urn:strPassword>admin</urn:strPassword><urn:elemParameters/>", {})


def logons(server, count):
    return [(re.search(r"<pstrSessionToken[^>]*>([^<]+)<", answer).group(1),
             re.search(r"<pstrSecurityToken[^>]*>([^<]+)<", answer).group(1))
            for answer in pipelined(server, [LOGON] * count)]


def logoffs(server, sessions):
    pipelined(server, [("xtk:session", "Logoff", f"<urn:sessiontoken>{token}</urn:sessiontoken>",
                        {"X-Security-Token": security}) for token, security in sessions])


def test_logging_off_every_other_session_keeps_a_bit_each(tmp_path):
    """60,000 logons with every other one logged off, twice: the second round, on an allocator warmed by the
    first, grew the server by about 1.4 MB when each logoff was a dictionary entry (about 47 bytes) kept for
    the session's 24 hours; the bitmap of serials takes 8 KB a round. The store is a data directory and the
    journal keeps one request: an in-memory journal of SOAP exchanges holds megabytes that come and go,
    which would hide what is measured."""
    with LiveServer("--journal-limit", "1", data_dir=str(tmp_path)) as server:
        sessions = logons(server, 60_000)
        logoffs(server, sessions[::2])
        before = anonymous_memory(server)
        sessions = logons(server, 60_000)
        logoffs(server, sessions[::2])
        after = anonymous_memory(server)
        # Logged off: refused; the others still work.
        soap = SOAP(server)
        assert "unknown session token" in soap.user_info(*sessions[0])[1]
        assert "unknown session token" in soap.user_info(*sessions[-2])[1]
        assert soap.user_info(*sessions[1])[0] == 200
        assert soap.user_info(*sessions[-1])[0] == 200
        if before is None:
            pytest.skip("no /proc: anonymous memory not measured")
        assert after - before < 512 << 10, f"30,000 logoffs grew anonymous memory by {(after - before) >> 10} KiB"


class HostileUpstream:
    """A Campaign server that answers every request with `answer` (bytes), then closes the connection."""

    def __init__(self, answer):
        self.answer = answer
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.requests = 0

    def __enter__(self):
        threading.Thread(target=self.serve, daemon=True).start()
        return self

    def serve(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            with connection:
                connection.settimeout(5)
                received = b""
                while b"\r\n\r\n" not in received:
                    chunk = connection.recv(65536)
                    if not chunk:
                        break
                    received += chunk
                self.requests += 1
                try:
                    answer = self.answer
                    if callable(answer):
                        answer(connection)
                    else:
                        connection.sendall(answer)
                except OSError:
                    pass

    def __exit__(self, *_):
        self.listener.close()


def register(server):
    form = urllib.parse.urlencode({"registrationToken": "6e6577", "mobileAppUuid": "key", "userKey": "jane"})
    parsed = urllib.parse.urlparse(server.url)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=40)
    connection.request("POST", "/nms/mobile/1/registerIOS.jssp", body=form,
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
    response = connection.getresponse()
    return response.status, response.read().decode()


def endless_headers(connection):
    connection.sendall(b"HTTP/1.1 200 OK\r\n")
    for _ in range(100_000):
        connection.sendall(b"X-Pad: " + b"a" * 1000 + b"\r\n")


@pytest.mark.parametrize("answer, reason", [
    (b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "bad Content-Length '-1'"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\nhello", "bad Content-Length '-5'"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\nhello", "bad Content-Length '+5'"),
    (b"HTTP/1.1 -5 Status\r\nContent-Length: 0\r\n\r\n", "answered status -5"),
    (b"HTTP/1.1 0 Zero\r\nContent-Length: 0\r\n\r\n", "answered status 0"),
    (b"HTTP/1.1 1000000 Big\r\nContent-Length: 0\r\n\r\n", "answered status 1000000"),
    (b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", "answered status 101"),
    (endless_headers, "status line and headers are over 65536 bytes"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 2000000\r\n\r\n", "body is over 1048576 bytes"),
])
def test_a_hostile_upstream_is_answered_502_and_the_server_stays_up(answer, reason):
    with HostileUpstream(answer) as upstream, LiveServer("--upstream", upstream.url) as server:
        status, body = register(server)
        assert status == 502, body
        assert reason in body
        assert server.process.poll() is None
        # The next request is served too.
        assert register(server)[0] == 502
        assert upstream.requests == 2


def test_a_good_upstream_answer_is_relayed():
    answer = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"
    with HostileUpstream(answer) as upstream, LiveServer("--upstream", upstream.url) as server:
        assert register(server) == (200, "ok")
