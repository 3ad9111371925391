"""Service allocations (pkg/registry/core/service/storage/alloc.go and transaction.go): IP family
fields, ClusterIPs and NodePorts, on create, update and delete.

Allocations are made synchronously while the Store prepares the object, before validation (as
upstream's BeginCreate/BeginUpdate hooks run before the strategy), and recorded in the request's
ServiceTransaction: the Service REST commits it once the object is stored and reverts it on any
failure, so nothing leaks. A dry run reserves nothing. Allocation errors are Status errors with
upstream's messages: a requested IP or port that is taken or out of range is a 422 on
spec.clusterIPs / spec.ports[i].nodePort, an exhausted range a 500.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kube_apiserver.apis.core.validation.service_fields import (
    as_dict,
    as_int,
    as_list,
    as_str,
    family_of,
    go_string_slice,
    invalid_raw,
    spec_of,
)
from kube_apiserver.apis.core.validation.service_ips import validate_service_cluster_ips_related_fields
from kube_apiserver.apis.core.validation.services import needs_health_check
from kube_apiserver.controlplane.ipallocator import IPAllocationError, IPAllocator, Owner, canonical_ip
from kube_apiserver.controlplane.portallocator import PortAllocationError, PortAllocationOperation, PortAllocator
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.errors import StatusCause, field_invalid


def _other_family(family: str) -> str:
    return "IPv6" if family == "IPv4" else "IPv4"


def _invalid(svc: dict[str, Any], causes: list[StatusCause]) -> errors.StatusError:
    return errors.new_invalid("", "Service", as_str(as_dict(svc.get("metadata")).get("name")), causes)


def needs_cluster_ip(spec: dict[str, Any]) -> bool:
    return spec.get("type") != "ExternalName"


def needs_node_port(spec: dict[str, Any]) -> bool:
    return spec.get("type") in ("NodePort", "LoadBalancer")


def should_allocate_node_ports(spec: dict[str, Any]) -> bool:
    if spec.get("type") == "NodePort":
        return True
    return spec.get("type") == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is not False


def collect_node_ports(spec: dict[str, Any]) -> list[int]:
    return [n for p in as_list(spec.get("ports")) if (n := as_int(as_dict(p).get("nodePort")))]


def same_list(a: Any, b: Any) -> bool:
    return as_list(a) == as_list(b)


@dataclass
class ServiceTransaction:
    """One request's allocations. An update may be attempted more than once (a conflict retries it):
    begin_attempt() undoes what the previous attempt reserved."""

    dry_run: bool
    ips_allocated: list[tuple[str, str]] = field(default_factory=list)  # (family, canonical IP)
    ips_release: list[tuple[str, str]] = field(default_factory=list)  # released on commit
    port_ops: list[PortAllocationOperation] = field(default_factory=list)
    deleted: bool = False  # the write deleted the object (its last finalizer went)
    validating_update: bool = False  # the strategy reorders update validation as upstream

    def begin_attempt(self, allocators: Allocators) -> None:
        self.revert(allocators)
        self.validating_update = False

    def revert(self, allocators: Allocators) -> None:
        for family, ip in self.ips_allocated:
            allocators.ip_allocators[family].release(ip)
        for op in self.port_ops:
            op.finish()
        self.ips_allocated, self.ips_release, self.port_ops = [], [], []

    def commit(self, allocators: Allocators, owner: Owner) -> tuple[list[str], list[str]]:
        """Make the allocations the owner's and do the deferred releases: (allocated, released) IPs."""
        allocated = [ip for _, ip in self.ips_allocated]
        for family, ip in self.ips_allocated:
            allocators.ip_allocators[family].set_owner(ip, owner)
        released = []
        if not self.dry_run:
            for family, ip in self.ips_release:
                alloc = allocators.ip_allocators.get(family)
                if alloc is not None and alloc.release(ip) is not None:
                    released.append(canonical_ip(ip) or ip)
        for op in self.port_ops:
            op.commit()
        self.ips_allocated, self.ips_release, self.port_ops = [], [], []
        return allocated, released


class Allocators:
    """The IP allocators by family (the first is --service-cluster-ip-range's) and the NodePorts."""

    def __init__(self, ip_allocators: list[IPAllocator], node_ports: PortAllocator) -> None:
        self.ip_allocators = {a.family: a for a in ip_allocators}
        self.default_family = ip_allocators[0].family
        self.node_ports = node_ports

    # --- IP families (initIPFamilyFields) ---

    def init_ip_family_fields(self, svc: dict[str, Any], old: dict[str, Any] | None) -> None:
        """Default ipFamilyPolicy and ipFamilies from the cluster's configuration, checking that what
        the user asked for is possible here. Visible on a dry run too."""
        spec, old_spec = spec_of(svc), spec_of(old) if old is not None else None
        if spec.get("type") == "ExternalName" or _matching_prefer_dual_stack(spec, old_spec):
            return
        if spec.get("ipFamilyPolicy") is None:
            if old_spec is not None and old_spec.get("ipFamilyPolicy") is not None:
                spec["ipFamilyPolicy"] = old_spec["ipFamilyPolicy"]
            elif spec.get("clusterIP") == "None" and not as_dict(spec.get("selector")):
                spec["ipFamilyPolicy"] = "RequireDualStack"  # headless and selectorless: endpoints of any family
            else:
                spec["ipFamilyPolicy"] = "SingleStack"
        causes = validate_service_cluster_ips_related_fields(svc)
        if causes:
            raise _invalid(svc, causes)
        policy = spec["ipFamilyPolicy"]
        ips = [as_str(ip) for ip in as_list(spec.get("clusterIPs"))]
        families = [as_str(f) for f in as_list(spec.get("ipFamilies"))]
        causes = []
        if old_spec is not None:
            if policy == "SingleStack":
                # Clear intent, as long as the IPs and families were left alone.
                if same_list(old_spec.get("clusterIPs"), spec.get("clusterIPs")) and len(ips) > 1:
                    ips = spec["clusterIPs"] = ips[:1]
                if same_list(old_spec.get("ipFamilies"), spec.get("ipFamilies")) and len(families) > 1:
                    families = spec["ipFamilies"] = families[:1]
            else:
                if ips and len(ips) < len(as_list(old_spec.get("clusterIPs"))):
                    causes.append(
                        field_invalid(
                            "spec.ipFamilyPolicy", policy, "must be 'SingleStack' to release the secondary cluster IP"
                        )
                    )
                if families and len(families) < len(as_list(old_spec.get("ipFamilies"))):
                    causes.append(
                        field_invalid(
                            "spec.ipFamilyPolicy", policy, "must be 'SingleStack' to release the secondary IP family"
                        )
                    )
        if policy == "SingleStack":
            detail = "must be 'RequireDualStack' or 'PreferDualStack' when multiple"
            if len(ips) == 2:
                causes.append(field_invalid("spec.ipFamilyPolicy", policy, f"{detail} cluster IPs are specified"))
            if len(families) == 2:
                causes.append(field_invalid("spec.ipFamilyPolicy", policy, f"{detail} IP families are specified"))
        for i, ip in enumerate(ips):
            if ip == "None":
                break
            family = family_of(ip)
            if i >= len(families):
                if family in self.ip_allocators:
                    families.append(family)
                else:
                    shown = go_string_slice(ips)
                    causes.append(
                        invalid_raw(f"spec.clusterIPs[{i}]", shown, f"{family} is not configured on this cluster")
                    )
        if causes:
            raise _invalid(svc, causes)
        if spec.get("clusterIP") == "None" and not as_dict(spec.get("selector")):
            # Headless and selectorless: may name families this cluster does not have.
            families = families or [self.default_family]
            if len(families) < 2 and policy != "SingleStack":
                families.append(_other_family(families[0]))
            spec["ipFamilies"] = families
            return
        if policy == "RequireDualStack" and len(self.ip_allocators) < 2:
            causes.append(
                field_invalid("spec.ipFamilyPolicy", policy, "this cluster is not configured for dual-stack services")
            )
        for i, family in enumerate(families):
            if family not in self.ip_allocators:
                causes.append(field_invalid(f"spec.ipFamilies[{i}]", family, "not configured on this cluster"))
        if causes:
            raise _invalid(svc, causes)
        families = families or [self.default_family]
        if policy != "SingleStack" and len(families) == 1 and len(self.ip_allocators) == 2:
            families.append(_other_family(families[0]))
        spec["ipFamilies"] = families

    # --- ClusterIPs ---

    def alloc_cluster_ips(self, svc: dict[str, Any], txn: ServiceTransaction, owner: Owner) -> None:
        spec = spec_of(svc)
        ips = [as_str(ip) for ip in as_list(spec.get("clusterIPs"))]
        if spec.get("type") == "ExternalName" or ips[:1] == ["None"]:
            return
        families = [as_str(f) for f in as_list(spec.get("ipFamilies"))]
        to_alloc: dict[str, str] = {}
        for i, family in enumerate(families):
            if i >= len(ips):
                ips.append("")  # a marker: allocate one
            to_alloc[family] = ips[i]
        spec["clusterIPs"] = ips
        allocated = self._alloc_ips(svc, to_alloc, txn, owner)
        for family, ip in allocated.items():
            for i, check in enumerate(families):
                if family == check:
                    ips[i] = ip
                    if i == 0:
                        spec["clusterIP"] = ip

    def _alloc_ips(
        self, svc: dict[str, Any], to_alloc: dict[str, str], txn: ServiceTransaction, owner: Owner
    ) -> dict[str, str]:
        allocated: dict[str, str] = {}
        for family, ip in to_alloc.items():
            alloc = self.ip_allocators[family]
            if not ip:
                if txn.dry_run:
                    allocated[family] = alloc.dry_run_next()
                    continue
                try:
                    allocated[family] = alloc.allocate_next(owner)
                except IPAllocationError as e:
                    raise errors.new_internal_error(f"failed to allocate a serviceIP: {e}") from None
                txn.ips_allocated.append((family, allocated[family]))
                continue
            if canonical_ip(ip) is None:
                raise errors.new_internal_error(f'failed to parse service IP "{ip}"')
            try:
                if txn.dry_run:
                    alloc.dry_run_allocate(ip)
                else:
                    txn.ips_allocated.append((family, alloc.allocate(ip, owner)))
            except IPAllocationError as e:
                shown = go_string_slice([as_str(x) for x in as_list(spec_of(svc).get("clusterIPs"))])
                detail = f"failed to allocate IP {ip}: {e}"
                raise _invalid(svc, [invalid_raw("spec.clusterIPs", shown, detail)]) from None
            allocated[family] = ip
        return allocated

    def _update_cluster_ips(
        self, svc: dict[str, Any], old: dict[str, Any], txn: ServiceTransaction, owner: Owner
    ) -> None:
        spec, old_spec = spec_of(svc), spec_of(old)
        if _matching_prefer_dual_stack(spec, old_spec):
            return
        old_type, new_type = old_spec.get("type"), spec.get("type")
        if old_type == "ExternalName" and new_type != "ExternalName":
            self.alloc_cluster_ips(svc, txn, owner)
            return
        old_ips = [as_str(ip) for ip in as_list(old_spec.get("clusterIPs"))]
        if old_ips[:1] == ["None"]:
            return
        old_families = [as_str(f) for f in as_list(old_spec.get("ipFamilies"))]
        if old_type != "ExternalName" and new_type == "ExternalName":
            txn.ips_release += [(f, old_ips[i]) for i, f in enumerate(old_families) if i < len(old_ips)]
            return
        families = [as_str(f) for f in as_list(spec.get("ipFamilies"))]
        if len(old_families) == 1 and len(families) == 2:  # upgraded to dual-stack
            ips = [as_str(ip) for ip in as_list(spec.get("clusterIPs"))]
            if len(ips) < 2:
                ips.append("")
            spec["clusterIPs"] = ips
            allocated = self._alloc_ips(svc, {families[1]: ips[1]}, txn, owner)
            ips[1] = allocated[families[1]]
        elif len(old_families) == 2 and len(families) == 1 and len(old_ips) > 1:  # downgraded
            txn.ips_release.append((old_families[1], old_ips[1]))

    # --- NodePorts ---

    def _init_node_ports(self, svc: dict[str, Any], op: PortAllocationOperation) -> None:
        spec = spec_of(svc)
        ports = [p for p in as_list(spec.get("ports")) if isinstance(p, dict)]
        by_service_port: dict[int, int] = {}
        for i, port in enumerate(ports):
            node_port = as_int(port.get("nodePort"))
            if not node_port and not should_allocate_node_ports(spec):
                continue  # no new ports, but requested ones are honoured
            number = as_int(port.get("port"))
            allocated = by_service_port.get(number, 0)
            if not allocated:
                # Ports of the same number (TCP and UDP 53) share a NodePort: any one may name it.
                requested = next(
                    (n for p in ports if as_int(p.get("port")) == number and (n := as_int(p.get("nodePort")))), 0
                )
                if requested:
                    self._allocate_port(svc, op, requested, i)
                    port["nodePort"] = by_service_port[number] = requested
                else:
                    port["nodePort"] = by_service_port[number] = self._allocate_next_port(op)
            elif node_port != allocated:
                if not node_port:
                    port["nodePort"] = allocated
                else:
                    self._allocate_port(svc, op, node_port, i)

    def _allocate_port(self, svc: dict[str, Any], op: PortAllocationOperation, port: int, index: int) -> None:
        try:
            op.allocate(port)
        except PortAllocationError as e:
            raise _invalid(svc, [field_invalid(f"spec.ports[{index}].nodePort", port, str(e))]) from None

    @staticmethod
    def _allocate_next_port(op: PortAllocationOperation) -> int:
        try:
            return op.allocate_next()
        except PortAllocationError as e:
            raise errors.new_internal_error(f"failed to allocate a nodePort: {e}") from None

    @staticmethod
    def _alloc_health_check_node_port(spec: dict[str, Any], op: PortAllocationOperation) -> None:
        requested = as_int(spec.get("healthCheckNodePort"))
        try:
            if requested:
                op.allocate(requested)
            else:
                spec["healthCheckNodePort"] = op.allocate_next()
        except PortAllocationError as e:
            what = "requested HealthCheck NodePort" if requested else "a HealthCheck NodePort"
            raise errors.new_internal_error(f"failed to allocate {what} {requested}: {e}") from None

    def _update_node_ports(self, svc: dict[str, Any], old: dict[str, Any], op: PortAllocationOperation) -> None:
        spec, old_spec = spec_of(svc), spec_of(old)
        old_numbers = collect_node_ports(old_spec)
        seen: list[tuple[str, int]] = []
        allocated_now: set[int] = set()
        for i, port in enumerate(as_list(spec.get("ports"))):
            if not isinstance(port, dict):
                continue
            node_port = as_int(port.get("nodePort"))
            if not node_port and not should_allocate_node_ports(spec):
                continue
            if node_port:
                if node_port not in old_numbers and node_port not in allocated_now:
                    self._allocate_port(svc, op, node_port, i)
                    allocated_now.add(node_port)
            else:
                node_port = port["nodePort"] = self._allocate_next_port(op)
            key = (as_str(port.get("protocol")), node_port)
            if key in seen:
                # A plain error upstream, which the handler turns into a 500 of reason Unknown.
                raise errors.StatusError(500, "Unknown", f"duplicate nodePort: {{{key[0]} {key[1]}}}", details=False)
            seen.append(key)
        new_numbers = collect_node_ports(spec)
        for number in old_numbers:
            if number not in new_numbers:
                op.release_deferred_port(number)

    # --- the transactions ---

    def allocate_create(self, svc: dict[str, Any], txn: ServiceTransaction, owner: Owner) -> None:
        self.init_ip_family_fields(svc, None)
        self.alloc_cluster_ips(svc, txn, owner)
        op = PortAllocationOperation(self.node_ports, txn.dry_run)
        txn.port_ops.append(op)
        spec = spec_of(svc)
        if needs_node_port(spec):
            self._init_node_ports(svc, op)
        if needs_health_check(spec):
            self._alloc_health_check_node_port(spec, op)

    def allocate_update(self, svc: dict[str, Any], old: dict[str, Any], txn: ServiceTransaction, owner: Owner) -> None:
        self.init_ip_family_fields(svc, old)
        self._update_cluster_ips(svc, old, txn, owner)
        op = PortAllocationOperation(self.node_ports, txn.dry_run)
        txn.port_ops.append(op)
        spec, old_spec = spec_of(svc), spec_of(old)
        if needs_node_port(old_spec) and spec.get("type") in ("ExternalName", "ClusterIP"):
            for number in collect_node_ports(old_spec):
                op.release_deferred_port(number)
        if needs_node_port(spec):
            self._update_node_ports(svc, old, op)
        needed, needs = needs_health_check(old_spec), needs_health_check(spec)
        if needs and not needed:
            self._alloc_health_check_node_port(spec, op)
        elif needed and not needs:
            op.release_deferred_port(as_int(old_spec.get("healthCheckNodePort")))

    def release_allocated_resources(self, svc: dict[str, Any]) -> list[str]:
        """Free what a deleted Service held; returns the IPs released."""
        spec = spec_of(svc)
        released = []
        ips = [as_str(ip) for ip in as_list(spec.get("clusterIPs"))]
        if needs_cluster_ip(spec) and ips[:1] != ["None"]:
            for ip in ips:
                alloc = self.ip_allocators.get("IPv6" if family_of(ip) == "IPv6" else "IPv4")
                if alloc is not None and alloc.release(ip) is not None:
                    released.append(canonical_ip(ip) or ip)
        for number in collect_node_ports(spec):
            self.node_ports.release(number)
        if needs_health_check(spec) and as_int(spec.get("healthCheckNodePort")):
            self.node_ports.release(as_int(spec.get("healthCheckNodePort")))
        return released

    def restore(self, svc: dict[str, Any], owner: Owner) -> None:
        """Mark as used what a stored Service holds (the repair controllers' job, done at start)."""
        spec = spec_of(svc)
        ips = [as_str(ip) for ip in as_list(spec.get("clusterIPs"))]
        if needs_cluster_ip(spec) and ips[:1] != ["None"]:
            for ip in ips:
                alloc = self.ip_allocators.get("IPv6" if family_of(ip) == "IPv6" else "IPv4")
                canonical = canonical_ip(ip)
                if alloc is not None and canonical is not None and alloc.contains(canonical):
                    alloc.owners.setdefault(canonical, owner)
        numbers = collect_node_ports(spec)
        if needs_health_check(spec):
            numbers.append(as_int(spec.get("healthCheckNodePort")))
        for number in numbers:
            if self.node_ports.contains(number):
                self.node_ports.used.add(number)


def _matching_prefer_dual_stack(spec: dict[str, Any], old_spec: dict[str, Any] | None) -> bool:
    """Both PreferDualStack with the same IPs and families: leave them be, whatever the cluster has
    become (no automatic upgrade or downgrade)."""
    if old_spec is None or spec.get("ipFamilyPolicy") is None:
        return False
    if old_spec.get("type") != spec.get("type") or not needs_cluster_ip(spec):
        return False
    if spec.get("ipFamilyPolicy") != "PreferDualStack" or old_spec.get("ipFamilyPolicy") not in (
        None,
        "PreferDualStack",
    ):
        return False
    return same_list(old_spec.get("clusterIPs"), spec.get("clusterIPs")) and same_list(
        old_spec.get("ipFamilies"), spec.get("ipFamilies")
    )
