"""pods/resize (in-place pod vertical scaling, beta and on by default in 1.33: registry/core/pod's ResizeREST
and podResizeStrategy): a write through it changes only the cpu and memory requests and limits (and the
resize policy) of the pod's containers, and of its restartable init containers; everything else is kept as
stored. The kubelet then acts on the new values; with no kubelet here they stay as desired values."""

from __future__ import annotations

import copy
from typing import Any

from kube_apiserver.apis.core.pod_strategy import PodStrategy, qos_class
from kube_apiserver.endpoints.handlers import get as get_handler
from kube_apiserver.endpoints.handlers import patch as patch_handler
from kube_apiserver.endpoints.handlers import update as update_handler
from kube_apiserver.endpoints.handlers.scope import RequestScope
from kube_apiserver.endpoints.installer import Handler
from kube_apiserver.registry.store import Store
from kube_apiserver.registry.strategy import stored_copy
from kube_apiserver.runtime import errors
from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.validation.objectmeta import validate_object_meta_update

RESIZE = "resize"
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
_RESIZABLE = ("cpu", "memory")


def _containers(pod: dict[str, Any], field: str) -> list[dict[str, Any]]:
    spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
    items = spec.get(field)
    return [c for c in items if isinstance(c, dict)] if isinstance(items, list) else []


def _restartable(container: dict[str, Any]) -> bool:
    """isRestartableInitContainer: a sidecar (restartPolicy Always) among the init containers."""
    return container.get("restartPolicy") == "Always"


class ResizeStrategy(PodStrategy):
    """podResizeStrategy."""

    def prepare_for_subresource_update(
        self, subresource: str, new: dict[str, Any], old: dict[str, Any]
    ) -> dict[str, Any]:
        if subresource != RESIZE:
            return super().prepare_for_subresource_update(subresource, new, old)
        # dropNonResizeUpdates: the stored pod, with the resources and resize policy of each container the
        # new one names (a container it reorders or renames is left as it was, for validation to see)
        out = stored_copy(new, old)
        for field in ("containers", "initContainers"):
            by_name = {c.get("name"): i for i, c in enumerate(_containers(out, field))}
            stored = _containers(out, field)
            for container in _containers(new, field):
                i = by_name.get(container.get("name"))
                if i is None:
                    continue
                for key in ("resources", "resizePolicy"):
                    if key in container:
                        stored[i][key] = copy.deepcopy(container[key])
                    else:
                        stored[i].pop(key, None)
        # updatePodGeneration: the spec moved
        if out.get("spec") != old.get("spec"):
            meta = metautil.metadata(out)
            meta["generation"] = int((old.get("metadata") or {}).get("generation") or 1) + 1
        return out

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
        """ValidatePodResize; the pod itself is validated by validate()."""
        old_meta = old.get("metadata") if isinstance(old.get("metadata"), dict) else {}
        if MIRROR_POD_ANNOTATION in (old_meta.get("annotations") or {}):
            return [errors.field_forbidden("[]", "static pods cannot be resized")]  # field.NewPath("")
        if ((old.get("spec") or {}).get("os") or {}).get("name") == "windows":
            return [errors.field_forbidden("[]", "windows pods cannot be resized")]
        causes = validate_object_meta_update(new.get("metadata") or {}, old_meta)
        status = old.get("status") if isinstance(old.get("status"), dict) else {}
        qos = status.get("qosClass") or qos_class(old)
        if qos_class(new) != qos:
            causes.append(errors.field_invalid("spec", qos, "Pod QOS Class may not change as a result of resizing"))
        if not _resize_supported(status):
            causes.append(errors.field_forbidden("spec", "Pod running on node without support for resize"))
        for field in ("initContainers", "containers"):
            for i, (before, after) in enumerate(zip(_containers(old, field), _containers(new, field), strict=False)):
                if field == "initContainers" and not _restartable(before):
                    continue
                causes += _validate_container_resize(
                    after.get("resources"), before.get("resources"), f"spec.{field}[{i}].resources"
                )
        if _without_cpu_memory(new.get("spec")) != _without_cpu_memory(old.get("spec")):
            causes.append(errors.field_forbidden("spec", "only cpu and memory resources are mutable"))
        return causes


def _resize_supported(status: dict[str, Any]) -> bool:
    """isPodResizeRequestSupported: a pod whose running container reports no resources runs on a kubelet
    that cannot resize (version skew)."""
    for cs in status.get("containerStatuses") or []:
        if isinstance(cs, dict) and isinstance(cs.get("state"), dict) and cs["state"].get("running") is not None:
            return cs.get("resources") is not None
    return True


def _validate_container_resize(new: Any, old: Any, path: str) -> list[StatusCause]:
    """validateContainerResize: requests and limits may change, not go away."""
    if not isinstance(old, dict) or not old:
        return []
    if not isinstance(new, dict) or not new:
        return [errors.field_forbidden(path, "resource requirements cannot be removed")]
    causes = []
    for kind, text in (
        ("requests", "resource requests cannot be removed"),
        ("limits", "resource limits cannot be removed"),
    ):
        for name in sorted(old.get(kind) or {}):
            if name not in (new.get(kind) or {}):
                causes.append(errors.field_forbidden(f"{path}.{kind}[{name}]", text))
    return causes


def _without_cpu_memory(spec: Any) -> Any:
    """The spec with every container's cpu and memory requests and limits, and its resize policy, taken
    out: what a resize may not change."""
    if not isinstance(spec, dict):
        return spec
    out = copy.deepcopy(spec)
    for field in ("containers", "initContainers"):
        for container in out.get(field) or []:
            if not isinstance(container, dict):
                continue
            container.pop("resizePolicy", None)
            resources = container.get("resources")
            if isinstance(resources, dict):
                for kind in ("requests", "limits"):
                    values = resources.get(kind)
                    if isinstance(values, dict):
                        for name in _RESIZABLE:
                            values.pop(name, None)
                        if not values:
                            resources.pop(kind)
                if not resources:
                    container.pop("resources")
    return out


def resize_handlers(pods: Store) -> dict[tuple[str, str], Handler]:
    """get, update and patch of pods/resize, on the pods store with the resize strategy (upstream copies the
    Store the same way); it shares the pods' storage and their write hooks."""
    store = Store(pods.spec, pods.storage, ResizeStrategy(pods.spec, pods.strategy.scheme))
    store.after_write = pods.after_write

    def scoped(scope: RequestScope) -> RequestScope:
        return RequestScope(scope.req, scope.info, scope.spec, store)

    async def get(scope: RequestScope) -> None:
        await get_handler.get_resource(scope)

    async def update(scope: RequestScope) -> None:
        await update_handler.update_resource(scoped(scope), RESIZE)

    async def patch(scope: RequestScope) -> None:
        await patch_handler.patch_resource(scoped(scope), RESIZE)

    return {(RESIZE, "get"): get, (RESIZE, "update"): update, (RESIZE, "patch"): patch}
