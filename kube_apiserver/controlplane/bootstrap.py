"""The bootstrap controller (pkg/controlplane/controller/kubernetesservice and systemnamespaces):
the system namespaces, and the `kubernetes` Service in default with its Endpoints and EndpointSlice
pointing at this server."""

from __future__ import annotations

import ipaddress
import logging
from typing import Any

from kube_apiserver.registry.store import Store
from kube_apiserver.runtime import errors

log = logging.getLogger(__name__)

SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


def first_service_ip(cidr: str) -> str:
    net = ipaddress.ip_network(cidr, strict=False)
    return str(net.network_address + 1)


class BootstrapController:
    def __init__(self, stores: dict[tuple[str, str, str], Store], config: Any) -> None:
        self.stores = stores
        self.config = config

    async def _ensure(self, store: Store, namespace: str, obj: dict[str, Any], reconcile: bool = False) -> None:
        name = obj["metadata"]["name"]
        try:
            current = await store.get(namespace, name)
        except errors.StatusError as e:
            if e.code != 404:
                raise
            try:
                await store.create(namespace, obj)
            except errors.StatusError as ce:
                if ce.code != 409:
                    raise
            return
        if reconcile:

            def update(old: dict[str, Any]) -> dict[str, Any]:
                for k, v in obj.items():
                    if k != "metadata":
                        old[k] = v
                return old

            if any(current.obj.get(k) != v for k, v in obj.items() if k != "metadata"):
                await store.patch(namespace, name, update)

    async def run(self) -> None:
        ns_store = self.stores[("", "v1", "namespaces")]
        for ns in SYSTEM_NAMESPACES:
            await self._ensure(ns_store, "", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        ip = first_service_ip(self.config.service_cluster_ip_range)
        port = self.config.secure_port
        addr = self.config.advertise_address
        family = "IPv6" if ":" in ip else "IPv4"
        service = {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {
                "name": "kubernetes",
                "namespace": "default",
                "labels": {"component": "apiserver", "provider": "kubernetes"},
            },
            "spec": {
                "ports": [{"name": "https", "protocol": "TCP", "port": 443, "targetPort": port}],
                "clusterIP": ip,
                "clusterIPs": [ip],
                "type": "ClusterIP",
                "sessionAffinity": "None",
                "ipFamilies": [family],
                "ipFamilyPolicy": "SingleStack",
                "internalTrafficPolicy": "Cluster",
            },
        }
        await self._ensure(self.stores[("", "v1", "services")], "default", service, reconcile=True)
        endpoints = {
            "apiVersion": "v1",
            "kind": "Endpoints",
            "metadata": {
                "name": "kubernetes",
                "namespace": "default",
                "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"},
            },
            "subsets": [{"addresses": [{"ip": addr}], "ports": [{"name": "https", "port": port, "protocol": "TCP"}]}],
        }
        await self._ensure(self.stores[("", "v1", "endpoints")], "default", endpoints, reconcile=True)
        slice_ = {
            "apiVersion": "discovery.k8s.io/v1",
            "kind": "EndpointSlice",
            "metadata": {
                "name": "kubernetes",
                "namespace": "default",
                "labels": {"kubernetes.io/service-name": "kubernetes"},
            },
            "addressType": "IPv6" if ":" in addr else "IPv4",
            "endpoints": [{"addresses": [addr], "conditions": {"ready": True}}],
            "ports": [{"name": "https", "port": port, "protocol": "TCP"}],
        }
        await self._ensure(self.stores[("discovery.k8s.io", "v1", "endpointslices")], "default", slice_, reconcile=True)
