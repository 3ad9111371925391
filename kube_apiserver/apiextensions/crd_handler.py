"""The custom resource handler and the CRD controllers (apiextensions-apiserver/pkg/apiserver
customresource_handler.go, pkg/controller/{status,establish,finalizer}): every write of a CRD
schedules a sync that checks its names against the other CRDs of its group (NamesAccepted), serves
its versions under /apis/<group>/<version>/<plural> with discovery updated in place (Established),
and, once the CRD is being deleted, deletes its custom resources before dropping the
customresourcecleanup.apiextensions.k8s.io finalizer."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from kube_apiserver.apiextensions import conditions
from kube_apiserver.apiextensions.conversion.service import store_lookup
from kube_apiserver.apiextensions.conversion.storages import CustomResourceStorages
from kube_apiserver.apiextensions.customresource import (
    CustomResourceStrategy,
    resource_spec,
    storage_version,
    version_schema,
)
from kube_apiserver.apiextensions.deprecation import CustomResourceGroupVersion, deprecation_warning
from kube_apiserver.apiextensions.openapi_controller import CRDOpenAPIController
from kube_apiserver.apiextensions.scale import scale_handlers
from kube_apiserver.apiextensions.schema.prune import prune
from kube_apiserver.apiextensions.selectable import selectable_fields
from kube_apiserver.endpoints.handlers import create as create_handler
from kube_apiserver.endpoints.handlers.fieldvalidation import CUSTOM_DECODERS
from kube_apiserver.endpoints.handlers.scope import RequestScope
from kube_apiserver.endpoints.installer import APIResource
from kube_apiserver.registry.fieldmanager.typeconv import register_kind_schema, unregister_kind_schema
from kube_apiserver.registry.store import DeleteOptions, Store
from kube_apiserver.runtime import errors
from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.schema.structural import DecodeReport
from kube_apiserver.server.genericapiserver import GenericAPIServer
from kube_apiserver.storage.cacher.cacher import Cacher
from kube_apiserver.storage.interface import ListOptions

_CONTAINERS = (dict, list)  # a tuple: `X | Y` in isinstance builds a union object on every call

log = logging.getLogger(__name__)

CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"


@dataclass
class _Served:
    """What one CRD has installed: its cacher, its stores per version, the names it serves."""

    cacher: Cacher
    group: str
    plural: str
    stores: dict[str, Store] = field(default_factory=dict)
    decoders: list[tuple[str, str, str]] = field(default_factory=list)
    terminating: bool = False
    install_key: str = ""  # what the routes were built from (spec and accepted names)


class CRDHandler:
    def __init__(
        self,
        server: GenericAPIServer,
        crd_store: Store,
        storage: Any,
        *,
        watch_cache_size: int = 10_000,
        lifecycle: Any = None,
        namespaced_stores: list[Store] | None = None,
    ) -> None:
        self.server = server
        self.crds = crd_store
        self.storage = storage
        self.watch_cache_size = watch_cache_size
        self.lifecycle = lifecycle
        self.namespaced_stores = namespaced_stores
        # The storage of each served version, by the CRD's conversion strategy (webhook: converted caches).
        self.conversion = CustomResourceStorages(store_lookup(namespaced_stores), watch_cache_size=watch_cache_size)
        self.served: dict[str, _Served] = {}  # CRD name → what it serves
        self.pending: set[str] = set()
        self.tasks: set[asyncio.Task[None]] = set()
        self.locks: dict[str, asyncio.Lock] = {}
        self.openapi = CRDOpenAPIController()
        # --enable-garbage-collector: the custom resources' stores set the collector's finalizers on delete,
        # and the collector (when there is one) follows their watch caches
        self.garbage_collection = True
        self.garbage_collector: Any = None
        crd_store.after_write.append(self._on_write)

    def store_for_kind(self, group: str, kind: str, version: str = "") -> Store | None:
        """The Store of the custom resource of that kind in that served version (any, for "")."""
        for served in self.served.values():
            if served.group == group:
                for store_version, store in served.stores.items():
                    if store.spec.kind == kind and version in ("", store_version):
                        return store
        return None

    async def start(self) -> None:
        listed = await self.crds.list("", ListOptions())
        for item in listed.items:
            await self.sync((item.obj.get("metadata") or {}).get("name", ""))

    def _on_write(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        obj = new or old or {}
        name = (obj.get("metadata") or {}).get("name", "")
        if not name:
            return
        task = asyncio.get_running_loop().create_task(self.sync(name))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # --- the sync of one CRD ---

    async def sync(self, name: str) -> None:
        lock = self.locks.setdefault(name, asyncio.Lock())
        async with lock:
            try:
                await self._sync(name)
            except errors.StatusError as e:
                if e.code not in (404, 409):
                    log.warning("crd %s: %s", name, e)
            except Exception:  # noqa: BLE001 - a controller must keep running
                log.exception("crd %s: sync failed", name)

    async def _sync(self, name: str) -> None:
        try:
            crd = (await self.crds.get("", name)).obj
        except errors.StatusError as e:
            if e.code == 404:
                self.openapi.update(name, None)
                await self._uninstall(name)
                # its names are free now: the group's other CRDs may take them
                self._requeue_group({"metadata": {"name": name}, "spec": {"group": name.partition(".")[2]}})
                return
            raise
        meta = crd.get("metadata") or {}
        if meta.get("deletionTimestamp"):
            await self._finalize(crd)
            return
        status = copy.deepcopy(crd.get("status") or {})
        new_status = dict(status)
        conds = list(new_status.get("conditions") or [])
        names = (crd.get("spec") or {}).get("names") or {}
        if names != new_status.get("acceptedNames"):
            group = (crd.get("spec") or {}).get("group")
            same_group = [
                o.obj for o in self.crds.storage.objects.values() if (o.obj.get("spec") or {}).get("group") == group
            ]
            accepted, names_cond, est_cond = conditions.calculate_names_and_conditions(crd, same_group)
            new_status["acceptedNames"] = accepted
            conds = conditions.set_condition(conditions.set_condition(conds, names_cond), est_cond)
        # The establishing controller: accepted names are served from now on, whatever comes later.
        if any(c.get("type") == conditions.NAMES_ACCEPTED and c.get("status") == "True" for c in conds):
            if not any(c.get("type") == conditions.ESTABLISHED and c.get("status") == "True" for c in conds):
                conds = conditions.set_condition(conds, conditions.ESTABLISHED_CONDITION)
        non_structural = conditions.non_structural_condition(crd)
        if non_structural is None:
            conds = conditions.remove_condition(conds, conditions.NON_STRUCTURAL)
        else:
            conds = conditions.set_condition(conds, non_structural)
        approval = conditions.api_approval_condition(crd)
        if approval is not None:
            conds = conditions.set_condition(conds, approval)
        new_status["conditions"] = conds
        established = any(c.get("type") == conditions.ESTABLISHED and c.get("status") == "True" for c in conds)
        stored = storage_version(crd)
        versions = list(new_status.get("storedVersions") or [])
        if stored and stored not in versions:
            versions.append(stored)
        new_status["storedVersions"] = versions
        if established:
            crd_for_serving = copy.deepcopy(crd)
            crd_for_serving["status"] = new_status
            await self._install(crd_for_serving)
            # Published before Established is written: whoever waits for it finds the kinds in the OpenAPI.
            self.openapi.update(name, crd_for_serving)
        if new_status != status:

            def write(obj: dict[str, Any]) -> dict[str, Any]:
                obj["status"] = new_status
                return obj

            await self.crds.patch("", name, write, subresource="status")
            if new_status.get("acceptedNames") != status.get("acceptedNames"):
                self._requeue_group(crd)

    def _requeue_group(self, crd: dict[str, Any]) -> None:
        """Names taken or freed: the group's other CRDs may now be accepted (requeueAllOtherGroupCRDs)."""
        name = (crd.get("metadata") or {}).get("name")
        group = (crd.get("spec") or {}).get("group")
        for other in list(self.crds.storage.objects.values()):
            o = other.obj
            if (o.get("spec") or {}).get("group") == group and (o.get("metadata") or {}).get("name") != name:
                self._on_write(None, o)

    # --- serving ---

    async def _install(self, crd: dict[str, Any]) -> None:
        name = crd["metadata"]["name"]
        spec = crd.get("spec") or {}
        group = spec.get("group", "")
        plural = ((crd.get("status") or {}).get("acceptedNames") or {}).get("plural", "")
        prefix = f"/registry/{group}/{plural}/"
        served = self.served.get(name)
        install_key = repr((spec, (crd.get("status") or {}).get("acceptedNames")))
        if served is not None and served.install_key == install_key and served.stores:
            served.terminating = False
            return  # neither spec nor accepted names changed: the routes stay as they are
        if served is not None:
            self._remove_routes(served)
        else:
            cacher = Cacher(self.storage, prefix, history_size=self.watch_cache_size)
            await cacher.start()
            served = _Served(cacher, group, plural)
            self.served[name] = served
            if self.garbage_collector is not None:
                self.garbage_collector.track(cacher)
        served.terminating = False
        served.install_key = install_key
        versions = [v for v in spec.get("versions") or [] if isinstance(v, dict) and v.get("served")]
        schemas = {v.get("name", ""): version_schema(crd, v.get("name", "")) for v in spec.get("versions") or []}
        stored_gv = f"{group}/{storage_version(crd)}"
        for v in versions:
            rspec = resource_spec(crd, v)
            # metadata.name among them: an unknown field selector is "field label not supported" for any CR
            fields = {"metadata.name": "metadata.name", **selectable_fields(v)}
            rspec = dataclasses.replace(rspec, selectable_fields=fields)
            subs = v.get("subresources") or {}
            scale = subs.get("scale") if isinstance(subs.get("scale"), dict) else None
            schema = schemas.get(rspec.version, {})
            strategy = CustomResourceStrategy(rspec, schema, isinstance(subs.get("status"), dict), scale)
            storage = await self.conversion.storage_for(crd, served.cacher, rspec.group_version, stored_gv, schemas)
            store = Store(rspec, storage, strategy)
            store.garbage_collection = self.garbage_collection
            if self.lifecycle is not None:
                self.lifecycle.install(store)
            served.stores[rspec.version] = store
            key = (rspec.group, rspec.version, rspec.kind)
            CUSTOM_DECODERS[key] = _decoder(schema)
            register_kind_schema(rspec.group, rspec.version, rspec.kind, schema)
            served.decoders.append(key)
            res = APIResource(rspec, store)
            if scale is not None:
                res.extra.update(scale_handlers(scale))
            res.extra[("", "create")] = self._create_handler(name, rspec.namespaced)
            self._add_route(res, deprecation_warning(v, spec))
            if rspec.namespaced and self.namespaced_stores is not None and store not in self.namespaced_stores:
                self.namespaced_stores.append(store)

    def _create_handler(self, crd_name: str, namespaced: bool) -> Any:
        async def create(scope: RequestScope) -> None:
            served = self.served.get(crd_name)
            if served is not None and served.terminating:
                # MethodNotSupported, with the custom resource handler's own message
                err = errors.new_method_not_supported(scope.spec.group, scope.spec.resource, "create")
                err.message = "create not allowed while custom resource definition is terminating"
                raise err
            await create_handler.create_resource(scope)

        return create

    def _add_route(self, res: APIResource, warning: str | None = None) -> None:
        server = self.server
        spec = res.spec
        agv = server.group_versions.get((spec.group, spec.version))
        if agv is None:
            agv = CustomResourceGroupVersion(spec.group, spec.version)
            agv.add(res)
            server.install_api_group([agv])
        else:
            agv.add(res)
        if isinstance(agv, CustomResourceGroupVersion):
            if warning is None:
                agv.warnings.pop(spec.resource, None)
            else:
                agv.warnings[spec.resource] = warning
        info = server.groups[spec.group]
        info.resources[spec.version] = [r.spec for r in agv.resources.values()]
        info.versions.sort(key=_version_priority)

    def _remove_routes(self, served: _Served) -> None:
        server = self.server
        for version, store in served.stores.items():
            agv = server.group_versions.get((served.group, version))
            if agv is not None and agv.resources.get(served.plural) is not None:
                agv.resources.pop(served.plural, None)
                info = server.groups.get(served.group)
                if not agv.resources:
                    server.group_versions.pop((served.group, version), None)
                    server.mux.exact.pop(f"/apis/{served.group}/{version}", None)
                    if info is not None:
                        info.resources.pop(version, None)
                        if version in info.versions:
                            info.versions.remove(version)
                elif info is not None:
                    info.resources[version] = [r.spec for r in agv.resources.values()]
                if info is not None and not info.versions:
                    server.groups.pop(served.group, None)
                    server.mux.exact.pop(f"/apis/{served.group}", None)
            if self.namespaced_stores is not None and store in self.namespaced_stores:
                self.namespaced_stores.remove(store)
        for key in served.decoders:
            CUSTOM_DECODERS.pop(key, None)
            unregister_kind_schema(*key)
        served.decoders.clear()
        served.stores.clear()

    async def _uninstall(self, name: str) -> None:
        self.conversion.drop(name)
        served = self.served.pop(name, None)
        if served is None:
            return
        self._remove_routes(served)
        if self.garbage_collector is not None:
            self.garbage_collector.untrack(served.cacher)
        await served.cacher.stop()

    # --- finalizer ---

    async def _finalize(self, crd: dict[str, Any]) -> None:
        name = crd["metadata"]["name"]
        if CLEANUP_FINALIZER not in (crd["metadata"].get("finalizers") or []):
            return
        served = self.served.get(name)
        if served is not None and not conditions.is_condition_true(crd, "Terminating"):
            # The finalizer controller says so first: the cleanup may wait on custom resources' finalizers.
            in_progress = {
                "type": "Terminating",
                "status": "True",
                "reason": "InstanceDeletionInProgress",
                "message": "CustomResource deletion is in progress",
            }

            def terminating(obj: dict[str, Any]) -> dict[str, Any]:
                status = obj.setdefault("status", {})
                status["conditions"] = conditions.set_condition(list(status.get("conditions") or []), in_progress)
                return obj

            await self.crds.patch("", name, terminating, subresource="status")
        if served is not None:
            served.terminating = True
            # the storage version's store, as kube's finalizer lists and deletes (what is stored in it
            # needs no conversion: a conversion webhook that is down holds up only older objects)
            store = served.stores.get(storage_version(crd)) or next(iter(served.stores.values()), None)
            delay = 0.05
            while store is not None:
                await store.delete_collection("", ListOptions(), DeleteOptions())
                if not (await store.list("", ListOptions(limit=1))).items:
                    break
                await asyncio.sleep(delay)  # custom resources with finalizers of their own
                delay = min(delay * 2, 2.0)

        def drop(obj: dict[str, Any]) -> dict[str, Any]:
            meta = metautil.metadata(obj)
            meta["finalizers"] = [f for f in meta.get("finalizers") or [] if f != CLEANUP_FINALIZER]
            return obj

        await self.crds.patch("", name, drop)


def _decoder(schema: dict[str, Any]) -> Any:
    def decode(obj: dict[str, Any]) -> DecodeReport:
        # The keys the body had (counted before pruning) let fieldValidation rule out duplicate keys
        # without scanning the JSON text again.
        keys = _count_keys(obj)
        return DecodeReport(unknown=prune(obj, schema), keys=keys)

    return decode


def _count_keys(value: Any) -> int:
    if isinstance(value, dict):
        return len(value) + sum(_count_keys(v) for v in value.values() if isinstance(v, _CONTAINERS))
    if isinstance(value, list):
        return sum(_count_keys(v) for v in value if isinstance(v, _CONTAINERS))
    return 0


def _version_priority(version: str) -> tuple[int, int, int, str]:
    """Kube's version ordering: GA > beta > alpha, higher numbers first, then other names alphabetically."""
    m = re.match(r"^v(\d+)(?:(alpha|beta)(\d+))?$", version)
    if not m:
        return (3, 0, 0, version)
    stability = {None: 0, "beta": 1, "alpha": 2}[m.group(2)]
    return (stability, -int(m.group(1)), -int(m.group(3) or 0), "")
