"""What every verb handler shares: the request scope, body decoding and writing an object back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from kube_apiserver.endpoints import negotiation
from kube_apiserver.endpoints.handlers.fieldvalidation import typed_decode
from kube_apiserver.endpoints.request import Request, send_bytes
from kube_apiserver.endpoints.request_info import RequestInfo
from kube_apiserver.endpoints.table import partial_object_metadata, to_table
from kube_apiserver.registry.resource_spec import ResourceSpec
from kube_apiserver.registry.store import Store
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.labels import go_quote
from kube_apiserver.runtime.serializer import decode_body, encode_yaml, ensure_object


@dataclass
class RequestScope:
    """One request to one resource (handlers.RequestScope)."""

    req: Request
    info: RequestInfo
    spec: ResourceSpec
    store: Store

    @property
    def namespace(self) -> str:
        return self.info.namespace if self.spec.namespaced else ""

    @property
    def dry_run(self) -> bool:
        values = self.req.params("dryRun")
        validate_dry_run(values, _OPTIONS_KIND.get(self.info.verb, "CreateOptions"))
        return bool(values)


# The options kind each verb's handler decodes its query into (its validation errors name it).
_OPTIONS_KIND = {
    "create": "CreateOptions",
    "update": "UpdateOptions",
    "patch": "PatchOptions",
    "delete": "DeleteOptions",
    "deletecollection": "DeleteOptions",
}


def validate_dry_run(values: list[str], options_kind: str) -> None:
    """ValidateDryRun: only "All"; otherwise 422 on the options, the values shown as Go's []string."""
    if any(v != "All" for v in values):
        bad = errors.GoRepr("[]string{" + ", ".join(go_quote(v) for v in values) + "}")
        cause = errors.field_not_supported("dryRun", bad, ["All"])
        raise errors.new_invalid("meta.k8s.io", options_kind, "", [cause])


async def decode_object(scope: RequestScope, kind: str = "", group_version: str = "") -> dict[str, Any]:
    """The request body as an object of the resource's kind (or of kind/group_version for subresources)."""
    media = negotiation.request_media_type(scope.req.header("content-type"))
    body = await scope.req.body()
    if not body.strip():
        raise errors.new_bad_request("the body of the request was empty")
    obj = ensure_object(decode_body(body, media))
    kind = kind or scope.spec.kind
    group_version = group_version or scope.spec.group_version
    body_gv = obj.get("apiVersion")
    body_kind = obj.get("kind")
    if body_kind is not None and not isinstance(body_kind, str) or body_gv is not None and not isinstance(body_gv, str):
        raise errors.new_bad_request("apiVersion and kind must be strings")
    if body_gv and body_gv != group_version:
        raise errors.new_bad_request(
            f"the API version in the data ({body_gv}) does not match the expected API version ({group_version})"
        )
    if body_kind and body_kind != kind:
        raise errors.new_bad_request(f"the kind in the data ({body_kind}) does not match the expected kind ({kind})")
    if "metadata" in obj and not isinstance(obj["metadata"], dict):
        raise errors.new_bad_request("metadata must be an object")
    group, _, version = group_version.rpartition("/")
    typed_decode(scope.req, obj, group, version, kind, body, media)
    obj["apiVersion"] = group_version
    obj["kind"] = kind
    return obj


async def write_object(scope: RequestScope, status: int, obj: dict[str, Any], raw: bytes | None = None) -> None:
    """Write one object in the negotiated form; raw, when given, is obj already encoded as JSON."""
    out = negotiation.negotiate(scope.req.header("accept"), table=True, pom=True)
    send = scope.req.send
    if out.form == "json":
        await send_bytes(send, status, raw if raw is not None else orjson.dumps(obj))
    elif out.form == "yaml":
        await send_bytes(send, status, encode_yaml(obj), negotiation.YAML)
    elif out.form == "table":
        meta = {"resourceVersion": (obj.get("metadata") or {}).get("resourceVersion", "")}
        table = to_table(scope.spec, [obj], list_meta=meta, include=_include(scope), version=out.version)
        await send_bytes(send, status, orjson.dumps(table))
    else:
        await send_bytes(send, status, orjson.dumps(partial_object_metadata(obj, out.version)))


def _include(scope: RequestScope) -> str:
    value = scope.req.param("includeObject") or "Metadata"
    if value not in ("None", "Metadata", "Object"):
        raise errors.new_bad_request(f'includeObject: unsupported value "{value}"')
    return value


def include_object(scope: RequestScope) -> str:
    return _include(scope)


def status_success(spec: ResourceSpec, name: str, uid: str) -> dict[str, Any]:
    details: dict[str, Any] = {"name": name}
    if spec.group:
        details["group"] = spec.group
    details["kind"] = spec.resource
    if uid:
        details["uid"] = uid
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details}
