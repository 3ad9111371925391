"""The shared watch cache of a CRD seen in one served version, through a converter (what kube-apiserver's
storage codec does for each version of a webhook-converted CRD: every object decoded from etcd is
converted to the version that storage serves, every object encoded is converted to the storage version).

ConvertingBackend stands where a Cacher expects its storage (get_list, watch, current_revision, and the
writes), so that a Cacher over it holds the CRD's objects already converted to its version, as kube
keeps one watch cache per served version: reads, selectors, watch events and resourceVersions come
from there; conversions are asynchronous (the webhook is a network call) and made once per object
state. Writes convert the request's object to the storage version before anything is stored, and
the stored result back for the response; a conversion that fails writes nothing.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Any

import orjson

from kube_apiserver.apiextensions.conversion.converter import CRConverter, check_versions
from kube_apiserver.apiextensions.schema.defaulting import default as apply_defaults
from kube_apiserver.apiextensions.schema.prune import prune
from kube_apiserver.storage.cacher.cacher import CacheEvent, Cacher
from kube_apiserver.storage.errors import KeyNotFoundError
from kube_apiserver.storage.interface import (
    Event,
    ListOptions,
    ListResult,
    Preconditions,
    StoredObject,
    UpdateFunc,
    ValidateDeletion,
    WatchBatch,
)

_RECENT = 1024  # conversions kept for reuse (a write's response is then the watch event's object)
_BATCH = 500  # events converted in one call
_PROGRESS = object()  # a progress request queued behind the events already offered


class _Moved(Exception):  # noqa: N818 - a retry signal, not an error
    """The object changed between its conversion and the write: convert again."""


class ConvertingBackend:
    def __init__(
        self,
        shared: Cacher,
        api_version: str,
        storage_api_version: str,
        schemas: dict[str, dict[str, Any]],
        converter: CRConverter,
        valid_versions: set[str],
    ) -> None:
        self.shared = shared
        self.api_version = api_version
        self.storage_api_version = storage_api_version
        self.served_schema = schemas.get(api_version.rpartition("/")[2], {})
        self.stored_schema = schemas.get(storage_api_version.rpartition("/")[2], {})
        self.converter = converter
        self.valid = valid_versions
        self._recent: OrderedDict[tuple[str, int], StoredObject] = OrderedDict()
        self._queue: Any = None  # the queue of the shared-cache watcher being followed

    # --- conversions ---

    async def served_items(self, items: list[StoredObject]) -> list[StoredObject]:
        """Stored objects in this version: converted (one call for all that need it), pruned to the
        version's schema and defaulted, as kube decodes them."""
        out: list[StoredObject | None] = [self._recent.get((i.key, i.revision)) for i in items]
        todo = [n for n, hit in enumerate(out) if hit is None]
        if todo:
            objs = [orjson.loads(items[n].raw) for n in todo]
            check_versions(self.valid, [o for o in objs if o.get("apiVersion") != self.api_version], self.api_version)
            converted = await self.converter.convert(objs, self.api_version)
            for n, obj in zip(todo, converted, strict=True):
                item = items[n]
                prune(obj, self.served_schema)
                apply_defaults(obj, self.served_schema)
                # unchanged (already in this version, nothing pruned or defaulted): the cached bytes serve
                served = item if obj == item.obj else StoredObject(obj, orjson.dumps(obj), item.revision, item.key)
                out[n] = served
                self._remember(served)
        return [o for o in out if o is not None]

    async def served_one(self, item: StoredObject) -> StoredObject:
        return (await self.served_items([item]))[0]

    async def storage_obj(self, obj: dict[str, Any]) -> dict[str, Any]:
        """The object to store: in the storage version, pruned and defaulted by its schema."""
        if obj.get("apiVersion") == self.storage_api_version:
            out = obj
        else:
            check_versions(self.valid, [obj], self.storage_api_version)
            out = (await self.converter.convert([copy.deepcopy(obj)], self.storage_api_version))[0]
            prune(out, self.stored_schema)
        apply_defaults(out, self.stored_schema)
        return out

    def _remember(self, item: StoredObject) -> None:
        self._recent[(item.key, item.revision)] = item
        if len(self._recent) > _RECENT:
            self._recent.popitem(last=False)

    # --- what a Cacher reads ---

    async def current_revision(self) -> int:
        await self.shared.wait_fresh()
        return self.shared.revision

    def request_progress(self, prefix: str) -> None:
        if self._queue is not None:
            self._queue.put_nowait(_PROGRESS)

    async def get_list(self, prefix: str, opts: ListOptions) -> ListResult:
        if opts.revision:  # an exact snapshot in the past (a continued list): selected once converted
            raw = ListOptions(revision=opts.revision, start_key=opts.start_key, limit=opts.limit)
            result = await self.shared.storage.get_list(prefix, raw)
            items = await self.served_items(result.items)
            if opts.predicate is not None:
                items = [i for i in items if opts.predicate(i.obj)]
            return ListResult(items, result.revision, result.more, result.next_key)
        await self.shared.wait_fresh()
        snapshot = self.shared.list_cached(prefix, ListOptions())
        return ListResult(await self.served_items(snapshot.items), snapshot.revision)

    async def watch(self, prefix: str, revision: int) -> AsyncIterator[WatchBatch]:
        watcher, initial = await self.shared.start_watch(prefix, revision)
        queue = watcher.queue
        self._queue = queue
        try:
            pending: list[Any] = list(initial)
            while True:
                if not pending:
                    first = await queue.get()
                    if first is None:
                        return  # the shared cache relisted: the converted one relists too
                    pending = [first]
                while not queue.empty() and len(pending) < _BATCH:
                    nxt = queue.get_nowait()
                    if nxt is None:
                        queue.put_nowait(None)
                        break
                    pending.append(nxt)
                events = [e for e in pending if e is not _PROGRESS]
                progress = len(events) != len(pending)
                pending = []
                if events:
                    yield WatchBatch(await self._convert_events(events), events[-1].revision)
                if progress:
                    # Every event up to the shared cache's revision was offered before it moved on:
                    # with nothing queued, this version has seen all of them.
                    if queue.empty():
                        yield WatchBatch([], self.shared.revision)
                    else:
                        queue.put_nowait(_PROGRESS)
        finally:
            if self._queue is queue:
                self._queue = None
            watcher.stop()

    async def _convert_events(self, events: list[CacheEvent]) -> list[Event]:
        served = await self.served_items([e.object for e in events])
        return [Event(e.type, e.key, s, e.revision) for e, s in zip(events, served, strict=True)]

    # --- writes: the served version in, the storage version stored ---

    async def create(self, key: str, obj: dict[str, Any]) -> StoredObject:
        stored = await self.storage_obj(obj)
        return await self.served_one(await self.shared.create(key, stored))

    async def guaranteed_update(
        self,
        key: str,
        try_update: UpdateFunc,
        *,
        ignore_not_found: bool = False,
        preconditions: Preconditions | None = None,
        current: StoredObject | None = None,
    ) -> StoredObject:
        while True:
            now = self.shared.objects.get(key)
            if now is None or current is None or current.revision != now.revision:
                await self.shared.wait_fresh()
                now = self.shared.objects.get(key)
                current = None if now is None else await self.served_one(now)
            if current is None:
                if not ignore_not_found:
                    raise KeyNotFoundError(key)
                stored_new = await self.storage_obj(try_update(None))
                return await self.served_one(await self.shared.create(key, stored_new))
            if preconditions is not None:
                preconditions.check(key, current.obj)
            new = try_update(orjson.loads(current.raw))
            if new == current.obj:
                return current  # unchanged in this version: nothing is written
            stored_new = await self.storage_obj(new)
            revision = current.revision

            def swap(old: dict[str, Any] | None, revision: int = revision, stored_new: Any = stored_new) -> Any:
                if old is None or _revision(old) != revision:
                    raise _Moved()
                return stored_new

            try:
                result = await self.shared.guaranteed_update(key, swap)
            except _Moved:
                current = None
                continue
            return await self.served_one(result)

    async def delete(
        self,
        key: str,
        *,
        preconditions: Preconditions | None = None,
        validate_deletion: ValidateDeletion | None = None,
        current: StoredObject | None = None,
    ) -> StoredObject:
        while True:
            now = self.shared.objects.get(key)
            if now is None:
                raise KeyNotFoundError(key)
            if current is None or current.revision != now.revision:
                current = await self.served_one(now)
            if preconditions is not None:
                preconditions.check(key, current.obj)
            if validate_deletion is not None:
                validate_deletion(current.obj)
            revision = current.revision

            def same_state(obj: dict[str, Any], revision: int = revision) -> None:
                if _revision(obj) != revision:
                    raise _Moved()

            try:
                gone = await self.shared.delete(key, validate_deletion=same_state)
            except _Moved:
                current = None
                continue
            return await self.served_one(gone)


def _revision(obj: dict[str, Any]) -> int:
    rv = (obj.get("metadata") or {}).get("resourceVersion")
    try:
        return int(rv)
    except (TypeError, ValueError):
        return -1
