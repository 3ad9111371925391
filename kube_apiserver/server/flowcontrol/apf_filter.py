"""API Priority and Fairness as the server runs it (pkg/util/flowcontrol/apf_filter.go): the config
controller fed by watches on the FlowSchema and PriorityLevelConfiguration watch caches (its informers),
the writer of the FlowSchemas' status, and the Retry-After tracker. The filter asks it to classify and
admit each request."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import orjson

from kube_apiserver.registry import fieldmanager
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.meta import now_rfc3339
from kube_apiserver.server.flowcontrol.controller import ConfigController, StatusUpdate
from kube_apiserver.server.flowcontrol.dropped import DroppedRequestsTracker
from kube_apiserver.server.flowcontrol.work_estimator import WorkEstimator
from kube_apiserver.storage.cacher.cacher import DELETED

log = logging.getLogger(__name__)

# How the config consumer appears in managedFields (ConfigConsumerAsFieldManager).
CONFIG_CONSUMER_FIELD_MANAGER = "api-priority-and-fairness-config-consumer-v1"


class PriorityAndFairness:
    def __init__(
        self,
        server_concurrency_limit: int,
        flow_schemas: Any,
        priority_levels: Any,
        count_objects: Callable[[str, str], int] | None = None,
    ) -> None:
        """flow_schemas and priority_levels are the registry Stores of the two resources; count_objects
        (api group, resource) -> the objects stored, for the seats of a LIST."""
        self.controller = ConfigController(server_concurrency_limit, now_rfc3339=now_rfc3339)
        self.estimator = WorkEstimator(count_objects)
        self.dropped = DroppedRequestsTracker()
        self.fs_store = flow_schemas
        self.pl_store = priority_levels
        self._fs_objects: dict[str, dict[str, Any]] = {}
        self._pl_objects: dict[str, dict[str, Any]] = {}
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        """The priority-and-fairness-filter post-start hook: informers synced, first digest done."""
        synced = [asyncio.Event(), asyncio.Event()]
        self._tasks = [
            asyncio.create_task(self._inform(self.fs_store, self._fs_objects, synced[0]), name="apf-fs-informer"),
            asyncio.create_task(self._inform(self.pl_store, self._pl_objects, synced[1]), name="apf-pl-informer"),
        ]
        await asyncio.gather(*(e.wait() for e in synced))
        await self.sync()
        self._tasks.append(asyncio.create_task(self._work(), name="apf-config-worker"))
        self._tasks.append(asyncio.create_task(self.controller.run_borrowing(), name="apf-borrowing"))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        self._tasks = []

    async def _inform(self, store: Any, objects: dict[str, dict[str, Any]], synced: asyncio.Event) -> None:
        """List then watch the resource's watch cache, as an informer; again when the watch ends."""
        cacher = store.storage
        while True:
            try:
                watcher, initial = await cacher.start_watch(cacher.prefix, None)
            except Exception:  # noqa: BLE001 - the cache is restarting: try again shortly
                log.exception("API Priority and Fairness informer could not watch %s", cacher.prefix)
                await asyncio.sleep(1)
                continue
            try:
                objects.clear()
                for ev in initial:
                    objects[ev.key] = ev.object.obj
                synced.set()
                self.controller.dirty.set()
                while True:
                    ev = await watcher.queue.get()
                    if ev is None:
                        break  # closed (relist, overflow): list again
                    if ev.type == DELETED:
                        objects.pop(ev.key, None)
                    else:
                        objects[ev.key] = ev.object.obj
                    self.controller.dirty.set()
            finally:
                watcher.stop()

    async def _work(self) -> None:
        while True:
            await self.controller.dirty.wait()
            try:
                await self.sync()
            except Exception:  # noqa: BLE001 - keep the worker alive; the next change retries
                log.exception("API Priority and Fairness config sync failed")
                await asyncio.sleep(1)

    async def sync(self) -> None:
        """Digest the current objects (syncOne), then write the status updates that are due."""
        self.controller.dirty.clear()
        updates = self.controller.digest(list(self._pl_objects.values()), list(self._fs_objects.values()))
        for update in updates:
            try:
                await self._write_status(update)
            except errors.StatusError as e:
                if e.code != 404:  # deleted meanwhile: its deletion event is coming
                    log.warning("failed to set a status.condition for FlowSchema %s: %s", update.name, e)

    async def _write_status(self, update: StatusUpdate) -> None:
        """Server-side apply of the Dangling condition to the status subresource, as the config consumer."""
        store = self.fs_store
        spec = store.spec
        applied = {
            "apiVersion": spec.group_version,
            "kind": spec.kind,
            "metadata": {"name": update.name},
            "status": {"conditions": [update.condition]},
        }
        fm = fieldmanager.field_manager_of(store, spec, "status")

        def apply(live: dict[str, Any] | None) -> dict[str, Any]:
            return fm.apply(live, orjson.loads(orjson.dumps(applied)), CONFIG_CONSUMER_FIELD_MANAGER, True)

        hook = fieldmanager.hook_for(store, spec, "status", CONFIG_CONSUMER_FIELD_MANAGER, apply=True)
        with fieldmanager.managing(hook):
            await store.patch("", update.name, apply, subresource="status")


def install_priority_and_fairness(
    server: Any, root_mux: Any, stores: dict[tuple[str, str, str], Any], server_concurrency_limit: int
) -> PriorityAndFairness:
    """APF for the server chain: its state, the priority-and-fairness-filter post-start hook (config
    consumer running, first digest done) on server, and the debug dumps on root_mux."""
    from kube_apiserver.apis.flowcontrol.bootstrap import GROUP
    from kube_apiserver.server.flowcontrol import debug, metrics

    # a resource's objects, all versions and namespaces: the size of its watch cache
    caches: dict[tuple[str, str], Any] = {}
    for (group, _, resource), store in stores.items():
        storage = store.storage
        caches.setdefault((group, resource), getattr(storage, "cacher", storage))

    def count_objects(group: str, resource: str) -> int:
        cache = caches.get((group, resource))
        return len(cache.objects) if cache is not None else 0

    apf = PriorityAndFairness(
        server_concurrency_limit,
        stores[(GROUP, "v1", "flowschemas")],
        stores[(GROUP, "v1", "prioritylevelconfigurations")],
        count_objects,
    )
    server.add_post_start_hook("priority-and-fairness-filter", apf.start)
    debug.install(root_mux, apf.controller)
    metrics.COLLECTOR.priority_levels = lambda: apf.controller.priority_levels
    return apf
