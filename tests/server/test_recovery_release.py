"""The outermost filter leaves nothing of a request to the cyclic garbage collector: once the response is
sent, the Request and what the chain put in the scope are freed by reference counting alone."""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any

from kube_apiserver.endpoints.request import Request
from kube_apiserver.server.filters.recovery import response_state, with_panic_recovery


class _Probe:
    """Something of the request's, reachable only through the scope and the Request."""

    def __init__(self, req: Request) -> None:
        self.req = req


def _scope() -> dict[str, Any]:
    return {"type": "http", "method": "GET", "path": "/api/v1/pods", "query_string": b"", "headers": []}


def test_a_served_request_is_freed_without_the_cyclic_collector():
    refs: list[weakref.ref[Any]] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        req = Request.of(scope, receive, send)  # the Request and the scope refer to each other
        probe = scope["k8s.probe"] = _Probe(req)
        refs.append(weakref.ref(probe))
        response_state(scope).headers.append((b"x-probe", b"1"))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    scope = _scope()
    gc.disable()
    try:
        asyncio.run(with_panic_recovery(app)(scope, receive, send))
        assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
        assert sent[0]["status"] == 200 and (b"x-probe", b"1") in sent[0]["headers"]
        assert all(r() is None for r in refs), "left for the cyclic collector"
        assert not [k for k in scope if k.startswith("k8s.")]
    finally:
        gc.enable()


def test_a_failed_request_is_released_too():
    refs: list[weakref.ref[Any]] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        probe = scope["k8s.probe"] = _Probe(Request.of(scope, receive, send))
        refs.append(weakref.ref(probe))
        del probe  # the traceback keeps this frame (the log capture keeps the traceback): not its probe
        raise RuntimeError("boom")

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = _scope()
    gc.disable()
    try:
        asyncio.run(with_panic_recovery(app)(scope, None, send))
        assert sent[0]["status"] == 500
        del sent[:]
        assert refs[0]() is None
    finally:
        gc.enable()
