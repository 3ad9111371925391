"""WithTimeoutForNonLongRunningRequests: --request-timeout, or a smaller ?timeout=; 504 Status."""

from __future__ import annotations

import asyncio
import math
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


# Deadlines are rounded up to this step and share one loop timer per step: a timer of its own per
# request (asyncio.timeout) costs several microseconds of the event loop on every request, and
# almost no request ever reaches its deadline. A request times out up to one step late.
DEADLINE_STEP = 0.1


class _Deadlines:
    """The running requests' deadlines, bucketed by step; a bucket's timer cancels the tasks still
    in it, as asyncio.timeout would have cancelled each."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._buckets: dict[int, set[_Deadline]] = {}

    def start(self, task: asyncio.Task[Any], timeout: float) -> _Deadline:
        """The task's deadline, timeout seconds from now; stop() it when the work ends."""
        step = math.ceil((self.loop.time() + timeout) / DEADLINE_STEP)
        bucket = self._buckets.get(step)
        if bucket is None:
            bucket = self._buckets[step] = set()
            self.loop.call_at(step * DEADLINE_STEP, self._expire, step)
        deadline = _Deadline(task, bucket)
        bucket.add(deadline)
        return deadline

    def _expire(self, step: int) -> None:
        for deadline in self._buckets.pop(step, ()):
            deadline.expired = True
            deadline.task.cancel()


class _Deadline:
    """One task's deadline. At the deadline the task is cancelled; timed_out() tells that
    cancellation (to be answered as a timeout, asyncio.timeout's TimeoutError) from any other."""

    __slots__ = ("task", "expired", "_bucket", "_cancelling")

    def __init__(self, task: asyncio.Task[Any], bucket: set[_Deadline]) -> None:
        self.task = task
        self._cancelling = task.cancelling()
        self.expired = False
        self._bucket = bucket

    def stop(self) -> None:
        self._bucket.discard(self)

    def timed_out(self) -> bool:
        """After a CancelledError: whether it was the deadline's (and is then taken back)."""
        return self.expired and self.task.uncancel() <= self._cancelling


def with_timeout(app: ASGIApp, request_timeout: float) -> ASGIApp:
    deadlines: _Deadlines | None = None

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
        nonlocal deadlines
        # current_task(loop) rather than get_running_loop(): on Python 3.11 the latter makes a getpid()
        # system call each time. No current task of the known loop: the server runs on a new loop.
        task = asyncio.current_task(deadlines.loop) if deadlines is not None else None
        if deadlines is None or task is None:
            deadlines = _Deadlines(asyncio.get_running_loop())
            task = asyncio.current_task(deadlines.loop)
            assert task is not None
        deadline = deadlines.start(task, timeout)  # no extra task per request, unlike wait_for
        try:
            await app(scope, receive, send)
        except asyncio.CancelledError:
            if not deadline.timed_out():
                raise
            if not response_state(scope).started:
                await send_status_error(
                    send,
                    new_timeout("request did not complete within requested timeout - context deadline exceeded"),
                )
        finally:
            deadline.stop()

    return handler
