"""PATCH (handlers/patch.go): JSON patch, JSON merge patch and strategic merge patch, applied to
the stored object (again on every conflict), with kube-apiserver's answers to bad patches.

The patch formats live in runtime/strategicpatch; this module decodes the body as kube-apiserver
does (fieldValidation Warn and Strict decode strictly first, with their own error texts), maps the
patch errors to kube-apiserver's Status errors and hands the patch function to the Store. Server-side
apply (application/apply-patch+yaml) is dispatched from patch_resource to its own module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from kube_apiserver.endpoints import negotiation
from kube_apiserver.endpoints.handlers import apply as apply_handler
from kube_apiserver.endpoints.handlers.fieldvalidation import IGNORE, STRICT, field_validation, typed_decode
from kube_apiserver.endpoints.handlers.scope import RequestScope, dedup_owner_references, negotiate_output, write_object
from kube_apiserver.registry import fieldmanager
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.serializer import max_depth_message, nesting_exceeds
from kube_apiserver.runtime.strategicpatch import PatchError, gojson, has_schema, strategic_merge_patch
from kube_apiserver.runtime.strategicpatch.jsonpatch import (
    MAX_JSON_PATCH_OPERATIONS,
    JSONPatchError,
    MergePatchError,
    PatchDecodeError,
    apply_json_patch,
    apply_merge_patch,
    decode_json_patch,
)

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"

# The patch types a route accepts, in kube-apiserver's order: built-in kinds also take strategic
# merge patch, custom resources (no Go struct, so no patch tags) do not.
BUILTIN_PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH)
CUSTOM_PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, APPLY_PATCH)

PatchFunc = Callable[[dict[str, Any]], dict[str, Any]]


class GenericServerResponse(errors.StatusError):
    """errors.NewGenericServerResponse: a fixed message per code and an empty details object."""

    def status(self) -> dict[str, Any]:
        body = super().status()
        code = body.pop("code")
        body["details"] = {}
        body["code"] = code
        return body


def new_patch_rejected() -> errors.StatusError:
    """The 422 a patch that cannot be applied gets (a failed JSON patch test, a missing path, ...):
    kube-apiserver drops the reason and answers with the generic text."""
    return GenericServerResponse(422, "Invalid", "the server rejected our request due to an error in our request")


def new_unsupported_patch_type(accepted: tuple[str, ...]) -> errors.StatusError:
    return errors.StatusError(
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: " + ", ".join(accepted),
        details=False,
    )


def patch_error_status(e: PatchError) -> errors.StatusError:
    """interpretStrategicMergePatchError: the generic 422, or 400 with the text (upstream passes the
    errors it does not know through as 500s; they are all the patch's fault)."""
    if e.code == 422:
        return new_patch_rejected()
    return errors.new_bad_request(e.message)


def patch_kind(scope: RequestScope) -> tuple[str, str, str]:
    """The group, version and kind a patch of this request is written against."""
    if scope.info.subresource == "scale":
        return "autoscaling", "v1", "Scale"
    return scope.spec.group, scope.spec.version, scope.spec.kind


def patch_media_type(scope: RequestScope) -> str:
    """The patch type of the request (Content-Type without parameters), or 415 listing the accepted ones."""
    media = scope.req.header("content-type").split(";", 1)[0].strip()
    accepted = BUILTIN_PATCH_TYPES if has_schema(*patch_kind(scope)) else CUSTOM_PATCH_TYPES
    if media not in accepted:
        raise new_unsupported_patch_type(accepted)
    return media


def _check_patch_options(scope: RequestScope) -> str:
    """ValidatePatchOptions for the non-apply patch types; returns the fieldValidation directive."""
    directive = field_validation(scope.req)
    if "force" in scope.req.query:
        cause = errors.field_forbidden("force", "may not be specified for non-apply patch")
        raise errors.new_invalid("meta.k8s.io", "PatchOptions", "", [cause])
    return directive


def _not_an_object(result: Any) -> errors.StatusError:
    """A patch result that is not a JSON object cannot be decoded into the kind."""
    text = orjson.dumps(result).decode()
    detail = "couldn't get version/kind; json parse error: " + gojson.type_error(
        result,
        'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
    )
    return errors.new_invalid("", "", "", [errors.field_invalid("patch", text, detail)])


def _json_patch_function(scope: RequestScope, body: bytes, directive: str) -> PatchFunc:
    try:
        ops, problems = decode_json_patch(body, strict=directive != IGNORE)
    except PatchDecodeError as e:
        raise errors.new_bad_request(str(e)) from None
    if len(ops) > MAX_JSON_PATCH_OPERATIONS:
        raise errors.StatusError(
            413,
            "RequestEntityTooLarge",
            "Request entity too large: The allowed maximum operations in a JSON patch is "
            f"{MAX_JSON_PATCH_OPERATIONS}, got {len(ops)}",
            details=False,
        )

    def apply_json(obj: dict[str, Any]) -> dict[str, Any]:
        # decoded again for every attempt: operations put their values into the document
        fresh = orjson.loads(body) if ops else []
        try:
            result = apply_json_patch(obj, fresh or [])
        except JSONPatchError:
            raise new_patch_rejected() from None
        if not isinstance(result, dict):
            raise _not_an_object(result)
        if nesting_exceeds(result):  # operations can add depth to depth, one patch after another
            raise errors.new_bad_request(f"the patched object {max_depth_message()}")
        if problems:
            if directive == STRICT:
                text = orjson.dumps(result, option=orjson.OPT_SORT_KEYS).decode()
                detail = "strict decoding error: " + ", ".join(problems)
                raise errors.new_invalid("", "", "", [errors.field_invalid("patch", text, detail)])
            for problem in problems:
                scope.req.add_warning(problem)
        return result

    return apply_json


def _merge_patch_function(body: bytes, directive: str) -> PatchFunc:
    strict = directive != IGNORE
    try:
        patch = gojson.loads(body)
    except gojson.GoJSONError as e:
        raise errors.new_bad_request(f"error decoding patch: {e}" if strict else "Invalid JSON Patch") from None
    if strict and patch is not None and not isinstance(patch, dict):
        raise errors.new_bad_request("error decoding patch: " + gojson.type_error(patch, "map[string]interface {}"))
    if patch is None or not isinstance(patch, dict | list):
        raise errors.new_bad_request("Invalid JSON Patch")

    def apply_merge(obj: dict[str, Any]) -> dict[str, Any]:
        try:
            result = apply_merge_patch(obj, orjson.loads(body))
        except MergePatchError as e:
            raise errors.new_bad_request(str(e)) from None
        if not isinstance(result, dict):
            raise _not_an_object(result)
        return result

    return apply_merge


def _strategic_patch_function(body: bytes, kind: tuple[str, str, str]) -> PatchFunc:
    try:
        patch = gojson.loads(body)
    except gojson.GoJSONError as e:
        raise errors.new_bad_request(str(e)) from None
    if patch is None:  # decodes to a nil map: nothing to merge
        return lambda obj: obj
    if not isinstance(patch, dict):
        raise errors.new_bad_request(gojson.type_error(patch, "map[string]interface {}"))

    def apply_strategic(obj: dict[str, Any]) -> dict[str, Any]:
        try:
            return strategic_merge_patch(obj, orjson.loads(body), *kind)
        except PatchError as e:
            raise patch_error_status(e) from None

    return apply_strategic


async def patch_function(scope: RequestScope) -> PatchFunc:
    """Decode the patch body by its Content-Type into a function that patches an object (JSON
    patch, merge patch or strategic merge patch; apply patches go to server-side apply)."""
    media = patch_media_type(scope)
    if media == APPLY_PATCH:
        raise new_unsupported_patch_type(BUILTIN_PATCH_TYPES[:3])
    body = await scope.req.body()
    directive = _check_patch_options(scope)
    if media == JSON_PATCH:
        return _json_patch_function(scope, body, directive)
    if media == MERGE_PATCH:
        return _merge_patch_function(body, directive)
    return _strategic_patch_function(body, patch_kind(scope))


async def typed_patch(scope: RequestScope, patch: PatchFunc) -> PatchFunc:
    """The patch followed by typed decoding of its result, as kube decodes a patched object: unknown
    fields of the result and repeated keys of a merge patch answer to fieldValidation."""
    directive = field_validation(scope.req)
    media = negotiation.request_media_type(scope.req.header("content-type"), negotiation.PATCH_TYPES)
    # the patch body (read already, so no second read) is where a merge patch's repeated keys are
    body = await scope.req.body() if media != "application/json-patch+json" else b""
    spec = scope.spec

    def apply_typed(obj: dict[str, Any]) -> dict[str, Any]:
        out = patch(obj)
        if isinstance(out, dict):
            typed_decode(scope.req, out, spec.group, spec.version, spec.kind, body, media, directive, patched=True)
            dedup_owner_references(out, after_mutating_admission=True)
        return out

    return apply_typed


async def patch_resource(scope: RequestScope, subresource: str = "") -> None:
    negotiate_output(scope)
    media = patch_media_type(scope)
    if media == APPLY_PATCH:
        # Server-side apply: dispatched here to its own module (it may create the object).
        await apply_handler.apply_patch_resource(scope, subresource)
        return
    manager = apply_handler.field_manager_name(scope, "PatchOptions")
    dry_run = scope.dry_run
    apply = await typed_patch(scope, await patch_function(scope))
    with fieldmanager.managing(fieldmanager.hook_for(scope.store, scope.spec, subresource, manager)):
        stored = await scope.store.patch(
            scope.namespace, scope.info.name, apply, dry_run=dry_run, subresource=subresource
        )
    await write_object(scope, 200, stored.obj, stored.raw)
