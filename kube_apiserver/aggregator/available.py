"""APIService availability (kube-aggregator/pkg/controllers/status/local): an APIService without a service is
served by this server itself and is always Available, as the local availability controller marks it. Those with
a service are left to the remote availability check, which needs the proxy (not here yet): their status stays
as written.

Also the readyz check "autoregister-completion" (makeAPIServiceAvailableHealthCheck): failing until each of the
auto-registered APIServices has been seen Available once."""

from __future__ import annotations

import logging
from typing import Any

from kube_apiserver.aggregator.autoregister import current_api_service
from kube_apiserver.apis.printing import condition, get
from kube_apiserver.controllers.workqueue import WorkQueue
from kube_apiserver.registry.fieldmanager import managing_as_server
from kube_apiserver.registry.store import Store
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.meta import now_rfc3339
from kube_apiserver.storage.interface import ListOptions

log = logging.getLogger(__name__)

AVAILABLE = "Available"
LOCAL_REASON = "Local"
LOCAL_MESSAGE = "Local APIServices are always available"


def available_condition(obj: dict[str, Any]) -> dict[str, Any] | None:
    return condition(get(obj, "status", "conditions"), AVAILABLE)


def is_available(obj: dict[str, Any]) -> bool:
    cond = available_condition(obj)
    return cond is not None and cond.get("status") == "True"


def is_local(obj: dict[str, Any]) -> bool:
    spec = obj.get("spec")
    return isinstance(spec, dict) and spec.get("service") is None


def set_api_service_condition(obj: dict[str, Any], new: dict[str, Any]) -> None:
    """SetAPIServiceCondition: the transition time moves only when the status changes."""
    status = obj.setdefault("status", {})
    conditions = status.setdefault("conditions", [])
    for cond in conditions:
        if isinstance(cond, dict) and cond.get("type") == new["type"]:
            if cond.get("status") != new["status"]:
                cond["status"] = new["status"]
                cond["lastTransitionTime"] = new["lastTransitionTime"]
            cond["reason"] = new["reason"]
            cond["message"] = new["message"]
            return
    conditions.append(new)


def local_available_condition() -> dict[str, Any]:
    return {
        "type": AVAILABLE,
        "status": "True",
        "lastTransitionTime": now_rfc3339(),
        "reason": LOCAL_REASON,
        "message": LOCAL_MESSAGE,
    }


class LocalAvailableConditionController:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.queue: WorkQueue[str] = WorkQueue("apiservice-local-available", self.sync, log)
        store.after_write.append(self._on_api_service)

    def _on_api_service(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if new is not None and is_local(new):
            self.queue.add(new["metadata"]["name"])

    async def start(self) -> None:
        self.queue.start()
        for item in (await self.store.list("", ListOptions())).items:
            self._on_api_service(None, item.obj)

    async def sync(self, name: str) -> None:
        current = await current_api_service(self.store, name)
        if current is None or not is_local(current):
            return
        cond = available_condition(current)
        if cond is not None and (cond.get("status"), cond.get("reason"), cond.get("message")) == (
            "True",
            LOCAL_REASON,
            LOCAL_MESSAGE,
        ):
            return  # nothing would change: no write

        def mark(obj: dict[str, Any]) -> dict[str, Any]:
            set_api_service_condition(obj, local_available_condition())
            return obj

        try:
            with managing_as_server(self.store, "status"):
                await self.store.patch("", name, mark, subresource="status")
        except errors.StatusError as e:
            if e.code != 404:  # deleted meanwhile
                raise


class AutoRegisterCompletion:
    """The readyz check: the names not yet seen Available; a name leaves for good once seen."""

    def __init__(self, store: Store, names: list[str]) -> None:
        self.store = store
        self.pending = set(names)

    async def check(self) -> str | None:
        for name in list(self.pending):
            current = self.store.storage.get_cached(self.store.key("", name))
            if current is not None and is_available(current.obj):
                self.pending.discard(name)
        if not self.pending:
            return None
        return f"missing APIService: [{' '.join(sorted(self.pending))}]"
