"""An informer (k8s.io/client-go/tools/cache, the part the storage protection controllers use): a watch on one
resource's watch cache, handing every change to a handler as (old, new): (None, obj) for an object seen for the
first time, (prev, obj) for a change, (obj, None) for a removal.

It watches the cache, not the Store's after_write hooks, as the garbage collector does: so it hears of every
server's writes (several servers on one etcd), not only of this one's. The objects handed over are the cache's
own: a handler must not change them."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from kube_apiserver.registry.store import Store
from kube_apiserver.storage.cacher.cacher import ADDED, DELETED, CacheEvent

log = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any] | None, dict[str, Any] | None], None]

# Before trying again to watch a cache that could not be watched (e.g. it failed to fill).
REWATCH_DELAY = 5.0


class Informer:
    def __init__(self, store: Store, handler: Handler, on_relist: Callable[[], None] | None = None) -> None:
        self.store = store
        self.handler = handler
        # Called after each (re)list: what was removed while the cache relisted was never seen going.
        self.on_relist = on_relist
        self.stopped = False

    async def start(self) -> None:
        await self._watch()

    def stop(self) -> None:
        self.stopped = True

    async def _watch(self) -> None:
        if self.stopped:
            return
        resource = self.store.spec.resource
        try:
            watcher, initial = await self.store.watch("", None, None)
        except Exception as e:  # noqa: BLE001 - e.g. a cache that failed to fill: try again later
            log.warning("informer for %s: watching: %s; retrying in %.0fs", resource, e, REWATCH_DELAY)
            asyncio.get_running_loop().call_later(REWATCH_DELAY, self._rewatch)
            return
        for ev in initial:
            self._dispatch(ev)
        if self.on_relist is not None:
            self.on_relist()

        def sink(ev: CacheEvent | None) -> None:
            if ev is None:  # the cache relisted (or stopped): watch it anew
                self._rewatch()
            elif not self.stopped:
                self._dispatch(ev)

        watcher.attach(sink)

    def _rewatch(self) -> None:
        if not self.stopped:
            asyncio.get_running_loop().create_task(self._watch())

    def _dispatch(self, ev: CacheEvent) -> None:
        try:
            if ev.type == DELETED:
                self.handler(ev.object.obj, None)
            elif ev.type == ADDED:
                self.handler(None, ev.object.obj)
            else:
                self.handler(ev.prev.obj if ev.prev is not None else None, ev.object.obj)
        except Exception:  # noqa: BLE001 - a bad object must not stop the watch
            log.exception("informer for %s: handling %s %s", self.store.spec.resource, ev.type, ev.key)
