"""PATCH (handlers/patch.go): JSON patch, merge patch, strategic merge patch.

Strategic merge patch here merges lists of objects by their "name" key and replaces other lists,
which covers labels, annotations and container lists; the schema-driven version (patchMergeKey per
field, $patch directives) and server-side apply belong to the patch issue.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import jsonpatch

from kube_apiserver.endpoints import negotiation
from kube_apiserver.endpoints.handlers.fieldvalidation import field_validation, typed_decode
from kube_apiserver.endpoints.handlers.scope import RequestScope, write_object
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.serializer import decode_json


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if not isinstance(target, dict):
        target = {}
    for k, v in patch.items():
        if v is None:
            target.pop(k, None)
        else:
            target[k] = merge_patch(target.get(k), v)
    return target


def _strategic_merge(target: Any, patch: Any) -> Any:
    if isinstance(patch, dict):
        if patch.get("$patch") == "replace":
            return {k: v for k, v in patch.items() if k != "$patch"}
        if patch.get("$patch") == "delete":
            return None
        if not isinstance(target, dict):
            target = {}
        for k, v in patch.items():
            if k.startswith("$"):
                continue
            if v is None:
                target.pop(k, None)
            else:
                merged = _strategic_merge(target.get(k), v)
                if merged is None:
                    target.pop(k, None)
                else:
                    target[k] = merged
        return target
    if isinstance(patch, list) and isinstance(target, list) and _keyed_by_name(patch) and _keyed_by_name(target):
        out = [copy.deepcopy(t) for t in target]
        index = {t["name"]: i for i, t in enumerate(out)}
        for item in patch:
            i = index.get(item["name"])
            if item.get("$patch") == "delete":
                if i is not None:
                    out[i] = None
                continue
            if i is None:
                out.append({k: v for k, v in item.items() if not k.startswith("$")})
            else:
                out[i] = _strategic_merge(out[i], item)
        return [o for o in out if o is not None]
    return copy.deepcopy(patch)


def _keyed_by_name(items: list[Any]) -> bool:
    return bool(items) and all(isinstance(i, dict) and isinstance(i.get("name"), str) for i in items)


PatchFunc = Callable[[dict[str, Any]], dict[str, Any]]


async def patch_function(scope: RequestScope) -> PatchFunc:
    """Decode the patch body by its Content-Type into a function that patches an object."""
    media = negotiation.request_media_type(scope.req.header("content-type"), negotiation.PATCH_TYPES)
    if media == "application/apply-patch+yaml":
        raise errors.new_unsupported_media_type(media)
    body = await scope.req.body()
    patch = decode_json(body)
    if media == "application/json-patch+json":
        if not isinstance(patch, list):
            raise errors.new_bad_request("json: cannot unmarshal object into Go value of type jsonpatch.Patch")
        try:
            ops = jsonpatch.JsonPatch(patch)
        except (jsonpatch.InvalidJsonPatch, TypeError, KeyError) as e:
            raise errors.new_bad_request(
                f"the server rejected our request due to an error in our request: {e}"
            ) from None

        def apply_json_patch(obj: dict[str, Any]) -> dict[str, Any]:
            try:
                return ops.apply(obj, in_place=True)
            except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, TypeError, KeyError, IndexError) as e:
                raise errors.StatusError(422, "Invalid", str(e), details=False) from None

        return apply_json_patch
    if not isinstance(patch, dict):
        raise errors.new_bad_request("the patch must be a JSON object")
    merge = merge_patch if media == "application/merge-patch+json" else _strategic_merge

    def apply_merge(obj: dict[str, Any]) -> dict[str, Any]:
        return merge(obj, patch)

    return apply_merge


def typed_patch(scope: RequestScope, patch: PatchFunc) -> PatchFunc:
    """The patch followed by typed decoding of its result, as kube decodes a patched object: unknown
    fields of the result and repeated keys of a merge patch answer to fieldValidation."""
    directive = field_validation(scope.req)
    media = negotiation.request_media_type(scope.req.header("content-type"), negotiation.PATCH_TYPES)
    body = scope.req._body or b"" if media != "application/json-patch+json" else b""
    spec = scope.spec

    def apply_typed(obj: dict[str, Any]) -> dict[str, Any]:
        out = patch(obj)
        if isinstance(out, dict):
            typed_decode(scope.req, out, spec.group, spec.version, spec.kind, body, media, directive)
        return out

    return apply_typed


async def patch_resource(scope: RequestScope, subresource: str = "") -> None:
    dry_run = scope.dry_run
    apply = typed_patch(scope, await patch_function(scope))
    stored = await scope.store.patch(scope.namespace, scope.info.name, apply, dry_run=dry_run, subresource=subresource)
    await write_object(scope, 200, stored.obj, stored.raw)
