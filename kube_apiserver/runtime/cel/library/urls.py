"""The URL library (library.URLs): url(<string>) <URL>, isURL(<string>) <bool> and the URL accessors
getScheme, getHost, getHostname, getPort, getEscapedPath, getQuery.

url() accepts what Go's url.ParseRequestURI accepts: an absolute URL or an absolute path."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

from cel_expr_python import cel

from kube_apiserver.runtime.cel.library import CELError, Decl, decl, overload
from kube_apiserver.runtime.cel.types import URL, URLType, unwrap, wrap

_S, _B = cel.Type.STRING, cel.Type.BOOL
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*$")
_CTL = re.compile(r"[\x00-\x1f\x7f ]")


def _parse_error(text: str) -> str | None:
    """Why ParseRequestURI rejects text, in Go's words, or None."""
    if _CTL.search(text):
        return f'parse "{text}": net/url: invalid control character in URL'
    if text.startswith("/"):
        return None
    scheme, sep, _ = text.partition(":")
    if not sep or not scheme:
        return f'parse "{text}": invalid URI for request'
    if not _SCHEME.match(scheme):
        return f'parse "{text}": first path segment in URL cannot contain colon'
    return None


def _split(u: Any) -> Any:
    return urlsplit(unwrap(u))


def url(text: str) -> Any:
    problem = _parse_error(text)
    if problem is not None:
        raise CELError(f"URL parse error during conversion from string: {problem}")
    return wrap(URL, text)


def is_url(text: str) -> bool:
    return _parse_error(text) is None


def _host(u: Any) -> str:
    return _split(u).netloc.rpartition("@")[2]


def _hostname(u: Any) -> str:
    host = _host(u)
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host[1:]
    return host.rpartition(":")[0] if ":" in host else host


def _port(u: Any) -> str:
    host = _host(u)
    if host.startswith("["):
        rest = host[host.find("]") + 1 :] if "]" in host else ""
        return rest[1:] if rest.startswith(":") else ""
    return host.rpartition(":")[2] if ":" in host else ""


def _escaped_path(u: Any) -> str:
    # urlsplit keeps the path as written, which is what EscapedPath returns for a validly escaped path
    return _split(u).path


def _query(u: Any) -> dict[str, list[str]]:
    return parse_qs(_split(u).query, keep_blank_values=True)


def decls() -> list[Decl]:
    U = URLType
    out = [
        decl("url", [overload("string_to_url", U, [_S], url)]),
        decl("isURL", [overload("is_url_string", _B, [_S], is_url)]),
        decl("getScheme", [overload("url_get_scheme", _S, [U], lambda u: _split(u).scheme, True)]),
        decl("getHost", [overload("url_get_host", _S, [U], _host, True)]),
        decl("getHostname", [overload("url_get_hostname", _S, [U], _hostname, True)]),
        decl("getPort", [overload("url_get_port", _S, [U], _port, True)]),
        decl("getEscapedPath", [overload("url_get_escaped_path", _S, [U], _escaped_path, True)]),
        decl(
            "getQuery",
            [overload("url_get_query", cel.Type.Map(_S, cel.Type.List(_S)), [U], _query, True)],
        ),
    ]
    return out
