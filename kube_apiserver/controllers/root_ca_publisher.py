"""The root CA certificate publisher (pkg/controller/certificates/rootcacertpublisher, run by
kube-controller-manager as "root-ca-cert-publisher"): every active namespace has the ConfigMap
kube-root-ca.crt, holding the cluster's CA bundle (ca.crt) with which a pod verifies the API server (the
ServiceAccount admission plugin's kube-api-access volume projects it). It is made when the namespace
appears, made again when deleted, and put back when its data or its description annotation is changed."""

from __future__ import annotations

import logging
from typing import Any

import orjson

from kube_apiserver.controllers.serviceaccounts import namespace_active
from kube_apiserver.controllers.workqueue import WorkQueue
from kube_apiserver.registry.fieldmanager import managing_as_server
from kube_apiserver.registry.store import Store
from kube_apiserver.runtime import errors
from kube_apiserver.storage.interface import ListOptions

log = logging.getLogger(__name__)

ROOT_CA_CONFIG_MAP = "kube-root-ca.crt"
DESCRIPTION_ANNOTATION = "kubernetes.io/description"
DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as "
    "the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of "
    "Kubernetes clusters."
)
MANAGER = "kube-controller-manager"


def _meta(obj: dict[str, Any] | None) -> dict[str, Any]:
    meta = (obj or {}).get("metadata")
    return meta if isinstance(meta, dict) else {}


class RootCACertPublisher:
    def __init__(self, namespaces: Store, config_maps: Store, root_ca: bytes) -> None:
        self.namespaces = namespaces
        self.config_maps = config_maps
        self.data = {"ca.crt": root_ca.decode()}
        self.queue: WorkQueue[str] = WorkQueue("root-ca-cert-publisher", self.sync_namespace, log)
        namespaces.after_write.append(self._on_namespace)
        config_maps.after_write.append(self._on_config_map)

    def _on_namespace(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if new is not None and namespace_active(new):
            self.queue.add(str(_meta(new).get("name", "")))

    def _on_config_map(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        meta = _meta(new if new is not None else old)
        if meta.get("name") == ROOT_CA_CONFIG_MAP and meta.get("namespace"):
            self.queue.add(str(meta["namespace"]))

    async def start(self) -> None:
        self.queue.start()
        for item in (await self.namespaces.list("", ListOptions())).items:
            self._on_namespace(None, item.obj)

    async def sync_namespace(self, namespace: str) -> None:
        try:
            current = (await self.config_maps.get(namespace, ROOT_CA_CONFIG_MAP)).obj
        except errors.StatusError as e:
            if e.code != 404:
                raise
            current = None
        with managing_as_server(self.config_maps, manager=MANAGER):
            if current is None:
                cm = {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {
                        "name": ROOT_CA_CONFIG_MAP,
                        "namespace": namespace,
                        "annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION},
                    },
                    "data": dict(self.data),
                }
                try:
                    await self.config_maps.create(namespace, cm)
                except errors.StatusError as e:
                    # made meanwhile, or the namespace is gone or terminating: nothing to retry
                    if e.code not in (409, 403, 404):
                        raise
                return
            if current.get("data") == self.data and _meta(current).get("annotations", {}).get(DESCRIPTION_ANNOTATION):
                return
            cm = orjson.loads(orjson.dumps(current))  # the cached object is shared
            cm["data"] = dict(self.data)
            cm["metadata"].setdefault("annotations", {})[DESCRIPTION_ANNOTATION] = DESCRIPTION
            try:
                await self.config_maps.update(namespace, ROOT_CA_CONFIG_MAP, cm)
            except errors.StatusError as e:
                if e.code != 404:  # a conflict is retried by the queue
                    raise
