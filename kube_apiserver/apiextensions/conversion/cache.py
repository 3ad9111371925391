"""The watch cache of one served version of a webhook-converted CRD (kube keeps one per version, each
decoding, and so converting, what it reads from etcd).

It is a Cacher over a ConvertingBackend: it lists the CRD's objects once converted, then follows the
shared cache's events, converting each batch. When the webhook fails, the cache is broken: its
watchers end, waiting reads fail, and every read answers the conversion error (code 500, kube's
message) until a relist succeeds. It retries with a backoff (0.5 s doubling to 30 s, as kube's
reflector backs off), and at once when a client asks while it is broken, so that a webhook that is
back is seen by the next request. Before its first list it answers sync reads as kube's
uninitialized watch cache does (429, "storage is (re)initializing").
"""

from __future__ import annotations

import asyncio
import logging

from kube_apiserver.apiextensions.conversion.backend import ConvertingBackend
from kube_apiserver.runtime import errors
from kube_apiserver.storage.cacher.cacher import FRESHNESS_TIMEOUT, CacheEvent, Cacher, CacheWatcher, Predicate
from kube_apiserver.storage.errors import ExpiredError
from kube_apiserver.storage.interface import ListOptions, ListResult, StoredObject

log = logging.getLogger(__name__)

_BACKOFF_START = 0.5
_BACKOFF_MAX = 30.0


class ConvertedCacher(Cacher):
    def __init__(self, backend: ConvertingBackend, *, history_size: int = 10_000) -> None:
        super().__init__(backend, backend.shared.prefix, history_size=history_size)
        self.backend = backend
        self.broken: errors.StatusError | None = None
        self._closed = False
        self._kick = asyncio.Event()
        self._attempt = asyncio.Event()  # set when a list attempt has ended (replaced for the next)

    # --- lifecycle ---

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=f"converted cacher {self.prefix}")

    def shutdown(self) -> None:
        """Stop following (the CRD changed or went away): watchers end, the shared cache forgets us."""
        self._closed = True
        if self._task is not None:
            self._task.cancel()
        for w in list(self.watchers):
            w.stop()

    async def stop(self) -> None:
        self.shutdown()
        if self._task is not None:
            try:
                await self._task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass

    async def _run(self) -> None:
        delay = _BACKOFF_START
        while not self._closed:
            try:
                await self._relist()
            except errors.StatusError as e:
                self._break(e)
                delay = await self._backoff(delay)
                continue
            except Exception as e:  # noqa: BLE001 - keep retrying whatever the backend raised
                log.exception("converted watch cache %s: list failed", self.prefix)
                self._break(errors.new_internal_error(str(e)))
                delay = await self._backoff(delay)
                continue
            self.broken = None
            self._end_attempt()
            delay = _BACKOFF_START
            try:
                async for batch in self.backend.watch(self.prefix, self.revision):
                    self._apply(batch)
            except ExpiredError:
                pass
            except errors.StatusError as e:
                self._break(e)
                delay = await self._backoff(delay)
                continue
            except Exception as e:  # noqa: BLE001
                log.exception("converted watch cache %s: follow failed", self.prefix)
                self._break(errors.new_internal_error(str(e)))
                delay = await self._backoff(delay)
                continue
            for w in list(self.watchers):  # relisting: watchers resume from their last event
                w.stop()

    async def _backoff(self, delay: float) -> float:
        self._end_attempt()
        self._kick.clear()
        try:
            await asyncio.wait_for(self._kick.wait(), delay)
        except TimeoutError:
            pass
        return min(delay * 2, _BACKOFF_MAX)

    def _end_attempt(self) -> None:
        self._attempt.set()
        self._attempt = asyncio.Event()

    def _break(self, err: errors.StatusError) -> None:
        if self.broken is None:
            log.warning("converted watch cache %s: %s", self.prefix, err.message)
        self.broken = err
        for w in list(self.watchers):
            w.stop()
        waiters, self._waiters = self._waiters, []
        for _, fut in waiters:
            if not fut.done():
                fut.set_exception(err)

    async def _usable(self) -> None:
        """Wait for the first list; when broken, try again now (the webhook may be back) and answer
        the error if it persists. Concurrent requests share one attempt."""
        if self._task is None:
            await self.start()
        if self.broken is None and self._ready.is_set():
            return
        attempt = self._attempt
        if self.broken is not None:
            self._kick.set()
        await attempt.wait()
        if self.broken is not None:
            raise self.broken

    def _usable_now(self) -> None:
        if self.broken is not None:
            self._kick.set()
            raise self.broken
        if not self._ready.is_set():
            raise errors.new_too_many_requests("storage is (re)initializing", 1)

    # --- reads: usable first ---

    async def wait_until(self, revision: int, timeout: float = FRESHNESS_TIMEOUT) -> None:
        await self._usable()
        await super().wait_until(revision, timeout)

    def get_cached(self, key: str) -> StoredObject | None:
        self._usable_now()
        return super().get_cached(key)

    def list_cached(self, prefix: str, opts: ListOptions, converter: object = None) -> ListResult:
        self._usable_now()
        return super().list_cached(prefix, opts)

    async def count(self, prefix: str) -> int:
        await self._usable()
        return await super().count(prefix)

    async def start_watch(
        self,
        prefix: str,
        revision: int | None,
        predicate: Predicate | None = None,
        converter: object = None,
    ) -> tuple[CacheWatcher, list[CacheEvent]]:
        await self._usable()
        return await super().start_watch(prefix, revision, predicate)
