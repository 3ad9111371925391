"""The pods subresources that need no node agent (pkg/registry/core/pod/storage: BindingREST,
LegacyBindingREST, EphemeralContainersREST) and the wiring of all of them into the core group.

pods/eviction lives in pod_eviction.py, log/exec/attach/portforward in pod_streaming.py and the
proxy subresources of pods, nodes and services in resource_proxy.py.
"""

from __future__ import annotations

import copy
from typing import Any

import orjson

from kube_apiserver.apis.core.pod_strategy import PodStrategy
from kube_apiserver.endpoints.handlers import get as get_handler
from kube_apiserver.endpoints.handlers import patch as patch_handler
from kube_apiserver.endpoints.handlers import update as update_handler
from kube_apiserver.endpoints.handlers.scope import RequestScope, decode_object, write_status
from kube_apiserver.endpoints.installer import APIResource, Handler
from kube_apiserver.registry.store import Store
from kube_apiserver.registry.strategy import stored_copy
from kube_apiserver.runtime import errors
from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.labels import go_quote
from kube_apiserver.runtime.validation.objectmeta import validate_object_meta_update
from kube_apiserver.storage import errors as serrors
from kube_apiserver.storage.interface import Preconditions, StoredObject

EPHEMERAL_CONTAINERS = "ephemeralcontainers"
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"

StoreKey = tuple[str, str, str]  # (group, version, resource)


# --- shared by the pod subresources ---


async def get_pod(pods: Store, namespace: str, name: str) -> dict[str, Any]:
    return (await pods.get(namespace, name)).obj


def _container_names(pod: dict[str, Any]) -> list[str]:
    """podutil.VisitContainers with every container type: init, regular, then ephemeral."""
    spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
    names: list[str] = []
    for field in ("initContainers", "containers", "ephemeralContainers"):
        items = spec.get(field)
        if isinstance(items, list):
            names.extend(str(c.get("name", "")) for c in items if isinstance(c, dict))
    return names


def validate_container(container: str, pod: dict[str, Any]) -> str:
    """validateContainer (registry/core/pod/strategy.go): the container a request is about."""
    name = (pod.get("metadata") or {}).get("name", "")
    if not container:
        spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
        containers = [c for c in spec.get("containers") or [] if isinstance(c, dict)]
        if len(containers) == 1:
            return str(containers[0].get("name", ""))
        if not containers:
            raise errors.new_bad_request(f"a container name must be specified for pod {name}")
        choices = "[" + " ".join(_container_names(pod)) + "]"  # Go's %v of a []string
        raise errors.new_bad_request(f"a container name must be specified for pod {name}, choose one of: {choices}")
    if container not in _container_names(pod):
        raise errors.new_bad_request(f"container {container} is not valid for pod {name}")
    return container


def update_pod_condition(pod: dict[str, Any], condition: dict[str, Any]) -> None:
    """podutil.UpdatePodCondition: add or replace a condition, keeping lastTransitionTime when the
    status does not change. Keys in the order of the v1 PodCondition struct."""
    status = pod.get("status") if isinstance(pod.get("status"), dict) else {}
    pod["status"] = status
    conditions = status.get("conditions") if isinstance(status.get("conditions"), list) else []
    status["conditions"] = conditions
    now = metautil.now_rfc3339()
    new = {
        "type": condition["type"],
        "status": condition["status"],
        "lastProbeTime": None,  # a metav1.Time without omitempty: kube writes null
        "lastTransitionTime": now,
    }
    for key in ("reason", "message"):
        if condition.get(key):
            new[key] = condition[key]
    for i, old in enumerate(conditions):
        if isinstance(old, dict) and old.get("type") == condition["type"]:
            if old.get("status") == new["status"]:
                new["lastTransitionTime"] = old.get("lastTransitionTime", now)
            new["lastProbeTime"] = old.get("lastProbeTime")
            conditions[i] = new
            return
    conditions.append(new)


def success_status(code: int) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": code}


def unknown_error(message: str, code: int = 500) -> errors.StatusError:
    """What ErrorToAPIStatus makes of an error that is not a Status: reason Unknown (empty), no details."""
    return errors.StatusError(code, "", message, details=False)


def notify(store: Store, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
    """Tell the store's watchers of a write made below the Store (binding writes storage directly)."""
    for fn in store.after_write:
        fn(old, new)


# --- pods/binding and bindings ---


def validate_pod_binding(binding: dict[str, Any]) -> list[StatusCause]:
    """validation.ValidatePodBinding."""
    target = binding.get("target") if isinstance(binding.get("target"), dict) else {}
    causes = []
    kind = target.get("kind") or ""
    if kind and kind != "Node":
        causes.append(errors.field_not_supported("target.kind", kind, ["Node", "<empty>"]))
    if not target.get("name"):
        causes.append(errors.field_required("target.name"))
    return causes


class _BindingRejected(Exception):  # noqa: N818 - an error message for a Conflict
    pass


class BindingREST:
    """Binds a pod to a node: spec.nodeName, the binding's annotations and the PodScheduled condition,
    written straight to storage (no pod update validation, as upstream's GuaranteedUpdate)."""

    def __init__(self, pods: Store) -> None:
        self.pods = pods

    async def create(self, scope: RequestScope, legacy: bool) -> None:
        dry_run = scope.dry_run
        binding = await decode_object(scope, "Binding", "v1")
        meta = binding.get("metadata") if isinstance(binding.get("metadata"), dict) else {}
        body_ns = meta.get("namespace")
        if body_ns and scope.info.namespace and body_ns != scope.info.namespace:
            raise errors.new_bad_request(
                "the namespace of the provided object does not match the namespace sent on the request"
            )
        name = meta.get("name") or ""
        if not legacy and name != scope.info.name:
            raise errors.new_bad_request("name in URL does not match name in Binding object")
        causes = validate_pod_binding(binding)
        if causes:
            # Upstream returns errs.ToAggregate(), not a Status error, so kube answers a 500 with the same
            # text; a bad request body is the client's error here, so it is the 422 Invalid of any other kind.
            raise errors.new_invalid("", "Binding", name, causes)
        if not name:
            raise errors.new_bad_request("Name parameter required.")
        target = binding["target"]["name"]
        annotations = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
        pre = None
        if meta.get("uid") or meta.get("resourceVersion"):
            pre = Preconditions(uid=meta.get("uid") or None, resource_version=meta.get("resourceVersion") or None)
        await self.assign_pod(scope.info.namespace, name, target, annotations, pre, dry_run)
        await write_status(scope, 201, success_status(201))

    async def assign_pod(
        self,
        namespace: str,
        name: str,
        node: str,
        annotations: dict[str, Any],
        pre: Preconditions | None,
        dry_run: bool,
    ) -> None:
        pods = self.pods
        key = pods.key(namespace, name)

        def set_host(pod: dict[str, Any] | None) -> dict[str, Any]:
            if pod is None:
                raise serrors.KeyNotFoundError(key)
            meta = metautil.metadata(pod)
            if meta.get("deletionTimestamp"):
                raise _BindingRejected(f"pod {name} is being deleted, cannot be assigned to a host")
            spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
            pod["spec"] = spec
            if spec.get("nodeName"):
                raise _BindingRejected(f"pod {name} is already assigned to node {go_quote(str(spec['nodeName']))}")
            spec["nodeName"] = node
            if annotations:  # an empty map is omitted when kube serializes the pod
                meta["annotations"] = {**(meta.get("annotations") or {}), **annotations}
            update_pod_condition(pod, {"type": "PodScheduled", "status": "True"})
            return pod

        before: StoredObject | None = None
        try:
            if dry_run:
                await pods.storage.wait_fresh()
                cur = pods.storage.get_cached(key)
                if cur is None:
                    raise serrors.KeyNotFoundError(key)
                if pre is not None:
                    pre.check(key, cur.obj)
                set_host(orjson.loads(cur.raw))
                return
            before = pods.storage.get_cached(key)
            stored = await pods.storage.guaranteed_update(key, set_host, preconditions=pre)
        except serrors.KeyNotFoundError:
            raise errors.new_not_found("", "pods", name) from None
        except serrors.InvalidObjError as e:
            raise errors.new_conflict("", "pods", name, str(e)) from None
        except serrors.ResourceVersionConflictError:
            raise errors.new_conflict("", "pods", name, errors.OPTIMISTIC_LOCK_ERROR) from None
        except _BindingRejected as e:
            raise errors.new_conflict("", "pods/binding", name, str(e)) from None
        if stored is not before:
            notify(pods, before.obj if before else None, stored.obj)


# --- pods/ephemeralcontainers ---


class EphemeralContainersStrategy(PodStrategy):
    """podEphemeralContainersStrategy: an update through /ephemeralcontainers keeps everything of the
    stored pod but spec.ephemeralContainers, which may only grow."""

    def prepare_for_subresource_update(
        self, subresource: str, new: dict[str, Any], old: dict[str, Any]
    ) -> dict[str, Any]:
        if subresource != EPHEMERAL_CONTAINERS:
            return super().prepare_for_subresource_update(subresource, new, old)
        out = stored_copy(new, old)
        new_spec = new.get("spec") if isinstance(new.get("spec"), dict) else {}
        spec = out.setdefault("spec", {})
        if new_spec.get("ephemeralContainers") is None:
            spec.pop("ephemeralContainers", None)
        else:
            spec["ephemeralContainers"] = copy.deepcopy(new_spec["ephemeralContainers"])
        return out

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
        """ValidatePodEphemeralContainersUpdate; the pod itself is validated by validate()."""
        old_meta = old.get("metadata") if isinstance(old.get("metadata"), dict) else {}
        if MIRROR_POD_ANNOTATION in (old_meta.get("annotations") or {}):
            # static pods don't support ephemeral containers (kubernetes#113935): this error alone
            return [errors.field_forbidden("[]", "static pods do not support ephemeral containers")]
        causes = validate_object_meta_update(new.get("metadata") or {}, old_meta)
        new_by_name = {
            c.get("name"): c for c in ((new.get("spec") or {}).get("ephemeralContainers") or []) if isinstance(c, dict)
        }
        path = "spec.ephemeralContainers"
        for previous in (old.get("spec") or {}).get("ephemeralContainers") or []:
            if not isinstance(previous, dict):
                continue
            cname = str(previous.get("name", ""))
            current = new_by_name.get(previous.get("name"))
            if current is None:
                detail = f"existing ephemeral containers {go_quote(cname)} may not be removed\n"
                causes.append(errors.field_forbidden(path, detail))
            elif current != previous:
                detail = (
                    f"existing ephemeral containers {go_quote(cname)} may not be changed\n{_diff(previous, current)}"
                )
                causes.append(errors.field_forbidden(path, detail))
        return causes


def _diff(old: dict[str, Any], new: dict[str, Any]) -> str:
    """A short account of what changed (upstream prints a cmp.Diff, whose layout is not stable)."""
    lines = []
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            if key in old:
                lines.append(f"-\t{key}: {orjson.dumps(old[key]).decode()}")
            if key in new:
                lines.append(f"+\t{key}: {orjson.dumps(new[key]).decode()}")
    return "\n".join(lines)


def ephemeral_containers_store(pods: Store) -> Store:
    """The pods store with the ephemeral containers update strategy (upstream copies the Store the
    same way); it shares the pods' storage and their write hooks."""
    strategy = EphemeralContainersStrategy(pods.spec, pods.strategy.scheme)
    store = Store(pods.spec, pods.storage, strategy)
    store.after_write = pods.after_write
    store.subresource_validation = pods.subresource_validation  # its admission is the pods' as well
    return store


def ephemeral_containers_handlers(pods: Store) -> dict[tuple[str, str], Handler]:
    store = ephemeral_containers_store(pods)

    def scoped(scope: RequestScope) -> RequestScope:
        return RequestScope(scope.req, scope.info, scope.spec, store)

    async def get(scope: RequestScope) -> None:
        await get_handler.get_resource(scope)

    async def update(scope: RequestScope) -> None:
        await update_handler.update_resource(scoped(scope), EPHEMERAL_CONTAINERS)

    async def patch(scope: RequestScope) -> None:
        await patch_handler.patch_resource(scoped(scope), EPHEMERAL_CONTAINERS)

    return {
        (EPHEMERAL_CONTAINERS, "get"): get,
        (EPHEMERAL_CONTAINERS, "update"): update,
        (EPHEMERAL_CONTAINERS, "patch"): patch,
    }


# --- wiring ---


def install_core_subresources(resources: dict[str, APIResource], stores: dict[StoreKey, Store]) -> None:
    """Register the pods subresources, the legacy bindings resource and the nodes/services proxies
    on the core v1 resources (by resource name)."""
    from kube_apiserver.apis.core import pod_eviction, pod_resize, pod_streaming, resource_proxy

    pods = stores[("", "v1", "pods")]
    binding = BindingREST(pods)

    async def create_pod_binding(scope: RequestScope) -> None:
        await binding.create(scope, legacy=False)

    async def create_binding(scope: RequestScope) -> None:
        await binding.create(scope, legacy=True)

    pod_res = resources["pods"]
    pod_res.extra[("binding", "create")] = create_pod_binding
    pod_res.extra.update(ephemeral_containers_handlers(pods))
    pod_res.extra.update(pod_resize.resize_handlers(pods))
    pod_res.extra.update(pod_eviction.eviction_handlers(pods, stores[("policy", "v1", "poddisruptionbudgets")]))
    pod_res.extra.update(pod_streaming.streaming_handlers(pods, stores[("", "v1", "nodes")]))
    proxies = resource_proxy.ResourceProxy(stores)
    pod_res.extra.update(proxies.handlers("pods"))
    resources["nodes"].extra.update(proxies.handlers("nodes"))
    resources["services"].extra.update(proxies.handlers("services"))
    resources["bindings"].extra[("", "create")] = create_binding
