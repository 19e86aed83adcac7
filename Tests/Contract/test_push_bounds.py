"""The sender against broken push providers (docs/push-on-device.md, "When a provider misbehaves"): an APNs or
an FCM that answers with headers or informational answers without end, a body without end, or a byte at a
time, and a token endpoint that answers absurd numbers. Each send is answered `failed` with the reason, the
server's memory stays bounded, and the next send goes through once the provider behaves.
"""
import os

import pytest

from live_server import LiveServer
from push_providers import APNsKey, ServiceAccount, TestCertificates
from push_providers.hostile import TARGET, HostileAPNs, HostileFCM
from test_push_sending import ANDROID_TOKEN, BUNDLE_ID, IOS_APP, IOS_TOKEN, call, compose, register, send

# What each broken answer is failed with.
REASONS = {
    "informational": "header fields",
    "headers": "bytes of headers",
    "endless-body": "more than",
    "trickle": "no complete answer within",
}
FCM_REASONS = {
    "informational": "status line and headers are over",
    "headers": "status line and headers are over",
    "endless-body": "body is over",
    "trickle": "no complete answer within",
}


@pytest.fixture
def certificates(tmp_path):
    return TestCertificates(str(tmp_path))


def peak_memory(server):
    """The server's peak resident memory (bytes), or None where there is no /proc."""
    try:
        with open(f"/proc/{server.process.pid}/status") as status:
            return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
    except OSError:
        return None


def assert_bounded(server, before, provider):
    assert provider.sent < TARGET, "the client read the endless answer to its end"
    after = peak_memory(server)
    if before is not None:
        assert after - before < 64 << 20, f"peak memory grew by {(after - before) >> 20} MiB"


@pytest.mark.parametrize("behaviour", sorted(REASONS))
def test_an_apns_answer_without_end_fails_the_send_and_the_next_goes_through(certificates, tmp_path, behaviour):
    key = APNsKey(str(tmp_path))
    with HostileAPNs(certificates) as apns, \
            LiveServer(*IOS_APP, "--apns-key-file", key.path, "--apns-key-id", key.key_id, "--apns-team-id",
                       key.team_id, "--apns-url", apns.url, "--provider-ca", certificates.ca_path,
                       "--send-allow", "token:*") as server:
        register(server, "ios", IOS_TOKEN, "shop-ios")
        assert call(server, "PUT", "/_mock/apps/shop-ios", {"bundleId": BUNDLE_ID})[0] == 200
        fails_then_recovers(server, apns, IOS_TOKEN, behaviour, REASONS[behaviour])


def fails_then_recovers(server, provider, token, behaviour, reason):
    """A send to `provider` behaving as `behaviour` fails naming `reason` within bounded memory; the next,
    answered normally, is accepted."""
    before = peak_memory(server)
    provider.behaviour = behaviour
    [sent] = send(server, compose(server, token)["id"])
    assert sent["outcome"] == "failed", sent
    assert reason in sent["explanation"], sent["explanation"]
    assert_bounded(server, before, provider)

    provider.behaviour = "ok"
    [sent] = send(server, compose(server, token)["id"])
    assert sent["outcome"] == "accepted", sent
    assert provider.requests == 2


def fcm_server(certificates, tmp_path, fcm):
    key_file = ServiceAccount("hostile").write(os.path.join(str(tmp_path), "service-account.json"), fcm.token_uri)
    return LiveServer(*IOS_APP, "--fcm-service-account", key_file, "--fcm-url", fcm.url, "--provider-ca",
                      certificates.ca_path, "--send-allow", "token:*")


@pytest.mark.parametrize("behaviour", sorted(FCM_REASONS))
def test_an_fcm_answer_without_end_fails_the_send_and_the_next_goes_through(certificates, tmp_path, behaviour):
    with HostileFCM(certificates) as fcm, fcm_server(certificates, tmp_path, fcm) as server:
        register(server, "android", ANDROID_TOKEN, "shop-android")
        fails_then_recovers(server, fcm, ANDROID_TOKEN, behaviour, FCM_REASONS[behaviour])


@pytest.mark.parametrize("expires_in", [-9223372036854775808, 9223372036854775807, 0])
def test_an_absurd_expires_in_is_clamped(certificates, tmp_path, expires_in):
    with HostileFCM(certificates) as fcm, fcm_server(certificates, tmp_path, fcm) as server:
        fcm.grant = {"access_token": "ya29.absurd", "expires_in": expires_in, "token_type": "Bearer"}
        register(server, "android", ANDROID_TOKEN, "shop-android")
        for _ in range(2):
            [sent] = send(server, compose(server, ANDROID_TOKEN)["id"])
            assert sent["outcome"] == "accepted", sent
        # A token said to last for ever is kept an hour at most; one already expired is asked for again.
        assert fcm.grants == (1 if expires_in > 3600 else 2)
        assert server.process.poll() is None
