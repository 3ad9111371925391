"""CRD versions and conversion end to end: a CronTab CRD served as v1 (storage, spec.cronSpec) and v2
(spec.schedule), converted by a conversion webhook this module runs itself (HTTPS on its own CA, the CA
given as caBundle). Objects written in one version are read, listed, watched and patched in the other;
a failing webhook gives kube's error and nothing is written; storedVersions follows the storage version.
"""

from __future__ import annotations

import base64
import copy
import datetime
import ipaddress
import json
import socket
import ssl
import tempfile
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from e2e_helpers import apply_crd

GROUP = "stable.example.com"
CRD_NAME = f"crontabs.{GROUP}"
V1 = f"{GROUP}/v1"
V2 = f"{GROUP}/v2"


# --- a small conversion webhook --------------------------------------------------------------------------------


def _cert(subject: str, key, issuer_name, issuer_key, *, ca: bool, ips=(), dns=()) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .issuer_name(issuer_name or x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=2))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    names = [x509.IPAddress(ipaddress.ip_address(ip)) for ip in ips] + [x509.DNSName(d) for d in dns]
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return builder.sign(issuer_key or key, hashes.SHA256())


def make_ca(name: str = "conversion-webhook-ca") -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    return _cert(name, key, None, None, ca=True), key


class ConversionWebhook:
    """converts CronTabs: v1 spec.cronSpec <-> v2 spec.schedule. mode: "ok", "fail" (result Failure),
    "wrong-uid" (answers another request's uid), "count" (no converted objects)."""

    def __init__(self, ips: list[str], dns: list[str]) -> None:
        self.ca, ca_key = make_ca()
        key = ec.generate_private_key(ec.SECP256R1())
        cert = _cert("conversion-webhook", key, self.ca.subject, ca_key, ca=False, ips=ips, dns=dns)
        self.ca_pem = self.ca.public_bytes(serialization.Encoding.PEM)
        self._dir = Path(tempfile.mkdtemp(prefix="conversion-webhook-"))
        (self._dir / "tls.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        (self._dir / "tls.key").write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
        self.mode = "ok"
        self.reviews: list[dict] = []
        hook = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                review = json.loads(body)
                hook.reviews.append({"path": self.path, "review": review})
                out = json.dumps(hook.answer(review)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(self._dir / "tls.crt", self._dir / "tls.key")
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def ca_bundle(self) -> str:
        return base64.b64encode(self.ca_pem).decode()

    def answer(self, review: dict) -> dict:
        request = review["request"]
        response: dict = {"uid": request["uid"], "result": {"status": "Success"}}
        if self.mode == "fail":
            response["result"] = {"status": "Failure", "message": "cronSpec cannot be converted today"}
        elif self.mode == "wrong-uid":
            response["uid"] = "not-the-request-uid"
        elif self.mode == "count":
            response["convertedObjects"] = []
        if "convertedObjects" not in response and response["result"]["status"] == "Success":
            response["convertedObjects"] = [convert(o, request["desiredAPIVersion"]) for o in request["objects"]]
        return {"apiVersion": review["apiVersion"], "kind": "ConversionReview", "response": response}

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def convert(obj: dict, desired: str) -> dict:
    out = copy.deepcopy(obj)
    spec = out.setdefault("spec", {})
    if desired.endswith("/v2") and "cronSpec" in spec:
        spec["schedule"] = spec.pop("cronSpec")
    elif desired.endswith("/v1") and "schedule" in spec:
        spec["cronSpec"] = spec.pop("schedule")
    out["apiVersion"] = desired
    return out


def host_ip() -> str | None:
    """A non-loopback address of this machine (an EndpointSlice may not point at loopback)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 9))
            ip = s.getsockname()[0]
    except OSError:
        return None
    return None if ipaddress.ip_address(ip).is_loopback else ip


# --- the CRD -------------------------------------------------------------------------------------------------


def _version(name: str, field: str, storage: bool) -> dict:
    props = {field: {"type": "string"}, "image": {"type": "string"}, "replicas": {"type": "integer"}}
    return {
        "name": name,
        "served": True,
        "storage": storage,
        "schema": {
            "openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": props}}}
        },
    }


def crontab_crd(group: str, client_config: dict, review_versions: list[str] | None = None) -> dict:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"crontabs.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab", "shortNames": ["ct"]},
            "versions": [_version("v1", "cronSpec", True), _version("v2", "schedule", False)],
            "conversion": {
                "strategy": "Webhook",
                "webhook": {"clientConfig": client_config, "conversionReviewVersions": review_versions or ["v1"]},
            },
        },
    }


def delete_crd(server, name: str) -> None:
    server.kubectl("delete", "crd", name, "--ignore-not-found", "--wait=false")


@pytest.fixture(scope="module")
def webhook_ns() -> str:
    return f"webhooks-{uuid.uuid4().hex[:6]}"


@pytest.fixture(scope="module")
def webhook(webhook_ns):
    hook = ConversionWebhook(["127.0.0.1"], [f"crontab-conversion.{webhook_ns}.svc"])
    yield hook
    hook.close()


@pytest.fixture(scope="module")
def crontabs(server, webhook):
    crd = crontab_crd(GROUP, {"url": f"https://127.0.0.1:{webhook.port}/convert", "caBundle": webhook.ca_bundle})
    apply_crd(server, crd)
    yield crd
    delete_crd(server, CRD_NAME)


@pytest.fixture
def hook(webhook):
    webhook.mode = "ok"
    webhook.reviews.clear()
    yield webhook
    webhook.mode = "ok"


def crontab(name: str, version: str = "v1", schedule: str = "*/1 * * * *") -> dict:
    field = "cronSpec" if version == "v1" else "schedule"
    return {
        "apiVersion": f"{GROUP}/{version}",
        "kind": "CronTab",
        "metadata": {"name": name, "labels": {"app": "cron"}},
        "spec": {field: schedule, "image": "my-cron-image", "replicas": 2},
    }


def path(ns: str, version: str, name: str = "") -> str:
    return f"/apis/{GROUP}/{version}/namespaces/{ns}/crontabs" + (f"/{name}" if name else "")


# --- reads and writes across versions -----------------------------------------------------------------------------


def test_read_in_the_other_version(server, crontabs, hook, ns):
    server.kubectl("apply", "-n", ns, "-f", "-", input=json.dumps(crontab("daily")))
    out = json.loads(server.kubectl("get", "-n", ns, f"crontabs.v2.{GROUP}", "daily", "-o", "json").stdout)
    assert out["apiVersion"] == V2
    assert out["spec"] == {"schedule": "*/1 * * * *", "image": "my-cron-image", "replicas": 2}
    assert out["metadata"]["labels"] == {"app": "cron"}
    v1 = server.request("GET", path(ns, "v1", "daily")).json()
    assert v1["apiVersion"] == V1
    assert v1["spec"]["cronSpec"] == "*/1 * * * *"
    assert v1["metadata"]["uid"] == out["metadata"]["uid"]
    assert v1["metadata"]["resourceVersion"] == out["metadata"]["resourceVersion"]
    # the webhook was asked, in the ConversionReview version the CRD lists, for the stored v1 object
    reviews = [r for r in hook.reviews if r["review"]["request"]["desiredAPIVersion"] == V2]
    assert reviews, hook.reviews
    assert reviews[0]["path"] == "/convert?timeout=30s"
    assert reviews[0]["review"]["apiVersion"] == "apiextensions.k8s.io/v1"
    assert reviews[0]["review"]["kind"] == "ConversionReview"
    sent = [o for r in reviews for o in r["review"]["request"]["objects"]]
    assert any(o["apiVersion"] == V1 and o["metadata"]["name"] == "daily" for o in sent)


def test_create_in_v2_is_stored_in_v1(server, crontabs, hook, ns):
    r = server.request("POST", path(ns, "v2"), json=crontab("hourly", "v2", "0 * * * *"))
    assert r.status_code == 201, r.text
    created = r.json()
    assert created["apiVersion"] == V2
    assert created["spec"]["schedule"] == "0 * * * *"
    # written through the webhook in the storage version
    to_v1 = [r for r in hook.reviews if r["review"]["request"]["desiredAPIVersion"] == V1]
    assert to_v1 and to_v1[0]["review"]["request"]["objects"][0]["spec"] == {
        "schedule": "0 * * * *",
        "image": "my-cron-image",
        "replicas": 2,
    }
    v1 = server.request("GET", path(ns, "v1", "hourly")).json()
    assert v1["spec"] == {"cronSpec": "0 * * * *", "image": "my-cron-image", "replicas": 2}


def test_list_in_both_versions(server, crontabs, hook, ns):
    server.request("POST", path(ns, "v1"), json=crontab("a", "v1", "1 * * * *")).raise_for_status()
    server.request("POST", path(ns, "v2"), json=crontab("b", "v2", "2 * * * *")).raise_for_status()
    for version, field in (("v1", "cronSpec"), ("v2", "schedule")):
        body = server.request("GET", path(ns, version)).json()
        assert body["apiVersion"] == f"{GROUP}/{version}"
        assert body["kind"] == "CronTabList"
        items = {i["metadata"]["name"]: i for i in body["items"]}
        assert set(items) == {"a", "b"}
        assert {i["apiVersion"] for i in items.values()} == {f"{GROUP}/{version}"}
        assert items["a"]["spec"][field] == "1 * * * *"
        assert items["b"]["spec"][field] == "2 * * * *"
    table = server.kubectl("get", "-n", ns, f"crontabs.v2.{GROUP}", "-o", "name").stdout.split()
    assert sorted(table) == [f"crontab.{GROUP}/a", f"crontab.{GROUP}/b"]


def test_watch_in_both_versions(server, crontabs, hook, ns):
    server.request("POST", path(ns, "v1"), json=crontab("first", "v1", "5 * * * *")).raise_for_status()
    streams = {
        v: server.request("GET", path(ns, v) + "?watch=true&timeoutSeconds=5", stream=True) for v in ("v1", "v2")
    }
    try:
        server.request("POST", path(ns, "v2"), json=crontab("second", "v2", "6 * * * *")).raise_for_status()
        patch = {"spec": {"cronSpec": "7 * * * *"}}
        r = server.request(
            "PATCH",
            path(ns, "v1", "first"),
            data=json.dumps(patch),
            headers={"Content-Type": "application/merge-patch+json"},
        )
        assert r.status_code == 200, r.text
        for version, field in (("v1", "cronSpec"), ("v2", "schedule")):
            seen = []
            for line in streams[version].iter_lines():
                seen.append(json.loads(line))
                if len(seen) == 3:
                    break
            assert [(e["type"], e["object"]["metadata"]["name"]) for e in seen] == [
                ("ADDED", "first"),
                ("ADDED", "second"),
                ("MODIFIED", "first"),
            ]
            assert {e["object"]["apiVersion"] for e in seen} == {f"{GROUP}/{version}"}
            assert [e["object"]["spec"][field] for e in seen] == ["5 * * * *", "6 * * * *", "7 * * * *"]
    finally:
        for s in streams.values():
            s.close()


def test_patch_and_apply_through_v2(server, crontabs, hook, ns):
    server.kubectl("apply", "-n", ns, "-f", "-", input=json.dumps(crontab("patched")))
    server.kubectl(
        "patch",
        "-n",
        ns,
        f"crontabs.v2.{GROUP}",
        "patched",
        "--type=merge",
        "-p",
        '{"spec":{"schedule":"*/5 * * * *"}}',
    )
    v1 = server.request("GET", path(ns, "v1", "patched")).json()
    assert v1["spec"]["cronSpec"] == "*/5 * * * *"
    assert "schedule" not in v1["spec"]
    # a JSON patch addressed in v2's fields
    ops = [{"op": "replace", "path": "/spec/schedule", "value": "*/6 * * * *"}]
    r = server.request(
        "PATCH",
        path(ns, "v2", "patched"),
        data=json.dumps(ops),
        headers={"Content-Type": "application/json-patch+json"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["apiVersion"] == V2 and r.json()["spec"]["schedule"] == "*/6 * * * *"
    # server-side apply in v2
    applied = crontab("patched", "v2", "*/7 * * * *")
    server.kubectl("apply", "--server-side", "--force-conflicts", "-n", ns, "-f", "-", input=json.dumps(applied))
    v1 = server.request("GET", path(ns, "v1", "patched")).json()
    assert v1["spec"]["cronSpec"] == "*/7 * * * *"
    assert v1["metadata"]["generation"] == 4


def test_delete_responses_are_converted(server, crontabs, hook, ns):
    held = crontab("held", "v1", "8 * * * *")
    held["metadata"]["finalizers"] = ["example.com/hold"]
    for obj in (held, crontab("x", "v1", "9 * * * *"), crontab("y", "v1", "9 * * * *")):
        server.request("POST", path(ns, "v1"), json=obj).raise_for_status()
    # an object that waits for its finalizer comes back, marked, in the version asked for
    r = server.request("DELETE", path(ns, "v2", "held"))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["apiVersion"] == V2 and body["spec"]["schedule"] == "8 * * * *"
    assert body["metadata"]["deletionTimestamp"]
    patch = {"metadata": {"finalizers": None}}
    r = server.request(
        "PATCH",
        path(ns, "v2", "held"),
        data=json.dumps(patch),
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["apiVersion"] == V2
    assert server.request("GET", path(ns, "v1", "held")).status_code == 404
    # an immediate delete answers a Status (custom resources do not return the deleted object)
    r = server.request("DELETE", path(ns, "v2", "x"))
    assert r.status_code == 200, r.text
    assert r.json()["kind"] == "Status" and r.json()["status"] == "Success"
    assert r.json()["details"]["name"] == "x"
    # deletecollection answers the deleted objects, converted
    r = server.request("DELETE", path(ns, "v2"))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["kind"] == "CronTabList" and body["apiVersion"] == V2
    assert [(i["apiVersion"], i["metadata"]["name"], i["spec"]["schedule"]) for i in body["items"]] == [
        (V2, "y", "9 * * * *")
    ]
    assert server.request("GET", path(ns, "v1")).json()["items"] == []


# --- a failing webhook ---------------------------------------------------------------------------------------


def test_failing_webhook_writes_nothing(server, crontabs, hook, ns):
    server.request("POST", path(ns, "v1"), json=crontab("kept")).raise_for_status()
    hook.mode = "fail"
    r = server.request("POST", path(ns, "v2"), json=crontab("refused", "v2"))
    assert r.status_code == 500
    assert r.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f"conversion webhook for {V2}, Kind=CronTab failed: cronSpec cannot be converted today",
        "code": 500,
    }
    res = server.kubectl("get", "-n", ns, f"crontabs.v2.{GROUP}", "kept", check=False)
    assert res.returncode == 1
    assert res.stderr.strip() == (
        f"Error from server: conversion webhook for {V1}, Kind=CronTab failed: cronSpec cannot be converted today"
    )
    patch = {"spec": {"schedule": "0 0 * * *"}}
    r = server.request(
        "PATCH",
        path(ns, "v2", "kept"),
        data=json.dumps(patch),
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert r.status_code == 500
    assert r.json()["message"].startswith(f"conversion webhook for {V1}, Kind=CronTab failed:")
    hook.mode = "wrong-uid"
    r = server.request("GET", path(ns, "v2", "kept"))
    assert r.status_code == 500
    assert r.json()["message"].startswith(
        f'conversion webhook for {V1}, Kind=CronTab failed: expected response.uid="'
    ) and r.json()["message"].endswith('", got "not-the-request-uid"')
    hook.mode = "count"
    r = server.request("GET", path(ns, "v2"))
    assert r.status_code == 500
    assert r.json()["message"] == f"conversion webhook for {V1}, Kind=CronTab returned 0 objects, expected 1"
    # nothing was written: the v1 view (no conversion needed) shows the one object, unchanged
    hook.mode = "ok"
    items = server.request("GET", path(ns, "v1")).json()["items"]
    assert [(i["metadata"]["name"], i["spec"]["cronSpec"]) for i in items] == [("kept", "*/1 * * * *")]
    # the webhook is back: v2 reads again
    r = server.request("GET", path(ns, "v2", "kept"))
    assert r.status_code == 200 and r.json()["spec"]["schedule"] == "*/1 * * * *"


def test_unreachable_webhook(server, hook, ns):
    group = f"down{uuid.uuid4().hex[:6]}.example.com"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed when the block ends: nothing listens there
    crd = crontab_crd(group, {"url": f"https://127.0.0.1:{port}/convert", "caBundle": hook.ca_bundle})
    apply_crd(server, crd)
    try:
        body = crontab("x", "v2")
        body["apiVersion"] = f"{group}/v2"
        r = server.request("POST", f"/apis/{group}/v2/namespaces/{ns}/crontabs", json=body)
        assert r.status_code == 500
        assert r.json()["message"] == (
            f"conversion webhook for {group}/v2, Kind=CronTab failed: "
            f'Post "https://127.0.0.1:{port}/convert?timeout=30s": dial tcp 127.0.0.1:{port}: connect: connection refused'
        )
        assert server.request("GET", f"/apis/{group}/v1/namespaces/{ns}/crontabs").json()["items"] == []
    finally:
        delete_crd(server, crd["metadata"]["name"])


def test_webhook_certificate_not_trusted(server, hook, ns):
    group = f"badtls{uuid.uuid4().hex[:6]}.example.com"
    other_ca, _ = make_ca("another-ca")
    bundle = base64.b64encode(other_ca.public_bytes(serialization.Encoding.PEM)).decode()
    crd = crontab_crd(group, {"url": f"https://127.0.0.1:{hook.port}/convert", "caBundle": bundle})
    apply_crd(server, crd)
    try:
        body = crontab("x", "v2")
        body["apiVersion"] = f"{group}/v2"
        r = server.request("POST", f"/apis/{group}/v2/namespaces/{ns}/crontabs", json=body)
        assert r.status_code == 500
        assert r.json()["message"] == (
            f"conversion webhook for {group}/v2, Kind=CronTab failed: "
            f'Post "https://127.0.0.1:{hook.port}/convert?timeout=30s": '
            "tls: failed to verify certificate: x509: certificate signed by unknown authority"
        )
        assert [x for x in hook.reviews if group in x["review"]["request"]["desiredAPIVersion"]] == []
    finally:
        delete_crd(server, crd["metadata"]["name"])


def test_v1beta1_review_when_listed_alone(server, hook, ns):
    group = f"beta{uuid.uuid4().hex[:6]}.example.com"
    cc = {"url": f"https://127.0.0.1:{hook.port}/beta", "caBundle": hook.ca_bundle}
    crd = crontab_crd(group, cc, ["v1beta1", "v1"])
    apply_crd(server, crd)
    try:
        body = crontab("x", "v2")
        body["apiVersion"] = f"{group}/v2"
        r = server.request("POST", f"/apis/{group}/v2/namespaces/{ns}/crontabs", json=body)
        assert r.status_code == 201, r.text
        mine = [x for x in hook.reviews if x["path"] == "/beta?timeout=30s"]
        assert mine and {x["review"]["apiVersion"] for x in mine} == {"apiextensions.k8s.io/v1beta1"}
    finally:
        delete_crd(server, crd["metadata"]["name"])


def test_webhook_through_a_service(server, webhook_ns, hook, ns):
    ip = host_ip()
    if ip is None:
        pytest.skip("no non-loopback address on this machine")
    server.kubectl("create", "namespace", webhook_ns)
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "crontab-conversion", "namespace": webhook_ns},
        "spec": {"ports": [{"name": "https", "port": 443, "targetPort": 9443}]},
    }
    eps = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {
            "name": "crontab-conversion-1",
            "namespace": webhook_ns,
            "labels": {"kubernetes.io/service-name": "crontab-conversion"},
        },
        "addressType": "IPv4",
        "endpoints": [{"addresses": [ip], "conditions": {"ready": True}}],
        "ports": [{"name": "https", "port": hook.port, "protocol": "TCP"}],
    }
    for obj in (svc, eps):
        server.kubectl("apply", "-f", "-", input=json.dumps(obj))
    group = f"svc{uuid.uuid4().hex[:6]}.example.com"
    cc = {
        "service": {"namespace": webhook_ns, "name": "crontab-conversion", "path": "/crontabs"},
        "caBundle": hook.ca_bundle,
    }
    crd = crontab_crd(group, cc)
    apply_crd(server, crd)
    try:
        stored = json.loads(server.kubectl("get", "crd", f"crontabs.{group}", "-o", "json").stdout)
        assert stored["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["port"] == 443
        body = crontab("x", "v2", "3 3 * * *")
        body["apiVersion"] = f"{group}/v2"
        r = server.request("POST", f"/apis/{group}/v2/namespaces/{ns}/crontabs", json=body)
        assert r.status_code == 201, r.text
        # to v1 for storage, back to v2 for the response (and, maybe, the v2 watch cache's own)
        paths = [x["path"] for x in hook.reviews if group in x["review"]["request"]["desiredAPIVersion"]]
        assert len(paths) >= 2 and set(paths) == {"/crontabs?timeout=30s"}
        got = server.request("GET", f"/apis/{group}/v1/namespaces/{ns}/crontabs/x").json()
        assert got["spec"]["cronSpec"] == "3 3 * * *"
    finally:
        delete_crd(server, crd["metadata"]["name"])
    # kube's resolver errors: a service that does not exist, a headless one without endpoints
    headless = {**svc, "metadata": {"name": "headless", "namespace": webhook_ns}}
    headless["spec"] = {**svc["spec"], "clusterIP": "None"}
    server.kubectl("apply", "-f", "-", input=json.dumps(headless))
    try:
        for service, error in (
            ("missing", 'service "missing" not found'),
            ("headless", 'no endpoints available for service "headless"'),
        ):
            group = f"svc{uuid.uuid4().hex[:6]}.example.com"
            cc = {"service": {"namespace": webhook_ns, "name": service}, "caBundle": hook.ca_bundle}
            crd = crontab_crd(group, cc)
            apply_crd(server, crd)
            try:
                body = crontab("x", "v2")
                body["apiVersion"] = f"{group}/v2"
                r = server.request("POST", f"/apis/{group}/v2/namespaces/{ns}/crontabs", json=body)
                assert r.status_code == 500
                assert r.json()["message"] == (
                    f"conversion webhook for {group}/v2, Kind=CronTab failed: "
                    f'Post "https://{service}.{webhook_ns}.svc:443/?timeout=30s": {error}'
                )
            finally:
                delete_crd(server, crd["metadata"]["name"])
    finally:
        server.request("DELETE", f"/api/v1/namespaces/{webhook_ns}")


# --- storedVersions -------------------------------------------------------------------------------------------


def test_stored_versions_follow_the_storage_version(server, hook):
    group = f"stored{uuid.uuid4().hex[:6]}.example.com"
    name = f"crontabs.{group}"
    crd = crontab_crd(group, {"url": f"https://127.0.0.1:{hook.port}/convert", "caBundle": hook.ca_bundle})
    apply_crd(server, crd)
    try:
        get = lambda: json.loads(server.kubectl("get", "crd", name, "-o", "json").stdout)  # noqa: E731
        assert get()["status"]["storedVersions"] == ["v1"]
        # v2 becomes the storage version: both are stored versions now
        crd["spec"]["versions"][0]["storage"] = False
        crd["spec"]["versions"][1]["storage"] = True
        server.kubectl("apply", "-f", "-", input=json.dumps(crd))
        assert get()["status"]["storedVersions"] == ["v1", "v2"]
        # v1 may not leave spec.versions while objects may still be stored in it
        dropped = copy.deepcopy(crd)
        dropped["spec"]["versions"] = [crd["spec"]["versions"][1]]
        res = server.kubectl("apply", "-f", "-", input=json.dumps(dropped), check=False)
        assert res.returncode == 1
        assert res.stderr.strip() == (
            f'The CustomResourceDefinition "{name}" is invalid: status.storedVersions[0]: '
            'Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, and must remain '
            "in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 "
            "from status.storedVersions"
        )
        # once migrated, storedVersions is trimmed through the status subresource, and v1 can go
        server.kubectl(
            "patch",
            "crd",
            name,
            "--subresource=status",
            "--type=json",
            "-p",
            '[{"op":"replace","path":"/status/storedVersions","value":["v2"]}]',
        )
        assert get()["status"]["storedVersions"] == ["v2"]
        server.kubectl("apply", "-f", "-", input=json.dumps(dropped))
        assert [v["name"] for v in get()["spec"]["versions"]] == ["v2"]
        assert get()["status"]["storedVersions"] == ["v2"]
    finally:
        delete_crd(server, name)


# --- validation of spec.conversion --------------------------------------------------------------------------------


def _invalid(server, conversion: dict) -> list[str]:
    group = f"inv{uuid.uuid4().hex[:6]}.example.com"
    crd = crontab_crd(group, {"url": "https://example.com"})
    crd["spec"]["conversion"] = conversion
    r = server.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd)
    assert r.status_code == 422, r.text
    return [f"{c['field']}: {c['message']}" for c in r.json()["details"]["causes"]]


def test_conversion_validation(server):
    assert _invalid(server, {"strategy": "Webhook"}) == [
        "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook",
        "spec.conversion.conversionReviewVersions: Required value",
    ]
    assert _invalid(
        server, {"strategy": "Webhook", "webhook": {"clientConfig": {}, "conversionReviewVersions": ["v1"]}}
    ) == ["spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required"]
    url = "http://user:pw@example.com/convert?x=1#frag"
    assert _invalid(
        server, {"strategy": "Webhook", "webhook": {"clientConfig": {"url": url}, "conversionReviewVersions": ["v1"]}}
    ) == [
        "spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
        'spec.conversion.webhookClientConfig.url: Invalid value: "user:pw": user information is not permitted in the URL',
        'spec.conversion.webhookClientConfig.url: Invalid value: "frag": fragments are not permitted in the URL',
        'spec.conversion.webhookClientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL',
    ]
    svc = {"service": {"name": "", "namespace": "ns", "path": "no-slash", "port": 0}, "url": None}
    del svc["url"]
    assert _invalid(
        server,
        {"strategy": "Webhook", "webhook": {"clientConfig": svc, "conversionReviewVersions": ["v1", "v1", "v9"]}},
    ) == [
        "spec.conversion.webhookClientConfig.service.name: Required value: service name is required",
        "spec.conversion.webhookClientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive",
        "spec.conversion.webhookClientConfig.service.path: Invalid value: \"no-slash\": must start with a '/'",
        'spec.conversion.conversionReviewVersions[1]: Invalid value: "v1": duplicate version',
    ]
    assert _invalid(
        server,
        {
            "strategy": "Webhook",
            "webhook": {"clientConfig": {"url": "https://example.com"}, "conversionReviewVersions": ["v9"]},
        },
    ) == [
        'spec.conversion.conversionReviewVersions: Invalid value: []string{"v9"}: must include at least one of v1, v1beta1'
    ]
    assert _invalid(
        server,
        {
            "strategy": "None",
            "webhook": {"clientConfig": {"url": "https://example.com"}, "conversionReviewVersions": ["v1"]},
        },
    ) == [
        "spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook",
        "spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook",
    ]
    assert _invalid(server, {"strategy": "Magic"}) == [
        'spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"'
    ]


def test_none_strategy_prunes_what_the_other_version_lacks(server, ns):
    """strategy None: apiVersion changes, and fields the target version's schema does not have are dropped."""
    group = f"none{uuid.uuid4().hex[:6]}.example.com"
    crd = crontab_crd(group, {})
    crd["spec"]["conversion"] = {"strategy": "None"}
    apply_crd(server, crd)
    try:
        body = crontab("x", "v2", "1 2 * * *")
        body["apiVersion"] = f"{group}/v2"
        r = server.request("POST", f"/apis/{group}/v2/namespaces/{ns}/crontabs", json=body)
        assert r.status_code == 201, r.text
        # stored in v1, whose schema has no spec.schedule: dropped on the way to storage
        got = server.request("GET", f"/apis/{group}/v1/namespaces/{ns}/crontabs/x").json()
        assert got["apiVersion"] == f"{group}/v1"
        assert got["spec"] == {"image": "my-cron-image", "replicas": 2}
        back = server.request("GET", f"/apis/{group}/v2/namespaces/{ns}/crontabs/x").json()
        assert back["apiVersion"] == f"{group}/v2" and back["spec"] == {"image": "my-cron-image", "replicas": 2}
    finally:
        delete_crd(server, crd["metadata"]["name"])
