"""What every verb handler shares: the request scope, body decoding and writing an object back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from kube_apiserver.endpoints import negotiation
from kube_apiserver.endpoints.handlers.fieldvalidation import typed_decode
from kube_apiserver.endpoints.request import Request, send_bytes
from kube_apiserver.endpoints.request_info import RequestInfo
from kube_apiserver.endpoints.table import include_object_option, partial_object_metadata, to_table
from kube_apiserver.registry import warning
from kube_apiserver.registry.resource_spec import ResourceSpec
from kube_apiserver.registry.store import Store
from kube_apiserver.runtime import errors
from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.labels import go_quote
from kube_apiserver.runtime.serializer import YAMLToJSONError, encode_yaml, yaml_to_json
from kube_apiserver.runtime.strategicpatch import gojson
from kube_apiserver.storage.interface import StoredObject


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


# The anonymous struct runtime's SimpleMetaFactory.Interpret reads a body's TypeMeta into, as Go prints its type.
_TYPE_META_STRUCT = (
    'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
)


def summarize_data(data: bytes, max_length: int = 30) -> str:
    """How a refused body is shown in the error (summarizeData): its start as text when it looks like JSON,
    else in hex."""
    if not data:
        return "<empty>"
    more = " ..." if len(data) > max_length else ""
    if data[:1] == b"{":
        return data[:max_length].decode("utf-8", "replace") + more
    return data[:max_length].hex() + more


def transform_decode_error(kind: str, body: bytes, detail: str) -> Exception:
    """The 400 for a body that did not decode far enough to say its kind (transformDecodeError), with a summary
    of the body. (A body whose kind is known but whose fields do not fit is typed_decode's "<kind> in version
    ... cannot be handled as a <kind>".)"""
    return errors.new_bad_request(
        f"the object provided is unrecognized (must be of type {kind}): {detail} ({summarize_data(body)})"
    )


def decode_typed_body(body: bytes, media: str, kind: str) -> dict[str, Any]:
    """A create or update body as an object, refused as kube's decoder refuses it: the YAML converted to JSON
    first, then the TypeMeta read out of the JSON (Interpret), each failure in Go's words."""
    if media == negotiation.PROTOBUF:
        from kube_apiserver.runtime.protobuf import ProtobufDecodeError, decode_protobuf  # loaded on first use

        try:
            return decode_protobuf(body)
        except ProtobufDecodeError as e:
            raise transform_decode_error(kind, body, str(e)) from None
    if media == negotiation.YAML:
        try:
            value = yaml_to_json(body)
        except YAMLToJSONError as e:
            raise transform_decode_error(kind, body, f"error converting YAML to JSON: {e}") from None
    else:
        try:
            value = gojson.loads(body)
        except gojson.GoJSONError as e:
            raise transform_decode_error(kind, body, f"couldn't get version/kind; json parse error: {e}") from None
    if value is None:  # JSON null decodes into an empty object
        return {}
    if not isinstance(value, dict):
        detail = f"json: cannot unmarshal {gojson.json_kind(value)} into Go value of type {_TYPE_META_STRUCT}"
        raise transform_decode_error(kind, body, f"couldn't get version/kind; json parse error: {detail}")
    for field, v in value.items():  # the first in document order, as Go reports it
        if field in ("apiVersion", "kind") and v is not None and not isinstance(v, str):
            detail = f"json: cannot unmarshal {gojson.json_kind(v)} into Go struct field .{field} of type string"
            raise transform_decode_error(kind, body, f"couldn't get version/kind; json parse error: {detail}")
    return value


_DUPLICATE_OWNER_REFERENCES = (
    ".metadata.ownerReferences contains duplicate entries{}; API server dedups owner references in 1.20+, and may "
    "reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: {}"
)


def dedup_owner_references(obj: dict[str, Any], after_mutating_admission: bool = False) -> None:
    """dedupOwnerReferencesAndAddWarning: an ownerReference equal to an earlier one (same uid, same fields)
    is dropped, with a warning naming the uids. Create and update dedup the body as decoded; a patch, its
    result (upstream: after mutating admission, whose variant of the warning it gets)."""
    meta = obj.get("metadata")
    refs = meta.get("ownerReferences") if isinstance(meta, dict) else None
    if not isinstance(refs, list) or len(refs) < 2:
        return
    kept: list[Any] = []
    seen: set[str] = set()
    duplicates: list[str] = []
    for ref in refs:
        uid = str(ref.get("uid", "")) if isinstance(ref, dict) else None
        if uid is None or uid not in seen or ref not in kept:  # what is not a reference is validation's
            if uid is not None:
                seen.add(uid)
            kept.append(ref)
        else:
            duplicates.append(uid)
    if duplicates:
        where = " after mutating admission happens" if after_mutating_admission else ""
        warning.add_warning(_DUPLICATE_OWNER_REFERENCES.format(where, ", ".join(duplicates)))
        meta["ownerReferences"] = kept


async def decode_object(scope: RequestScope, kind: str = "", group_version: str = "") -> dict[str, Any]:
    """The request body as an object of the resource's kind (or of kind/group_version for subresources)."""
    media = negotiation.request_media_type(scope.req.header("content-type"))
    body = await scope.req.body()
    kind = kind or scope.spec.kind
    group_version = group_version or scope.spec.group_version
    obj = decode_typed_body(body, media, kind)
    body_gv = obj.get("apiVersion")
    body_kind = obj.get("kind")
    if not body_kind and scope.spec.custom and kind == scope.spec.kind:
        # a custom resource is decoded as unstructured, which takes its kind from the body alone
        missing = f"Object 'Kind' is missing in '{body.decode('utf-8', 'replace')}'"
        raise transform_decode_error(kind, body, missing)
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


def table_form(scope: RequestScope, item: StoredObject) -> dict[str, Any]:
    """What a Table row is printed from: the object as stored (VersionedStorage.stored_form), else as served."""
    stored_form = getattr(scope.store.storage, "stored_form", None)
    return stored_form(item) if stored_form is not None else item.obj


def internal_type(spec: ResourceSpec, is_list: bool) -> str:
    """%T of the object kube-apiserver's handlers hold: its internal Go type (events.k8s.io events are core
    events; custom resources are unstructured)."""
    if spec.custom:
        return "*unstructured.UnstructuredList" if is_list else "*unstructured.Unstructured"
    package = "core" if spec.group in ("", "events.k8s.io") else spec.group.split(".")[0]
    return f"*{package}.{spec.kind}{'List' if is_list else ''}"


def pom_mismatch(spec: ResourceSpec, asked: str, is_list: bool) -> errors.StatusError:
    """asPartialObjectMetadata / asPartialObjectMetadataList: the form asked for one object, or for a list,
    does not fit what the request answers (a 406, NewGenericServerResponse's: empty details)."""
    what = "a list" if is_list else "not a list"
    message = f"you requested {asked}, but the requested object is {what} ({internal_type(spec, is_list)})"
    return errors.StatusError(406, "NotAcceptable", message)


def negotiate_output(scope: RequestScope) -> None:
    """NegotiateOutputMediaType, as the write handlers call it before they read the body: an Accept the
    answer cannot be written in is a 406 before anything is stored, not after."""
    negotiation.negotiate(scope.req.header("accept"), table=True, pom=True)


def check_name(scope: RequestScope, obj: dict[str, Any]) -> None:
    """checkName of a PUT's body against the request's URL."""
    metautil.check_name(obj, scope.info.name, scope.namespace)


async def write_object(
    scope: RequestScope,
    status: int,
    obj: dict[str, Any],
    raw: bytes | None = None,
    stored: StoredObject | None = None,
) -> None:
    """Write one object in the negotiated form; raw, when given, is obj already encoded as JSON; stored, when
    given, the StoredObject obj is (a Table is printed from its stored form)."""
    out = negotiation.negotiate(scope.req.header("accept"), table=True, pom=True)
    if out.as_kind == "PartialObjectMetadataList":
        raise pom_mismatch(scope.spec, out.as_kind, is_list=False)
    send = scope.req.send
    if out.form == "json":
        await send_bytes(send, status, raw if raw is not None else orjson.dumps(obj))
    elif out.form == "yaml":
        await send_bytes(send, status, encode_yaml(obj), negotiation.YAML)
    elif out.form == "table":
        meta = {"resourceVersion": (obj.get("metadata") or {}).get("resourceVersion", "")}
        printed = table_form(scope, stored) if stored is not None else obj
        include = _include(scope)
        table = to_table(scope.spec, [printed], list_meta=meta, include=include, version=out.version, served=[obj])
        await send_bytes(send, status, negotiation.encode_transformed(out, table), out.content_type)
    else:
        pom = partial_object_metadata(obj, out.version)
        await send_bytes(send, status, negotiation.encode_transformed(out, pom), out.content_type)


async def write_status(scope: RequestScope, code: int, status: dict[str, Any]) -> None:
    """A metav1.Status result (not an error): never a Table, but written in the media type negotiated for one
    (YAML for a YAML Table), else JSON."""
    out = negotiation.negotiate(scope.req.header("accept"), table=True, pom=True)
    if out.content_type == negotiation.YAML:
        await send_bytes(scope.req.send, code, encode_yaml(status), negotiation.YAML)
    else:
        await send_bytes(scope.req.send, code, orjson.dumps(status))


def _include(scope: RequestScope) -> str:
    return include_object_option(scope.req.param("includeObject"))


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
