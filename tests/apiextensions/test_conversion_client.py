"""The conversion webhook's client: URLs, TLS verification and its Go texts, answers, service resolution."""

from __future__ import annotations

import asyncio
import base64
import datetime
import ipaddress
import ssl
import tempfile
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from kube_apiserver.apiextensions.conversion.client import (
    ClientConfig,
    WebhookCallError,
    WebhookClient,
    check_peer_name,
    client_config_for_crd,
    generic_server_response,
    go_json_error,
    parse_ca_bundle,
)
from kube_apiserver.apiextensions.conversion.service import ResolveError, ServiceResolver
from kube_apiserver.runtime import errors
from kube_apiserver.storage.interface import ListResult, StoredObject

# --- certificates -----------------------------------------------------------------------------------------------


def _cert(cn: str, key, issuer=None, issuer_key=None, *, ca=False, sans=()) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    b = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)]))
        .issuer_name(issuer or x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)]))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if sans:
        b = b.add_extension(x509.SubjectAlternativeName(list(sans)), critical=False)
    return b.sign(issuer_key or key, hashes.SHA256())


@pytest.fixture(scope="module")
def pki() -> dict[str, Any]:
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _cert("test-ca", ca_key, ca=True)
    key = ec.generate_private_key(ec.SECP256R1())
    sans = [x509.DNSName("hook.example.com"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    leaf = _cert("hook", key, ca.subject, ca_key, sans=sans)
    d = Path(tempfile.mkdtemp(prefix="conv-client-"))
    (d / "tls.crt").write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    (d / "tls.key").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return {"ca": ca.public_bytes(serialization.Encoding.PEM), "dir": d}


async def _serve(pki: dict[str, Any], status: bytes, headers: bytes, body: bytes):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(pki["dir"] / "tls.crt", pki["dir"] / "tls.key")

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = int([h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")][0].split(b":")[1])
        await reader.readexactly(length)
        writer.write(b"HTTP/1.1 " + status + b"\r\n" + headers + b"Content-Length: %d\r\n\r\n" % len(body) + body)
        await writer.drain()
        writer.close()

    return await asyncio.start_server(handle, "127.0.0.1", 0, ssl=ctx)


def _post(pki: dict[str, Any], url_host: str, *, ca: bytes, status=b"200 OK", headers=b"", body=b"{}") -> bytes:
    async def run() -> bytes:
        server = await _serve(pki, status, headers, body)
        port = server.sockets[0].getsockname()[1]
        try:
            url = f"https://{url_host}:{port}/convert"
            return await WebhookClient(ClientConfig(url=url, ca_bundle=ca), None).post(b"{}")
        finally:
            server.close()

    return asyncio.run(run())


def test_post_and_answers(pki):
    assert _post(pki, "127.0.0.1", ca=pki["ca"], body=b'{"ok":1}') == b'{"ok":1}'
    with pytest.raises(WebhookCallError) as e:
        _post(pki, "127.0.0.1", ca=pki["ca"], body=b"")
    assert str(e.value) == "0-length response with status code: 200 and content type: application/json"
    with pytest.raises(WebhookCallError) as e:
        _post(
            pki, "127.0.0.1", ca=pki["ca"], status=b"500 Oops", headers=b"Content-Type: text/plain\r\n", body=b"boom\n"
        )
    assert str(e.value) == 'an error on the server ("boom") has prevented the request from succeeding'
    with pytest.raises(WebhookCallError) as e:
        _post(pki, "127.0.0.1", ca=pki["ca"], status=b"404 Not Found", body=b"{}")
    assert str(e.value) == "the server could not find the requested resource"


def test_untrusted_certificate(pki):
    other = _cert("other-ca", ec.generate_private_key(ec.SECP256R1()), ca=True)
    with pytest.raises(WebhookCallError) as e:
        _post(pki, "127.0.0.1", ca=other.public_bytes(serialization.Encoding.PEM))
    assert str(e.value).endswith(
        '/convert?timeout=30s": tls: failed to verify certificate: x509: certificate signed by unknown authority'
    )


def test_connection_refused():
    client = WebhookClient(ClientConfig(url="https://127.0.0.1:1/convert"), None)
    with pytest.raises(WebhookCallError) as e:
        asyncio.run(client.post(b"{}"))
    assert str(e.value) == (
        'Post "https://127.0.0.1:1/convert?timeout=30s": dial tcp 127.0.0.1:1: connect: connection refused'
    )


def test_bad_ca_bundle_makes_no_client():
    client = WebhookClient(ClientConfig(url="https://h/convert", ca_bundle=b"junk"), None)
    assert client.tls_error == "unable to load root certificates: unable to parse bytes as PEM block"


# --- pure helpers ------------------------------------------------------------------------------------------------


def test_request_urls():
    assert WebhookClient(ClientConfig(url="https://h:8443"), None).request_url == "https://h:8443/?timeout=30s"
    svc = ClientConfig(service_namespace="ns", service_name="hook", service_path="/c", service_port=8443)
    client = WebhookClient(svc, None)
    assert client.request_url == "https://hook.ns.svc:8443/c?timeout=30s"
    assert client.server_name == "hook.ns.svc"
    assert client.target == "/c?timeout=30s"


def test_client_config_from_crd():
    crd = {
        "spec": {
            "conversion": {
                "strategy": "Webhook",
                "webhook": {
                    "clientConfig": {
                        "service": {"namespace": "ns", "name": "hook", "path": "/p"},
                        "caBundle": base64.b64encode(b"pem").decode(),
                    }
                },
            }
        }
    }
    assert client_config_for_crd(crd) == ClientConfig(
        service_namespace="ns", service_name="hook", service_path="/p", service_port=443, ca_bundle=b"pem"
    )


def test_peer_names():
    cert = {
        "subject": ((("commonName", "hook"),),),
        "subjectAltName": (("DNS", "*.ns.svc"), ("IP Address", "10.0.0.1")),
    }
    assert check_peer_name(cert, "hook.ns.svc") is None
    assert check_peer_name(cert, "a.b.ns.svc") == "x509: certificate is valid for *.ns.svc, not a.b.ns.svc"
    assert check_peer_name(cert, "10.0.0.1") is None
    assert check_peer_name(cert, "10.0.0.2") == "x509: certificate is valid for 10.0.0.1, not 10.0.0.2"
    dns_only = {"subjectAltName": (("DNS", "x"),)}
    assert check_peer_name(dns_only, "127.0.0.1") == (
        "x509: cannot validate certificate for 127.0.0.1 because it doesn't contain any IP SANs"
    )
    legacy = {"subject": ((("commonName", "hook.ns.svc"),),)}
    assert check_peer_name(legacy, "hook.ns.svc") == (
        "x509: certificate relies on legacy Common Name field, use SANs instead"
    )
    assert check_peer_name({}, "h") == "x509: certificate is not valid for any names, but wanted to match h"


def test_ca_bundles(pki):
    certs, problem = parse_ca_bundle(b"junk\n" + pki["ca"] + b"trailer")
    assert problem is None and len(certs) == 1
    assert parse_ca_bundle(b"")[1] == "unable to parse bytes as PEM block"
    bad = b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
    assert parse_ca_bundle(bad)[1] == "failed to parse certificate: x509: malformed certificate"


def test_generic_server_responses():
    assert generic_server_response(409, "unknown") == "the server reported a conflict"
    assert generic_server_response(403, "denied") == "denied"
    assert generic_server_response(406, "unknown") == (
        "the server was unable to respond with a content type that the client supports"
    )
    assert generic_server_response(502, 'a "b"') == (
        'an error on the server ("a \\"b\\"") has prevented the request from succeeding'
    )
    assert generic_server_response(302, "unknown") == (
        "the server responded with the status code 302 but did not return more information"
    )


def test_json_errors():
    assert go_json_error(b"  hello") == "invalid character 'h' looking for beginning of value"
    assert go_json_error(b'{"a":') == "unexpected end of JSON input"


# --- services -----------------------------------------------------------------------------------------------------


class FakeStore:
    def __init__(self, objs: list[dict[str, Any]]) -> None:
        self.objs = objs

    async def get(self, namespace: str, name: str) -> StoredObject:
        for o in self.objs:
            if o["metadata"]["name"] == name and o["metadata"].get("namespace") == namespace:
                return StoredObject(o, b"", 1)
        raise errors.new_not_found("", "x", name)

    async def list(self, namespace: str, opts: Any) -> ListResult:
        items = [o for o in self.objs if o["metadata"].get("namespace") == namespace]
        if opts.predicate is not None:
            items = [o for o in items if opts.predicate(o)]
        return ListResult([StoredObject(o, b"", 1) for o in items], 1)


def service(**spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "hook", "namespace": "ns"},
        "spec": {"ports": [{"name": "https", "port": 443}], "clusterIP": "10.96.0.9", **spec},
    }


def resolver(svc: dict[str, Any] | None, slices=(), endpoints=()) -> ServiceResolver:
    stores = {
        ("", "services"): FakeStore([svc] if svc else []),
        ("discovery.k8s.io", "endpointslices"): FakeStore(list(slices)),
        ("", "endpoints"): FakeStore(list(endpoints)),
    }
    return ServiceResolver(lambda g, r: stores.get((g, r)))


def resolve(r: ServiceResolver, port: int = 443) -> tuple[str, int]:
    return asyncio.run(r.resolve("ns", "hook", port))


def slice_(ip: str, ready: bool | None = True, port_name: str = "https", label: str = "hook") -> dict[str, Any]:
    ep: dict[str, Any] = {"addresses": [ip]}
    if ready is not None:
        ep["conditions"] = {"ready": ready}
    return {
        "metadata": {"name": f"s-{ip}", "namespace": "ns", "labels": {"kubernetes.io/service-name": label}},
        "endpoints": [ep],
        "ports": [{"name": port_name, "port": 9443}],
    }


def test_service_resolution():
    assert resolve(resolver(service(), [slice_("10.1.0.5")])) == ("10.1.0.5", 9443)
    assert resolve(resolver(service(), [slice_("10.1.0.5", ready=None)])) == ("10.1.0.5", 9443)
    # not ready, another port, another service's slice: the Endpoints object, then the clusterIP
    others = [slice_("10.1.0.6", ready=False), slice_("10.1.0.7", port_name="http"), slice_("10.1.0.8", label="x")]
    eps = {
        "metadata": {"name": "hook", "namespace": "ns"},
        "subsets": [{"addresses": [{"ip": "10.1.0.9"}], "ports": [{"name": "https", "port": 8443}]}],
    }
    assert resolve(resolver(service(), others, [eps])) == ("10.1.0.9", 8443)
    assert resolve(resolver(service(), others)) == ("10.96.0.9", 443)


@pytest.mark.parametrize(
    ("svc", "port", "message"),
    [
        (None, 443, 'service "hook" not found'),
        (service(type="ExternalName"), 443, 'unsupported service type "ExternalName"'),
        (service(), 444, 'no service port 444 found for service "hook"'),
        (service(clusterIP="None"), 443, 'no endpoints available for service "hook"'),
    ],
)
def test_service_resolution_errors(svc, port, message):
    with pytest.raises(ResolveError) as e:
        resolve(resolver(svc), port)
    assert str(e.value) == message
