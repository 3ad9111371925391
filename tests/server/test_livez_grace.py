"""--livez-grace-period: until it has gone by, /livez counts a post-start hook that has not finished as passing
(delayedHealthCheck); /readyz and /healthz do not, and past the grace period neither does /livez."""

from __future__ import annotations

import asyncio

from kube_apiserver.endpoints.request import Request
from kube_apiserver.server.genericapiserver import GenericAPIServer
from kube_apiserver.server.healthz import install_health_checks


async def _get(server: GenericAPIServer, path: str) -> tuple[int, bytes]:
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    scope = {"type": "http", "method": "GET", "path": path, "query_string": b"", "headers": []}
    handler = server.mux.lookup(path)
    assert handler is not None
    await handler(Request(scope, receive, send))
    return sent[0]["status"], sent[1]["body"]


def _server(grace: float) -> GenericAPIServer:
    server = GenericAPIServer("test")

    async def never() -> None:
        await asyncio.Event().wait()

    server.add_post_start_hook("slow-hook", never)  # registered, never run: not finished

    async def ok() -> None:
        return None

    install_health_checks(server, {"ping": ok}, {}, livez_grace_period=grace)
    return server


def test_unfinished_hooks_pass_livez_within_the_grace_period() -> None:
    async def run() -> None:
        server = _server(3600)
        assert await _get(server, "/livez") == (200, b"ok")
        assert await _get(server, "/livez/poststarthook/slow-hook") == (200, b"ok")
        assert (await _get(server, "/readyz"))[0] == 500
        assert (await _get(server, "/healthz"))[0] == 500
        late = _server(0)
        status, body = await _get(late, "/livez")
        assert status == 500 and b"[-]poststarthook/slow-hook failed" in body

    asyncio.run(run())
