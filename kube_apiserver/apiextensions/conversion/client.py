"""The conversion webhook's HTTPS client (k8s.io/apiserver/pkg/util/webhook client.go, as client-go's
REST client sends the request and reads the answer).

POST of the ConversionReview to clientConfig.url, or to https://<name>.<namespace>.svc:<port><path>
for clientConfig.service (dialed at the address the service resolver gives), with ?timeout=30s as
kube's webhook REST client adds it; the whole exchange is bounded by that 30 s. The server
certificate is verified against clientConfig.caBundle (the system roots when it is empty), and the
host name (or IP) against its subject alternative names. Failures read as Go's do, so the messages
clients see are kube's: `Post "https://127.0.0.1:8443/convert?timeout=30s": dial tcp
127.0.0.1:8443: connect: connection refused`, `... tls: failed to verify certificate: x509:
certificate signed by unknown authority`, `an error on the server ("...") has prevented ...`.
"""

from __future__ import annotations

import asyncio
import base64
import ipaddress
import re
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import h11
from cryptography import x509

from kube_apiserver.apiextensions.conversion.service import ResolveError, ServiceResolver
from kube_apiserver.apis.core.pod_streaming import go_dial_error
from kube_apiserver.runtime.labels import go_quote

# k8s.io/apiserver/pkg/util/webhook: the default request timeout of webhook clients.
DEFAULT_TIMEOUT = 30.0
_MAX_UNSTRUCTURED_TEXT = 2048
_USER_AGENT = "kube-apiserver-admission"


class WebhookCallError(Exception):
    """The request failed or its answer is unusable; str(e) is the text kube reports after "failed: "."""


@dataclass(frozen=True)
class ClientConfig:
    url: str | None = None
    service_namespace: str = ""
    service_name: str = ""
    service_path: str = ""
    service_port: int = 443
    ca_bundle: bytes = b""

    @property
    def is_service(self) -> bool:
        return self.url is None


def client_config_for_crd(crd: dict[str, Any]) -> ClientConfig:
    """webhookClientConfigForCRD: spec.conversion.webhook.clientConfig of a v1 CRD."""
    spec = crd.get("spec") if isinstance(crd.get("spec"), dict) else {}
    conversion = spec.get("conversion") if isinstance(spec.get("conversion"), dict) else {}
    webhook = conversion.get("webhook") if isinstance(conversion.get("webhook"), dict) else {}
    cc = webhook.get("clientConfig") if isinstance(webhook.get("clientConfig"), dict) else {}
    ca = decode_ca_bundle(cc.get("caBundle"))
    if isinstance(cc.get("url"), str):
        return ClientConfig(url=cc["url"], ca_bundle=ca)
    svc = cc.get("service") if isinstance(cc.get("service"), dict) else {}
    port = svc.get("port")
    return ClientConfig(
        service_namespace=str(svc.get("namespace") or ""),
        service_name=str(svc.get("name") or ""),
        service_path=svc.get("path") if isinstance(svc.get("path"), str) else "",
        service_port=port if isinstance(port, int) and not isinstance(port, bool) else 443,
        ca_bundle=ca,
    )


def decode_ca_bundle(value: Any) -> bytes:
    """caBundle is []byte: base64 in JSON."""
    if not isinstance(value, str) or not value:
        return b""
    try:
        return base64.b64decode(value, validate=True)
    except ValueError:
        return value.encode()


_PEM_BLOCK = re.compile(rb"-----BEGIN ([^\r\n-]*)-----\r?\n(.*?)-----END \1-----", re.S)


def parse_ca_bundle(data: bytes) -> tuple[list[bytes], str | None]:
    """The DER certificates of a PEM bundle, or client-go's error text when it holds none
    (x509.CertPool.AppendCertsFromPEM, then createErrorParsingCAData for why)."""
    certs: list[bytes] = []
    problem: str | None = None
    for m in _PEM_BLOCK.finditer(data):
        body = m.group(2)
        if m.group(1) != b"CERTIFICATE" or b":" in body.split(b"\n", 1)[0]:
            continue  # another kind of block, or one with headers: skipped, as Go does
        try:
            der = base64.b64decode(b"".join(body.split()), validate=True)
            x509.load_der_x509_certificate(der)
        except ValueError:
            problem = problem or "failed to parse certificate: x509: malformed certificate"
            continue
        certs.append(der)
    if certs:
        return certs, None
    if problem is None:
        problem = (
            "unable to parse bytes as PEM block"
            if not _PEM_BLOCK.search(data)
            else "no valid certificate authority data seen"
        )
    return [], problem


def tls_context(ca_bundle: bytes) -> ssl.SSLContext:
    """Verify the chain against caBundle (system roots when empty); the name is checked by check_peer_name.
    Raises ValueError (client-go's text) for a bundle without a certificate."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_REQUIRED
    if ca_bundle:
        certs, problem = parse_ca_bundle(ca_bundle)
        if problem is not None:
            raise ValueError(problem)
        ctx.load_verify_locations(cadata=b"".join(certs))
    else:
        ctx.load_default_certs()
    return ctx


class WebhookClient:
    def __init__(
        self, config: ClientConfig, resolver: ServiceResolver | None, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        self.config = config
        self.resolver = resolver
        self.timeout = timeout
        # The TLS configuration is built once; a caBundle that is not PEM makes the client unusable,
        # as kube fails to build the webhook's REST client.
        self.tls_error: str | None = None
        self._ctx: ssl.SSLContext | None = None
        try:
            self._ctx = tls_context(config.ca_bundle)
        except (ssl.SSLError, ValueError) as e:
            self.tls_error = f"unable to load root certificates: {e}"
        if config.url is not None:
            parts = urlsplit(config.url)
            self.server_name = parts.hostname or ""
            self.host_header = parts.netloc.rpartition("@")[2]
            self.dial_port = parts.port or 443
            path = parts.path or "/"
            self.request_url = f"{parts.scheme}://{self.host_header}{path}?timeout={int(timeout)}s"
        else:
            self.server_name = f"{config.service_name}.{config.service_namespace}.svc"
            self.host_header = f"{self.server_name}:{config.service_port}"
            self.dial_port = config.service_port
            path = config.service_path or "/"
            if not path.startswith("/"):
                path = "/" + path
            self.request_url = f"https://{self.host_header}{path}?timeout={int(timeout)}s"
        self.target = self.request_url.split(self.host_header, 1)[1]

    async def post(self, body: bytes) -> bytes:
        """The answer's body (2xx); raises WebhookCallError with kube's text."""
        if self._ctx is None:
            raise WebhookCallError(self.tls_error or "unable to build the webhook client")
        try:
            async with asyncio.timeout(self.timeout):
                return await self._post(body)
        except TimeoutError:
            raise WebhookCallError(f'Post "{self.request_url}": context deadline exceeded') from None

    async def _post(self, body: bytes) -> bytes:
        assert self._ctx is not None
        host, port = self.server_name, self.dial_port
        if self.config.is_service:
            if self.resolver is None:
                raise self._error(f'service "{self.config.service_name}" not found')
            try:
                host, port = await self.resolver.resolve(
                    self.config.service_namespace, self.config.service_name, self.config.service_port
                )
            except ResolveError as e:
                raise self._error(str(e)) from None
        host_port = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        try:
            reader, writer = await asyncio.open_connection(
                host, port, ssl=self._ctx, server_hostname=self.server_name or None
            )
        except ssl.SSLCertVerificationError as e:
            raise self._error(f"tls: failed to verify certificate: {x509_error(e)}") from None
        except ssl.SSLError as e:
            raise self._error(tls_error_text(e)) from None
        except (OSError, TimeoutError) as e:
            raise self._error(go_dial_error(host_port, e)) from None
        try:
            problem = check_peer_name(writer.get_extra_info("peercert") or {}, self.server_name)
            if problem is not None:
                raise self._error(f"tls: failed to verify certificate: {problem}")
            return await self._exchange(reader, writer, body)
        finally:
            writer.close()

    async def _exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, body: bytes) -> bytes:
        conn = h11.Connection(h11.CLIENT)
        headers = [
            ("host", self.host_header),
            ("user-agent", _USER_AGENT),
            ("content-type", "application/json"),
            ("accept", "application/json, */*"),
            ("content-length", str(len(body))),
            ("connection", "close"),
        ]
        try:
            writer.write(conn.send(h11.Request(method="POST", target=self.target, headers=headers)))
            writer.write(conn.send(h11.Data(data=body)))
            writer.write(conn.send(h11.EndOfMessage()))
            await writer.drain()
            status, content_type, chunks = 0, "", []
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA:
                    data = await reader.read(65536)
                    conn.receive_data(data)
                    continue
                if isinstance(event, h11.Response):
                    status = event.status_code
                    for k, v in event.headers:
                        if k.lower() == b"content-type":
                            content_type = v.decode("latin-1")
                elif isinstance(event, h11.Data):
                    chunks.append(bytes(event.data))
                elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                    break
        except (OSError, ssl.SSLError, h11.RemoteProtocolError) as e:
            raise self._error(
                "EOF" if isinstance(e, h11.RemoteProtocolError | ConnectionResetError) else str(e)
            ) from None
        return self._result(status, content_type, b"".join(chunks))

    def _result(self, status: int, content_type: str, body: bytes) -> bytes:
        """client-go's transformResponse and Result.Into for what came back."""
        if status < 200 or status > 206:
            text = content_type.split(";")[0].strip().lower() == "text/plain"
            message = body[:_MAX_UNSTRUCTURED_TEXT].decode("utf-8", "replace").strip() if text else "unknown"
            raise WebhookCallError(generic_server_response(status, message))
        if not body:
            raise WebhookCallError(
                f"0-length response with status code: {status} and content type: {content_type or 'application/json'}"
            )
        return body

    def _error(self, text: str) -> WebhookCallError:
        return WebhookCallError(f'Post "{self.request_url}": {text}')


def generic_server_response(code: int, server_message: str) -> str:
    """errors.NewGenericServerResponse's message for a response that is not a Status."""
    fixed = {
        409: "the server reported a conflict",
        404: "the server could not find the requested resource",
        400: "the server rejected our request for an unknown reason",
        401: "the server has asked for the client to provide credentials",
        405: "the server does not allow this method on the requested resource",
        422: "the server rejected our request due to an error in our request",
        503: "the server is currently unable to handle the request",
        504: "the server was unable to return a response in the time allotted, but may still be processing the request",
        429: "the server has received too many requests and has asked us to try again later",
    }
    if code in fixed:
        return fixed[code]
    if code in (403, 415):
        return server_message
    if code == 406:
        if not server_message or server_message == "unknown":
            return "the server was unable to respond with a content type that the client supports"
        return server_message
    if code >= 500:
        return f"an error on the server ({go_quote(server_message)}) has prevented the request from succeeding"
    return f"the server responded with the status code {code} but did not return more information"


# --- TLS errors as Go's crypto/tls and crypto/x509 word them ---

# unable to get issuer certificate, signature failure (an issuer of that name, another key), self-signed
# leaf or chain, unable to get local issuer, unable to verify the leaf's signature
_UNKNOWN_AUTHORITY = {2, 7, 18, 19, 20, 21}


def x509_error(e: ssl.SSLCertVerificationError) -> str:
    code = getattr(e, "verify_code", 0)
    if code in _UNKNOWN_AUTHORITY:
        return "x509: certificate signed by unknown authority"
    if code in (9, 10):
        return "x509: certificate has expired or is not yet valid"
    return f"x509: {getattr(e, 'verify_message', '') or e}"


def tls_error_text(e: ssl.SSLError) -> str:
    reason = getattr(e, "reason", "") or ""
    if reason in ("WRONG_VERSION_NUMBER", "HTTP_REQUEST", "RECORD_LAYER_FAILURE"):
        return "http: server gave HTTP response to HTTPS client"
    if reason == "UNEXPECTED_EOF_WHILE_READING" or isinstance(e, ssl.SSLEOFError):
        return "EOF"
    if reason.startswith("TLSV1_ALERT_") or reason.startswith("SSLV3_ALERT_"):
        alert = reason.split("_ALERT_", 1)[1].lower().replace("_", " ")
        return f"remote error: tls: {alert}"
    return str(e)


def check_peer_name(cert: dict[str, Any], host: str) -> str | None:
    """x509.Certificate.VerifyHostname: None when the certificate is valid for host, else Go's text."""
    dns: list[str] = []
    ips: list[str] = []
    for kind, value in cert.get("subjectAltName") or ():
        if kind == "DNS":
            dns.append(value)
        elif kind == "IP Address":
            try:
                ips.append(str(ipaddress.ip_address(value.strip())))
            except ValueError:
                continue
    try:
        want_ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        want_ip = None
    if want_ip is not None:
        if str(want_ip) in ips:
            return None
        if not ips:
            return f"x509: cannot validate certificate for {host} because it doesn't contain any IP SANs"
        return f"x509: certificate is valid for {', '.join(ips)}, not {host}"
    if any(_match_hostname(pattern, host) for pattern in dns):
        return None
    if not cert.get("subjectAltName"):
        cn = [v for rdn in cert.get("subject") or () for k, v in rdn if k == "commonName"]
        if cn and _match_hostname(cn[-1], host):
            return "x509: certificate relies on legacy Common Name field, use SANs instead"
    if not dns:
        return f"x509: certificate is not valid for any names, but wanted to match {host}"
    return f"x509: certificate is valid for {', '.join(dns)}, not {host}"


def _match_hostname(pattern: str, host: str) -> bool:
    """matchHostnames: case-insensitive, a wildcard only as the whole leftmost label."""
    pattern, host = pattern.lower().rstrip("."), host.lower().rstrip(".")
    if not pattern or not host:
        return False
    p_labels, h_labels = pattern.split("."), host.split(".")
    if len(p_labels) != len(h_labels):
        return False
    for i, (p, h) in enumerate(zip(p_labels, h_labels, strict=True)):
        if i == 0 and p == "*":
            continue
        if p != h:
            return False
    return True


def go_json_error(body: bytes) -> str:
    """encoding/json's text for a body that is not JSON (the common cases)."""
    text = body.lstrip()
    if not text:
        return "unexpected end of JSON input"
    first = chr(text[0])
    if first not in '{["-0123456789tfn':
        return f"invalid character {_go_char(first)} looking for beginning of value"
    return "unexpected end of JSON input" if first in "{[" else f"invalid character {_go_char(first)} in literal"


def _go_char(c: str) -> str:
    return "'\\''" if c == "'" else f"'{c}'"
