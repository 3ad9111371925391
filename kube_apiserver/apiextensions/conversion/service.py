"""Where a webhook's clientConfig.service is reached (the service resolver kube-apiserver hands its
webhook clients; k8s.io/apiserver/pkg/util/proxy ResolveEndpoint and ResolveCluster).

Cluster IPs are not routable on the machine this server runs on (no kube-proxy), so the service is
resolved as kube-apiserver does with --enable-aggregator-routing: to one ready endpoint of its
EndpointSlices (labelled kubernetes.io/service-name, the port whose name is the service port's
name), else of its Endpoints object, and only when it has no endpoints at all to its clusterIP and
port (ResolveCluster). Errors carry kube's texts (`service "x" not found`, `no endpoints available
for service "x"`, ...). The TLS server name stays <name>.<namespace>.svc whatever address is dialed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from kube_apiserver.runtime import errors
from kube_apiserver.storage.interface import ListOptions

SERVICE_NAME_LABEL = "kubernetes.io/service-name"

# (group, resource) → the Store of that resource, or None when the server has none.
StoreLookup = Callable[[str, str], Any]


class ResolveError(Exception):
    """Why a service has no address; str(e) is kube's text."""


class ServiceResolver:
    def __init__(self, lookup: StoreLookup) -> None:
        self.lookup = lookup

    async def resolve(self, namespace: str, name: str, port: int) -> tuple[str, int]:
        """An address (host, port) to dial for the service's port."""
        svc = await self._get(("", "services"), namespace, name)
        if svc is None:
            raise ResolveError(f'service "{name}" not found')
        spec = svc.get("spec") if isinstance(svc.get("spec"), dict) else {}
        svc_type = spec.get("type") or "ClusterIP"
        if svc_type not in ("ClusterIP", "LoadBalancer", "NodePort"):
            raise ResolveError(f'unsupported service type "{svc_type}"')
        svc_port = find_service_port(svc, port)
        address = await self._from_endpoint_slices(namespace, name, svc_port)
        if address is None:
            address = await self._from_endpoints(namespace, name, svc_port)
        if address is not None:
            return address
        cluster_ip = spec.get("clusterIP")
        if isinstance(cluster_ip, str) and cluster_ip and cluster_ip != "None":
            return cluster_ip, int(svc_port.get("port") or port)
        raise ResolveError(f'no endpoints available for service "{name}"')

    async def _get(self, gr: tuple[str, str], namespace: str, name: str) -> dict[str, Any] | None:
        store = self.lookup(*gr)
        if store is None:
            return None
        try:
            return (await store.get(namespace, name)).obj
        except errors.StatusError as e:
            if e.code == 404:
                return None
            raise

    async def _from_endpoint_slices(
        self, namespace: str, name: str, svc_port: dict[str, Any]
    ) -> tuple[str, int] | None:
        store = self.lookup("discovery.k8s.io", "endpointslices")
        if store is None:
            return None

        def of_service(obj: dict[str, Any]) -> bool:
            labels = (obj.get("metadata") or {}).get("labels") or {}
            return isinstance(labels, dict) and labels.get(SERVICE_NAME_LABEL) == name

        slices = [i.obj for i in (await store.list(namespace, ListOptions(predicate=of_service))).items]
        random.shuffle(slices)
        want = svc_port.get("name") or ""
        for eps in slices:
            for p in eps.get("ports") or []:
                if not isinstance(p, dict) or (p.get("name") or "") != want or not isinstance(p.get("port"), int):
                    continue
                endpoints = [e for e in eps.get("endpoints") or [] if isinstance(e, dict) and e.get("addresses")]
                if not endpoints:
                    continue
                offset = random.randrange(len(endpoints))
                for i in range(len(endpoints)):
                    ep = endpoints[(i + offset) % len(endpoints)]
                    ready = (ep.get("conditions") or {}).get("ready")
                    if ready is None or ready is True:
                        return str(ep["addresses"][0]), p["port"]
        return None

    async def _from_endpoints(self, namespace: str, name: str, svc_port: dict[str, Any]) -> tuple[str, int] | None:
        eps = await self._get(("", "endpoints"), namespace, name)
        if eps is None:
            return None
        subsets = [s for s in eps.get("subsets") or [] if isinstance(s, dict) and s.get("addresses")]
        random.shuffle(subsets)
        want = svc_port.get("name") or ""
        for ss in subsets:
            for p in ss.get("ports") or []:
                if isinstance(p, dict) and (p.get("name") or "") == want and isinstance(p.get("port"), int):
                    addr = random.choice(ss["addresses"])
                    if isinstance(addr, dict) and addr.get("ip"):
                        return str(addr["ip"]), p["port"]
        return None


def find_service_port(svc: dict[str, Any], port: int) -> dict[str, Any]:
    """findServicePort: the service port with that number."""
    spec = svc.get("spec") if isinstance(svc.get("spec"), dict) else {}
    for p in spec.get("ports") or []:
        if isinstance(p, dict) and p.get("port") == port:
            return p
    name = (svc.get("metadata") or {}).get("name", "")
    raise ResolveError(f'no service port {port} found for service "{name}"')


def store_lookup(stores: list[Any] | None) -> StoreLookup:
    """A lookup over the server's stores (the CRD handler knows the namespaced ones)."""

    def lookup(group: str, resource: str) -> Any:
        for store in stores or []:
            spec = store.spec
            if spec.group == group and spec.resource == resource:
                return store
        return None

    return lookup
