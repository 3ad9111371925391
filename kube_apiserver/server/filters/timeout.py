"""WithTimeoutForNonLongRunningRequests: --request-timeout, or a smaller ?timeout=; 504 Status."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from kube_apiserver.endpoints.request import Request, send_status_error
from kube_apiserver.runtime.errors import new_bad_request, new_timeout
from kube_apiserver.server.filters.maxinflight import is_long_running
from kube_apiserver.server.filters.recovery import response_state

ASGIApp = Any
_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?$")


def parse_go_duration(text: str) -> float:
    """time.ParseDuration for the forms clients send ("30s", "1m0s", "500ms")."""
    m = _DURATION.match(text)
    if not text or m is None or not any(m.groups()):
        raise ValueError(text)
    h, mi, s, ms = (float(g) if g else 0.0 for g in m.groups())
    return h * 3600 + mi * 60 + s + ms / 1000


def with_timeout(app: ASGIApp, request_timeout: float) -> ASGIApp:
    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or is_long_running(scope):
            return await app(scope, receive, send)
        timeout = request_timeout
        req: Request | None = scope.get("k8s.request")
        if req is not None and req.param("timeout"):
            try:
                timeout = min(timeout, parse_go_duration(req.param("timeout")))
            except ValueError:
                await send_status_error(send, new_bad_request(f'invalid timeout "{req.param("timeout")}"'))
                return
        try:
            async with asyncio.timeout(timeout):  # no extra task per request, unlike wait_for
                await app(scope, receive, send)
        except TimeoutError:
            if not response_state(scope).started:
                await send_status_error(
                    send,
                    new_timeout(
                        "Timeout: request did not complete within requested timeout - context deadline exceeded"
                    ),
                )

    return handler
