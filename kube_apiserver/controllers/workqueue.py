"""A controller's work queue (k8s.io/client-go/util/workqueue, the part these controllers use): an item queued
twice before it is processed is processed once; a sync that fails is retried after a delay that doubles with
each failure of that item (up to MAX_RETRY_DELAY; client-go's per-item exponential rate limiter). Items are queued
only once run() has started: before that, a controller lists what it must look at itself."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

from kube_apiserver.runtime import errors

T = TypeVar("T", bound=Hashable)

RETRY_DELAY = 0.5
MAX_RETRY_DELAY = 30.0


class WorkQueue(Generic[T]):
    def __init__(self, name: str, sync: Callable[[T], Awaitable[None]], log: logging.Logger) -> None:
        self.name = name
        self.sync = sync
        self.log = log
        self.queue: asyncio.Queue[T] = asyncio.Queue()
        self.pending: set[T] = set()
        self.failures: dict[T, int] = {}
        self.task: asyncio.Task[None] | None = None

    def add(self, item: T) -> None:
        if self.task is not None and item not in self.pending:
            self.pending.add(item)
            self.queue.put_nowait(item)

    def add_after(self, item: T, delay: float) -> None:
        asyncio.get_running_loop().call_later(delay, self.add, item)

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run(), name=self.name)

    async def _run(self) -> None:
        while True:
            item = await self.queue.get()
            self.pending.discard(item)
            try:
                await self.sync(item)
            except Exception as e:  # noqa: BLE001 - a controller must outlive a bad object
                failures = self.failures[item] = self.failures.get(item, 0) + 1
                delay = min(RETRY_DELAY * 2 ** (failures - 1), MAX_RETRY_DELAY)
                if isinstance(e, errors.StatusError):
                    self.log.warning("%s: syncing %s: %s; retrying in %.1fs", self.name, item, e, delay)
                else:
                    self.log.exception("%s: syncing %s failed; retrying in %.1fs", self.name, item, delay)
                self.add_after(item, delay)
            else:
                self.failures.pop(item, None)
