"""The namespace controller (pkg/controller/namespace): empties a terminating namespace, then
removes the "kubernetes" finalizer so the namespace goes. Without it `kubectl delete ns` never ends."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from kube_apiserver.registry.store import DeleteOptions, Store
from kube_apiserver.runtime import errors
from kube_apiserver.storage.interface import ListOptions

log = logging.getLogger(__name__)


class NamespaceController:
    def __init__(self, namespaces: Store, namespaced: list[Store]) -> None:
        self.namespaces = namespaces
        self.namespaced = namespaced
        self.active: set[str] = set()
        self.tasks: set[asyncio.Task[None]] = set()
        namespaces.after_write.append(self._on_write)

    async def start(self) -> None:
        listed = await self.namespaces.list("", ListOptions())
        for item in listed.items:
            self._on_write(None, item.obj)

    def _on_write(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if new is None:
            return
        meta = new.get("metadata") or {}
        name = meta.get("name", "")
        if meta.get("deletionTimestamp") and name not in self.active:
            self.active.add(name)
            task = asyncio.get_running_loop().create_task(self._finalize(name))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _finalize(self, name: str) -> None:
        delay = 0.05
        try:
            while True:
                left = 0
                for store in self.namespaced:
                    try:
                        await store.delete_collection(name, ListOptions(), DeleteOptions(grace_period_seconds=0))
                        left += len((await store.list(name, ListOptions(limit=1))).items)
                    except errors.StatusError as e:
                        log.warning("namespace %s: deleting %s: %s", name, store.spec.resource, e)
                        left += 1
                if left == 0:
                    break
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

            def drop_finalizer(obj: dict[str, Any]) -> dict[str, Any]:
                spec = obj.get("spec") or {}
                spec["finalizers"] = [f for f in spec.get("finalizers") or [] if f != "kubernetes"]
                obj["spec"] = spec
                return obj

            await self.namespaces.patch("", name, drop_finalizer, subresource="finalize")
        except errors.StatusError as e:
            if e.code != 404:
                log.warning("namespace %s: finalizing: %s", name, e)
        finally:
            self.active.discard(name)
