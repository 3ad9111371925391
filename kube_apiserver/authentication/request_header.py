"""Request-header (front-proxy) authentication (headerrequest.NewDynamicVerifyOptionsSecure).

A proxy that authenticated the user itself (the aggregator of another API server, an auth proxy) forwards the
user in headers such as X-Remote-User / X-Remote-Group / X-Remote-Extra-<key>. The headers are believed only
when the connection's client certificate was issued by --requestheader-client-ca-file and, when
--requestheader-allowed-names is given, its CN is one of them. It comes first in kube's union.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from cryptography import x509
from cryptography.x509.oid import NameOID

from kube_apiserver.authentication.cert_pool import CertificatePool
from kube_apiserver.authentication.user import UserInfo


class RequestHeaderError(Exception):
    """The certificate is not a trusted proxy's: an error of the union (kept, the next authenticator is tried)."""


def _common_name(der: bytes) -> str:
    try:
        cns = x509.load_der_x509_certificate(der).subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    except ValueError:
        return ""
    return str(cns[0].value) if cns else ""


def header_value(headers: dict[str, list[str]], names: Sequence[str]) -> str:
    """The first non-empty value among the headers, in the flag's order (headerValue: Header.Get of each)."""
    for name in names:
        values = headers.get(name.lower())
        if values and values[0]:
            return values[0]
    return ""


def all_header_values(headers: dict[str, list[str]], names: Sequence[str]) -> list[str]:
    """Every value of every header, blank ones left out; values are not split on commas (allHeaderValues)."""
    out: list[str] = []
    for name in names:
        out.extend(v for v in headers.get(name.lower(), ()) if v.strip())
    return out


def unescape_extra_key(encoded: str) -> str:
    """%-encoded bytes of an extra key are decoded (url.PathUnescape); a malformed key is kept as it is."""
    if "%" not in encoded:
        return encoded
    try:
        decoded = unquote(encoded, errors="strict")
    except UnicodeDecodeError:
        return encoded
    # PathUnescape fails on a % not followed by two hex digits; unquote leaves those alone.
    i = encoded.find("%")
    while i != -1:
        if len(encoded) < i + 3 or not all(c in "0123456789abcdefABCDEF" for c in encoded[i + 1 : i + 3]):
            return encoded
        i = encoded.find("%", i + 3)
    return decoded


def new_extra(headers: dict[str, list[str]], prefixes: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Extra from every header starting with a prefix: its lower-cased rest, unescaped, is the key (newExtra).
    Prefixes are walked first so that values keep the prefixes' order."""
    extra: dict[str, list[str]] = {}
    for prefix in prefixes:
        p = prefix.lower()
        for name, values in headers.items():
            if name.startswith(p):
                extra.setdefault(unescape_extra_key(name[len(p) :]), []).extend(values)
    return {k: tuple(v) for k, v in extra.items()}


def _headers_of(scope: dict[str, Any]) -> dict[str, list[str]]:
    headers: dict[str, list[str]] = {}
    for k, v in scope.get("headers", ()):
        headers.setdefault(k.decode("latin-1").lower(), []).append(v.decode("latin-1"))
    return headers


@dataclass
class RequestHeaderAuthenticator:
    ca: CertificatePool
    username_headers: list[str]
    group_headers: list[str] = field(default_factory=list)
    extra_header_prefixes: list[str] = field(default_factory=list)
    allowed_names: list[str] = field(default_factory=list)
    uid_headers: list[str] = field(default_factory=list)

    def authenticate_request(self, scope: dict[str, Any]) -> UserInfo | None:
        """The user the proxy names; None when there is no client certificate or no username header. Raises
        RequestHeaderError when the certificate is not the proxy's. On success the headers it read are removed
        from the request (ClearAuthenticationHeaders), so nothing after this filter sees or forwards them."""
        der = ((scope.get("extensions") or {}).get("tls") or {}).get("client_cert_der")
        if not der:
            return None
        problem = self.ca.verify(der)
        if problem is not None:
            raise RequestHeaderError(problem)
        if self.allowed_names:
            cn = _common_name(der)
            if cn not in self.allowed_names:
                raise RequestHeaderError(f"x509: subject with cn={cn} is not in the allowed list")
        headers = _headers_of(scope)
        name = header_value(headers, self.username_headers)
        if not name:
            return None
        user = UserInfo(
            name,
            header_value(headers, self.uid_headers),
            tuple(all_header_values(headers, self.group_headers)),
            new_extra(headers, self.extra_header_prefixes),
        )
        self._clear_authentication_headers(scope)
        return user

    def _clear_authentication_headers(self, scope: dict[str, Any]) -> None:
        names = {h.lower().encode("latin-1") for h in (*self.username_headers, *self.uid_headers, *self.group_headers)}
        prefixes = tuple(p.lower().encode("latin-1") for p in self.extra_header_prefixes)
        scope["headers"] = [
            (k, v)
            for k, v in scope.get("headers", ())
            if k.lower() not in names and not (prefixes and k.lower().startswith(prefixes))
        ]
