"""WithRequestInfo: the RequestInfo and the Request go on the scope for every later filter."""

from __future__ import annotations

from typing import Any

from kube_apiserver.endpoints.request import Request
from kube_apiserver.endpoints.request_info import new_request_info

ASGIApp = Any


def with_request_info(app: ASGIApp) -> ASGIApp:
    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            req = Request.of(scope, receive, send)
            scope["k8s.request_info"] = new_request_info(req)
        await app(scope, receive, send)

    return handler
