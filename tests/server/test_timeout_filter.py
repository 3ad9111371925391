"""WithTimeoutForNonLongRunningRequests: a request past its deadline is answered 504 and its work is
cancelled; a request that finishes in time, or is cancelled for another reason, is left alone."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import orjson
import uvloop

from kube_apiserver.endpoints.request import Request
from kube_apiserver.server.filters.recovery import with_panic_recovery
from kube_apiserver.server.filters.timeout import DEADLINE_STEP, with_timeout

ASGIApp = Any


def _scope(query: bytes = b"") -> dict[str, Any]:
    return {"type": "http", "method": "GET", "path": "/api/v1/configmaps", "query_string": query, "headers": []}


async def _receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


async def _serve(app: ASGIApp, scope: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await with_panic_recovery(app)(scope or _scope(), _receive, send)
    return sent


async def _ok(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})


def test_a_request_past_its_deadline_is_a_504_status_and_its_work_is_cancelled():
    cancelled: list[bool] = []

    async def slow(scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    async def main() -> tuple[list[dict[str, Any]], float, int]:
        t0 = time.monotonic()
        sent = await _serve(with_timeout(slow, 0.2))
        task = asyncio.current_task()
        assert task is not None
        return sent, time.monotonic() - t0, task.cancelling()

    sent, elapsed, cancelling = uvloop.run(main())
    assert cancelled == [True]
    assert 0.2 <= elapsed < 0.2 + DEADLINE_STEP + 1.0
    assert cancelling == 0  # the deadline's cancellation was taken back: the task goes on normally
    assert sent[0]["status"] == 504
    body = orjson.loads(sent[1]["body"])
    assert body["reason"] == "Timeout" and body["code"] == 504
    assert body["message"] == ("Timeout: request did not complete within requested timeout - context deadline exceeded")


def test_the_timeout_parameter_shortens_the_deadline_and_a_bad_one_is_a_400():
    async def slow(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await asyncio.sleep(30)

    async def main() -> tuple[list[dict[str, Any]], float, list[dict[str, Any]]]:
        scope = _scope(b"timeout=100ms")
        Request.of(scope, _receive, None)
        t0 = time.monotonic()
        sent = await _serve(with_timeout(slow, 60), scope)
        elapsed = time.monotonic() - t0
        bad = _scope(b"timeout=soon")
        Request.of(bad, _receive, None)
        return sent, elapsed, await _serve(with_timeout(slow, 60), bad)

    sent, elapsed, bad = asyncio.run(main())
    assert sent[0]["status"] == 504 and elapsed < 5
    assert bad[0]["status"] == 400
    assert orjson.loads(bad[1]["body"])["message"] == 'invalid timeout "soon"'


def test_a_request_in_time_is_answered_and_its_deadline_never_fires():
    async def main() -> tuple[list[dict[str, Any]], int]:
        sent = await _serve(with_timeout(_ok, 0.05))
        await asyncio.sleep(0.05 + 2 * DEADLINE_STEP)  # past the deadline: nothing may be cancelled now
        task = asyncio.current_task()
        assert task is not None
        return sent, task.cancelling()

    sent, cancelling = uvloop.run(main())
    assert [m.get("status") for m in sent] == [200, None]
    assert cancelling == 0


def test_a_cancellation_that_is_not_the_deadline_passes_through():
    async def main() -> bool:
        began = asyncio.Event()

        async def slow(scope: dict[str, Any], receive: Any, send: Any) -> None:
            began.set()
            await asyncio.sleep(30)

        task = asyncio.ensure_future(_serve(with_timeout(slow, 60)))
        await began.wait()
        task.cancel()  # the client went away, the server shuts down...
        try:
            await task
        except asyncio.CancelledError:
            return True
        return False

    assert asyncio.run(main())


def test_a_deadline_after_the_response_started_ends_the_request_without_a_second_response():
    async def streaming(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await asyncio.sleep(30)

    sent = uvloop.run(_serve(with_timeout(streaming, 0.05)))
    assert [m.get("status") for m in sent] == [200]
