"""create_server_chain (cmd/kube-apiserver/app/server.go CreateServerChain).

Builds the three GenericAPIServers joined by delegation, each with the built-in groups it serves:
  aggregator (apiregistration.k8s.io) → kube-apiserver (core and the built-in groups)
  → apiextensions (apiextensions.k8s.io) → 404.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kube_apiserver.admission.plugins import RUN as ADMISSION_PLUGINS
from kube_apiserver.admission.plugins import storage_object_in_use_protection, taint_nodes_by_condition
from kube_apiserver.admission.plugins.default_ingress_class import DefaultIngressClass
from kube_apiserver.admission.plugins.default_storage_class import DefaultStorageClass
from kube_apiserver.admission.plugins.default_toleration_seconds import DefaultTolerationSeconds
from kube_apiserver.admission.plugins.limit_ranger import LimitRanger
from kube_apiserver.admission.plugins.namespace_lifecycle import NamespaceLifecycle
from kube_apiserver.admission.plugins.priority import Priority
from kube_apiserver.admission.plugins.service_account import ServiceAccount
from kube_apiserver.admission.pod_security.admission import TEMPLATE_PATHS, PodSecurity
from kube_apiserver.apiextensions.crd_handler import CRDHandler
from kube_apiserver.apiextensions.crd_strategy import CRDStrategy
from kube_apiserver.apis import GROUP_PRIORITY, builtin_resources
from kube_apiserver.apis.apps.scale import SCALE_HANDLERS
from kube_apiserver.apis.batch.job_strategy import JobStrategy
from kube_apiserver.apis.certificates.strategy import CSRStrategy
from kube_apiserver.apis.coordination.strategy import LeaseStrategy
from kube_apiserver.apis.core.namespace_strategy import NamespaceStrategy
from kube_apiserver.apis.core.persistentvolume_strategy import PersistentVolumeStrategy
from kube_apiserver.apis.core.pod_strategy import PodStrategy
from kube_apiserver.apis.core.pod_subresources import install_core_subresources
from kube_apiserver.apis.scheme import build_scheme
from kube_apiserver.authorization.rbac.install import install_rbac
from kube_apiserver.controllers.disruption import DisruptionController
from kube_apiserver.controllers.garbagecollector import GarbageCollector
from kube_apiserver.controllers.namespace import DELETION_GRACE_PERIOD, NamespaceController
from kube_apiserver.controllers.pv_protection import NAME as PV_PROTECTION
from kube_apiserver.controllers.pv_protection import PVProtectionController
from kube_apiserver.controllers.pvc_protection import NAME as PVC_PROTECTION
from kube_apiserver.controllers.pvc_protection import PVCProtectionController
from kube_apiserver.controlplane import componentstatus, reviews
from kube_apiserver.controlplane.aggregator import install_autoregistration
from kube_apiserver.controlplane.apiserver_identity import IdentityLeaseController, IdentityLeaseGC
from kube_apiserver.controlplane.bootstrap import BootstrapController
from kube_apiserver.controlplane.crd_registration import CRD_GROUP_PRIORITY_MINIMUM
from kube_apiserver.controlplane.service_rest import new_service_rest
from kube_apiserver.controlplane.serviceaccounts import install_service_accounts
from kube_apiserver.controlplane.system_priority_classes import HOOK_NAME as PRIORITY_CLASSES_HOOK
from kube_apiserver.controlplane.system_priority_classes import bootstrap_system_priority_classes
from kube_apiserver.endpoints.discovery import GroupInfo
from kube_apiserver.endpoints.handlers import delete as delete_handler
from kube_apiserver.endpoints.handlers import update as update_handler
from kube_apiserver.endpoints.handlers.scope import RequestScope
from kube_apiserver.endpoints.installer import APIGroupVersion, APIResource
from kube_apiserver.endpoints.request import Request, send_bytes
from kube_apiserver.registry.resource_spec import NOT_STORED, ResourceSpec
from kube_apiserver.registry.store import Store, key_root
from kube_apiserver.registry.strategy import RESTStrategy
from kube_apiserver.registry.versioned import VersionedStorage
from kube_apiserver.runtime.errors import qualified
from kube_apiserver.server.flowcontrol.ensurer import config_producer as apf_config_producer
from kube_apiserver.server.genericapiserver import GenericAPIServer, discovery_handlers
from kube_apiserver.server.healthz import Check, install_health_checks
from kube_apiserver.server.metrics import CALLBACKS, serve_metrics, set_build_info
from kube_apiserver.storage.cacher.cacher import Cacher
from kube_apiserver.version import version_info

AGGREGATOR_GROUPS = {"apiregistration.k8s.io"}
APIEXTENSIONS_GROUPS = {"apiextensions.k8s.io"}

_STRATEGIES: dict[tuple[str, str], type[RESTStrategy]] = {
    ("", "pods"): PodStrategy,
    ("", "namespaces"): NamespaceStrategy,
    ("", "persistentvolumes"): PersistentVolumeStrategy,
    ("batch", "jobs"): JobStrategy,
    ("apiextensions.k8s.io", "customresourcedefinitions"): CRDStrategy,
    ("certificates.k8s.io", "certificatesigningrequests"): CSRStrategy,
    ("coordination.k8s.io", "leases"): LeaseStrategy,
}


# kube-apiserver's --etcd-healthcheck-timeout and --etcd-readiness-timeout defaults.
STORAGE_HEALTHCHECK_TIMEOUT = 2.0
STORAGE_READINESS_TIMEOUT = 2.0


def apiservice_order(group: GroupInfo) -> tuple[int, str]:
    """Where a group stands in /apis: the aggregator lists groups in the order of their APIServices
    (ByGroupPriorityMinimum: the highest groupPriorityMinimum first, then by APIService name,
    <version>.<group>); a custom resource's group has the CRD registration's priority. The aggregator's
    own group, which has no APIService, comes first."""
    if group.name in AGGREGATOR_GROUPS:
        return -(1 << 31), group.name
    priority = max(
        (GROUP_PRIORITY.get((group.name, v), (CRD_GROUP_PRIORITY_MINIMUM, 0))[0] for v in group.versions),
        default=CRD_GROUP_PRIORITY_MINIMUM,
    )
    return -priority, min((f"{v}.{group.name}" for v in group.versions), default=group.name)


def storage_probe(storage: Any, timeout: float) -> Check:
    """The "etcd" check (and "etcd-readiness" on /readyz): the storage answers within timeout, so a
    storage that hangs fails the probe instead of hanging it."""

    async def check() -> str | None:
        try:
            await asyncio.wait_for(storage.current_revision(), timeout)
        except TimeoutError:
            return f"the storage did not answer within {timeout:g}s"
        except Exception as e:  # noqa: BLE001
            return str(e)
        return None

    return check


def informer_sync_check(caches: Callable[[], dict[str, Any]]) -> Check:
    """The "informer-sync" readiness check: every watch cache has been filled once, as kube's checks that
    the shared informers have synced. caches() names each cache by its resource."""

    async def check() -> str | None:
        pending = sorted(name for name, cache in caches().items() if not cache.synced)
        return f"{len(pending)} informers not started yet: {pending}" if pending else None

    return check


@dataclass
class ServerChain:
    aggregator: GenericAPIServer
    kube_apiserver: GenericAPIServer
    apiextensions: GenericAPIServer
    stores: dict[tuple[str, str, str], Store] = field(default_factory=dict)  # (group, version, resource)
    cachers: list[Cacher] = field(default_factory=list)
    namespace_controller: NamespaceController | None = None
    rbac: Any = None  # the RBAC rule resolver (kube_apiserver.authorization.rbac.authorizer.RuleResolver)

    async def start_cachers(self) -> None:
        """Fill every watch cache from storage before serving (each is a list of its prefix)."""
        await asyncio.gather(*(c.start() for c in self.cachers))


@dataclass
class ControlPlaneConfig:
    storage: Any
    service_cluster_ip_range: str
    advertise_address: str
    secure_port: int
    watch_cache_size: int
    server_address: str = ""
    service_node_port_range: tuple[int, int] = (30000, 32767)
    service_accounts: Any = None  # ServiceAccountConfig: serviceaccounts/token, issuer discovery, token secrets
    authenticator: Any = None  # the request authenticator, which TokenReview asks
    root_ca: bytes = b""  # the cluster CA bundle legacy token secrets carry (ca.crt)
    disabled_controllers: frozenset[str] = frozenset()  # kube-controller-manager names, as --controllers=-name
    namespace_deletion_grace_period: float = DELETION_GRACE_PERIOD
    livez_grace_period: float = 0.0  # --livez-grace-period
    admission_plugins: frozenset[str] = ADMISSION_PLUGINS  # less those --disable-admission-plugins names
    toleration_seconds: tuple[int, int] = (300, 300)  # --default-not-ready/unreachable-toleration-seconds
    event_ttl: float = 3600.0  # --event-ttl
    enable_garbage_collector: bool = True  # --enable-garbage-collector


def _cacher_for(storage: Any, spec: ResourceSpec, cachers: dict[str, Cacher], size: int) -> Cacher:
    """One watch cache per storage prefix, shared by every version (and cohabitating group) of the resource."""
    prefix = key_root(spec)
    if prefix not in cachers:
        cachers[prefix] = Cacher(storage, prefix, history_size=size)
    return cachers[prefix]


def _storage_versions(specs: list[ResourceSpec]) -> dict[str, str]:
    """Storage prefix → the apiVersion its objects are kept in: that of the resource's own group (not a
    cohabitant's, as events.k8s.io's events are core's) in its preferred version (the storage factory's
    default encoding: autoscaling/v2 for HPAs)."""
    best: dict[str, tuple[tuple[bool, int], str]] = {}
    for spec in specs:
        if spec.persisted:
            rank = (bool(spec.storage_key), -GROUP_PRIORITY.get((spec.group, spec.version), (0, 0))[1])
            prefix = key_root(spec)
            if prefix not in best or rank < best[prefix][0]:
                best[prefix] = (rank, spec.group_version)
    return {prefix: version for prefix, (_, version) in best.items()}


def _storage_in_version(cacher: Cacher, spec: ResourceSpec, stored_as: dict[str, str], scheme: Any) -> Any:
    """The cacher itself for the storage version; for another version, the cacher seen through conversion."""
    storage_version = stored_as[cacher.prefix]
    if spec.group_version == storage_version:
        return cacher
    return VersionedStorage(cacher, spec.group_version, storage_version, scheme)


def create_server_chain(config: ControlPlaneConfig) -> ServerChain:
    apiextensions = GenericAPIServer("apiextensions-apiserver")
    kube = GenericAPIServer("kube-apiserver", delegate=apiextensions)
    aggregator = GenericAPIServer("kube-aggregator", delegate=kube)
    chain = ServerChain(aggregator, kube, apiextensions)

    cachers: dict[str, Cacher] = {}
    by_gv: dict[tuple[str, str], list[ResourceSpec]] = {}
    for spec in builtin_resources():
        by_gv.setdefault((spec.group, spec.version), []).append(spec)

    scheme = build_scheme()
    stored_as = _storage_versions(builtin_resources())
    namespace_cacher: Cacher | None = None
    group_versions: dict[str, list[APIGroupVersion]] = {}
    for (group, version), specs in by_gv.items():
        agv = APIGroupVersion(group, version)
        for spec in specs:
            if spec.persisted and stored_as.get(key_root(spec)) not in (None, spec.group_version):
                spec = dataclasses.replace(spec, storage_version=stored_as[key_root(spec)])
            if not spec.persisted:
                agv.add(APIResource(spec, None, reviews.handlers_for(spec)))
                continue
            cacher = _cacher_for(config.storage, spec, cachers, config.watch_cache_size)
            strategy = _STRATEGIES.get((spec.group, spec.resource), RESTStrategy)(spec, scheme)
            store = Store(spec, _storage_in_version(cacher, spec, stored_as, scheme), strategy)
            if (spec.group, spec.resource) == ("", "services"):  # allocates ClusterIPs and NodePorts
                store = new_service_rest(spec, cacher, scheme, config, chain.stores)
            chain.stores[(group, version, spec.resource)] = store
            if spec.group == "" and spec.resource == "namespaces":
                namespace_cacher = cacher
            res = APIResource(spec, store)
            if spec.subresource("scale") is not None:
                res.extra.update(SCALE_HANDLERS)
            agv.add(res)
        group_versions.setdefault(group, []).append(agv)
    chain.cachers = list(cachers.values())
    assert namespace_cacher is not None

    lifecycle = NamespaceLifecycle(namespace_cacher)
    namespace_lifecycle = "NamespaceLifecycle" in config.admission_plugins
    if namespace_lifecycle:
        for agvs in group_versions.values():
            for agv in agvs:
                for res in agv.resources.values():
                    _install_admission(res, lifecycle)
    _install_admission_plugins(chain.stores, config)
    for group, agvs in group_versions.items():
        target = aggregator if group in AGGREGATOR_GROUPS else apiextensions if group in APIEXTENSIONS_GROUPS else kube
        target.install_api_group(_preferred_first(agvs))

    ns_store = chain.stores[("", "v1", "namespaces")]
    ns_res = group_versions[""][0].resources["namespaces"]
    ns_res.extra[("finalize", "update")] = _finalize_handler
    install_core_subresources(group_versions[""][0].resources, chain.stores)
    group_versions[""][0].resources["componentstatuses"].extra.update(componentstatus.HANDLERS)
    start_service_account_controllers = install_service_accounts(kube, group_versions, chain.stores, config)
    disruption = DisruptionController(
        chain.stores[("policy", "v1", "poddisruptionbudgets")], chain.stores[("", "v1", "pods")], chain.stores
    )
    volume_protection = _volume_protection_controllers(chain.stores, config.disabled_controllers)

    namespaced_stores = [s for s in chain.stores.values() if s.spec.namespaced]
    chain.namespace_controller = NamespaceController(
        ns_store, _unique(namespaced_stores), config.namespace_deletion_grace_period
    )
    crd_handler = CRDHandler(
        apiextensions,
        chain.stores[("apiextensions.k8s.io", "v1", "customresourcedefinitions")],
        config.storage,
        watch_cache_size=config.watch_cache_size,
        lifecycle=lifecycle if namespace_lifecycle else None,
        namespaced_stores=chain.namespace_controller.namespaced,
    )

    garbage_collector = _install_garbage_collector(chain, crd_handler, config.enable_garbage_collector)

    # Non-resource paths: discovery roots, version, metrics, health, the index.
    for path, handler in discovery_handlers(aggregator, lambda: config.server_address, apiservice_order).items():
        aggregator.mux.handle(path, handler)
    kube.mux.handle("/version", _serve_version)
    aggregator.mux.handle("/metrics", serve_metrics)

    async def shutdown_check() -> str | None:
        return "shutting down" if aggregator.shutdown.is_set() else None

    async def ping() -> str | None:
        return None

    async def serve_index(req: Request) -> None:
        import orjson

        await send_bytes(req.send, 200, orjson.dumps({"paths": aggregator.every_path()}))

    aggregator.mux.handle("/", serve_index)
    crd_handler.openapi.attach(_install_openapi(aggregator))

    # Post-start hooks, each a named readyz check.
    bootstrap = BootstrapController(chain.stores, config)

    async def start_namespace_controller() -> None:
        assert chain.namespace_controller is not None
        await chain.namespace_controller.start()
        await disruption.start()
        for controller in volume_protection:
            await controller.start()
        if garbage_collector is not None:
            await garbage_collector.start()
        await start_service_account_controllers()

    kube.add_post_start_hook("start-kube-apiserver-admission-initializer", ping)
    kube.add_post_start_hook("bootstrap-controller", bootstrap.run)
    kube.add_post_start_hook("start-system-namespaces-controller", start_namespace_controller)
    kube.add_post_start_hook(
        "priority-and-fairness-config-producer",
        apf_config_producer(
            chain.stores[("flowcontrol.apiserver.k8s.io", "v1", "flowschemas")],
            chain.stores[("flowcontrol.apiserver.k8s.io", "v1", "prioritylevelconfigurations")],
        ),
    )
    chain.rbac = reviews.RULE_RESOLVER["rbac"] = install_rbac(kube, chain.stores)
    leases = chain.stores[("coordination.k8s.io", "v1", "leases")]
    kube.add_post_start_hook("start-kube-apiserver-identity-lease-controller", IdentityLeaseController(leases).start)
    kube.add_post_start_hook("start-kube-apiserver-identity-lease-garbage-collector", IdentityLeaseGC(leases).start)
    kube.add_post_start_hook(
        PRIORITY_CLASSES_HOOK,
        bootstrap_system_priority_classes(chain.stores[("scheduling.k8s.io", "v1", "priorityclasses")]),
    )
    apiextensions.add_post_start_hook("start-apiextensions-informers", ping)
    apiextensions.add_post_start_hook("start-apiextensions-controllers", crd_handler.start)
    aggregator.add_post_start_hook("start-kube-aggregator-informers", ping)
    autoregister_completion = install_autoregistration(
        aggregator,
        [
            (agv.group, agv.version)
            for group, agvs in group_versions.items()
            if group not in AGGREGATOR_GROUPS
            for agv in agvs
        ],
        chain.stores[("apiregistration.k8s.io", "v1", "apiservices")],
        chain.stores[("apiextensions.k8s.io", "v1", "customresourcedefinitions")],
    )
    install_health_checks(
        aggregator,
        {"ping": ping, "log": ping, "etcd": storage_probe(config.storage, STORAGE_HEALTHCHECK_TIMEOUT)},
        {"shutdown": shutdown_check},
        boot_sequence=autoregister_completion,
        livez_grace_period=config.livez_grace_period,
        ready_first={
            "etcd-readiness": storage_probe(config.storage, STORAGE_READINESS_TIMEOUT),
            "informer-sync": informer_sync_check(
                lambda: {qualified(s.spec.resource, s.spec.group): s.storage for s in chain.stores.values()}
            ),
        },
    )

    # one series per storage (not per group sharing it: events.k8s.io events are core events)
    stored = [s for s in chain.stores.values() if not s.spec.storage_key and s.spec.storage_version != NOT_STORED]
    CALLBACKS.storage_objects = lambda: {
        qualified(s.spec.resource, s.spec.group): len(s.storage.objects) for s in stored
    }
    set_build_info(version_info())
    CALLBACKS.watchers = lambda: {
        (s.spec.group, s.spec.version, s.spec.kind): len(s.storage.watchers)
        for s in chain.stores.values()
        if s.storage.watchers
    }
    return chain


def _install_garbage_collector(chain: ServerChain, crd_handler: CRDHandler, enabled: bool) -> GarbageCollector | None:
    """The garbage collector over every resource (kube-controller-manager's, here in-process), and with
    --enable-garbage-collector=false neither it nor the finalizers a delete would leave for it."""
    crd_handler.garbage_collection = enabled
    for store in chain.stores.values():
        store.garbage_collection = enabled
    if not enabled:
        return None
    by_kind: dict[tuple[str, str, str], Store] = {}
    for store in chain.stores.values():
        spec = store.spec
        by_kind[(spec.group, spec.version, spec.kind)] = store
        # any version: the one the objects are stored in first (no conversion on the collector's reads)
        if (spec.group, "", spec.kind) not in by_kind or isinstance(store.storage, Cacher):
            by_kind[(spec.group, "", spec.kind)] = store

    def resolve(group: str, version: str, kind: str) -> Store | None:
        return by_kind.get((group, version, kind)) or crd_handler.store_for_kind(group, kind, version)

    collector = GarbageCollector(resolve)
    for cacher in chain.cachers:
        collector.track(cacher)
    crd_handler.garbage_collector = collector
    return collector


def _volume_protection_controllers(
    stores: dict[tuple[str, str, str], Store], disabled: frozenset[str]
) -> list[PVCProtectionController | PVProtectionController]:
    """kube-controller-manager's pvc-protection and pv-protection controllers, here in-process, less those
    config.disabled_controllers names (as its --controllers=-name would)."""
    controllers: list[PVCProtectionController | PVProtectionController] = []
    if PVC_PROTECTION not in disabled:
        controllers.append(
            PVCProtectionController(stores[("", "v1", "persistentvolumeclaims")], stores[("", "v1", "pods")])
        )
    if PV_PROTECTION not in disabled:
        controllers.append(PVProtectionController(stores[("", "v1", "persistentvolumes")]))
    return controllers


def _unique(stores: list[Store]) -> list[Store]:
    seen: set[int] = set()
    out = []
    for s in stores:
        cacher = getattr(s.storage, "cacher", s.storage)  # versions of one resource share one cacher
        if id(cacher) not in seen:
            seen.add(id(cacher))
            out.append(s)
    return out


def _preferred_first(agvs: list[APIGroupVersion]) -> list[APIGroupVersion]:
    # v2 before v1, v1 before v1beta1: kube's version priority for the built-in groups
    def rank(v: str) -> tuple[int, int]:
        import re

        m = re.match(r"^v(\d+)(?:(alpha|beta)(\d+))?$", v)
        if not m:
            return (3, 0)
        stability = {None: 0, "beta": 1, "alpha": 2}[m.group(2)]
        return (stability, -int(m.group(1)))

    return sorted(agvs, key=lambda a: rank(a.version))


def _install_admission_plugins(stores: dict[tuple[str, str, str], Store], config: ControlPlaneConfig) -> None:
    """The admission plugins of single kinds, on the stores of their resources."""
    plugins = config.admission_plugins
    if "TaintNodesByCondition" in plugins:
        stores[("", "v1", "nodes")].admission.append(taint_nodes_by_condition.admit)
    if "Priority" in plugins:
        classes = stores[("scheduling.k8s.io", "v1", "priorityclasses")]
        priority = Priority(classes.storage)  # type: ignore[arg-type]
        stores[("", "v1", "pods")].admit_create.append(priority.await_class)
        stores[("", "v1", "pods")].admission.append(priority.admit_pod)
        classes.admission.append(priority.validate_class)
    if "LimitRanger" in plugins:
        ranger = LimitRanger(stores[("", "v1", "limitranges")].storage)  # type: ignore[arg-type]
        for resource, admit in (("pods", ranger.admit_pod), ("persistentvolumeclaims", ranger.admit_claim)):
            stores[("", "v1", resource)].admit_create.append(ranger.await_ranges)
            stores[("", "v1", resource)].admission.append(admit)
    if "ServiceAccount" in plugins:
        service_account = ServiceAccount(stores[("", "v1", "serviceaccounts")].storage)  # type: ignore[arg-type]
        stores[("", "v1", "pods")].admit_create.append(service_account.await_service_account)
        stores[("", "v1", "pods")].admission.append(service_account.admit_pod)
        validations = stores[("", "v1", "pods")].subresource_validation.setdefault("ephemeralcontainers", [])
        validations.append(service_account.validate_ephemeral_containers)
    if "DefaultStorageClass" in plugins:
        storage_class = DefaultStorageClass(stores[("storage.k8s.io", "v1", "storageclasses")].storage)  # type: ignore[arg-type]
        stores[("", "v1", "persistentvolumeclaims")].admit_create.append(storage_class.await_classes)
        stores[("", "v1", "persistentvolumeclaims")].admission.append(storage_class.admit)
    if "StorageObjectInUseProtection" in plugins:
        stores[("", "v1", "persistentvolumeclaims")].admission.append(storage_object_in_use_protection.admit_claim)
        stores[("", "v1", "persistentvolumes")].admission.append(storage_object_in_use_protection.admit_volume)
    if "DefaultIngressClass" in plugins:
        ingress_class = DefaultIngressClass(stores[("networking.k8s.io", "v1", "ingressclasses")].storage)  # type: ignore[arg-type]
        stores[("networking.k8s.io", "v1", "ingresses")].admit_create.append(ingress_class.await_classes)
        stores[("networking.k8s.io", "v1", "ingresses")].admission.append(ingress_class.admit)
    if "DefaultTolerationSeconds" in plugins:
        stores[("", "v1", "pods")].admission.append(DefaultTolerationSeconds(*config.toleration_seconds).admit)
    if "PodSecurity" in plugins:  # a validating plugin: after every mutating one above
        pods = stores[("", "v1", "pods")]
        namespaces = stores[("", "v1", "namespaces")]
        pod_security = PodSecurity(namespaces.storage, pods.storage)  # type: ignore[arg-type]
        pods.admit_create.append(pod_security.await_namespace)
        pods.admission.append(pod_security.validate_pod)
        namespaces.admission.append(pod_security.validate_namespace)
        hooked: set[int] = set()
        for (group, _version, resource), store in stores.items():
            # every served version of a workload resource, once per store
            if (group, resource) in TEMPLATE_PATHS and id(store) not in hooked:
                hooked.add(id(store))
                store.admission.append(pod_security.template_validator(group, resource))


def _install_admission(res: APIResource, lifecycle: NamespaceLifecycle) -> None:
    spec = res.spec
    if res.store is None:
        return

    async def delete(scope: RequestScope) -> None:
        lifecycle.admit_delete(spec.resource, spec.group, scope.info.name)
        await delete_handler.delete_resource(scope)

    if "create" in spec.verbs and isinstance(res.store, Store):
        lifecycle.install(res.store)
    if spec.resource == "namespaces" and not spec.group:
        res.extra[("", "delete")] = delete


async def _finalize_handler(scope: RequestScope) -> None:
    await update_handler.update_resource(scope, "finalize")


async def _serve_version(req: Request) -> None:
    import orjson

    # WriteRawJSON: indented, whoever asks
    await send_bytes(req.send, 200, orjson.dumps(version_info(), option=orjson.OPT_INDENT_2))


def _install_openapi(root: GenericAPIServer) -> Any:
    """/openapi/v2 and /openapi/v3, merged over the delegation chain like the aggregator's."""
    from kube_apiserver.endpoints import openapi

    gvs: dict[str, list[ResourceSpec]] = {}
    for group in root.all_groups():
        for version in group.versions:
            key = f"apis/{group.name}/{version}" if group.name else f"api/{version}"
            gvs[key] = group.resources.get(version, [])
    # Built on first request and served from memory afterwards (kube-openapi's cached values).
    documents = openapi.OpenAPIDocuments(gvs)
    handlers = openapi.make_handlers(documents)
    root.mux.handle("/openapi/v2", handlers["/openapi/v2"])
    root.mux.handle("/openapi/v3", handlers["/openapi/v3"])
    root.mux.handle_prefix("/openapi/v3/", handlers["/openapi/v3/"])
    return documents  # the CRD OpenAPI controller publishes custom resources into it
