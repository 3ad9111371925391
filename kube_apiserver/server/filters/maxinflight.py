"""WithMaxInFlightLimit: --max-requests-inflight / --max-mutating-requests-inflight; 429 + Retry-After."""

from __future__ import annotations

from typing import Any

from kube_apiserver.authentication.user import SYSTEM_PRIVILEGED_GROUP
from kube_apiserver.endpoints.request import send_status_error
from kube_apiserver.runtime.errors import new_too_many_requests
from kube_apiserver.server.metrics import WATERMARK, record_dropped_request

ASGIApp = Any
_READONLY = frozenset({"get", "list", "watch"})


def is_long_running(scope: dict[str, Any]) -> bool:
    info = scope.get("k8s.request_info")
    if info is None or not info.is_resource_request:
        return False
    return info.verb == "watch" or info.subresource in ("proxy", "attach", "exec", "log", "portforward")


def with_max_in_flight(app: ASGIApp, non_mutating: int, mutating: int) -> ASGIApp:
    counts = {"readOnly": 0, "mutating": 0}
    limits = {"readOnly": non_mutating, "mutating": mutating}

    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or is_long_running(scope):
            return await app(scope, receive, send)
        info = scope.get("k8s.request_info")
        kind = "readOnly" if info is None or info.verb in _READONLY else "mutating"
        limit = limits[kind]
        if limit > 0 and counts[kind] >= limit:
            user = scope.get("k8s.user")
            if user is not None and SYSTEM_PRIVILEGED_GROUP in user.groups:
                # as upstream: a system:masters user is too powerful to be told to wait; it is served
                # outside the count instead of getting the 429
                return await app(scope, receive, send)
            record_dropped_request(scope)
            await send_status_error(send, new_too_many_requests("Too many requests, please try again later.", 1))
            return
        counts[kind] += 1
        WATERMARK.started(kind)
        try:
            await app(scope, receive, send)
        finally:
            counts[kind] -= 1
            WATERMARK.finished(kind)

    return handler
