"""One storage, several served versions: the watch cache of a resource seen through a version that
is not the one it is stored in (autoscaling/v1 HPAs kept as autoscaling/v2, events.k8s.io/v1 events
kept as core/v1 events).

Upstream the storage codec does this: a request in any version is converted to the storage version
before it is encoded, and what is read is decoded and converted to the version the client asked
for (k8s.io/apimachinery versioning codec, the storage factory's cohabitating resources). Here a
VersionedStorage stands where the Store expects its Cacher and converts at that boundary, so the
Store, its strategy and the endpoint handlers work on objects of the served version (defaults,
validation, selectors, patches all see that version) and share uid, resourceVersion and history
with every other version of the resource. The storage version's own Store keeps the Cacher itself:
its reads stay byte-for-byte reuse of the stored JSON, with no conversion cost.

Conversions are made once and shared: an object's served form is cached per stored state, and a
watch event's per version on the event (CacheEvent.versions), so its frames are encoded once for
all the watchers of that version.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import orjson

from kube_apiserver.runtime.scheme import Scheme, gvk_of, split_api_version
from kube_apiserver.storage.cacher.cacher import CacheEvent, Cacher, CacheWatcher, Predicate
from kube_apiserver.storage.interface import (
    ListOptions,
    ListResult,
    Preconditions,
    StoredObject,
    UpdateFunc,
    ValidateDeletion,
)

Convert = Callable[[dict[str, Any]], dict[str, Any]]


def scheme_converter(scheme: Scheme, api_version: str) -> Convert:
    """Object → the same object as api_version: a converter of the object's group, keyed by the
    target version, or one that crosses groups, keyed by the target apiVersion."""
    group, version = split_api_version(api_version)

    def convert(obj: dict[str, Any]) -> dict[str, Any]:
        gvk = gvk_of(obj)
        if gvk[0] == group and gvk[1] == version:
            return obj
        return scheme.converters[(gvk, version if gvk[0] == group else api_version)](obj)

    return convert


class VersionedStorage:
    """The Cacher interface the Store and the handlers use, in the served version."""

    def __init__(self, cacher: Cacher, served_version: str, storage_version: str, scheme: Scheme) -> None:
        self.cacher = cacher
        self.prefix = cacher.prefix
        self.api_version = served_version
        self.storage_version = storage_version
        self._to_served = scheme_converter(scheme, served_version)
        self._to_storage = scheme_converter(scheme, storage_version)
        self._default = scheme.default
        # key → (stored state, its served form), reused while the stored state is current
        self._served: dict[str, tuple[StoredObject, StoredObject]] = {}
        self.storage = _VersionedBackend(self)

    # --- conversions ---

    @property
    def synced(self) -> bool:
        return self.cacher.synced

    def served_obj(self, obj: dict[str, Any]) -> dict[str, Any]:
        return self._to_served(obj)

    def storage_obj(self, obj: dict[str, Any]) -> dict[str, Any]:
        out = self._to_storage(obj)
        # Upstream defaults an object in the storage version whenever it decodes it from storage;
        # defaulting it once here, on the way in, gives every later read the same result.
        self._default(out)
        return out

    def stored(self, item: StoredObject) -> StoredObject:
        """item in the served version (VersionConverter.stored)."""
        hit = self._served.get(item.key)
        if hit is not None and hit[0] is item:
            return hit[1]
        obj = self._to_served(item.obj)
        out = StoredObject(obj, orjson.dumps(obj), item.revision, item.key)
        current = self.cacher.objects
        if current.get(item.key) is item:
            self._served[item.key] = (item, out)
            if len(self._served) > 2 * len(current) + 64:
                self._served = {k: v for k, v in self._served.items() if current.get(k) is v[0]}
        return out

    def stored_form(self, served: StoredObject) -> dict[str, Any]:
        """The object as stored, for what served came from (the served form itself when that is no longer
        known). Tables are printed from it, as kube-apiserver prints the object it decoded from storage:
        a conversion to the served version may lose what the table shows (the order of an HPA's metrics
        through autoscaling/v1). Across groups (events.k8s.io events stored as core ones) the served form."""
        hit = self._served.get(served.key)
        # (only within a group: a group's printer knows its own versions, not another group's shape)
        same_group = self.storage_version.rpartition("/")[0] == self.api_version.rpartition("/")[0]
        if same_group and hit is not None and hit[1] is served:
            return hit[0].obj
        return served.obj

    def event(self, ev: CacheEvent) -> CacheEvent:
        """ev in the served version (VersionConverter.event), made once per event and version."""
        versions = ev.versions
        if versions is None:
            versions = ev.versions = {}
        out = versions.get(self.api_version)
        if out is None:
            prev = self.stored(ev.prev) if ev.prev is not None else None
            out = CacheEvent(ev.type, ev.key, self.stored(ev.object), prev, ev.revision)
            versions[self.api_version] = out
        return out

    # --- the cacher's state ---

    @property
    def objects(self) -> dict[str, StoredObject]:
        return self.cacher.objects

    @property
    def watchers(self) -> set[CacheWatcher]:
        return {w for w in self.cacher.watchers if w.converter is self}

    @property
    def revision(self) -> int:
        return self.cacher.revision

    async def wait_until(self, revision: int) -> None:
        await self.cacher.wait_until(revision)

    async def wait_fresh(self) -> None:
        await self.cacher.wait_fresh()

    async def current_revision(self) -> int:
        return await self.cacher.current_revision()

    async def count(self, prefix: str) -> int:
        return await self.cacher.count(prefix)

    # --- reads ---

    def get_cached(self, key: str) -> StoredObject | None:
        item = self.cacher.get_cached(key)
        return None if item is None else self.stored(item)

    async def get(self, key: str) -> StoredObject:
        return self.stored(await self.cacher.get(key))

    def list_cached(self, prefix: str, opts: ListOptions) -> ListResult:
        return self.cacher.list_cached(prefix, opts, self)

    async def get_list(self, prefix: str, opts: ListOptions) -> ListResult:
        cacher = self.cacher
        if opts.revision > cacher.revision:
            await cacher.wait_until(opts.revision)
        if opts.revision and opts.revision != cacher.revision:
            return await self.storage.get_list(prefix, opts)  # an exact snapshot in the past
        await cacher.wait_fresh()
        return self.list_cached(prefix, opts)

    async def start_watch(
        self, prefix: str, revision: int | None, predicate: Predicate | None = None
    ) -> tuple[CacheWatcher, list[CacheEvent]]:
        return await self.cacher.start_watch(prefix, revision, predicate, self)

    # --- writes: the served version in, the storage version stored ---

    async def create(self, key: str, obj: dict[str, Any]) -> StoredObject:
        return self.stored(await self.cacher.create(key, self.storage_obj(obj)))

    async def guaranteed_update(
        self,
        key: str,
        try_update: UpdateFunc,
        *,
        ignore_not_found: bool = False,
        preconditions: Preconditions | None = None,
    ) -> StoredObject:
        def update(old: dict[str, Any] | None) -> dict[str, Any]:
            if old is None:
                return self.storage_obj(try_update(None))
            served = self._to_served(old)
            before = orjson.dumps(served)  # try_update may change its argument in place
            new = try_update(served)
            if new == orjson.loads(before):
                # Unchanged in the served version: write nothing, even where a conversion round
                # trip would not give the stored object back key for key.
                return old
            return self.storage_obj(new)

        stored = await self.cacher.guaranteed_update(
            key, update, ignore_not_found=ignore_not_found, preconditions=preconditions
        )
        return self.stored(stored)

    async def delete(
        self,
        key: str,
        *,
        preconditions: Preconditions | None = None,
        validate_deletion: ValidateDeletion | None = None,
    ) -> StoredObject:
        check: ValidateDeletion | None = None
        if validate_deletion is not None:
            served_check = validate_deletion

            def check_served(obj: dict[str, Any]) -> None:
                served_check(self._to_served(obj))

            check = check_served
        return self.stored(await self.cacher.delete(key, preconditions=preconditions, validate_deletion=check))


class _VersionedBackend:
    """The storage behind the cache, for the reads that bypass it (a list at an exact past revision),
    in the served version; selectors are evaluated on the served form."""

    def __init__(self, view: VersionedStorage) -> None:
        self.view = view

    async def get_list(self, prefix: str, opts: ListOptions) -> ListResult:
        view = self.view
        pred = opts.predicate
        if pred is not None:
            opts = dataclasses.replace(opts, predicate=lambda obj: pred(view.served_obj(obj)))
        result = await view.cacher.storage.get_list(prefix, opts)
        return ListResult(
            [view.stored(i) for i in result.items], result.revision, result.more, result.next_key, result.remaining
        )

    async def current_revision(self) -> int:
        return await self.view.cacher.storage.current_revision()
