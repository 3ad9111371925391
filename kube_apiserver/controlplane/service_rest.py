"""The Service REST (pkg/registry/core/service/storage.REST): the generic Store with IP and port
allocation around its writes, and the Service strategy (pkg/registry/core/service/strategy.go).

Store.create/update/patch run the strategy's prepare hooks synchronously just before validation:
that is where the allocations happen (BeginCreate/BeginUpdate upstream), recorded in the request's
ServiceTransaction, which this REST holds in a context variable. Once the write is stored the
transaction commits (deferred releases happen, IPAddress objects are written); if anything fails it
reverts. A Service that disappears (delete, last finalizer removed, namespace cleanup) gives its IPs
and ports back through the Store's after-write hook.

The allocators' state is rebuilt from the stored Services on first use, after the watch caches are
filled (the repair controllers' job upstream); the IPAddress objects are then made to match it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from kube_apiserver.apis.core.validation.service_fields import as_dict, as_str, get_warnings_for_service
from kube_apiserver.controlplane.ipallocator import (
    CONTROLLER_NAME,
    LABEL_IP_FAMILY,
    LABEL_MANAGED_BY,
    IPAllocator,
    Owner,
)
from kube_apiserver.controlplane.portallocator import PortAllocator
from kube_apiserver.controlplane.service_alloc import Allocators, ServiceTransaction
from kube_apiserver.controlplane.service_prepare import (
    canonical_spec,
    drop_type_dependent_fields,
    normalize_cluster_ips,
    patch_allocated_values,
)
from kube_apiserver.registry.resource_spec import ResourceSpec
from kube_apiserver.registry.store import DeleteOptions, DeleteResult, Store
from kube_apiserver.registry.strategy import RESTStrategy
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.scheme import Scheme
from kube_apiserver.runtime.validation.names import is_dns1035_label
from kube_apiserver.storage.cacher.cacher import Cacher
from kube_apiserver.storage.interface import StoredObject

log = logging.getLogger(__name__)

IPADDRESSES = ("networking.k8s.io", "v1", "ipaddresses")

_TXN: ContextVar[ServiceTransaction | None] = ContextVar("service_transaction", default=None)


def _owner_of(obj: dict[str, Any]) -> Owner:
    meta = as_dict(obj.get("metadata"))
    return as_str(meta.get("namespace")), as_str(meta.get("name"))


def _cached(store: Store, key: str) -> StoredObject | None:
    get_cached = getattr(store.storage, "get_cached", None)
    return get_cached(key) if get_cached is not None else None


def _cached_objects(store: Store) -> list[StoredObject]:
    return list(getattr(store.storage, "objects", {}).values())


def _current_txn() -> ServiceTransaction:
    txn = _TXN.get()
    if txn is None:
        raise errors.new_internal_error("a Service may only be written through the Service REST")
    return txn


class ServiceStrategy(RESTStrategy):
    """svcStrategy: the generic strategy plus allocation, DNS-1035 names, create on update and no
    metadata.generation (Services have none)."""

    def __init__(self, spec: ResourceSpec, scheme: Scheme | None, allocators: Callable[[], Allocators]) -> None:
        super().__init__(spec, scheme)
        self.tracks_generation = False
        self._allocators = allocators

    def name_validator(self) -> Any:
        return is_dns1035_label

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        obj["status"] = {"loadBalancer": {}}  # Go writes the empty struct
        txn, allocators = _current_txn(), self._allocators()
        txn.begin_attempt(allocators)
        normalize_cluster_ips(obj, None)
        allocators.allocate_create(obj, txn, _owner_of(obj))

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        txn, allocators = _current_txn(), self._allocators()
        txn.begin_attempt(allocators)
        patch_allocated_values(new, old)
        normalize_cluster_ips(new, old)
        allocators.allocate_update(new, old, txn, _owner_of(old))
        drop_type_dependent_fields(new, old)
        txn.validating_update = True

    def canonicalize(self, obj: dict[str, Any]) -> None:
        canonical_spec(obj)

    def warnings(self, new: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
        return super().warnings(new, old) + get_warnings_for_service(new)

    def validate(self, obj: dict[str, Any]) -> list[StatusCause]:
        txn = _TXN.get()
        if txn is not None and txn.validating_update:
            return []  # validate_update reports these after the change rules, in upstream's order
        return super().validate(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
        causes = super().validate_update(new, old)
        txn = _TXN.get()
        if txn is not None and txn.validating_update:
            txn.validating_update = False
            causes += super().validate(new)
        return causes


class ServiceREST(Store):
    def __init__(
        self,
        spec: ResourceSpec,
        storage: Cacher,
        scheme: Scheme | None,
        *,
        service_cluster_ip_range: str,
        service_node_port_range: tuple[int, int],
        stores: dict[tuple[str, str, str], Store],
    ) -> None:
        super().__init__(spec, storage, ServiceStrategy(spec, scheme, self.allocators))
        self._cidr = service_cluster_ip_range
        self._port_range = service_node_port_range
        self._stores = stores  # filled by create_server_chain: the IPAddress store is looked up late
        self._alloc: Allocators | None = None
        self._ip_locks: dict[str, asyncio.Lock] = {}
        self._pending: set[asyncio.Task[None]] = set()
        self.after_write.append(self._after_write)

    # --- allocator state ---

    def _ipaddresses(self) -> Store | None:
        return self._stores.get(IPADDRESSES)

    def _ip_taken_elsewhere(self, ip: str) -> bool:
        """An IPAddress that the allocator does not manage (written by a user) reserves its IP too."""
        store = self._ipaddresses()
        cur = _cached(store, store.key("", ip)) if store is not None else None
        labels = as_dict(as_dict(cur.obj.get("metadata")).get("labels")) if cur is not None else {}
        return cur is not None and labels.get(LABEL_MANAGED_BY) != CONTROLLER_NAME

    def allocators(self) -> Allocators:
        if self._alloc is None:
            ips = IPAllocator(self._cidr, is_taken=self._ip_taken_elsewhere)
            alloc = Allocators([ips], PortAllocator.from_range(*self._port_range))
            for stored in _cached_objects(self):
                alloc.restore(stored.obj, _owner_of(stored.obj))
            self._alloc = alloc
            self._repair_ipaddresses()
        return self._alloc

    def _repair_ipaddresses(self) -> None:
        """Make the IPAddress objects match the allocations (RepairIPAddress, once, at start)."""
        assert self._alloc is not None
        names = set(self._alloc.ip_allocators[self._alloc.default_family].owners)
        store = self._ipaddresses()
        for stored in _cached_objects(store) if store is not None else ():
            meta = as_dict(stored.obj.get("metadata"))
            if as_dict(meta.get("labels")).get(LABEL_MANAGED_BY) == CONTROLLER_NAME:
                names.add(as_str(meta.get("name")))
        for ip in sorted(names):
            self._schedule_sync(ip)

    # --- IPAddress objects ---

    def _schedule_sync(self, ip: str) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(self._sync_ipaddress(ip))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)
        return task

    async def _drain(self) -> None:
        """Wait for the IPAddress writes under way, so that a client sees them with the Service.
        asyncio.wait: a cancelled request does not cancel them."""
        while self._pending:
            await asyncio.wait(set(self._pending))

    async def _sync_ipaddress(self, ip: str) -> None:
        """Bring the IPAddress named ip in line with the allocator: present with the owner as parent
        while allocated, absent otherwise. Level-triggered, one IP at a time."""
        store = self._ipaddresses()
        if store is None or self._alloc is None:
            return
        family = "IPv6" if ":" in ip else "IPv4"
        allocator = self._alloc.ip_allocators.get(family)
        # One lock per IP ever synced: few, and dropping them safely would need to know the waiters.
        async with self._ip_locks.setdefault(ip, asyncio.Lock()):
            try:
                for _ in range(3):
                    if await self._sync_once(store, ip, family, allocator.owners.get(ip) if allocator else None):
                        return
            except errors.StatusError as e:
                log.warning("IPAddress %s: %s", ip, e)

    async def _sync_once(self, store: Store, ip: str, family: str, owner: Owner | None) -> bool:
        """One step towards the desired state; True once there."""
        try:
            current: StoredObject | None = await store.get("", ip)
        except errors.StatusError as e:
            if e.code != 404:
                raise
            current = None
        cur = current.obj if current is not None else None
        managed = (
            cur is not None
            and as_dict(as_dict(cur.get("metadata")).get("labels")).get(LABEL_MANAGED_BY) == CONTROLLER_NAME
        )
        if cur is not None and not managed:
            if owner is not None:
                log.warning("IPAddress %s exists and is not managed by %s", ip, CONTROLLER_NAME)
            return True
        want = None
        if owner is not None:
            want = {"resource": "services", "namespace": owner[0], "name": owner[1]}
        if cur is not None:
            if want is not None and as_dict(cur.get("spec")).get("parentRef") == want:
                return True
            try:
                await store.delete("", ip, DeleteOptions())  # the parent reference is immutable
            except errors.StatusError as e:
                if e.code != 404:
                    raise
            return want is None
        if want is None:
            return True
        obj = {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "IPAddress",
            "metadata": {"name": ip, "labels": {LABEL_IP_FAMILY: family, LABEL_MANAGED_BY: CONTROLLER_NAME}},
            "spec": {"parentRef": want},
        }
        try:
            await store.create("", obj)
        except errors.StatusError as e:
            if e.code != 409:
                raise
            return False
        return True

    # --- the transaction around each write ---

    async def _commit(self, txn: ServiceTransaction, obj: dict[str, Any]) -> None:
        allocated, released = txn.commit(self.allocators(), _owner_of(obj))
        for ip in allocated + released:
            self._schedule_sync(ip)
        await self._drain()

    def _after_write(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if new is not None or old is None:
            return
        txn = _TXN.get()
        if txn is not None:
            txn.deleted = True
        for ip in self.allocators().release_allocated_resources(old):
            self._schedule_sync(ip)

    async def _in_transaction(self, dry_run: bool, write: Any) -> tuple[ServiceTransaction, Any]:
        self.allocators()
        txn = ServiceTransaction(dry_run)
        _TXN.set(txn)  # each call runs in its own task, so in its own context
        try:
            result = await write()
        except BaseException:
            txn.revert(self.allocators())
            await self._drain()  # the start-up repair, if this was the first write
            raise
        return txn, result

    # Each write runs shielded: a client that goes away must not leave allocations half made.

    async def create(self, namespace: str, obj: dict[str, Any], *, dry_run: bool = False) -> StoredObject:
        async def run() -> StoredObject:
            txn, stored = await self._in_transaction(
                dry_run, lambda: Store.create(self, namespace, obj, dry_run=dry_run)
            )
            await self._commit(txn, stored.obj)
            return stored

        return await asyncio.shield(run())

    async def update(
        self,
        namespace: str,
        name: str,
        obj: dict[str, Any],
        *,
        dry_run: bool = False,
        subresource: str = "",
        uid_precondition: str = "",
    ) -> tuple[StoredObject, bool]:
        if subresource:
            return await super().update(
                namespace, name, obj, dry_run=dry_run, subresource=subresource, uid_precondition=uid_precondition
            )

        async def run() -> tuple[StoredObject, bool]:
            txn, result = await self._in_transaction(
                dry_run,
                lambda: Store.update(self, namespace, name, obj, dry_run=dry_run, uid_precondition=uid_precondition),
            )
            await self._finish(txn, result[0].obj)
            return result

        return await asyncio.shield(run())

    async def patch(
        self,
        namespace: str,
        name: str,
        patch_fn: Callable[[dict[str, Any]], dict[str, Any]],
        *,
        dry_run: bool = False,
        subresource: str = "",
    ) -> StoredObject:
        if subresource:
            return await super().patch(namespace, name, patch_fn, dry_run=dry_run, subresource=subresource)

        async def run() -> StoredObject:
            txn, stored = await self._in_transaction(
                dry_run, lambda: Store.patch(self, namespace, name, patch_fn, dry_run=dry_run)
            )
            await self._finish(txn, stored.obj)
            return stored

        return await asyncio.shield(run())

    async def _finish(self, txn: ServiceTransaction, obj: dict[str, Any]) -> None:
        if txn.deleted:
            # The update took the last finalizer: the object is gone and its allocations with it.
            txn.revert(self.allocators())
            await self._drain()
        else:
            await self._commit(txn, obj)

    async def delete(self, namespace: str, name: str, options: DeleteOptions) -> DeleteResult:
        async def run() -> DeleteResult:
            self.allocators()
            result = await Store.delete(self, namespace, name, options)
            await self._drain()
            return result

        return await asyncio.shield(run())

    async def delete_listed(self, items: list[StoredObject], options: DeleteOptions) -> None:
        await super().delete_listed(items, options)
        await self._drain()


def new_service_rest(
    spec: ResourceSpec, storage: Cacher, scheme: Scheme | None, config: Any, stores: dict[tuple[str, str, str], Store]
) -> ServiceREST:
    """The services storage of create_server_chain, from the control plane's configuration."""
    return ServiceREST(
        spec,
        storage,
        scheme,
        service_cluster_ip_range=config.service_cluster_ip_range,
        service_node_port_range=tuple(getattr(config, "service_node_port_range", (30000, 32767))),
        stores=stores,
    )
