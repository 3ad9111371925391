"""The service accounts controller (pkg/controller/serviceaccount/serviceaccounts_controller.go, run by
kube-controller-manager): every active namespace has the ServiceAccount "default"; it is made when the
namespace appears and made again when deleted, but never in a namespace that is terminating."""

from __future__ import annotations

import logging
from typing import Any

from kube_apiserver.controllers.workqueue import WorkQueue
from kube_apiserver.registry.fieldmanager import managing_as_server
from kube_apiserver.registry.store import Store
from kube_apiserver.runtime import errors
from kube_apiserver.storage.interface import ListOptions

log = logging.getLogger(__name__)

DEFAULT_SERVICE_ACCOUNT = "default"
MANAGER = "kube-controller-manager"  # its managedFields name: upstream this controller runs there


def _meta(obj: dict[str, Any] | None) -> dict[str, Any]:
    meta = (obj or {}).get("metadata")
    return meta if isinstance(meta, dict) else {}


def namespace_active(namespace: dict[str, Any]) -> bool:
    """Not being deleted: the namespaces these per-namespace controllers keep something in."""
    status = namespace.get("status") if isinstance(namespace.get("status"), dict) else {}
    return not _meta(namespace).get("deletionTimestamp") and status.get("phase", "Active") == "Active"


class ServiceAccountsController:
    def __init__(self, namespaces: Store, service_accounts: Store) -> None:
        self.namespaces = namespaces
        self.service_accounts = service_accounts
        self.queue: WorkQueue[str] = WorkQueue("serviceaccounts", self.sync_namespace, log)
        namespaces.after_write.append(self._on_namespace)
        service_accounts.after_write.append(self._on_service_account)

    def _enqueue(self, namespace: str) -> None:
        if namespace:
            self.queue.add(namespace)

    def _on_namespace(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if new is not None and namespace_active(new):
            self._enqueue(str(_meta(new).get("name", "")))

    def _on_service_account(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if new is None and _meta(old).get("name") == DEFAULT_SERVICE_ACCOUNT:
            self._enqueue(str(_meta(old).get("namespace", "")))

    async def start(self) -> None:
        self.queue.start()
        for item in (await self.namespaces.list("", ListOptions())).items:
            self._on_namespace(None, item.obj)

    async def sync_namespace(self, namespace: str) -> None:
        """syncNamespace: create the default service account of an active namespace when it is missing."""
        try:
            ns = (await self.namespaces.get("", namespace)).obj
        except errors.StatusError as e:
            if e.code == 404:
                return
            raise
        if not namespace_active(ns):
            return
        try:
            await self.service_accounts.get(namespace, DEFAULT_SERVICE_ACCOUNT)
            return
        except errors.StatusError as e:
            if e.code != 404:
                raise
        sa = {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": DEFAULT_SERVICE_ACCOUNT, "namespace": namespace},
        }
        try:
            with managing_as_server(self.service_accounts, manager=MANAGER):
                await self.service_accounts.create(namespace, sa)
        except errors.StatusError as e:
            if e.code not in (409, 403, 404):  # made meanwhile, or the namespace is going away
                raise
