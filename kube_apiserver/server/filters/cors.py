"""WithCORS: --cors-allowed-origins (regular expressions)."""

from __future__ import annotations

import re
from typing import Any

from kube_apiserver.server.filters.recovery import response_state

ASGIApp = Any
_METHODS = b"POST, GET, OPTIONS, PUT, DELETE, PATCH"
_HEADERS = (
    b"Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since"
)
_EXPOSE = b"Date"


def with_cors(app: ASGIApp, allowed_origins: list[str]) -> ASGIApp:
    if not allowed_origins:
        return app
    patterns = [re.compile(p) for p in allowed_origins]

    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        origin = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"origin"), "")
        if scope["type"] != "http" or not origin or not any(p.search(origin) for p in patterns):
            return await app(scope, receive, send)
        extra = [
            (b"access-control-allow-origin", origin.encode()),
            (b"access-control-allow-methods", _METHODS),
            (b"access-control-allow-headers", _HEADERS),
            (b"access-control-expose-headers", _EXPOSE),
            (b"access-control-allow-credentials", b"true"),
        ]
        if scope["method"] == "OPTIONS":
            await send({"type": "http.response.start", "status": 204, "headers": extra})
            await send({"type": "http.response.body", "body": b""})
            return

        response_state(scope).headers.extend(extra)
        await app(scope, receive, send)

    return handler
