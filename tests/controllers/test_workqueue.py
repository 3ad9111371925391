"""The controllers' work queue: an item queued again before it is processed is processed once, nothing is
queued before the queue runs, and a failing sync is retried with a delay that doubles per failure."""

from __future__ import annotations

import asyncio
import logging

from kube_apiserver.controllers import workqueue
from kube_apiserver.controllers.workqueue import WorkQueue
from kube_apiserver.runtime import errors

log = logging.getLogger(__name__)


def test_dedupes_and_waits_for_start():
    async def body() -> None:
        seen: list[str] = []

        async def sync(item: str) -> None:
            seen.append(item)

        q: WorkQueue[str] = WorkQueue("test", sync, log)
        q.add("early")  # before start: the controller lists for itself
        q.start()
        q.add("a")
        q.add("b")
        q.add("a")
        await asyncio.sleep(0.01)
        assert seen == ["a", "b"]
        q.add("a")  # processed: queued again
        await asyncio.sleep(0.01)
        assert seen == ["a", "b", "a"]
        assert q.task is not None
        q.task.cancel()

    asyncio.run(body())


def test_failures_retry_with_growing_delay(monkeypatch):
    monkeypatch.setattr(workqueue, "RETRY_DELAY", 0.01)

    async def body() -> None:
        times: list[float] = []
        loop = asyncio.get_running_loop()

        async def sync(item: str) -> None:
            times.append(loop.time())
            if len(times) < 4:
                raise errors.new_conflict("", "things", item, "try again")

        q: WorkQueue[str] = WorkQueue("test", sync, log)
        q.start()
        q.add("x")
        for _ in range(100):
            if len(times) == 4:
                break
            await asyncio.sleep(0.01)
        gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
        assert len(times) == 4 and gaps[0] >= 0.01 and gaps[1] >= 0.02 and gaps[2] >= 0.04, gaps
        assert q.failures == {}  # reset by the success
        assert q.task is not None
        q.task.cancel()

    asyncio.run(body())
