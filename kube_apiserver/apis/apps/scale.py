"""The scale subresource (autoscaling/v1 Scale) of deployments, replicasets, statefulsets and
replicationcontrollers (registry/apps/deployment/storage ScaleREST and its siblings)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import orjson

from kube_apiserver.endpoints.handlers import apply as apply_handler
from kube_apiserver.endpoints.handlers.fieldvalidation import IGNORE, typed_decode
from kube_apiserver.endpoints.handlers.patch import patch_function
from kube_apiserver.endpoints.handlers.scope import RequestScope, check_name, decode_object, write_object
from kube_apiserver.registry import fieldmanager
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.labels import selector_from_label_selector_dict, selector_from_set
from kube_apiserver.storage.interface import Preconditions


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
    replicas = spec.get("replicas", 1)
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": scale_meta,
        "spec": {"replicas": replicas} if replicas else {},  # ScaleSpec.replicas is omitempty
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


def _managed_scale(
    scope: RequestScope, obj: dict[str, Any], new_scale: Callable[[dict[str, Any]], dict[str, Any]]
) -> dict[str, Any]:
    """The new Scale made from the current one, the parent's managedFields carried through the Scale's
    field manager (ScaleHandler): the scale subresource's writes own spec.replicas."""
    return fieldmanager.through_scale(obj, scope.spec.group_version, to_scale(obj), new_scale)


async def update_scale(scope: RequestScope) -> None:
    manager = apply_handler.field_manager_name(scope, "UpdateOptions")
    scale = await decode_object(scope, "Scale", "autoscaling/v1")
    check_name(scope, scale)
    uid = (scale.get("metadata") or {}).get("uid")
    fm = fieldmanager.field_manager_for(*fieldmanager.SCALE_FIELD_MANAGER)

    def update(obj: dict[str, Any]) -> dict[str, Any]:
        if uid:  # the Scale's uid is a precondition on its parent (scaleUpdatedObjectInfo.Preconditions)
            Preconditions(uid=str(uid)).check(scope.store.key(scope.namespace, scope.info.name), obj)
        new = _managed_scale(scope, obj, lambda current: fm.update(current, copy.deepcopy(scale), manager))
        return _apply_scale(scope, obj, new)

    stored = await scope.store.patch(scope.namespace, scope.info.name, update, dry_run=scope.dry_run)
    await write_object(scope, 200, to_scale(stored.obj))


async def patch_scale(scope: RequestScope) -> None:
    fm = fieldmanager.field_manager_for(*fieldmanager.SCALE_FIELD_MANAGER)
    if apply_handler.is_apply(scope):
        manager, force, patch_obj = await apply_handler.apply_options(scope)

        def server_side_apply(obj: dict[str, Any]) -> dict[str, Any]:
            new = _managed_scale(
                scope, obj, lambda current: fm.apply(current, apply_handler.fresh_copy(patch_obj), manager, force)
            )
            return _apply_scale(scope, obj, new)

        stored = await scope.store.patch(scope.namespace, scope.info.name, server_side_apply, dry_run=scope.dry_run)
        await write_object(scope, 200, to_scale(stored.obj))
        return
    manager = apply_handler.field_manager_name(scope, "PatchOptions")
    patch = await patch_function(scope)

    def patched(current: dict[str, Any]) -> dict[str, Any]:
        out = patch(orjson.loads(orjson.dumps(current)))
        # the patched Scale is read as an autoscaling/v1 Scale: a spec that is not an object is a 400
        typed_decode(scope.req, out, "autoscaling", "v1", "Scale", directive=IGNORE, patched=True)
        out.setdefault("metadata", {})["resourceVersion"] = (out.get("metadata") or {}).get(
            "resourceVersion", current["metadata"].get("resourceVersion")
        )
        return fm.update(current, out, manager)

    def apply(obj: dict[str, Any]) -> dict[str, Any]:
        return _apply_scale(scope, obj, _managed_scale(scope, obj, patched))

    stored = await scope.store.patch(scope.namespace, scope.info.name, apply, dry_run=scope.dry_run)
    await write_object(scope, 200, to_scale(stored.obj))


SCALE_HANDLERS = {("scale", "get"): get_scale, ("scale", "update"): update_scale, ("scale", "patch"): patch_scale}
