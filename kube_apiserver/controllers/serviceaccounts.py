"""The service accounts controller (pkg/controller/serviceaccount/serviceaccounts_controller.go, run by
kube-controller-manager): every active namespace has the ServiceAccount "default"; it is made when the
namespace appears and made again when deleted, but never in a namespace that is terminating."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from kube_apiserver.registry.fieldmanager import managing_as_server
from kube_apiserver.registry.store import Store
from kube_apiserver.runtime import errors
from kube_apiserver.storage.interface import ListOptions

log = logging.getLogger(__name__)

DEFAULT_SERVICE_ACCOUNT = "default"
RETRY_DELAY = 0.5
MANAGER = "kube-controller-manager"  # its managedFields name: upstream this controller runs there


def _meta(obj: dict[str, Any] | None) -> dict[str, Any]:
    meta = (obj or {}).get("metadata")
    return meta if isinstance(meta, dict) else {}


def _active(namespace: dict[str, Any]) -> bool:
    status = namespace.get("status") if isinstance(namespace.get("status"), dict) else {}
    return not _meta(namespace).get("deletionTimestamp") and status.get("phase", "Active") == "Active"


class ServiceAccountsController:
    def __init__(self, namespaces: Store, service_accounts: Store) -> None:
        self.namespaces = namespaces
        self.service_accounts = service_accounts
        self.queue: asyncio.Queue[str] = asyncio.Queue()
        self.pending: set[str] = set()
        self.task: asyncio.Task[None] | None = None
        namespaces.after_write.append(self._on_namespace)
        service_accounts.after_write.append(self._on_service_account)

    def _enqueue(self, namespace: str) -> None:
        if namespace and namespace not in self.pending:
            self.pending.add(namespace)
            self.queue.put_nowait(namespace)

    def _on_namespace(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if new is not None and _active(new):
            self._enqueue(str(_meta(new).get("name", "")))

    def _on_service_account(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if new is None and _meta(old).get("name") == DEFAULT_SERVICE_ACCOUNT:
            self._enqueue(str(_meta(old).get("namespace", "")))

    async def start(self) -> None:
        for item in (await self.namespaces.list("", ListOptions())).items:
            self._on_namespace(None, item.obj)
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            namespace = await self.queue.get()
            self.pending.discard(namespace)
            try:
                await self.sync_namespace(namespace)
            except errors.StatusError as e:
                log.warning("syncing service accounts of namespace %s: %s; retrying", namespace, e)
                asyncio.get_running_loop().call_later(RETRY_DELAY, self._enqueue, namespace)
            except Exception:  # noqa: BLE001 - a controller must outlive a bad object
                log.exception("syncing service accounts of namespace %s", namespace)

    async def sync_namespace(self, namespace: str) -> None:
        """syncNamespace: create the default service account of an active namespace when it is missing."""
        try:
            ns = (await self.namespaces.get("", namespace)).obj
        except errors.StatusError as e:
            if e.code == 404:
                return
            raise
        if not _active(ns):
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
