"""The watch cache (k8s.io/apiserver/pkg/storage/cacher): one per resource, in front of the storage.

It lists the resource once, then follows the storage's watch, keeping
  - every current object with its encoded bytes (made once by the storage, shared by all readers),
  - a bounded window of recent events, so a watch can resume from a recent resourceVersion,
  - the watchers of the resource, to each of which an event is handed as a reference, not a copy.
Reads are consistent as in kube 1.31+ (ConsistentListFromCache): the cache first waits until it has
seen the storage's current revision. Writes go straight to the storage; the cache hands the object
it holds to guaranteed_update so the common update needs no storage read.
"""

from __future__ import annotations

import asyncio
import logging
import operator
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
from sortedcontainers import SortedKeyList

from kube_apiserver.storage.cacher.joined_runs import JoinedRuns
from kube_apiserver.storage.errors import (
    ExpiredError,
    KeyNotFoundError,
    StorageError,
    TooLargeResourceVersionError,
)
from kube_apiserver.storage.interface import (
    ADDED,
    DELETED,
    MODIFIED,
    Event,
    ListOptions,
    ListResult,
    Preconditions,
    StoredObject,
    UpdateFunc,
    ValidateDeletion,
    WatchBatch,
)

log = logging.getLogger(__name__)

BOOKMARK = "BOOKMARK"
# How long a read waits for the cache to reach a revision before answering "too large resource version".
FRESHNESS_TIMEOUT = 3.0
RETRY_INTERVAL = 5.0  # between attempts to fill a cache whose first list failed
# A watcher that falls this many events behind is closed; the client re-watches (kube does the same).
WATCHER_QUEUE_LIMIT = 20_000


@dataclass(slots=True)
class CacheEvent:
    type: str
    key: str
    object: StoredObject
    prev: StoredObject | None  # the state before (MODIFIED, DELETED), for selector transitions
    revision: int
    # Encoded frames of this event, per representation, made once for all watchers that want it.
    frames: dict[Any, bytes] = field(default_factory=dict)
    _left: CacheEvent | None = None
    # This event in other served versions of the resource (VersionConverter.event), each made once
    # and shared, frames included, by every watcher of that version.
    versions: dict[str, CacheEvent] | None = None

    def left_selection(self) -> CacheEvent:
        """The DELETED event a watcher gets when the object no longer matches its selector."""
        if self._left is None:
            assert self.prev is not None
            obj = orjson.loads(self.prev.raw)
            obj.setdefault("metadata", {})["resourceVersion"] = str(self.revision)
            stored = StoredObject(obj, orjson.dumps(obj), self.revision, self.key)
            self._left = CacheEvent(DELETED, self.key, stored, self.prev, self.revision)
        return self._left


Predicate = Callable[[dict[str, Any]], bool]


class VersionConverter(Protocol):
    """Serves the cached objects (kept in the storage version) in another version of the resource."""

    def stored(self, item: StoredObject) -> StoredObject:
        """item in the served version (made once per stored state, then reused)."""
        ...

    def event(self, ev: CacheEvent) -> CacheEvent:
        """ev in the served version (made once per event, then shared by the watchers of that version)."""
        ...


Sink = Callable[["CacheEvent | None"], None]


class CacheWatcher:
    """One client's watch: a queue the cacher fills; the endpoint handler drains it. Or, once a sink is
    attached, a callable the cacher hands each event to as it dispatches it (None when the watcher stops)."""

    def __init__(
        self, cacher: Cacher, prefix: str, predicate: Predicate | None, converter: VersionConverter | None = None
    ) -> None:
        self.cacher = cacher
        self.prefix = prefix
        self.predicate = predicate
        # None: the watcher reads the storage version, the events as the cacher holds them.
        self.converter = converter
        self.queue: asyncio.Queue[CacheEvent | None] = asyncio.Queue()
        self.sink: Sink | None = None
        self.closed = False
        self.overflowed = False
        # A watch from a resourceVersion the cache has not reached yet gets only the events after it
        # (cacheWatcher.process: "only send events newer than resourceVersion").
        self.min_revision = 0

    def attach(self, sink: Sink) -> None:
        """From now on hand the events to sink instead of the queue; what is queued goes to it first. The
        sink keeps its own limit: it stops the watcher (overflowed) when its consumer falls too far behind."""
        while not self.queue.empty():
            sink(self.queue.get_nowait())
        self.sink = sink

    def offer(self, ev: CacheEvent) -> None:
        if self.closed or not ev.key.startswith(self.prefix) or ev.revision <= self.min_revision:
            return
        if self.converter is not None:
            ev = self.converter.event(ev)  # selectors see the object in the version the client reads
        pred = self.predicate
        if pred is not None:
            now = pred(ev.object.obj) if ev.type != DELETED else False
            was = ev.prev is not None and pred(ev.prev.obj)
            if ev.type == DELETED:
                if not pred(ev.object.obj):
                    return
            elif now and not was and ev.type == MODIFIED:
                ev = CacheEvent(ADDED, ev.key, ev.object, ev.prev, ev.revision)
            elif was and not now:
                # Left the selection: to this watcher the object is gone. Like kube's cacheWatcher, it gets
                # DELETED with the previous content at the event's resourceVersion, made once per event.
                ev = ev.left_selection()
            elif not now:
                return
        if self.sink is not None:
            self.sink(ev)
            return
        if self.queue.qsize() >= WATCHER_QUEUE_LIMIT:
            self.overflowed = True
            self.stop()
            return
        self.queue.put_nowait(ev)

    def stop(self) -> None:
        if not self.closed:
            self.closed = True
            self.cacher.watchers.discard(self)
            if self.sink is not None:
                self.sink(None)
            else:
                self.queue.put_nowait(None)


_KEY_OF = operator.attrgetter("key")


class Cacher:
    def __init__(self, storage: Any, prefix: str, *, history_size: int = 10_000) -> None:
        self.storage = storage
        self.prefix = prefix
        self.objects: dict[str, StoredObject] = {}
        # the objects in key order: a list is a slice of it, with no lookup per object (at 10,000 objects the
        # lookups' cache misses cost more than the rest of the list). A sorted list of sublists, not one list:
        # inserting into one list of 30,000 moved ~120 KB of pointers per create.
        self.ordered: SortedKeyList = SortedKeyList(key=_KEY_OF)
        self.history: deque[CacheEvent] = deque(maxlen=max(history_size, 1))
        self.window_start = 0  # every event after this revision is in history
        self.revision = 0
        self.watchers: set[CacheWatcher] = set()
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self.failure: StorageError | None = None  # why the cache could not be filled (then every read fails)
        self._joined: dict[tuple[Callable[[StoredObject], bytes], bytes], JoinedRuns] = {}

    # --- lifecycle ---

    @property
    def synced(self) -> bool:
        """Whether the cache's first fill is over (HasSynced). One that failed (values the configured
        encryption cannot read) counts: its resource answers 500 with the reason, and the rest of the
        server is ready (a cache that can never fill must not hold readiness forever)."""
        return self._ready.is_set()

    async def start(self) -> None:
        try:
            await self._relist()
        except StorageError as e:
            # e.g. values that the configured encryption cannot read: the server still starts and this
            # resource answers 500 with the reason, as kube-apiserver's does while its reflector retries
            log.error("watch cache %s: initial list failed: %s", self.prefix, e)
            self.failure = e
            self._ready.set()
            self._task = asyncio.create_task(self._retry_start(), name=f"cacher {self.prefix}")
            return
        self._task = asyncio.create_task(self._follow(), name=f"cacher {self.prefix}")

    async def _retry_start(self) -> None:
        while True:
            await asyncio.sleep(RETRY_INTERVAL)
            try:
                await self._relist()
            except StorageError:
                continue
            self.failure = None
            await self._follow()
            return

    async def _relist(self) -> None:
        result = await self.storage.get_list(self.prefix, ListOptions())
        self.objects = {}
        for item in result.items:
            self.objects[item.key] = item
        self.ordered = SortedKeyList(self.objects.values(), key=_KEY_OF)
        for runs in self._joined.values():
            runs.clear()
        self.history.clear()
        self.window_start = result.revision
        self._advance(result.revision)
        self._ready.set()

    async def _follow(self) -> None:
        while True:
            try:
                async for batch in self.storage.watch(self.prefix, self.revision):
                    self._apply(batch)
                return  # the storage closed
            except asyncio.CancelledError:
                raise
            except ExpiredError:
                log.warning("watch cache %s fell behind compaction; relisting", self.prefix)
            except Exception:  # noqa: BLE001 - keep the cache alive whatever the backend raised
                log.exception("watch cache %s: storage watch failed; relisting", self.prefix)
                await asyncio.sleep(0.1)
            for w in list(self.watchers):
                w.stop()
            await self._relist()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass
        for w in list(self.watchers):
            w.stop()
        for runs in self._joined.values():  # what they held leaves the process-wide budget
            runs.clear()

    # --- following the storage ---

    def _apply(self, batch: WatchBatch) -> None:
        for ev in batch.events:
            key = ev.key
            prev = self.objects.get(key)
            if prev is not None:
                for runs in self._joined.values():
                    runs.forget(prev)
            if ev.type == DELETED:
                if prev is not None:
                    del self.objects[key]
                    del self.ordered[self.ordered.bisect_key_left(key)]
            else:
                if prev is not None:
                    del self.ordered[self.ordered.bisect_key_left(key)]
                self.ordered.add(ev.object)
                self.objects[key] = ev.object
            cev = CacheEvent(ev.type, ev.key, ev.object, prev, ev.revision)
            if len(self.history) == self.history.maxlen:
                self.window_start = self.history[0].revision
            self.history.append(cev)
            for w in tuple(self.watchers):
                w.offer(cev)
        self._advance(batch.revision)

    def _advance(self, revision: int) -> None:
        if revision > self.revision:
            self.revision = revision
        if self._waiters:
            keep = []
            for rev, fut in self._waiters:
                if rev <= self.revision:
                    if not fut.done():
                        fut.set_result(None)
                else:
                    keep.append((rev, fut))
            self._waiters = keep

    async def wait_until(self, revision: int, timeout: float = FRESHNESS_TIMEOUT) -> None:
        await self._ready.wait()
        if self.failure is not None:
            raise self.failure
        if revision <= self.revision:
            return
        # Events of other resources moved the revision on: ask the storage where this prefix stands.
        request_progress = getattr(self.storage, "request_progress", None)
        if request_progress is not None:
            request_progress(self.prefix)
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((revision, fut))
        try:
            await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            raise TooLargeResourceVersionError(
                self.prefix, f"Too large resource version: {revision}, current: {self.revision}", self.revision
            ) from None

    async def wait_fresh(self) -> None:
        """A consistent read: wait until the cache has seen everything committed before now."""
        await self.wait_until(await self.storage.current_revision())

    # --- reads from memory ---

    def get_cached(self, key: str) -> StoredObject | None:
        return self.objects.get(key)

    async def get(self, key: str) -> StoredObject:
        await self.wait_fresh()
        obj = self.objects.get(key)
        if obj is None:
            raise KeyNotFoundError(key)
        return obj

    def _key_range(self, prefix: str, start_key: str = "") -> tuple[int, int]:
        """The indexes [i, end) of the keys under prefix from start_key on: one run of the sorted keys, up
        to (not including) the prefix with its last character moved one on."""
        ordered = self.ordered
        i = ordered.bisect_key_left(max(prefix, start_key))
        return i, ordered.bisect_key_left(prefix[:-1] + chr(ord(prefix[-1]) + 1)) if prefix else len(ordered)

    def list_cached(self, prefix: str, opts: ListOptions, converter: VersionConverter | None = None) -> ListResult:
        """The cached objects under prefix; with a converter, in its version (selected in that version too)."""
        if self.failure is not None:
            raise self.failure
        i, end = self._key_range(prefix, opts.start_key)
        pred, limit, ordered = opts.predicate, opts.limit, self.ordered
        if pred is None and converter is None:
            stop = i + limit if limit and end - i > limit else end
            return ListResult(
                ordered[i:stop],
                self.revision,
                more=stop < end,
                next_key=ordered[stop].key if stop < end else "",
                remaining=end - stop,
                joined_runs=self.joined_runs,
            )
        items: list[StoredObject] = []
        for n, item in enumerate(ordered[i:end], i):
            if converter is not None:
                item = converter.stored(item)
            if pred is not None and not pred(item.obj):
                continue
            if limit and len(items) == limit:
                # what is left is counted only when nothing is filtered out (kube's remainingItemCount)
                remaining = end - n if pred is None else 0
                return ListResult(items, self.revision, more=True, next_key=item.key, remaining=remaining)
            items.append(item)
        return ListResult(items, self.revision)

    def joined_runs(self, encoded: Callable[[StoredObject], bytes], separator: bytes) -> JoinedRuns:
        """The runs of this cache's objects joined as list items with this encoding (see joined_runs.py)."""
        runs = self._joined.get((encoded, separator))
        if runs is None:
            runs = self._joined[(encoded, separator)] = JoinedRuns(encoded, separator)
        return runs

    async def get_list(self, prefix: str, opts: ListOptions) -> ListResult:
        if opts.revision > self.revision:
            await self.wait_until(opts.revision)
        if opts.revision and opts.revision != self.revision:
            return await self.storage.get_list(prefix, opts)  # an exact snapshot in the past
        await self.wait_fresh()
        return self.list_cached(prefix, opts)

    async def count(self, prefix: str) -> int:
        await self._ready.wait()
        i, end = self._key_range(prefix)
        return end - i

    async def current_revision(self) -> int:
        return await self.storage.current_revision()

    # --- writes pass through ---

    async def create(self, key: str, obj: dict[str, Any]) -> StoredObject:
        return await self.storage.create(key, obj)

    async def guaranteed_update(
        self,
        key: str,
        try_update: UpdateFunc,
        *,
        ignore_not_found: bool = False,
        preconditions: Preconditions | None = None,
    ) -> StoredObject:
        await self.wait_fresh()
        return await self.storage.guaranteed_update(
            key,
            try_update,
            ignore_not_found=ignore_not_found,
            preconditions=preconditions,
            current=self.objects.get(key),
        )

    async def delete(
        self,
        key: str,
        *,
        preconditions: Preconditions | None = None,
        validate_deletion: ValidateDeletion | None = None,
    ) -> StoredObject:
        await self.wait_fresh()
        cur = self.objects.get(key)
        if cur is None:
            raise KeyNotFoundError(key)
        return await self.storage.delete(
            key, preconditions=preconditions, validate_deletion=validate_deletion, current=cur
        )

    # --- watch ---

    async def start_watch(
        self,
        prefix: str,
        revision: int | None,
        predicate: Predicate | None = None,
        converter: VersionConverter | None = None,
    ) -> tuple[CacheWatcher, list[CacheEvent]]:
        """Register a watcher. revision None: start with the current state as ADDED events (rv "" or "0");
        otherwise replay the window after revision; a revision not reached yet is not waited for, its
        watcher gets what comes after it. Returns the watcher and its initial events; with a converter,
        every event is in the converter's version."""
        await self._ready.wait()
        if self.failure is not None:
            raise self.failure
        watcher = CacheWatcher(self, prefix, predicate, converter)
        if revision is not None and revision > self.revision:
            watcher.min_revision = revision
        initial: list[CacheEvent] = []
        if revision is None:
            for item in self.list_cached(prefix, ListOptions(predicate=predicate), converter).items:
                initial.append(CacheEvent(ADDED, item.key, item, None, item.revision))
        else:
            if revision < self.window_start:
                raise ExpiredError(prefix, f"too old resource version: {revision} ({self.window_start})", revision)
            for ev in self.history:
                if ev.revision > revision:
                    before = watcher.queue.qsize()
                    watcher.offer(ev)
                    if watcher.queue.qsize() > before:
                        initial.append(watcher.queue.get_nowait())
        self.watchers.add(watcher)
        return watcher, initial

    def watch(self, prefix: str, revision: int) -> AsyncIterator[WatchBatch]:
        """The storage.Interface form (used by the conformance suite): events after revision."""
        return self._watch_batches(prefix, revision)

    async def _watch_batches(self, prefix: str, revision: int) -> AsyncIterator[WatchBatch]:
        watcher, initial = await self.start_watch(prefix, revision)
        try:
            if initial:
                yield WatchBatch([_event(e) for e in initial], initial[-1].revision)
            while True:
                ev = await watcher.queue.get()
                if ev is None:
                    return
                yield WatchBatch([_event(ev)], ev.revision)
        finally:
            watcher.stop()

    async def close(self) -> None:
        await self.stop()


def _event(ev: CacheEvent) -> Event:
    return Event(ev.type, ev.key, ev.object, ev.revision)
