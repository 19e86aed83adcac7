"""What the fake providers and their clients need to trust and sign with, written to a directory:

- TestCertificates: a throwaway certificate authority and a server certificate for 127.0.0.1 and localhost,
  signed by it. The fakes serve TLS with the server certificate; the code under test is told to trust
  `ca_path` (and nothing else changes: it checks the host name as it would for api.push.apple.com).
- APNsKey: an APNs token-signing key as Apple hands it out, an EC P-256 private key in a PKCS#8 PEM file
  named AuthKey_<KEY ID>.p8, with its 10-character key id and the team id it belongs to.
- ServiceAccount: a Google service account, written as the JSON key file the Firebase console downloads
  (RSA 2048 private key in PKCS#8 PEM), its token_uri pointing at a FakeFCM.
"""
import datetime
import ipaddress
import json
import os
import ssl
import time

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from . import jwt

FIREBASE_MESSAGING_SCOPE = "https://www.googleapis.com/auth/firebase.messaging"


def _pkcs8_pem(private_key):
    return private_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption())


class TestCertificates:
    """A CA (`ca_path`) and a server certificate for 127.0.0.1/localhost (`cert_path`, `key_path`), all PEM."""

    __test__ = False  # not a pytest test class, whatever its name

    def __init__(self, directory):
        now = datetime.datetime.now(datetime.timezone.utc)
        validity = (now - datetime.timedelta(hours=1), now + datetime.timedelta(days=2))

        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "campaign-mock test CA")])
        ca_certificate = (
            x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
            .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(validity[0]).not_valid_after(validity[1])
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False, decipher_only=False),
                           critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))

        server_key = ec.generate_private_key(ec.SECP256R1())
        server_certificate = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name).public_key(server_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(validity[0]).not_valid_after(validity[1])
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))

        self.ca_path = os.path.join(directory, "test-ca.pem")
        self.cert_path = os.path.join(directory, "server.pem")
        self.key_path = os.path.join(directory, "server-key.pem")
        with open(self.ca_path, "wb") as file:
            file.write(ca_certificate.public_bytes(serialization.Encoding.PEM))
        with open(self.cert_path, "wb") as file:
            file.write(server_certificate.public_bytes(serialization.Encoding.PEM))
        with open(self.key_path, "wb") as file:
            file.write(_pkcs8_pem(server_key))

    def server_context(self, alpn):
        """A TLS 1.2+ server context with the server certificate, offering the ALPN protocols `alpn`."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(self.cert_path, self.key_path)
        context.set_alpn_protocols(alpn)
        return context

    def client_context(self, alpn=None):
        """A client context that trusts the test CA alone (and checks host names), for the self-tests."""
        context = ssl.create_default_context(cafile=self.ca_path)
        if alpn:
            context.set_alpn_protocols(alpn)
        return context


class APNsKey:
    """An APNs authentication key: `path` is AuthKey_<key_id>.p8 in `directory`.

    `token()` makes a provider token as a correct sender would; its keyword arguments bend it for tests.
    """

    def __init__(self, directory, key_id="A1B2C3D4E5", team_id="TEAM123456"):
        self.key_id = key_id
        self.team_id = team_id
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.public_key = self.private_key.public_key()
        self.path = os.path.join(directory, f"AuthKey_{key_id}.p8")
        with open(self.path, "wb") as file:
            file.write(_pkcs8_pem(self.private_key))

    def token(self, issued_at=None, *, header=None, claims=None, private_key=None):
        """An ES256 provider token: header {alg, kid}, claims {iss, iat}; `header`/`claims` entries override
        (a value of None removes the entry), `private_key` signs with another key."""
        return jwt.encode(_merged({"alg": "ES256", "kid": self.key_id}, header),
                          _merged({"iss": self.team_id, "iat": int(issued_at or time.time())}, claims),
                          private_key or self.private_key)


class ServiceAccount:
    """A Google service account for project `project_id`; `write(path, token_uri)` writes its JSON key file.

    `assertion()` makes the signed JWT a correct client sends to the token endpoint; its keyword arguments bend
    it for tests.
    """

    def __init__(self, project_id="campaign-mock-test", client_id="109876543210987654321"):
        self.project_id = project_id
        self.client_id = client_id
        self.client_email = f"firebase-adminsdk-test@{project_id}.iam.gserviceaccount.com"
        self.private_key_id = os.urandom(20).hex()
        self.private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.public_key = self.private_key.public_key()
        self.token_uri = None

    def info(self, token_uri):
        """The key file's fields, shaped as Google's (token_uri is where access tokens are granted)."""
        return {
            "type": "service_account",
            "project_id": self.project_id,
            "private_key_id": self.private_key_id,
            "private_key": _pkcs8_pem(self.private_key).decode("ascii"),
            "client_email": self.client_email,
            "client_id": self.client_id,
            "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": token_uri,
            "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
            "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/"
                                    + self.client_email.replace("@", "%40"),
            "universe_domain": "googleapis.com",
        }

    def write(self, path, token_uri):
        """Writes the JSON key file to `path` and returns `path`."""
        self.token_uri = token_uri
        with open(path, "w") as file:
            json.dump(self.info(token_uri), file, indent=2)
        return path

    def assertion(self, issued_at=None, *, lifetime=3600, header=None, claims=None, private_key=None):
        """The RS256 JWT of the JWT-bearer grant: header {alg, typ, kid}, claims {iss, scope, aud, iat, exp}."""
        issued_at = int(issued_at or time.time())
        return jwt.encode(
            _merged({"alg": "RS256", "typ": "JWT", "kid": self.private_key_id}, header),
            _merged({"iss": self.client_email, "scope": FIREBASE_MESSAGING_SCOPE, "aud": self.token_uri,
                     "iat": issued_at, "exp": issued_at + lifetime}, claims),
            private_key or self.private_key)


def _merged(base, overrides):
    merged = {**base, **(overrides or {})}
    return {name: value for name, value in merged.items() if value is not None}
