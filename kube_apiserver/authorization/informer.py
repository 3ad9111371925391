"""A watch on a resource's watch cache for the authorizers' indexes (what kube's shared informers on the
loopback client are to the RBAC and Node authorizers).

The informer sits in the cacher's set of watchers, so every event is handed to it synchronously as the cacher
applies it: an index is never older than the cache. When the cacher loses its storage watch it stops its
watchers and relists; the informer then waits for the new list and asks its owner to resync from it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


def cacher_of(store: Any) -> Any:
    """The watch cache behind a registry Store (its storage, or the cacher under a version converter)."""
    storage = getattr(store, "storage", None)
    return getattr(storage, "cacher", storage)


def current_objects(cacher: Any) -> list[dict[str, Any]]:
    """The objects the cache holds now, in key order (as a lister returns them)."""
    objects = getattr(cacher, "objects", None) or {}
    return [item.obj for _, item in sorted(objects.items())]


class CacheInformer:
    """Calls on_event(type, obj, prev_obj) for each event of one cacher and on_resync() after a relist."""

    converter = None  # read by the versioned storage's watcher bookkeeping: this one wants the stored version
    closed = False

    def __init__(
        self,
        cacher: Any,
        on_event: Callable[[str, dict[str, Any], dict[str, Any] | None], None],
        on_resync: Callable[[], None],
    ) -> None:
        self.cacher = cacher
        self.on_event = on_event
        self.on_resync = on_resync
        self._resync_task: asyncio.Task[None] | None = None
        cacher.watchers.add(self)

    def offer(self, ev: Any) -> None:
        prev = ev.prev.obj if ev.prev is not None else None
        try:
            self.on_event(ev.type, ev.object.obj, prev)
        except Exception:  # noqa: BLE001 - an odd object must not break the cacher's fan-out
            log.exception("authorization index: event on %s not applied; resyncing", ev.key)
            self.on_resync()

    def stop(self) -> None:
        """The cacher lost its watch and is about to relist: stay registered, resync once the list is in."""
        self.on_resync()
        if self._resync_task is None or self._resync_task.done():
            try:
                self._resync_task = asyncio.get_running_loop().create_task(self._await_relist(self.cacher.objects))
            except RuntimeError:  # no loop (tests driving a cacher by hand): the owner resynced already
                pass

    async def _await_relist(self, old: Any) -> None:
        while self.cacher.objects is old:
            follower = getattr(self.cacher, "_task", None)
            if follower is not None and follower.done():  # the cacher was stopped (shutdown): no list is coming
                return
            await asyncio.sleep(0.05)
        self.cacher.watchers.add(self)
        self.on_resync()
