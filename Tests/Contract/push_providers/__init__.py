"""Local fake push providers for the tests of campaign-mock's push sender, which must run offline:
FakeAPNs (HTTP/2, token-based auth) and FakeFCM (HTTP v1 with its OAuth 2.0 token endpoint), with the
credentials both sides need (a test CA, an APNs .p8 key, a service-account JSON file).

    from push_providers import APNsKey, FakeAPNs, FakeFCM, ServiceAccount, TestCertificates

See apns.py and fcm.py for what each fake checks and how it refuses.
"""
from .apns import APNsRequest, FakeAPNs
from .credentials import APNsKey, ServiceAccount, TestCertificates
from .fcm import FakeFCM, HTTPRequest, SendRequest, TokenRequest

__all__ = ["APNsKey", "APNsRequest", "FakeAPNs", "FakeFCM", "HTTPRequest", "SendRequest", "ServiceAccount",
           "TestCertificates", "TokenRequest"]
