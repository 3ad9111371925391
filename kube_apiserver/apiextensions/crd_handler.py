"""The custom resource handler and the CRD controllers (apiextensions-apiserver/pkg/apiserver
customresource_handler.go, pkg/controller/{status,establish,finalizer}): every write of a CRD
schedules a sync that checks its names against the other CRDs of its group (NamesAccepted), serves
its versions under /apis/<group>/<version>/<plural> with discovery updated in place (Established),
and, once the CRD is being deleted, deletes its custom resources before dropping the
customresourcecleanup.apiextensions.k8s.io finalizer."""

from __future__ import annotations

import asyncio
import copy
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from kube_apiserver.apiextensions.conversion.service import store_lookup
from kube_apiserver.apiextensions.conversion.storages import CustomResourceStorages
from kube_apiserver.apiextensions.customresource import (
    CustomResourceStrategy,
    resource_spec,
    storage_version,
    version_schema,
)
from kube_apiserver.apiextensions.openapi_controller import CRDOpenAPIController
from kube_apiserver.apiextensions.scale import scale_handlers
from kube_apiserver.apiextensions.schema.prune import prune
from kube_apiserver.endpoints.handlers import create as create_handler
from kube_apiserver.endpoints.handlers.fieldvalidation import CUSTOM_DECODERS
from kube_apiserver.endpoints.handlers.scope import RequestScope
from kube_apiserver.endpoints.installer import APIGroupVersion, APIResource
from kube_apiserver.registry.fieldmanager.typeconv import register_kind_schema, unregister_kind_schema
from kube_apiserver.registry.store import DeleteOptions, Store
from kube_apiserver.runtime import errors
from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.schema.structural import DecodeReport
from kube_apiserver.server.genericapiserver import GenericAPIServer
from kube_apiserver.storage.cacher.cacher import Cacher
from kube_apiserver.storage.interface import ListOptions

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
        crd_store.after_write.append(self._on_write)

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
                return
            raise
        meta = crd.get("metadata") or {}
        if meta.get("deletionTimestamp"):
            await self._finalize(crd)
            return
        accepted, conditions = self._names(crd)
        status = copy.deepcopy(crd.get("status") or {})
        new_status = dict(status)
        if accepted is not None:
            new_status["acceptedNames"] = accepted
        else:
            new_status.setdefault("acceptedNames", {"plural": "", "kind": ""})
        conds = list(new_status.get("conditions") or [])
        for cond in conditions:
            conds = _set_condition(conds, cond)
        established = accepted is not None
        if established:
            conds = _set_condition(
                conds,
                {
                    "type": "Established",
                    "status": "True",
                    "reason": "InitialNamesAccepted",
                    "message": "the initial names have been accepted",
                },
            )
        elif not any(c.get("type") == "Established" and c.get("status") == "True" for c in conds):
            conds = _set_condition(
                conds,
                {
                    "type": "Established",
                    "status": "False",
                    "reason": "NotAccepted",
                    "message": "not all names are accepted",
                },
            )
        new_status["conditions"] = conds
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

    # --- naming (NamesAccepted) ---

    def _names(self, crd: dict[str, Any]) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        spec = crd.get("spec") or {}
        names = dict(spec.get("names") or {})
        group = spec.get("group", "")
        name = (crd.get("metadata") or {}).get("name", "")
        names.setdefault("singular", str(names.get("kind", "")).lower())
        names.setdefault("listKind", f"{names.get('kind', '')}List")
        used: dict[str, set[str]] = {"plural": set(), "singular": set(), "short": set(), "kind": set(), "list": set()}
        for other in self.crds.storage.objects.values():
            o = other.obj
            if (o.get("metadata") or {}).get("name") == name or (o.get("spec") or {}).get("group") != group:
                continue
            acc = (o.get("status") or {}).get("acceptedNames") or {}
            used["plural"].add(acc.get("plural", ""))
            used["singular"].add(acc.get("singular", ""))
            used["short"].update(acc.get("shortNames") or [])
            used["kind"].add(acc.get("kind", ""))
            used["list"].add(acc.get("listKind", ""))
        problem: tuple[str, str] | None = None
        every = used["plural"] | used["singular"] | used["short"]
        if names.get("plural") in every:
            problem = ("PluralConflict", f'"{names["plural"]}" is already in use')
        elif names.get("singular") in every:
            problem = ("SingularConflict", f'"{names["singular"]}" is already in use')
        else:
            for short in names.get("shortNames") or []:
                if short in every:
                    problem = ("ShortNamesConflict", f'"{short}" is already in use')
                    break
        if problem is None:
            if names.get("kind") in used["kind"] | used["list"]:
                problem = ("KindConflict", f'"{names["kind"]}" is already in use')
            elif names.get("listKind") in used["kind"] | used["list"]:
                problem = ("ListKindConflict", f'"{names["listKind"]}" is already in use')
        if problem is not None:
            cond = {"type": "NamesAccepted", "status": "False", "reason": problem[0], "message": problem[1]}
            return None, [cond]
        cond = {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts", "message": "no conflicts found"}
        return names, [cond]

    # --- serving ---

    async def _install(self, crd: dict[str, Any]) -> None:
        name = crd["metadata"]["name"]
        spec = crd.get("spec") or {}
        group = spec.get("group", "")
        plural = ((crd.get("status") or {}).get("acceptedNames") or {}).get("plural", "")
        prefix = f"/registry/{group}/{plural}/"
        served = self.served.get(name)
        if served is not None:
            self._remove_routes(served)
        else:
            cacher = Cacher(self.storage, prefix, history_size=self.watch_cache_size)
            await cacher.start()
            served = _Served(cacher, group, plural)
            self.served[name] = served
        served.terminating = False
        versions = [v for v in spec.get("versions") or [] if isinstance(v, dict) and v.get("served")]
        schemas = {v.get("name", ""): version_schema(crd, v.get("name", "")) for v in spec.get("versions") or []}
        stored_gv = f"{group}/{storage_version(crd)}"
        for v in versions:
            rspec = resource_spec(crd, v)
            subs = v.get("subresources") or {}
            scale = subs.get("scale") if isinstance(subs.get("scale"), dict) else None
            schema = schemas.get(rspec.version, {})
            strategy = CustomResourceStrategy(rspec, schema, isinstance(subs.get("status"), dict), scale)
            storage = await self.conversion.storage_for(crd, served.cacher, rspec.group_version, stored_gv, schemas)
            store = Store(rspec, storage, strategy)
            served.stores[rspec.version] = store
            key = (rspec.group, rspec.version, rspec.kind)
            CUSTOM_DECODERS[key] = _decoder(schema)
            register_kind_schema(rspec.group, rspec.version, rspec.kind, schema)
            served.decoders.append(key)
            res = APIResource(rspec, store)
            if scale is not None:
                res.extra.update(scale_handlers(scale))
            res.extra[("", "create")] = self._create_handler(name, rspec.namespaced)
            self._add_route(res)
            if rspec.namespaced and self.namespaced_stores is not None and store not in self.namespaced_stores:
                self.namespaced_stores.append(store)

    def _create_handler(self, crd_name: str, namespaced: bool) -> Any:
        async def create(scope: RequestScope) -> None:
            served = self.served.get(crd_name)
            if served is not None and served.terminating:
                raise errors.new_method_not_supported(scope.spec.group, scope.spec.resource, "create")
            if namespaced and self.lifecycle is not None:
                await self.lifecycle.admit_create(
                    scope.spec.resource, scope.spec.group, scope.namespace or scope.info.namespace, {}
                )
            await create_handler.create_resource(scope)

        return create

    def _add_route(self, res: APIResource) -> None:
        server = self.server
        spec = res.spec
        agv = server.group_versions.get((spec.group, spec.version))
        if agv is None:
            agv = APIGroupVersion(spec.group, spec.version)
            agv.add(res)
            server.install_api_group([agv])
        else:
            agv.add(res)
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
        await served.cacher.stop()

    # --- finalizer ---

    async def _finalize(self, crd: dict[str, Any]) -> None:
        name = crd["metadata"]["name"]
        if CLEANUP_FINALIZER not in (crd["metadata"].get("finalizers") or []):
            return
        served = self.served.get(name)
        if served is not None:
            served.terminating = True
            store = next(iter(served.stores.values()), None)
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
        return DecodeReport(unknown=prune(obj, schema))

    return decode


def _set_condition(conds: list[dict[str, Any]], cond: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    found = False
    for c in conds:
        if c.get("type") == cond["type"]:
            found = True
            if all(c.get(k) == cond[k] for k in ("status", "reason", "message")):
                out.append(c)
            else:
                out.append({**cond, "lastTransitionTime": metautil.now_rfc3339()})
        else:
            out.append(c)
    if not found:
        out.append({**cond, "lastTransitionTime": metautil.now_rfc3339()})
    return out


def _version_priority(version: str) -> tuple[int, int, int, str]:
    """Kube's version ordering: GA > beta > alpha, higher numbers first, then other names alphabetically."""
    m = re.match(r"^v(\d+)(?:(alpha|beta)(\d+))?$", version)
    if not m:
        return (3, 0, 0, version)
    stability = {None: 0, "beta": 1, "alpha": 2}[m.group(2)]
    return (stability, -int(m.group(1)), -int(m.group(3) or 0), "")
