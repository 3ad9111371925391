"""Pretty-printed JSON for people (negotiation's isPrettyPrint): ?pretty=true, or a client whose User-Agent
starts with curl, Wget or Mozilla/5.0 (browsers) when pretty is not given, gets JSON bodies indented by two
spaces, as kube's serializer writes them with its Pretty option. Every other client gets compact JSON.

Handlers write compact JSON (often cached bytes); for a pretty request the body is gathered and indented
once at the end. Watches stay as they are (a stream of lines)."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

import orjson

from kube_apiserver.endpoints.request import STREAM_WRITER

ASGIApp = Any
_BROWSER_AND_CLI_AGENTS = (b"curl", b"Wget", b"Mozilla/5.0")


def wants_pretty(scope: dict[str, Any]) -> bool:
    query: bytes = scope.get("query_string", b"")
    if b"pretty" in query:  # (most requests have none: no parsing for them)
        values = parse_qs(query.decode("latin-1"), keep_blank_values=True).get("pretty")
        if values and values[0]:
            return values[0].lower() in ("1", "t", "true")  # strconv.ParseBool; anything else is false
    for name, value in scope.get("headers", ()):
        if name == b"user-agent":
            return value.startswith(_BROWSER_AND_CLI_AGENTS)
    return False


def _is_json(headers: list[tuple[bytes, bytes]]) -> bool:
    for name, value in headers:
        if name == b"content-type":
            return value.startswith(b"application/json") and b"stream=watch" not in value
    return False


def with_pretty_print(app: ASGIApp) -> ASGIApp:
    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not wants_pretty(scope):
            return await app(scope, receive, send)
        extensions = scope.get("extensions")
        if extensions:  # every byte through the send, to be indented: no writes straight to the connection
            extensions.pop(STREAM_WRITER, None)
        start: dict[str, Any] | None = None
        pieces: list[bytes] = []

        async def pretty_send(message: dict[str, Any]) -> None:
            nonlocal start
            kind = message["type"]
            info = scope.get("k8s.request_info")
            if kind == "http.response.start":
                headers = list(message.get("headers", ()))
                if _is_json(headers) and not (info is not None and info.verb == "watch"):
                    start = {**message, "headers": headers}
                    return
            elif kind == "http.response.body" and start is not None:
                pieces.append(bytes(message.get("body", b"")))
                if message.get("more_body", False):
                    return
                body = b"".join(pieces)
                try:
                    body = orjson.dumps(orjson.loads(body), option=orjson.OPT_INDENT_2)
                except orjson.JSONDecodeError:
                    pass  # not JSON after all: as it was
                headers = [(n, v) for n, v in start["headers"] if n != b"content-length"]
                headers.append((b"content-length", str(len(body)).encode()))
                await send({**start, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
            await send(message)

        await app(scope, receive, pretty_send)

    return handler
