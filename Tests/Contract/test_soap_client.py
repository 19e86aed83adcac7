"""campaign-mock's SOAP router driven by a stock SOAP client (zeep), from the WSDL the server serves.

Run by `make test` (pytest Tests/Contract). Starts the real binary on a free port with a throwaway store.
"""
import pytest
import requests
from lxml import etree
from zeep import Client
from zeep.exceptions import Fault
from zeep.transports import Transport

from live_server import LiveServer


@pytest.fixture(scope="module")
def url():
    with LiveServer("--app", "ios:soap-ios-key:SOAP iOS app", "--app", "android:soap-android-key:SOAP Android app") as server:
        register(server.url, "ios", "apns-token-1", "soap-ios-key", "alice", {"email": "alice@example.com"})
        register(server.url, "ios", "apns-token-2", "soap-ios-key", "bob", {})
        register(server.url, "android", "fcm-token-1", "soap-android-key", "carol", {"points": "12"})
        yield server.url


def register(base, platform, token, key, user, params):
    xml = "<additionalParams>" + "".join(f'<param name="{k}" value="{v}" />' for k, v in params.items()) + "</additionalParams>"
    path = "registerIOS" if platform == "ios" else "registerAndroid"
    response = requests.post(f"{base}/nms/mobile/1/{path}.jssp",
                             data={"registrationToken": token, "mobileAppUuid": key, "userKey": user, "additionalParams": xml},
                             timeout=10)
    assert response.status_code == 200 and response.text == "OK"


class Campaign:
    """zeep clients for the three schemas, sharing one HTTP session (cookies, X-Security-Token)."""

    def __init__(self, base):
        self.session = requests.Session()
        transport = Transport(session=self.session, timeout=10)
        self.xtk_session = Client(f"{base}/nl/jsp/schemawsdl.jsp?schema=xtk:session", transport=transport)
        self.subscription = Client(f"{base}/nl/jsp/schemawsdl.jsp?schema=nms:subscription", transport=transport)
        self.query = Client(f"{base}/nl/jsp/schemawsdl.jsp?schema=xtk:queryDef", transport=transport)
        self.token = ""

    def logon(self, login="admin", password="admin"):
        result = self.xtk_session.service.Logon(sessiontoken="", strLogin=login, strPassword=password)
        self.token = result.pstrSessionToken
        self.session.headers["X-Security-Token"] = result.pstrSecurityToken
        return result

    def execute(self, query_xml):
        output = self.query.service.ExecuteQuery(sessiontoken=self.token, entity={"_value_1": [etree.fromstring(query_xml)]})
        return output._value_1[0]


def test_logon_returns_both_tokens_and_session_info(url):
    campaign = Campaign(url)
    result = campaign.logon()
    assert result.pstrSessionToken.startswith("___")
    assert result.pstrSecurityToken.startswith("@")
    info = result.pSessionInfo._value_1[0]
    assert etree.QName(info).localname == "sessionInfo"
    assert info.find("{urn:xtk:session}serverInfo").get("sessionTimeOut") == "86400"


def test_wrong_password_is_a_fault(url):
    with pytest.raises(Fault) as fault:
        Campaign(url).logon(password="wrong")
    assert "SOP-330011" in fault.value.message


def test_subscribe_then_query_the_recipient_and_subscription(url):
    campaign = Campaign(url)
    campaign.logon()
    recipient = etree.Element("recipient", {"_key": "@email", "email": "john.doe@example.com", "firstName": "John"})
    campaign.subscription.service.Subscribe(
        sessiontoken=campaign.token, service="SOAP iOS app", content={"_value_1": [recipient]}, create=True)
    recipients = campaign.execute(
        "<queryDef schema='nms:recipient' operation='get'><select><node expr='@email'/><node expr='@firstName'/></select>"
        "<where><condition expr=\"@email = 'john.doe@example.com'\"/></where></queryDef>")
    assert recipients.get("email") == "john.doe@example.com" and recipients.get("firstName") == "John"
    subscriptions = campaign.execute(
        "<queryDef schema='nms:subscription' operation='select'><select><node expr='@service'/>"
        "<node expr='[recipient/@email]'/></select></queryDef>")
    rows = list(subscriptions)
    assert [row.get("service") for row in rows] == ["SOAP iOS app"]

    with pytest.raises(Fault) as unknown:
        campaign.subscription.service.Subscribe(
            sessiontoken=campaign.token, service="No such service", content={"_value_1": [recipient]}, create=True)
    assert "Unknown service" in (unknown.value.detail.text if unknown.value.detail is not None else unknown.value.message)

    campaign.subscription.service.Unsubscribe(sessiontoken=campaign.token, service="SOAP iOS app", content={"_value_1": [recipient]})
    assert len(list(campaign.execute(
        "<queryDef schema='nms:subscription' operation='select'><select><node expr='@service'/></select></queryDef>"))) == 0


def test_execute_query_returns_the_devices_registered_through_the_sdk_endpoint(url):
    campaign = Campaign(url)
    campaign.logon()
    collection = campaign.execute(
        "<queryDef schema='nms:appSubscriptionRcp' operation='select'>"
        "<select><node expr='@registrationToken'/><node expr='@userKey'/><node expr='@email'/><node expr='[mobileApp/@uuid]'/></select>"
        "<where><condition expr=\"[mobileApp/@uuid] = 'soap-ios-key'\"/></where>"
        "<orderBy><node expr='@userKey' sortDesc='true'/></orderBy></queryDef>")
    assert etree.QName(collection).localname == "appSubscriptionRcp-collection"
    rows = [(row.get("registrationToken"), row.get("userKey"), row.get("email"), row[0].get("uuid")) for row in collection]
    assert rows == [("apns-token-2", "bob", None, "soap-ios-key"), ("apns-token-1", "alice", "alice@example.com", "soap-ios-key")]

    # The same devices as the admin API shows them.
    admin = requests.get(f"{url}/_mock/devices?app=soap-ios-key", timeout=10).json()["devices"]
    assert sorted(device["registrationToken"] for device in admin) == sorted(row[0] for row in rows)

    count = campaign.execute(
        "<queryDef schema='nms:appSubscriptionRcp' operation='count'>"
        "<where><condition expr=\"@userKey = 'carol' or @points = '12'\"/></where></queryDef>")
    assert count.get("count") == "1"

    with pytest.raises(Fault) as unsupported:
        campaign.execute("<queryDef schema='nms:appSubscriptionRcp'><select><node expr='Lower(@userKey)'/></select></queryDef>")
    assert "SOP-330011" in unsupported.value.message


def test_logoff_ends_the_session(url):
    campaign = Campaign(url)
    campaign.logon()
    campaign.xtk_session.service.Logoff(sessiontoken=campaign.token)
    with pytest.raises(Fault) as expired:
        campaign.execute("<queryDef schema='nms:mobileApp' operation='count'/>")
    assert "XSV-350008" in expired.value.message


def test_unknown_method_is_sop_330006(url):
    envelope = ("<soapenv:Envelope xmlns:soapenv='http://schemas.xmlsoap.org/soap/envelope/' xmlns:urn='urn:xtk:session'>"
                "<soapenv:Body><urn:ExportPackage/></soapenv:Body></soapenv:Envelope>")
    response = requests.post(f"{url}/nl/jsp/soaprouter.jsp", data=envelope,
                             headers={"Content-Type": "text/xml; charset=utf-8", "SOAPAction": "xtk:session#ExportPackage"}, timeout=10)
    assert response.status_code == 500
    assert "SOP-330006 The method 'ExportPackage' is not defined in SOAP service 'xtk:session'." in response.text
