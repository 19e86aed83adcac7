#!/usr/bin/env python3
"""Writes Fuzz/corpus/<target>/: the seed inputs of the fuzz targets, taken from the SDK exchanges in
Fixtures/sdk/ (requests, form bodies, additionalParams, tracking ids) plus SOAP envelopes of every
method the router speaks. Run it from anywhere: python3 Fuzz/make-corpus.py.
"""
import glob
import hashlib
import json
import os
import shutil
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "corpus")

ENVELOPE = ('<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:urn="urn:{service}">'
            '<soapenv:Header/><soapenv:Body><urn:{method}>{parameters}</urn:{method}></soapenv:Body></soapenv:Envelope>')
SOAP = [
    ("xtk:session", "Logon", "<urn:sessiontoken/><urn:strLogin>admin</urn:strLogin><urn:strPassword>admin</urn:strPassword>"
                             "<urn:elemParameters/>"),
    ("xtk:session", "Logoff", "<urn:sessiontoken>___0F4E6B3C-1C1E-4C39-9C0B-8E8E2E7E1A11</urn:sessiontoken>"),
    ("xtk:queryDef", "ExecuteQuery", "<urn:sessiontoken>admin/admin</urn:sessiontoken><urn:entity><queryDef "
     "schema='nms:appSubscriptionRcp' operation='select' lineCount='10'><select><node expr='@userKey'/></select>"
     "<where><condition expr=\"@registrationToken = 'abc' and (@created &gt; '2026-01-01' or @disabled = 0)\"/>"
     "</where><orderBy><node expr='@id' sortDesc='true'/></orderBy></queryDef></urn:entity>"),
    ("nms:subscription", "Subscribe", "<urn:sessiontoken>admin/admin</urn:sessiontoken><urn:strServiceName>Demo iOS app"
     "</urn:strServiceName><urn:elemRecipient><recipient _key='@email' email='a@b.c'/></urn:elemRecipient>"
     "<urn:bCreate>true</urn:bCreate>"),
    ("nms:rtEvent", "PushEvent", "<urn:sessiontoken>admin/admin</urn:sessiontoken><urn:domEvent><rtEvent "
     "wishedChannel='41' registrationToken='6e6577'><mobileApp uuid='integrationKey'/><ctx><title>Hi</title>"
     "</ctx></rtEvent></urn:domEvent>"),
]


def add(target, data):
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(directory, name), "wb") as handle:
        handle.write(data)


def main():
    shutil.rmtree(CORPUS, ignore_errors=True)
    for path in sorted(glob.glob(os.path.join(ROOT, "Fixtures", "sdk", "*", "0*.json"))):
        with open(path, encoding="utf-8") as handle:
            request = json.load(handle)["request"]
        body = request.get("body", "").encode("utf-8")
        head = f"{request['method']} {request['target']} HTTP/1.1\r\nHost: fixture\r\n"
        head += "".join(f"{line}\r\n" for line in request["headers"])
        if body:
            head += f"Content-Length: {len(body)}\r\n"
        add("http-request", head.encode("utf-8") + b"\r\n" + body)
        if "form" in request:
            add("form", body)
            for field in urllib.parse.parse_qsl(request["body"], keep_blank_values=True):
                if field[0] == "additionalParams" and field[1]:
                    add("additional-params", field[1].encode("utf-8"))
        if request["target"].startswith("/r/?id="):
            add("tracking-id", urllib.parse.unquote(request["target"][len("/r/?id="):]).encode("utf-8"))
    for service, method, parameters in SOAP:
        add("soap-envelope", ENVELOPE.format(service=service, method=method, parameters=parameters).encode("utf-8"))
    add("http-request", b"POST /r/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    for target in sorted(os.listdir(CORPUS)):
        print(target, len(os.listdir(os.path.join(CORPUS, target))))


if __name__ == "__main__":
    main()
