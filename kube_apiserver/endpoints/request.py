"""The ASGI request as the endpoint handlers see it, and the ways to answer it."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol
from urllib.parse import parse_qs

import orjson

from kube_apiserver.runtime.errors import StatusError, new_bad_request, new_request_entity_too_large
from kube_apiserver.runtime.serializer import encode_yaml

_INT64 = re.compile(r"[+-]?[0-9]+")  # what strconv.ParseInt(s, 10, 64) reads, before its range check

# kube-apiserver's limit on request bodies (MaxRequestBodyBytes).
MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024

ASGIScope = dict[str, Any]

# The scope["extensions"] key under which the HTTP server puts a request's StreamWriter.
STREAM_WRITER = "k8s.stream_writer"


class StreamWriter(Protocol):
    """Writes chunks of a started streamed response straight to the connection, bypassing the ASGI send."""

    def write(self, body: bytes) -> bool:
        """One chunk; False when it cannot (the caller then uses the send, which waits for a slow client)."""
        ...

    async def write_joined(self, parts: list[bytes], separator: bytes) -> int:
        """separator.join(parts) as one chunk, waiting first while the client is not reading; the size of
        the chunk's data, or 0 when it cannot (the caller then uses the send). parts is consumed."""
        ...

    async def write_body(self, body: bytes) -> bool:
        """Part of a body with a Content-Length, not its end, waiting first while the client is not
        reading; False when it cannot (the caller then uses the send)."""
        ...


class Request:
    __slots__ = ("scope", "receive", "send", "path", "method", "query", "headers", "_body", "warnings")

    def __init__(self, scope: ASGIScope, receive: Any, send: Any) -> None:
        self.scope = scope
        self.receive = receive
        self.send = send
        self.path: str = scope["path"]
        self.method: str = scope["method"]
        qs = scope.get("query_string", b"")
        self.query: dict[str, list[str]] = parse_qs(qs.decode("latin-1"), keep_blank_values=True) if qs else {}
        raw = scope.get("headers", ())
        self.headers: dict[str, str] = {k.decode("latin-1"): v.decode("latin-1") for k, v in raw}
        if len(self.headers) != len(raw):  # a header sent more than once: its values joined with commas
            self.headers = {}
            for k, v in raw:
                name, value = k.decode("latin-1"), v.decode("latin-1")
                self.headers[name] = f"{self.headers[name]},{value}" if name in self.headers else value
        self._body: bytes | None = None
        self.warnings: list[str] = []

    def add_warning(self, text: str) -> None:
        """A Warning header (299) on the response (warning.AddWarning); repeated texts are sent once."""
        if text in self.warnings:
            return
        if not self.warnings:
            self.send = _with_warnings(self.send, self.warnings)
        self.warnings.append(text)

    @classmethod
    def of(cls, scope: ASGIScope, receive: Any, send: Any) -> Request:
        req = scope.get("k8s.request")
        if req is None:
            req = cls(scope, receive, send)
            scope["k8s.request"] = req
        return req

    def stream_writer(self) -> StreamWriter | None:
        extensions = self.scope.get("extensions")
        return extensions.get(STREAM_WRITER) if extensions else None

    def param(self, name: str, default: str = "") -> str:
        values = self.query.get(name)
        return values[0] if values else default

    def params(self, name: str) -> list[str]:
        return self.query.get(name, [])

    def flag(self, name: str) -> bool:
        """A boolean query parameter as kube decodes one (Convert_Slice_string_To_bool): false when absent,
        "0" or "false" in any case; anything else is true, an empty value (?watch) too."""
        values = self.query.get(name)
        return bool(values) and values[0] != "0" and values[0].lower() != "false"

    def int64(self, name: str) -> int | None:
        """An integer query parameter (Convert_Slice_string_To_int64), None when absent; a value that
        strconv.ParseInt refuses (an empty one too) is a 400 with its words."""
        values = self.query.get(name)
        if not values:
            return None
        value = values[0]
        if not _INT64.fullmatch(value):
            raise new_bad_request(f'strconv.ParseInt: parsing "{value}": invalid syntax')
        n = int(value)
        if not -(2**63) <= n < 2**63:
            raise new_bad_request(f'strconv.ParseInt: parsing "{value}": value out of range')
        return n

    def header(self, name: str, default: str = "") -> str:
        return self.headers.get(name, default)

    async def body(self) -> bytes:
        if self._body is not None:
            return self._body
        declared = self.headers.get("content-length")
        if declared and declared.isascii() and declared.isdigit() and int(declared) > MAX_REQUEST_BODY_BYTES:
            raise new_request_entity_too_large(MAX_REQUEST_BODY_BYTES)
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await self.receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_REQUEST_BODY_BYTES:
                raise new_request_entity_too_large(MAX_REQUEST_BODY_BYTES)
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        self._body = b"".join(chunks)
        return self._body


def warning_header(text: str) -> bytes:
    """'299 - "<text>"' with the text quoted as Go's strconv.Quote does for printable ASCII."""
    quoted = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'299 - "{quoted}"'.encode("utf-8", "replace")


def _with_warnings(send: Any, warnings: list[str]) -> Any:
    async def send_with_warnings(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start" and warnings:
            message = dict(message)
            message["headers"] = [*message.get("headers", ()), *((b"warning", warning_header(w)) for w in warnings)]
        await send(message)

    return send_with_warnings


def _headers(content_type: str, extra: list[tuple[bytes, bytes]] | None) -> list[tuple[bytes, bytes]]:
    headers = [(b"content-type", content_type.encode())]
    if extra:
        headers.extend(extra)
    return headers


async def send_bytes(
    send: Any,
    status: int,
    body: bytes,
    content_type: str = "application/json",
    extra_headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    headers = _headers(content_type, extra_headers)
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


# A large list goes out in pieces of about this size, as chunks of a chunked response (kube-apiserver streams
# a list's items to the connection: Go's net/http sends a body without a Content-Length chunked). One body of
# many megabytes would be copied whole before the first byte is encrypted, and the client would wait for all
# of it; pieces let TLS encryption here overlap decryption there, and each piece's items are looked up only
# when it is written, so the first bytes leave before the last item is touched. Pieces stay under glibc's
# mmap threshold (128 KiB), so each reuses freed heap memory instead of faulting in fresh pages (on this
# kind of VM a page fault costs about 2 us).
LIST_PIECE_BYTES = 64 * 1024


def _identity(item: Any) -> Any:
    return item


async def send_json_around(
    send: Any,
    prefix: bytes,
    items: Sequence[Any],
    suffix: bytes,
    separator: bytes = b",",
    encoded: Callable[[Any], bytes] = _identity,
    writer: StreamWriter | None = None,
) -> None:
    """A 200 JSON body prefix + the items' encoded(item) bytes joined by separator + suffix. A body that fits
    in one piece of about LIST_PIECE_BYTES has a Content-Length; a larger one is written chunked, a piece
    at a time. A piece is a run of items joined in C (no Python step per item); the number of items in
    the next piece follows the size of the last. With a writer, the pieces after the first go straight to
    the connection, each joined once with its chunk framing (through the send, each piece would pass every
    filter's send and be copied again by the HTTP server to frame it); the end still goes through the send."""
    n = len(items)
    headers = _headers("application/json", None)
    per_piece = max(1, LIST_PIECE_BYTES // (len(encoded(items[0])) + len(separator))) if n else 1
    body = prefix + separator.join(map(encoded, items[:per_piece]))
    if per_piece >= n:
        body += suffix
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        return
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": True})
    size = len(body)
    start = per_piece
    while start < n:
        per_piece = max(1, per_piece * LIST_PIECE_BYTES // max(size, 1))
        run = list(map(encoded, items[start : start + per_piece]))
        run.insert(0, b"")  # the separator before the run's first item
        start += per_piece
        if writer is not None:
            size = await writer.write_joined(run, separator)
            if size:
                continue
            writer = None  # refused (the client is gone): the rest goes through the send
        body = separator.join(run)
        size = len(body)
        last = start >= n
        if last:
            await send({"type": "http.response.body", "body": body + suffix})
            return
        await send({"type": "http.response.body", "body": body, "more_body": True})
    await send({"type": "http.response.body", "body": suffix})


async def send_json_pieces(
    send: Any, prefix: bytes, pieces: list[bytes], suffix: bytes, writer: StreamWriter | None = None
) -> None:
    """A 200 JSON body prefix + the pieces + suffix, where each piece opens with a comma, dropped from the
    first: the items of a list joined beforehand (the watch cache's joined runs). The whole size is known,
    so it has a Content-Length; with a writer the pieces after the first go straight to the connection."""
    if not pieces:
        await send_bytes(send, 200, prefix + suffix)
        return
    size = len(prefix) + sum(map(len, pieces)) - 1 + len(suffix)
    headers = _headers("application/json", [(b"content-length", str(size).encode())])
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": prefix + pieces[0][1:], "more_body": True})
    for piece in pieces[1:]:
        if writer is not None:
            if await writer.write_body(piece):
                continue
            writer = None  # refused (the client is gone): the rest goes through the send
        await send({"type": "http.response.body", "body": piece, "more_body": True})
    await send({"type": "http.response.body", "body": suffix})


async def send_json(send: Any, status: int, obj: Any) -> None:
    await send_bytes(send, status, orjson.dumps(obj))


async def send_status_error(
    send: Any, err: StatusError, extra_headers: list[tuple[bytes, bytes]] | None = None, yaml: bool = False
) -> None:
    """The Status of err, in JSON or (yaml: an API request that negotiated YAML) in YAML."""
    headers = list(extra_headers or [])
    if err.retry_after_seconds:
        headers.append((b"retry-after", str(err.retry_after_seconds).encode()))
    if yaml:
        await send_bytes(send, err.code, encode_yaml(err.status()), "application/yaml", headers)
    else:
        await send_bytes(send, err.code, err.body(), "application/json", headers)


async def send_text(send: Any, status: int, text: str) -> None:
    await send_bytes(
        send, status, text.encode(), "text/plain; charset=utf-8", [(b"x-content-type-options", b"nosniff")]
    )
