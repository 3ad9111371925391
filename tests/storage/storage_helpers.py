"""Shared pieces of the storage conformance suite (like k8s.io/apiserver/pkg/storage/testing's utils).

A Backend opens one implementation of storage.Interface on a database file: SQLiteStorage alone, or
the watch cache (Cacher) in front of it. Tests are plain functions that call run(backend, body); body
is a coroutine function that gets the opened store, and runs under asyncio.run with a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import orjson

from kube_apiserver.storage.cacher.cacher import Cacher
from kube_apiserver.storage.interface import Event, WatchBatch
from kube_apiserver.storage.sqlite.store import SQLiteStorage

PREFIX = "/registry/things/"
KINDS = ["sqlite", "cacher"]


def key(name: str, ns: str = "default") -> str:
    return f"{PREFIX}{ns}/{name}"


def thing(name: str, labels: dict[str, str] | None = None, **data: Any) -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Thing",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "labels": dict(labels or {})},
        "data": dict(data),
    }


def raw_rv(raw: bytes) -> str:
    return orjson.loads(raw)["metadata"]["resourceVersion"]


class Backend:
    """One implementation of the interface over a database file; open/close may be repeated (reopen)."""

    def __init__(self, kind: str, path: str, *, history_size: int = 10_000) -> None:
        self.kind = kind
        self.path = path
        self.history_size = history_size
        self.sqlite: SQLiteStorage | None = None
        self.cacher: Cacher | None = None

    async def open(self) -> Any:
        self.sqlite = SQLiteStorage(self.path)
        await self.sqlite.start()
        if self.kind == "sqlite":
            self.cacher = None
            return self.sqlite
        self.cacher = Cacher(self.sqlite, PREFIX, history_size=self.history_size)
        await self.cacher.start()
        return self.cacher

    async def close(self) -> None:
        if self.cacher is not None:
            await self.cacher.close()
            self.cacher = None
        if self.sqlite is not None:
            await self.sqlite.close()
            self.sqlite = None

    async def compact(self, revision: int) -> None:
        """Compact the storage; for the cacher also drop its window up to revision, as upstream's
        cacher tests do (compactStorage in cacher_testing_utils.go), so both answer Expired alike."""
        assert self.sqlite is not None
        await self.sqlite.compact(revision)
        c = self.cacher
        if c is not None:
            await c.wait_until(revision)
            while c.history and c.history[0].revision <= revision:
                c.history.popleft()
            c.window_start = max(c.window_start, revision)


def run(backend: Backend, body: Callable[[Any], Awaitable[None]], timeout: float = 30.0) -> None:
    async def main() -> None:
        store = await backend.open()
        try:
            await asyncio.wait_for(body(store), timeout)
        finally:
            await backend.close()

    asyncio.run(main())


class WatchRecorder:
    """Drains a storage watch in a task, keeping every event; progress batches (no events) are skipped."""

    def __init__(self, it: AsyncIterator[WatchBatch]) -> None:
        self.events: list[Event] = []
        self.batches = 0
        self.error: BaseException | None = None
        self.ended = False
        self._task = asyncio.create_task(self._drain(it))

    async def _drain(self, it: AsyncIterator[WatchBatch]) -> None:
        try:
            async with contextlib.aclosing(it):  # type: ignore[type-var]
                async for batch in it:
                    self.batches += 1
                    self.events.extend(batch.events)
            self.ended = True
        except Exception as e:  # noqa: BLE001 - the test inspects it
            self.error = e

    async def wait_events(self, n: int, timeout: float = 5.0) -> list[Event]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while len(self.events) < n:
            if self.error is not None:
                raise self.error
            if loop.time() > deadline:
                raise AssertionError(f"got {len(self.events)} events, wanted {n}: {self.summary()}")
            await asyncio.sleep(0.005)
        return self.events

    async def wait_revision(self, revision: int, timeout: float = 5.0) -> list[Event]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self.events or self.events[-1].revision < revision:
            if self.error is not None:
                raise self.error
            if loop.time() > deadline:
                raise AssertionError(f"watch did not reach revision {revision}: {self.summary()}")
            await asyncio.sleep(0.005)
        return self.events

    async def wait_error(self, timeout: float = 5.0) -> BaseException:
        await asyncio.wait_for(asyncio.shield(self._task), timeout)
        assert self.error is not None, f"watch ended without an error: {self.summary()}"
        return self.error

    def summary(self) -> list[tuple[str, str, int]]:
        return [(e.type, e.key, e.revision) for e in self.events]

    async def stop(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
