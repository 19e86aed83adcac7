"""The little of JSON Web Tokens (RFC 7519) the providers use: compact serialisation, ES256 (APNs provider
tokens) and RS256 (Google service-account assertions). Strict on purpose: base64url without padding, a JSON
object in each part, and ES256 signatures in the JOSE form (r and s, 32 bytes each), never DER.
"""
import base64
import binascii
import json
import re

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

# RFC 7515 section 2: base64url, with the trailing "=" padding removed.
_BASE64URL = re.compile(r"^[A-Za-z0-9_-]*$")


class InvalidToken(Exception):
    """The token is not a well-formed JWT, or its signature does not verify."""


def b64url_encode(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text):
    if not _BASE64URL.match(text) or len(text) % 4 == 1:
        raise InvalidToken(f"not unpadded base64url: {text[:20]!r}")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except binascii.Error as error:
        raise InvalidToken(str(error)) from error


def encode(header, claims, private_key):
    """Signs a JWT with an EC P-256 key (ES256) or an RSA key (RS256), as `header["alg"]` says."""
    signing_input = f"{b64url_encode(_json(header))}.{b64url_encode(_json(claims))}".encode("ascii")
    if header.get("alg") == "ES256":
        r, s = decode_dss_signature(private_key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    elif header.get("alg") == "RS256":
        signature = private_key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    else:
        raise ValueError(f"unsupported alg {header.get('alg')!r}")
    return f"{signing_input.decode('ascii')}.{b64url_encode(signature)}"


def decode(token):
    """Splits a compact JWT into (header, claims, signing input, signature) without verifying it."""
    parts = token.split(".")
    if len(parts) != 3:
        raise InvalidToken("a JWT has three dot-separated parts")
    try:
        header, claims = (json.loads(b64url_decode(part)) for part in parts[:2])
    except ValueError as error:
        raise InvalidToken(f"a part is not JSON: {error}") from error
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise InvalidToken("the header and the claims must be JSON objects")
    return header, claims, f"{parts[0]}.{parts[1]}".encode("ascii"), b64url_decode(parts[2])


def verify(signing_input, signature, public_key):
    """Raises InvalidToken unless `signature` signs `signing_input`: ES256 for an EC key, RS256 for RSA."""
    try:
        if isinstance(public_key, ec.EllipticCurvePublicKey):
            # JOSE's ES256 signature is r || s, 64 bytes; a DER-encoded one (what most crypto libraries
            # produce by default) is refused, as Apple refuses it.
            if len(signature) != 64:
                raise InvalidToken(f"an ES256 signature is 64 bytes (r || s), not {len(signature)}")
            der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
            public_key.verify(der, signing_input, ec.ECDSA(hashes.SHA256()))
        elif isinstance(public_key, rsa.RSAPublicKey):
            public_key.verify(signature, signing_input, padding.PKCS1v15(), hashes.SHA256())
        else:
            raise TypeError(f"unsupported key {type(public_key).__name__}")
    except InvalidSignature as error:
        raise InvalidToken("the signature does not verify") from error


def _json(value):
    return json.dumps(value, separators=(",", ":")).encode("utf-8")
