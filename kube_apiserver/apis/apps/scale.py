"""The scale subresource (autoscaling/v1 Scale) of deployments, replicasets, statefulsets and
replicationcontrollers (registry/apps/deployment/storage ScaleREST and its siblings)."""

from __future__ import annotations

from typing import Any

import orjson

from kube_apiserver.endpoints.handlers.patch import patch_function
from kube_apiserver.endpoints.handlers.scope import RequestScope, decode_object, write_object
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.labels import selector_from_label_selector_dict, selector_from_set


def to_scale(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    selector = spec.get("selector")
    if isinstance(selector, dict) and ("matchLabels" in selector or "matchExpressions" in selector):
        sel_text = str(selector_from_label_selector_dict(selector))
    elif isinstance(selector, dict):  # replicationcontrollers: a plain map
        sel_text = str(selector_from_set(selector))
    else:
        sel_text = ""
    status: dict[str, Any] = {"replicas": (obj.get("status") or {}).get("replicas", 0)}
    if sel_text:
        status["selector"] = sel_text
    scale_meta = {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp") if k in meta}
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": scale_meta,
        "spec": {"replicas": spec.get("replicas", 1)},
        "status": status,
    }


def _apply_scale(scope: RequestScope, obj: dict[str, Any], scale: dict[str, Any]) -> dict[str, Any]:
    name = (obj.get("metadata") or {}).get("name", "")
    rv = (scale.get("metadata") or {}).get("resourceVersion")
    if rv and rv != (obj.get("metadata") or {}).get("resourceVersion"):
        raise errors.new_conflict(scope.spec.group, scope.spec.resource, name, errors.OPTIMISTIC_LOCK_ERROR)
    replicas = (scale.get("spec") or {}).get("replicas", 0)
    if not isinstance(replicas, int) or isinstance(replicas, bool):
        raise errors.new_bad_request("spec.replicas must be an integer")
    if replicas < 0:
        cause = errors.field_invalid("spec.replicas", replicas, "must be greater than or equal to 0")
        raise errors.new_invalid("autoscaling", "Scale", name, [cause])
    obj.setdefault("spec", {})["replicas"] = replicas
    return obj


async def get_scale(scope: RequestScope) -> None:
    stored = await scope.store.get(scope.namespace, scope.info.name)
    await write_object(scope, 200, to_scale(stored.obj))


async def update_scale(scope: RequestScope) -> None:
    scale = await decode_object(scope, "Scale", "autoscaling/v1")
    stored = await scope.store.patch(
        scope.namespace, scope.info.name, lambda obj: _apply_scale(scope, obj, scale), dry_run=scope.dry_run
    )
    await write_object(scope, 200, to_scale(stored.obj))


async def patch_scale(scope: RequestScope) -> None:
    patch = await patch_function(scope)

    def apply(obj: dict[str, Any]) -> dict[str, Any]:
        current = to_scale(obj)
        patched = patch(orjson.loads(orjson.dumps(current)))
        patched.setdefault("metadata", {})["resourceVersion"] = (patched.get("metadata") or {}).get(
            "resourceVersion", current["metadata"].get("resourceVersion")
        )
        return _apply_scale(scope, obj, patched)

    stored = await scope.store.patch(scope.namespace, scope.info.name, apply, dry_run=scope.dry_run)
    await write_object(scope, 200, to_scale(stored.obj))


SCALE_HANDLERS = {("scale", "get"): get_scale, ("scale", "update"): update_scale, ("scale", "patch"): patch_scale}
