"""The bootstrap controller (pkg/controlplane/controller/kubernetesservice, systemnamespaces and
defaultservicecidr): the system namespaces, the default ServiceCIDR "kubernetes" mirroring
--service-cluster-ip-range, and the `kubernetes` Service in default (its ClusterIP, the range's first,
allocated like any other) with its Endpoints and EndpointSlice pointing at this server."""

from __future__ import annotations

import ipaddress
import logging
from typing import Any

from kube_apiserver.registry.fieldmanager import managing_as_server
from kube_apiserver.registry.store import Store
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.meta import now_rfc3339

log = logging.getLogger(__name__)

SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
DEFAULT_SERVICE_CIDR_NAME = "kubernetes"


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
                with managing_as_server(store):
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
                with managing_as_server(store):
                    await store.patch(namespace, name, update)

    async def _ensure_default_service_cidr(self, store: Store, cidrs: list[str]) -> None:
        """The ServiceCIDR "kubernetes" mirrors --service-cluster-ip-range
        (pkg/controlplane/controller/defaultservicecidr): created if missing, and marked Ready when
        it has no Ready condition yet and matches the flag. A mismatch is left for the admin."""
        try:
            current = (await store.get("", DEFAULT_SERVICE_CIDR_NAME)).obj
        except errors.StatusError as e:
            if e.code != 404:
                raise
            obj = {
                "apiVersion": "networking.k8s.io/v1",
                "kind": "ServiceCIDR",
                "metadata": {"name": DEFAULT_SERVICE_CIDR_NAME},
                "spec": {"cidrs": cidrs},
            }
            try:
                with managing_as_server(store):
                    current = (await store.create("", obj)).obj
            except errors.StatusError as ce:
                if ce.code != 409:
                    raise
                current = (await store.get("", DEFAULT_SERVICE_CIDR_NAME)).obj
        if (current.get("metadata") or {}).get("deletionTimestamp"):
            return
        conditions = (current.get("status") or {}).get("conditions") or []
        ready = next((c for c in conditions if isinstance(c, dict) and c.get("type") == "Ready"), None)
        if (current.get("spec") or {}).get("cidrs") != cidrs or ready is not None and ready.get("status") != "Unknown":
            if (current.get("spec") or {}).get("cidrs") != cidrs:
                log.warning(
                    "the default ServiceCIDR %s does not match --service-cluster-ip-range %s",
                    current.get("spec"),
                    cidrs,
                )
            return
        condition = {
            "type": "Ready",
            "status": "True",
            "lastTransitionTime": now_rfc3339(),
            "reason": "",
            "message": "Kubernetes default Service CIDR is ready",
        }

        def set_ready(old: dict[str, Any]) -> dict[str, Any]:
            status = old.setdefault("status", {})
            status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != "Ready"] + [condition]
            return old

        with managing_as_server(store, "status"):
            await store.patch("", DEFAULT_SERVICE_CIDR_NAME, set_ready, subresource="status")

    async def run(self) -> None:
        ns_store = self.stores[("", "v1", "namespaces")]
        for ns in SYSTEM_NAMESPACES:
            await self._ensure(ns_store, "", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        cidrs = self.stores.get(("networking.k8s.io", "v1", "servicecidrs"))
        if cidrs is not None:
            await self._ensure_default_service_cidr(cidrs, [self.config.service_cluster_ip_range])
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
        await self._ensure_endpoints(self.stores[("", "v1", "endpoints")], endpoints)
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
        await self._ensure_endpoints(self.stores[("discovery.k8s.io", "v1", "endpointslices")], slice_)

    async def _ensure_endpoints(self, store: Store, obj: dict[str, Any]) -> None:
        """Upstream's endpoint reconciler only logs what it cannot write: an advertise address that
        endpoints may not hold (loopback, link-local) leaves the kubernetes Service without endpoints
        but the server serving."""
        try:
            await self._ensure(store, "default", obj, reconcile=True)
        except errors.StatusError as e:
            if e.code != 422:
                raise
            log.warning("not reconciling the kubernetes %s: %s", obj["kind"], e)
