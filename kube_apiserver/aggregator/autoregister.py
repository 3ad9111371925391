"""The auto-registration controller (kube-aggregator/pkg/controllers/autoregister): the APIServices of the groups
this server serves itself, so `kubectl get apiservices` lists them as on a cluster.

Desired APIServices come in two kinds, told apart by the label kube-aggregator.kubernetes.io/automanaged:
"onstart" ones (every built-in group version) are made or corrected once, when the server starts; "true" ones
(each served version of a CRD group) are kept in line for as long as they are desired, and deleted when not.
An APIService without the label is the user's, never touched. Per name (checkAPIService upstream):

                                             | not desired  | desired onstart | desired always
    -----------------------------------------+--------------+-----------------+----------------
    missing                                  | -            | create once     | create
    not automanaged                          | -            | -               | -
    onstart, not there when we started       | -            | -               | -
    onstart, there when we started           | delete once  | update once     | update once
    automanaged always                       | delete       | update once     | update
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from kube_apiserver.controllers.workqueue import WorkQueue
from kube_apiserver.registry.fieldmanager import managing_as_server
from kube_apiserver.registry.store import DeleteOptions, Store
from kube_apiserver.runtime import errors
from kube_apiserver.storage.interface import ListOptions, Preconditions

log = logging.getLogger(__name__)

AUTO_REGISTER_MANAGED_LABEL = "kube-aggregator.kubernetes.io/automanaged"
MANAGE_ON_START = "onstart"
MANAGE_CONTINUOUSLY = "true"


def _labels(obj: dict[str, Any] | None) -> dict[str, Any]:
    meta = (obj or {}).get("metadata")
    labels = meta.get("labels") if isinstance(meta, dict) else None
    return labels if isinstance(labels, dict) else {}


def _managed(obj: dict[str, Any] | None) -> str:
    return str(_labels(obj).get(AUTO_REGISTER_MANAGED_LABEL, ""))


def api_service(group: str, version: str, group_priority_minimum: int, version_priority: int) -> dict[str, Any]:
    """The APIService "<version>.<group>" of a group version served by this server (no service: Local)."""
    spec: dict[str, Any] = {"group": group, "version": version} if group else {"version": version}
    spec["groupPriorityMinimum"] = group_priority_minimum
    spec["versionPriority"] = version_priority
    return {
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {"name": f"{version}.{group}"},
        "spec": spec,
    }


async def current_api_service(store: Store, name: str) -> dict[str, Any] | None:
    """The current object, read after the cache has caught up with every write so far (the write that queued
    the name may not have reached it yet)."""
    try:
        return (await store.get("", name)).obj
    except errors.StatusError as e:
        if e.code == 404:
            return None
        raise


class AutoRegisterController:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.to_sync: dict[str, dict[str, Any]] = {}  # name -> desired APIService, labelled with its kind
        self.synced: set[str] = set()  # checked successfully at least once (the "once" of onstart)
        self.at_start: set[str] | None = None  # the onstart-labelled APIServices there when the controller started
        # the names to check; a successful check counts for the "once" of onstart
        self.queue: WorkQueue[str] = WorkQueue("autoregister", self._check, log)
        store.after_write.append(self._on_api_service)

    # --- what is desired (AutoAPIServiceRegistration) ---

    def add_api_service_to_sync_on_start(self, obj: dict[str, Any]) -> None:
        self._add(obj, MANAGE_ON_START)

    def add_api_service_to_sync(self, obj: dict[str, Any]) -> None:
        self._add(obj, MANAGE_CONTINUOUSLY)

    def remove_api_service_to_sync(self, name: str) -> None:
        self.to_sync.pop(name, None)
        self._enqueue(name)

    def _add(self, obj: dict[str, Any], mode: str) -> None:
        obj = copy.deepcopy(obj)
        obj["metadata"].setdefault("labels", {})[AUTO_REGISTER_MANAGED_LABEL] = mode
        name = obj["metadata"]["name"]
        self.to_sync[name] = obj
        self._enqueue(name)

    # --- the work queue ---

    def _enqueue(self, name: str) -> None:
        self.queue.add(name)  # before start, start() queues every name

    def _on_api_service(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        name = ((new or old or {}).get("metadata") or {}).get("name")
        if isinstance(name, str):
            self._enqueue(name)

    async def start(self) -> None:
        existing = (await self.store.list("", ListOptions())).items
        self.at_start = {item.obj["metadata"]["name"] for item in existing if _managed(item.obj) == MANAGE_ON_START}
        self.queue.start()
        for name in sorted({*self.to_sync, *(item.obj["metadata"]["name"] for item in existing)}):
            self._enqueue(name)

    async def _check(self, name: str) -> None:
        await self.check_api_service(name)
        self.synced.add(name)

    async def check_api_service(self, name: str) -> None:
        desired = self.to_sync.get(name)
        has_synced = name in self.synced
        curr = await current_api_service(self.store, name)
        if curr is None and desired is None:
            return
        if _managed(desired) == MANAGE_ON_START and has_synced:
            return
        if curr is None:
            assert desired is not None
            try:
                with managing_as_server(self.store):
                    await self.store.create("", copy.deepcopy(desired))
            except errors.StatusError as e:
                if e.code != 409:  # created meanwhile: its write queues the name again
                    raise
            return
        managed = _managed(curr)
        if managed not in (MANAGE_ON_START, MANAGE_CONTINUOUSLY):
            return  # the user's own
        if managed == MANAGE_ON_START and (name not in (self.at_start or ()) or has_synced):
            return
        if desired is None:
            uid = curr["metadata"].get("uid")
            try:
                await self.store.delete("", name, DeleteOptions(preconditions=Preconditions(uid=uid)))
            except errors.StatusError as e:
                if e.code not in (404, 409):  # gone or changed meanwhile: checked again on its event
                    raise
            return
        if curr.get("spec") == desired["spec"]:
            return
        spec = copy.deepcopy(desired["spec"])

        def deconflict(obj: dict[str, Any]) -> dict[str, Any]:
            obj["spec"] = spec  # only the spec matters
            return obj

        try:
            with managing_as_server(self.store):
                await self.store.patch("", name, deconflict)
        except errors.StatusError as e:
            if e.code not in (404, 409):
                raise
