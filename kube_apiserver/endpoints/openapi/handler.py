"""Serving the OpenAPI documents as kube-openapi's handlers do.

/openapi/v2: the swagger document, JSON or (Accept: application/com.github.proto-openapi.spec.v2@v1.0
+protobuf) the gnostic protobuf Document kubectl asks for; 406 with no body when nothing acceptable.
/openapi/v3: the index; /openapi/v3/<group-version>: its document, 404 (no body) for an unknown one,
a 301 to the current URL for a stale ?hash=, and "Cache-Control: public, immutable" with a year's
Expires when the hash is current. Every answer has an ETag and honours If-None-Match (304) and
If-Modified-Since as http.ServeContent does; gzip when the client accepts it, as gziphandler does.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from email.utils import formatdate, parsedate_to_datetime
from urllib.parse import quote

from kube_apiserver.endpoints.openapi.documents import GZIP_MIN_SIZE, CachedDocument, OpenAPIDocuments
from kube_apiserver.endpoints.request import Request

V2_PROTO_SUBTYPES = (
    "com.github.proto-openapi.spec.v2@v1.0+protobuf",
    "com.github.proto-openapi.spec.v2.v1.0+protobuf",
)
YEAR = 365 * 24 * 3600


def parse_accept(header: str) -> list[tuple[str, str]]:
    """goautoneg.ParseAccept: (type, subtype) clauses, highest q first, specific before wildcards."""
    clauses: list[tuple[float, int, str, str]] = []
    for i, part in enumerate(header.split(",")):
        fields = [f.strip() for f in part.split(";")]
        mt = fields[0]
        if not mt:
            continue
        type_, _, subtype = mt.partition("/")
        if not subtype:
            subtype = "*" if type_ == "*" else ""
        q = 1.0
        for f in fields[1:]:
            k, _, v = f.partition("=")
            if k.strip() == "q":
                try:
                    q = float(v)
                except ValueError:
                    q = 0.0
        clauses.append((q, i, type_, subtype))
    clauses.sort(key=lambda c: (-c[0], c[2] == "*", c[3] == "*", c[1]))
    return [(t, s) for _, _, t, s in clauses]


def _matches(clause: tuple[str, str], type_: str, subtype: str) -> bool:
    return clause[0] in (type_, "*") and clause[1] in (subtype, "*")


def _etag_matches(header: str, etag: str) -> bool:
    """checkIfNoneMatch: a list of (possibly weak) entity tags, or *."""
    for tag in header.split(","):
        tag = tag.strip()
        if tag == "*":
            return True
        if tag.removeprefix("W/") == etag:
            return True
    return False


def _not_modified_since(req: Request, doc: CachedDocument) -> bool:
    since = req.header("if-modified-since")
    if not since or req.header("if-none-match"):
        return False
    try:
        return parsedate_to_datetime(doc.last_modified) <= parsedate_to_datetime(since)
    except (TypeError, ValueError):
        return False


async def _send(req: Request, status: int, headers: list[tuple[bytes, bytes]], body: bytes = b"") -> None:
    headers = [*headers, (b"content-length", str(len(body)).encode())]
    await req.send({"type": "http.response.start", "status": status, "headers": headers})
    await req.send({"type": "http.response.body", "body": b"" if req.method == "HEAD" else body})


async def serve_content(req: Request, doc: CachedDocument, headers: list[tuple[bytes, bytes]]) -> None:
    """http.ServeContent behind gziphandler: ETag and Last-Modified, 304 on a match, gzip if accepted."""
    etag = f'"{doc.etag}"'
    headers = [*headers, (b"etag", etag.encode())]
    inm = req.header("if-none-match")
    if (inm and _etag_matches(inm, etag)) or _not_modified_since(req, doc):
        await _send(req, 304, headers)
        return
    headers += [(b"content-type", doc.content_type.encode()), (b"last-modified", doc.last_modified.encode())]
    body = doc.body
    if len(body) >= GZIP_MIN_SIZE and "gzip" in req.header("accept-encoding"):
        body = doc.gzipped()
        headers.append((b"content-encoding", b"gzip"))
    await _send(req, 200, headers, body)


def _base_headers() -> list[tuple[bytes, bytes]]:
    # gziphandler adds its Vary (Cache-Control is the chain's default, WithCacheControl's, unless set here)
    return [(b"vary", b"Accept-Encoding")]


def make_handlers(docs: OpenAPIDocuments) -> dict[str, Callable[[Request], Awaitable[None]]]:
    """The handlers of /openapi/v2, /openapi/v3 and the /openapi/v3/ prefix."""

    async def serve_v2(req: Request) -> None:
        headers = [*_base_headers(), (b"vary", b"Accept")]
        for clause in parse_accept(req.header("accept") or "*/*"):
            if _matches(clause, "application", "json"):
                await serve_content(req, docs.v2(), headers)
                return
            if any(_matches(clause, "application", sub) for sub in V2_PROTO_SUBTYPES):
                await serve_content(req, docs.v2_proto(), headers)
                return
        await _send(req, 406, headers)

    async def serve_v3_index(req: Request) -> None:
        await serve_content(req, docs.v3_index(), _base_headers())

    async def serve_v3_document(req: Request) -> None:
        key = req.path[len("/openapi/v3/") :]
        doc = docs.v3(key)
        if doc is None:
            await _send(req, 404, _base_headers())
            return
        headers = [*_base_headers(), (b"vary", b"Accept")]
        if not any(_matches(c, "application", "json") for c in parse_accept(req.header("accept") or "*/*")):
            await _send(req, 406, headers)
            return
        wanted = req.param("hash")
        if wanted:
            if wanted != doc.etag:
                await _redirect(req, f"/openapi/v3/{key}?hash={doc.etag}", headers)
                return
            headers.append((b"cache-control", b"public, immutable"))
            headers.append((b"expires", formatdate(time.time() + YEAR, usegmt=True).encode()))
        await serve_content(req, doc, headers)

    return {"/openapi/v2": serve_v2, "/openapi/v3": serve_v3_index, "/openapi/v3/": serve_v3_document}


async def _redirect(req: Request, location: str, headers: list[tuple[bytes, bytes]]) -> None:
    """http.Redirect with 301: Location, and for GET a short HTML body."""
    url = quote(location, safe="/?=&:")
    body = f'<a href="{url}">Moved Permanently</a>.\n\n'.encode() if req.method == "GET" else b""
    out = [*headers, (b"location", url.encode())]
    if body:
        out.append((b"content-type", b"text/html; charset=utf-8"))
    await _send(req, 301, out, body)
