"""The scale subresource of custom resources (customresource.ScaleREST): autoscaling/v1 Scale read
from and written to the paths the CRD names (specReplicasPath, statusReplicasPath, labelSelectorPath)."""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from kube_apiserver.endpoints.handlers import apply as apply_handler
from kube_apiserver.endpoints.handlers.fieldvalidation import IGNORE, typed_decode
from kube_apiserver.endpoints.handlers.patch import patch_function
from kube_apiserver.endpoints.handlers.scope import RequestScope, check_name, decode_object, write_object
from kube_apiserver.registry import fieldmanager
from kube_apiserver.runtime import errors
from kube_apiserver.storage.interface import Preconditions

Handler = Callable[[RequestScope], Awaitable[None]]


def _get_path(obj: dict[str, Any], path: str) -> Any:
    cur: Any = obj
    for part in path.lstrip(".").split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


def _set_path(obj: dict[str, Any], path: str, value: Any) -> None:
    parts = path.lstrip(".").split(".")
    cur = obj
    for part in parts[:-1]:
        nxt = cur.get(part)
        if not isinstance(nxt, dict):
            nxt = cur[part] = {}
        cur = nxt
    cur[parts[-1]] = value


def scale_handlers(scale: dict[str, Any]) -> dict[tuple[str, str], Handler]:
    spec_path = str(scale.get("specReplicasPath") or ".spec.replicas")
    status_path = str(scale.get("statusReplicasPath") or ".status.replicas")
    selector_path = str(scale.get("labelSelectorPath") or "")

    def to_scale(obj: dict[str, Any]) -> dict[str, Any]:
        meta = obj.get("metadata") or {}
        replicas = _int(_get_path(obj, spec_path))
        status: dict[str, Any] = {"replicas": _int(_get_path(obj, status_path))}
        selector = _get_path(obj, selector_path) if selector_path else None
        if isinstance(selector, str) and selector:
            status["selector"] = selector
        keep = ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
        return {
            "kind": "Scale",
            "apiVersion": "autoscaling/v1",
            "metadata": {k: meta[k] for k in keep if k in meta},
            "spec": {"replicas": replicas} if replicas else {},  # ScaleSpec.replicas is omitempty
            "status": status,
        }

    def apply_scale(scope: RequestScope, obj: dict[str, Any], scale_obj: dict[str, Any]) -> dict[str, Any]:
        name = (obj.get("metadata") or {}).get("name", "")
        rv = (scale_obj.get("metadata") or {}).get("resourceVersion")
        if rv and rv != (obj.get("metadata") or {}).get("resourceVersion"):
            raise errors.new_conflict(scope.spec.group, scope.spec.resource, name, errors.OPTIMISTIC_LOCK_ERROR)
        replicas = (scale_obj.get("spec") or {}).get("replicas", 0)
        if not isinstance(replicas, int) or isinstance(replicas, bool):
            raise errors.new_bad_request("spec.replicas must be an integer")
        if replicas < 0:
            cause = errors.field_invalid("spec.replicas", replicas, "must be greater than or equal to 0")
            raise errors.new_invalid("autoscaling", "Scale", name, [cause])
        _set_path(obj, spec_path, replicas)
        return obj

    async def get_scale(scope: RequestScope) -> None:
        stored = await scope.store.get(scope.namespace, scope.info.name)
        await write_object(scope, 200, to_scale(stored.obj))

    fm = fieldmanager.field_manager_for(*fieldmanager.SCALE_FIELD_MANAGER)
    path = fieldmanager.replicas_path(spec_path)

    def managed(scope: RequestScope, obj: dict[str, Any], change: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
        """change on the current Scale, the resource's managedFields carried through the Scale's field
        manager (ScaleHandler with the CRD's specReplicasPath), then the Scale's replicas set."""
        return apply_scale(
            scope, obj, fieldmanager.through_scale(obj, scope.spec.group_version, to_scale(obj), change, path)
        )

    async def update_scale(scope: RequestScope) -> None:
        manager = apply_handler.field_manager_name(scope, "UpdateOptions")
        scale_obj = await decode_object(scope, "Scale", "autoscaling/v1")
        check_name(scope, scale_obj)
        uid = (scale_obj.get("metadata") or {}).get("uid")

        def update(obj: dict[str, Any]) -> dict[str, Any]:
            if uid:  # a precondition on the custom resource, as for the built-in scales
                Preconditions(uid=str(uid)).check(scope.store.key(scope.namespace, scope.info.name), obj)
            return managed(scope, obj, lambda current: fm.update(current, copy.deepcopy(scale_obj), manager))

        stored = await scope.store.patch(scope.namespace, scope.info.name, update, dry_run=scope.dry_run)
        await write_object(scope, 200, to_scale(stored.obj))

    async def patch_scale(scope: RequestScope) -> None:
        if apply_handler.is_apply(scope):
            manager, force, patch_obj = await apply_handler.apply_options(scope)

            def server_side_apply(obj: dict[str, Any]) -> dict[str, Any]:
                return managed(
                    scope, obj, lambda current: fm.apply(current, apply_handler.fresh_copy(patch_obj), manager, force)
                )

            stored = await scope.store.patch(scope.namespace, scope.info.name, server_side_apply, dry_run=scope.dry_run)
            await write_object(scope, 200, to_scale(stored.obj))
            return
        manager = apply_handler.field_manager_name(scope, "PatchOptions")
        patch = await patch_function(scope)

        def patched(current: dict[str, Any]) -> dict[str, Any]:
            out = patch(orjson.loads(orjson.dumps(current)))
            # the patched Scale is read as an autoscaling/v1 Scale: a spec that is not an object is a 400
            typed_decode(scope.req, out, "autoscaling", "v1", "Scale", directive=IGNORE, patched=True)
            return fm.update(current, out, manager)

        def apply(obj: dict[str, Any]) -> dict[str, Any]:
            return managed(scope, obj, patched)

        stored = await scope.store.patch(scope.namespace, scope.info.name, apply, dry_run=scope.dry_run)
        await write_object(scope, 200, to_scale(stored.obj))

    return {("scale", "get"): get_scale, ("scale", "update"): update_scale, ("scale", "patch"): patch_scale}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
