"""Loopback services the external authenticators talk to in the e2e tests: a small PKI, an OpenID issuer
(discovery + JWKS over HTTPS, tokens signed with PyJWT) and a TokenReview webhook. Each serves from a thread."""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

# --- PKI ---------------------------------------------------------------------------------------------------------


def _name(cn: str, orgs: tuple[str, ...] = ()) -> x509.Name:
    attrs = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in orgs]
    return x509.Name([*attrs, x509.NameAttribute(NameOID.COMMON_NAME, cn)])


class CA:
    def __init__(self, cn: str) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        self.cert = (
            x509.CertificateBuilder()
            .subject_name(_name(cn))
            .issuer_name(_name(cn))
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(True, False, False, False, False, True, True, False, False), critical=True)
            .sign(self.key, hashes.SHA256())
        )

    @property
    def pem(self) -> bytes:
        return self.cert.public_bytes(serialization.Encoding.PEM)

    def issue(self, cn: str, orgs: tuple[str, ...] = (), server: bool = False) -> tuple[bytes, bytes]:
        """(certificate PEM, key PEM) of a client certificate, or a serving one for 127.0.0.1."""
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
        builder = (
            x509.CertificateBuilder()
            .subject_name(_name(cn, orgs))
            .issuer_name(self.cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        )
        if server:
            builder = builder.add_extension(
                x509.SubjectAlternativeName(
                    [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
                ),
                critical=False,
            )
        cert = builder.sign(self.key, hashes.SHA256())
        key_pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        return cert.public_bytes(serialization.Encoding.PEM), key_pem

    def write(self, directory: Path, name: str) -> Path:
        path = directory / f"{name}.crt"
        path.write_bytes(self.pem)
        return path


def write_pair(directory: Path, name: str, pair: tuple[bytes, bytes]) -> tuple[Path, Path]:
    cert, key = directory / f"{name}.crt", directory / f"{name}.key"
    cert.write_bytes(pair[0])
    key.write_bytes(pair[1])
    return cert, key


# --- HTTPS on loopback ---------------------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class HTTPSService:
    """A ThreadingHTTPServer on 127.0.0.1 behind TLS, the handler class given by the subclass."""

    handler: type[BaseHTTPRequestHandler]

    def __init__(self, cert: Path, key: Path, client_ca: Path | None = None) -> None:
        self.httpd = _Server(("127.0.0.1", 0), self.handler)
        self.httpd.service = self  # type: ignore[attr-defined]
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(str(cert), str(key))
        if client_ca is not None:
            ctx.verify_mode = ssl.CERT_REQUIRED
            ctx.load_verify_locations(str(client_ca))
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.url = f"https://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.lock = threading.Lock()

    def start(self) -> HTTPSService:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class _JSONHandler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def send_json(self, code: int, obj: Any) -> None:
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


# --- OpenID issuer -------------------------------------------------------------------------------------------------


class _IssuerHandler(_JSONHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        issuer: OIDCIssuer = self.server.service  # type: ignore[attr-defined]
        if self.path == "/.well-known/openid-configuration":
            with issuer.lock:
                issuer.discovery_requests += 1
            self.send_json(
                200,
                {
                    "issuer": issuer.url,
                    "jwks_uri": issuer.url + "/keys",
                    "id_token_signing_alg_values_supported": ["RS256"],
                },
            )
        elif self.path == "/keys":
            with issuer.lock:
                issuer.jwks_requests += 1
                keys = [dict(k) for k in issuer.published.values()]
            self.send_json(200, {"keys": keys})
        else:
            self.send_json(404, {})


class OIDCIssuer(HTTPSService):
    handler = _IssuerHandler

    def __init__(self, cert: Path, key: Path) -> None:
        super().__init__(cert, key)
        self.private: dict[str, Any] = {}
        self.published: dict[str, dict[str, Any]] = {}
        self.discovery_requests = 0
        self.jwks_requests = 0

    def add_key(self, kid: str, kind: str = "RSA", publish: bool = True) -> None:
        """A new signing key; published in the JWKS unless publish is False (a key the server cannot know)."""
        key = rsa.generate_private_key(65537, 2048) if kind == "RSA" else ec.generate_private_key(ec.SECP256R1())
        self.private[kid] = key
        if publish:
            algo = jwt.algorithms.RSAAlgorithm if kind == "RSA" else jwt.algorithms.ECAlgorithm
            jwk = json.loads(algo.to_jwk(key.public_key()))
            jwk.update(kid=kid, use="sig")
            with self.lock:
                self.published[kid] = jwk

    def token(self, kid: str = "k1", alg: str = "RS256", **claims: Any) -> str:
        now = int(time.time())
        body = {"iss": self.url, "aud": "kubernetes", "sub": "alice", "iat": now, "exp": now + 600}
        body.update(claims)
        body = {k: v for k, v in body.items() if v is not None}
        return jwt.encode(body, self.private[kid], algorithm=alg, headers={"kid": kid})


# --- TokenReview webhook -------------------------------------------------------------------------------------------


class _ReviewHandler(_JSONHandler):
    def do_POST(self) -> None:  # noqa: N802
        webhook: TokenReviewWebhook = self.server.service  # type: ignore[attr-defined]
        review = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        with webhook.lock:
            webhook.requests.append(
                {"path": self.path, "review": review, "content_type": self.headers.get("Content-Type")}
            )
        token = (review.get("spec") or {}).get("token", "")
        status = webhook.answers.get(token, {"authenticated": False})
        self.send_json(200, {"apiVersion": review.get("apiVersion"), "kind": "TokenReview", "status": status})


class TokenReviewWebhook(HTTPSService):
    handler = _ReviewHandler

    def __init__(self, cert: Path, key: Path, client_ca: Path) -> None:
        super().__init__(cert, key, client_ca)
        self.requests: list[dict[str, Any]] = []
        self.answers: dict[str, dict[str, Any]] = {}

    def reviews_of(self, token: str) -> int:
        with self.lock:
            return sum(1 for r in self.requests if r["review"].get("spec", {}).get("token") == token)


def webhook_kubeconfig(path: Path, server: str, ca: Path, cert: Path, key: Path) -> Path:
    """A kubeconfig naming the webhook as kube's docs show one (files relative to the kubeconfig's directory)."""
    path.write_text(
        f"""apiVersion: v1
kind: Config
clusters:
- name: authn-service
  cluster:
    certificate-authority: {ca.name}
    server: {server}/authenticate
users:
- name: apiserver
  user:
    client-certificate: {cert.name}
    client-key: {key.name}
current-context: webhook
contexts:
- context:
    cluster: authn-service
    user: apiserver
  name: webhook
"""
    )
    return path
