"""A loopback HTTPS audit webhook for the e2e tests: its own small PKI (CA, serving certificate for 127.0.0.1,
a client certificate for the API server), a server that requires that client certificate and keeps every
POSTed body, and the kubeconfig the API server reads (--audit-webhook-config-file)."""

from __future__ import annotations

import base64
import datetime
import ipaddress
import json
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _cert(subject: str, issuer: x509.Name | None, issuer_key, key, *, ca: bool = False, server: bool = False):
    now = datetime.datetime.now(datetime.UTC)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    b = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer or name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
        b = b.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    if server:
        b = b.add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
    return b.sign(issuer_key or key, hashes.SHA256())


class AuditSink:
    """The webhook: requests (path, headers, parsed body, client certificate CN) are kept in `received`."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca = _cert("audit-sink-ca", None, None, ca_key, ca=True)
        server_key, client_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
        server = _cert("audit-sink", ca.subject, ca_key, server_key, server=True)
        client = _cert("kube-apiserver-audit", ca.subject, ca_key, client_key)
        pem = lambda c: c.public_bytes(serialization.Encoding.PEM)  # noqa: E731
        self.ca_pem, self.client_pem, self.client_key_pem = pem(ca), pem(client), _pem_key(client_key)
        (directory / "sink-ca.crt").write_bytes(self.ca_pem)
        (directory / "sink.crt").write_bytes(pem(server))
        (directory / "sink.key").write_bytes(_pem_key(server_key))
        self.received: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                peer = self.connection.getpeercert() or {}
                cn = next((v for rdn in peer.get("subject", ()) for k, v in rdn if k == "commonName"), "")
                with sink.lock:
                    sink.received.append(
                        {"path": self.path, "headers": dict(self.headers), "body": json.loads(body), "client": cn}
                    )
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(directory / "sink.crt", directory / "sink.key")
        ctx.load_verify_locations(directory / "sink-ca.crt")
        ctx.verify_mode = ssl.CERT_REQUIRED
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self) -> AuditSink:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def kubeconfig(self) -> Path:
        b64 = lambda b: base64.b64encode(b).decode()  # noqa: E731
        cfg = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "sink",
                    "cluster": {
                        "server": f"https://127.0.0.1:{self.port}/audit/events",
                        "certificate-authority-data": b64(self.ca_pem),
                    },
                }
            ],
            "users": [
                {
                    "name": "apiserver",
                    "user": {
                        "client-certificate-data": b64(self.client_pem),
                        "client-key-data": b64(self.client_key_pem),
                    },
                }
            ],
            "contexts": [{"name": "default", "context": {"cluster": "sink", "user": "apiserver"}}],
            "current-context": "default",
        }
        path = self.dir / "audit-webhook.kubeconfig"
        path.write_text(yaml.safe_dump(cfg))
        return path

    def events(self) -> list[dict[str, Any]]:
        with self.lock:
            return [ev for r in self.received for ev in r["body"]["items"]]
