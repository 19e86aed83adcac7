#!/usr/bin/env python3
"""Writes Fixtures/sdk/<scenario>/: the exchanges of docs/protocol.md (§3.4, §3.5, §4.4, §5.7, §9) as the
SDKs send them, in the format `campaign-mock serve --record` writes and `campaign-mock replay` reads
(NNNN-<endpoint>-<status>.json), plus scenario.json: the applications to start with and what the store
must hold after each exchange.

Run it from anywhere: python3 Fixtures/make-sdk-fixtures.py. The test suite replays every scenario.
"""
import json
import os
import shutil
import urllib.parse

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sdk")
FORM = "application/x-www-form-urlencoded;charset=UTF-8"
IOS_APP = {"platform": "ios", "integrationKey": "integrationKey", "name": "AEP iOS functional test app"}
ANDROID_APP = {"platform": "android", "integrationKey": "testIntegrationKey", "name": "AEP Android test app"}


def encode(value):
    """AEP core UrlEncoder: keep A-Z a-z 0-9 - . _ ~, everything else %XX uppercase over UTF-8 (docs/protocol.md §3.3)."""
    return urllib.parse.quote(value, safe="-._~")


def body(pairs):
    return "&".join(f"{key}={encode(value)}" for key, value in pairs)


def ios_xml(params):
    """iOS Dictionary+XMLSerializer: root additionalParams, keys sorted, ' />' (docs/protocol.md §3.4)."""
    def escape(text):
        text = text.replace("\r", "").replace("\n", "")
        for raw, entity in (("&", "&amp;"), ('"', "&quot;"), ("'", "&#x27;"), ("<", "&lt;"), (">", "&gt;")):
            text = text.replace(raw, entity)
        return text
    inner = "".join(f'<param name="{escape(k)}" value="{escape(v)}" />' for k, v in sorted(params.items()))
    return f"<additionalParams>{inner}</additionalParams>"


def android_xml(params):
    """Android CampaignClassicMapSerializer: root additionalParameters, '/>' (docs/protocol.md §3.4)."""
    def escape(text):
        text = text.replace("\r", "").replace("\n", "")
        for raw, entity in (("&", "&amp;"), ('"', "&quot;"), ("'", "&#39;"), ("<", "&lt;"), (">", "&gt;")):
            text = text.replace(raw, entity)
        return text
    inner = "".join(f'<param name="{escape(k)}" value="{escape(v)}"/>' for k, v in params.items())
    return f"<additionalParameters>{inner}</additionalParameters>"


def registration(platform, fields, params, xml):
    target = "/nms/mobile/1/registerIOS.jssp" if platform == "ios" else "/nms/mobile/1/registerAndroid.jssp"
    pairs = list(fields) + [("additionalParams", xml(params))]
    return {"method": "POST", "target": target, "headers": [["Content-Type", FORM]], "body": body(pairs)}


def ios_fields(token, key, user, os_version="iOS 17.0", device_name="iPhone"):
    return [("registrationToken", token), ("mobileAppUuid", key), ("userKey", user), ("deviceName", device_name),
            ("deviceModel", "iPhone"), ("deviceBrand", "Apple"), ("deviceManufacturer", "Apple"), ("osName", "iOS"),
            ("osVersion", os_version), ("osLanguage", "en-US")]


def android_fields(token, key, user, language="mocklocale", os_version="mockOSName mockOSVersion"):
    return [("registrationToken", token), ("mobileAppUuid", key), ("userKey", user), ("deviceImei", "12345"),
            ("deviceName", "mockDevice"), ("deviceModel", "mockDeviceName"), ("deviceBrand", "mockDeviceBrand"),
            ("deviceManufacturer", "mockDeviceManufacturer"), ("osName", "android"), ("osVersion", os_version),
            ("osLanguage", language)]


def device(token, key, user, params, fields):
    names = ["deviceImei", "deviceName", "deviceModel", "deviceBrand", "deviceManufacturer", "osName", "osVersion",
             "osLanguage"]
    return {"device": {"registrationToken": token, "integrationKey": key, "userKey": user,
                       "fields": {k: v for k, v in fields if k in names}, "params": params}}


def endpoint_name(target):
    path = target.split("?")[0]
    names = {"/nms/mobile/1/registerIOS.jssp": "registerIOS", "/nms/mobile/1/registerAndroid.jssp": "registerAndroid",
             "/nl/jsp/ping.jsp": "ping", "/r/test": "redirect-test"}
    return names.get(path, "tracking" if path.startswith("/r") else path.strip("/").replace("/", "-"))


def exchange_file(sequence, exchange):
    """One exchange in the recording format (README, "Recording and replay")."""
    request = exchange["request"]
    message = {"method": request["method"], "target": request["target"],
               "headers": [f"{name}: {value}" for name, value in request["headers"]]}
    if request["body"]:
        message["body"] = request["body"]
        if any(name.lower() == "content-type" and value.lower().startswith("application/x-www-form-urlencoded")
               for name, value in request["headers"]):
            try:
                message["form"] = [f"{name}={value}" for name, value in
                                   urllib.parse.parse_qsl(request["body"], keep_blank_values=True, strict_parsing=True,
                                                          errors="strict")]
            except (ValueError, UnicodeDecodeError):
                pass
    response = {"status": exchange["response"]["status"], "headers": []}
    if exchange["response"].get("body"):
        response["body"] = exchange["response"]["body"]
    return {"format": "campaign-mock-exchange", "version": 1, "sequence": sequence,
            "endpoint": endpoint_name(request["target"]), "recordedAt": "2026-01-01T00:00:00.000Z",
            "durationMilliseconds": 0, "redacted": False, "request": message, "response": response}


def dump(path, document):
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2, sort_keys=True, ensure_ascii=False)
        handle.write("\n")


def write(name, description, source, applications, exchanges):
    directory = os.path.join(HERE, name.removesuffix(".json"))
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    stored = []
    for sequence, exchange in enumerate(exchanges, start=1):
        document = exchange_file(sequence, exchange)
        dump(os.path.join(directory, f"{sequence:04d}-{document['endpoint']}-{document['response']['status']}.json"),
             document)
        if exchange.get("stored"):
            stored.append({"sequence": sequence, **exchange["stored"]})
    dump(os.path.join(directory, "scenario.json"),
         {"description": description, "source": source, "applications": applications, "stored": stored})


def ok():
    return {"status": 200, "body": "OK"}


def main():
    os.makedirs(HERE, exist_ok=True)

    # docs/protocol.md §3.5, iOS: AEP iOS functional test test_registerDevice_happy.
    params = {"email": "email@email.com", "userPoints": "3233"}
    fields = ios_fields("70757368546f6b656e", "integrationKey", "userkey")
    request = registration("ios", fields, params, ios_xml)
    expected_tail = ("additionalParams=%3CadditionalParams%3E%3Cparam%20name%3D%22email%22%20value%3D%22email%40email"
                     ".com%22%20%2F%3E%3Cparam%20name%3D%22userPoints%22%20value%3D%223233%22%20%2F%3E%3C%2F"
                     "additionalParams%3E")
    assert request["body"].endswith(expected_tail), "iOS additionalParams tail differs from docs/protocol.md §3.5"
    write("registration-ios.json", "iOS registration exactly as the AEP extension's functional test sends it",
          "docs/protocol.md §3.5 (AEP iOS ext. test_registerDevice_happy)", [IOS_APP],
          [{"request": request, "response": ok(),
            "stored": device("70757368546f6b656e", "integrationKey", "userkey",
                             {"email": ["string", "email@email.com"], "userPoints": ["integer", "3233"]}, fields)}])

    # docs/protocol.md §3.5, Android: RegistrationManagerTests.registerDevice_Happy; the whole body is asserted.
    fields = android_fields("testToken", "testIntegrationKey", "testUser")
    request = registration("android", fields, {"key": "value"}, android_xml)
    assert request["body"] == (
        "registrationToken=testToken&mobileAppUuid=testIntegrationKey&userKey=testUser&deviceImei=12345"
        "&deviceName=mockDevice&deviceModel=mockDeviceName&deviceBrand=mockDeviceBrand"
        "&deviceManufacturer=mockDeviceManufacturer&osName=android&osVersion=mockOSName%20mockOSVersion"
        "&osLanguage=mocklocale&additionalParams=%3CadditionalParameters%3E%3Cparam%20name%3D%22key%22%20"
        "value%3D%22value%22%2F%3E%3C%2FadditionalParameters%3E"), "Android body differs from docs/protocol.md §3.5"
    write("registration-android.json", "Android registration exactly as the AEP extension's unit test sends it",
          "docs/protocol.md §3.5 (AEP Android ext. RegistrationManagerTests.registerDevice_Happy)", [ANDROID_APP],
          [{"request": request, "response": ok(),
            "stored": device("testToken", "testIntegrationKey", "testUser", {"key": ["string", "value"]}, fields)}])

    # docs/protocol.md §9 item 6: the Android instrumented test.
    fields = android_fields("testToken", "testIntegrationKey", "user@email.com", "en-US", "Android 14")
    params = {"zipcode": "94403", "subscribed": "true", "name": "testUser", "age": "35.9"}
    request = registration("android", fields, params, android_xml)
    for fragment in ["userKey=user%40email.com&", "osName=android&", "osLanguage=en-US&",
                     "subscribed%22%20value%3D%22true", "zipcode%22%20value%3D%2294403",
                     "name%22%20value%3D%22testUser", "age%22%20value%3D%2235.9"]:
        assert fragment in request["body"], fragment
    write("registration-android-instrumented.json", "Android instrumented registerDevice with typed params",
          "docs/protocol.md §9 item 6", [ANDROID_APP],
          [{"request": request, "response": ok(),
            "stored": device("testToken", "testIntegrationKey", "user@email.com",
                             {"zipcode": ["integer", "94403"], "subscribed": ["boolean", "true"],
                              "name": ["string", "testUser"], "age": ["decimal", "35.9"]}, fields)}])

    # docs/protocol.md §9 item 5: the Android type vectors.
    params = {"company": "xxx.corp", "isRegistered": "true", "serial": "12345", "float": "3.14", "double": "6.75",
              "long": "500", "byte": "100", "char": "97", "short": "200"}
    kinds = {"company": "string", "isRegistered": "boolean", "float": "decimal", "double": "decimal"}
    fields = android_fields("typesToken", "testIntegrationKey", "testUser")
    write("registration-android-types.json", "Android additionalParams of every Java type the serializer handles",
          "docs/protocol.md §9 item 5", [ANDROID_APP],
          [{"request": registration("android", fields, params, android_xml), "response": ok(),
            "stored": device("typesToken", "testIntegrationKey", "testUser",
                             {k: [kinds.get(k, "integer"), v] for k, v in params.items()}, fields)}])

    # docs/protocol.md §3.4 escaping vectors, both platforms; no double unescaping.
    value = "'h>e&l\"l<o'"
    ios = ios_fields("escapeIOS", "integrationKey", "userkey")
    ios_request = registration("ios", ios, {"k": value}, ios_xml)
    assert "%26%23x27%3Bh%26gt%3Be%26amp%3Bl%26quot%3Bl%26lt%3Bo%26%23x27%3B" in ios_request["body"]
    android = android_fields("escapeAndroid", "testIntegrationKey", "testUser")
    android_request = registration("android", android, {"k": value + "\r\n"}, android_xml)
    assert "%26%2339%3Bh%26gt%3Be%26amp%3Bl%26quot%3Bl%26lt%3Bo%26%2339%3B" in android_request["body"]
    write("registration-escaping.json", "additionalParams escaping of both SDKs decodes to the original value",
          "docs/protocol.md §3.4", [IOS_APP, ANDROID_APP],
          [{"request": ios_request, "response": ok(),
            "stored": device("escapeIOS", "integrationKey", "userkey", {"k": ["string", value]}, ios)},
           {"request": android_request, "response": ok(),
            "stored": device("escapeAndroid", "testIntegrationKey", "testUser", {"k": ["string", value]}, android)}])

    # docs/product.md §3.1: the documented refusals.
    good = ios_fields("70757368546f6b656e", "integrationKey", "userkey")
    def refused(fields, status, reply, target="/nms/mobile/1/registerIOS.jssp", content_type=FORM, method="POST"):
        return {"request": {"method": method, "target": target, "headers": [["Content-Type", content_type]],
                            "body": body(fields) if method == "POST" else ""},
                "response": {"status": status, "body": reply}, "stored": {"devices": 0}}
    write("registration-refusals.json", "Every refusal of docs/product.md §3.1 with its status and errorReason body",
          "docs/product.md §3.1", [IOS_APP, ANDROID_APP, {"platform": "ios", "integrationKey": "pausedKey",
                                                     "name": "Paused app", "enabled": False}],
          [refused([p for p in good if p[0] != "mobileAppUuid"], 400, "Missing integration key (mobileAppUuid)"),
           refused([(k, "nope" if k == "mobileAppUuid" else v) for k, v in good], 404,
                   "Unknown integration key (mobileAppUuid): nope"),
           refused(good, 400, "Integration key integrationKey belongs to an iOS application",
                   target="/nms/mobile/1/registerAndroid.jssp"),
           refused([(k, "pausedKey" if k == "mobileAppUuid" else v) for k, v in good], 403,
                   "Application Paused app is disabled"),
           refused([(k, "" if k == "registrationToken" else v) for k, v in good], 400, "Missing registrationToken"),
           refused(good, 415, "Expected Content-Type application/x-www-form-urlencoded, got 'application/json'",
                   content_type="application/json"),
           refused(good, 405, "Registration takes POST", method="GET")])

    # docs/protocol.md §4.4: every tracking vector.
    vectors = [
        ("h3039,testDeliveryId,1", "3039", "12345", None, "testDeliveryId", 1),
        ("h3039,testDeliveryId,2", "3039", "12345", None, "testDeliveryId", 2),
        ("h6b6499a8-9d43-4bc5-acf0-b6aeb96846f6,testDeliveryId,1", None, None,
         "6b6499a8-9d43-4bc5-acf0-b6aeb96846f6", "testDeliveryId", 1),
        ("h6b6499a8-9d43-4bc5-acf0-b6aeb96846f6,testDeliveryId,2", None, None,
         "6b6499a8-9d43-4bc5-acf0-b6aeb96846f6", "testDeliveryId", 2),
        ("hd7e15e5c,testDeliveryId,1", "d7e15e5c", "3621871196", None, "testDeliveryId", 1),
        ("h281ea1a4,testDeliveryId,1", "281ea1a4", "673096100", None, "testDeliveryId", 1),
        ("h34aa061c0c56,testDeliveryId,1", "34aa061c0c56", "57904851586134", None, "testDeliveryId", 1),
        ("h80000000,testDeliveryId,1", "80000000", "2147483648", None, "testDeliveryId", 1),
        ("h7fffffffffffffff,testDeliveryId,1", "7fffffffffffffff", "9223372036854775807", None, "testDeliveryId", 1),
        ("hbb9ae1d2,testDeliveryId,1", "bb9ae1d2", "3147489746", None, "testDeliveryId", 1),
        ("h9a1c61c0,testDeliveryId,1", "9a1c61c0", "2585551296", None, "testDeliveryId", 1),
        ("h65e39e40,testDeliveryId,1", "65e39e40", "1709416000", None, "testDeliveryId", 1),
        ("hd828,deliveryId,2", "d828", "55336", None, "deliveryId", 2),
        ("hffffffffd7e15e5c,testDeliveryId,1", "ffffffffd7e15e5c", "18446744073036455516", None, "testDeliveryId", 1),
    ]
    write("tracking-vectors.json", "Every push tracking hit of the SDK tests: 200, empty body, decoded event",
          "docs/protocol.md §4.4, plus the 64-bit form older Android extensions send for a negative id (§4.2)", [],
          [{"request": {"method": "GET", "target": f"/r/?id={raw}", "headers": [], "body": ""},
            "response": {"status": 200, "body": ""},
            "stored": {"event": {"rawId": raw, "messageHex": hex_id, "messageValue": value, "messageUuid": uuid,
                                 "deliveryId": delivery, "tag": tag}}}
           for raw, hex_id, value, uuid, delivery, tag in vectors])

    # docs/protocol.md §5.7: health pages. The timestamps are matched by shape when replayed; the build and
    # host names depend on the server, so they are placeholders, which match any value.
    write("health-pages.json", "The marketing and tracking servers' health pages", "docs/protocol.md §5.7", [],
          [{"request": {"method": "GET", "target": "/nl/jsp/ping.jsp", "headers": [], "body": ""},
            "response": {"status": 200, "body": "OK\n2026-01-01 00:00:00.000Z\n"}},
           {"request": {"method": "GET", "target": "/r/test", "headers": [], "body": ""},
            "response": {"status": 200, "body": "<redir status='OK' date='2026-01-01 00:00:00.000Z' "
                                                "build='redacted-build-1' host='redacted-host-1' "
                                                "localHost='redacted-localHost-1'/>\n"}}])

if __name__ == "__main__":
    main()
