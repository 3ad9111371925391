"""Helpers of the authorization e2e tests: certificates, a loopback HTTPS SubjectAccessReview server, and a server
started without anonymous readiness probes (AlwaysAllow turns anonymous requests off)."""

from __future__ import annotations

import datetime
import http.server
import json
import ssl
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests
from conftest import READY_TIMEOUT, Server, kubectl_binary
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def issue(
    directory: Path,
    name: str,
    cn: str,
    orgs: tuple[str, ...] = (),
    *,
    ca_cert: x509.Certificate | None = None,
    ca_key: ec.EllipticCurvePrivateKey | None = None,
    server: bool = False,
    is_ca: bool = False,
) -> tuple[Path, Path, x509.Certificate, ec.EllipticCurvePrivateKey]:
    """A certificate (self-signed when no CA is given) and its key, written as <name>.crt / <name>.key."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name(
        [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in orgs] + [x509.NameAttribute(NameOID.COMMON_NAME, cn)]
    )
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(ca_cert.subject if ca_cert else subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=is_ca, path_length=None), critical=True)
    )
    if server:
        import ipaddress

        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False
        ).add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
    elif not is_ca:
        builder = builder.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
    cert = builder.sign(ca_key or key, hashes.SHA256())
    crt, kf = directory / f"{name}.crt", directory / f"{name}.key"
    crt.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    kf.write_bytes(_pem_key(key))
    return crt, kf, cert, key


def node_client_cert(srv: Server, directory: Path, node: str) -> tuple[Path, Path]:
    """A kubelet's client certificate (system:node:<node>, O=system:nodes) signed by the data dir's CA."""
    pki = srv.data_dir / "pki"
    ca_cert = x509.load_pem_x509_certificate((pki / "ca.crt").read_bytes())
    ca_key = serialization.load_pem_private_key((pki / "ca.key").read_bytes(), None)
    crt, key, _, _ = issue(
        directory, f"node-{node}", f"system:node:{node}", ("system:nodes",), ca_cert=ca_cert, ca_key=ca_key
    )  # type: ignore[arg-type]
    return crt, key


class SARServer:
    """A loopback HTTPS webhook answering SubjectAccessReviews with decide(spec) -> status (or an int: that HTTP
    code with a plain body). Every review received is kept in .reviews."""

    def __init__(self, directory: Path, decide: Callable[[dict[str, Any]], dict[str, Any] | int]) -> None:
        self.ca_crt, _, ca_cert, ca_key = issue(directory, "sar-ca", "sar-ca", is_ca=True)
        crt, key, _, _ = issue(directory, "sar", "127.0.0.1", ca_cert=ca_cert, ca_key=ca_key, server=True)
        self.reviews: list[dict[str, Any]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.reviews.append(body)
                answer = decide(body.get("spec") or {})
                if isinstance(answer, int):
                    self.send_response(answer)
                    self.send_header("Content-Length", "4")
                    self.end_headers()
                    self.wfile.write(b"oops")
                    return
                data = json.dumps({**body, "status": answer}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(str(crt), str(key))
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def kubeconfig(self, path: Path, port: int | None = None) -> Path:
        path.write_text(
            "apiVersion: v1\nkind: Config\ncurrent-context: webhook\n"
            f"clusters:\n- name: sar\n  cluster:\n    server: https://127.0.0.1:{port or self.port}/authorize\n"
            f"    certificate-authority: {self.ca_crt}\n"
            "users:\n- name: apiserver\n  user:\n    token: webhook-token\n"
            "contexts:\n- name: webhook\n  context:\n    cluster: sar\n    user: apiserver\n"
        )
        return path

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class CertReadyServer(Server):
    """Waits for readiness with the admin client certificate: with AlwaysAllow anonymous probes get 401."""

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode} before ready:\n{self.log_tail()}")
            if self.kubeconfig.exists():
                try:
                    self._load_credentials()
                    r = self.session.get(f"{self.url}/readyz", timeout=1)
                    if r.status_code == 200 and r.text == "ok":
                        return
                except (requests.RequestException, OSError, KeyError, TypeError):
                    pass
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"server not ready within {READY_TIMEOUT}s:\n{self.log_tail()}")
            time.sleep(0.05)


def as_token(srv: Server, token: str, *args: str, check: bool = False) -> subprocess.CompletedProcess:
    cmd = [kubectl_binary(), "--server", srv.url, "--certificate-authority", str(srv.ca_file), "--token", token, *args]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if check and res.returncode != 0:
        raise AssertionError(f"{args} exited {res.returncode}: {res.stderr}")
    return res


def token_request(srv: Server, token: str, method: str, path: str, **kw: Any) -> requests.Response:
    with requests.Session() as s:
        s.trust_env = False
        headers = {"Authorization": f"Bearer {token}", **kw.pop("headers", {})}
        return s.request(method, srv.url + path, verify=str(srv.ca_file), headers=headers, timeout=30, **kw)
