"""Status errors as k8s.io/apimachinery/pkg/api/errors builds them.

Every error a client sees is a v1 Status; the constructors here carry kube-apiserver's message
texts, reasons and details so clients that compare them (kubectl, client-go's IsNotFound, ...)
behave as against the real server. Key order of the Status body follows the Go struct:
kind, apiVersion, metadata, status, message, reason, details, code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from kube_apiserver.runtime.labels import go_quote


@dataclass
class StatusCause:
    reason: str  # FieldValueInvalid, FieldValueRequired, ...
    message: str
    field: str = ""

    def to_dict(self) -> dict[str, str]:
        out = {"reason": self.reason, "message": self.message}
        if self.field:
            out["field"] = self.field
        return out


@dataclass
class StatusError(Exception):
    code: int
    reason: str
    message: str
    name: str = ""
    group: str = ""
    kind: str = ""
    uid: str = ""
    causes: list[StatusCause] = field(default_factory=list)
    retry_after_seconds: int = 0
    details: bool = True  # False: omit "details" entirely (as kube does for some reasons)
    list_continue: str = ""  # the Status's ListMeta.continue (a 410 for an expired continue token)

    def __str__(self) -> str:
        return self.message

    def status(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {"continue": self.list_continue} if self.list_continue else {},
            "status": "Failure",
            "message": self.message,
        }
        if self.reason:
            body["reason"] = self.reason
        if self.details:
            details: dict[str, Any] = {}
            if self.name:
                details["name"] = self.name
            if self.group:
                details["group"] = self.group
            if self.kind:
                details["kind"] = self.kind
            if self.uid:
                details["uid"] = self.uid
            if self.causes:
                details["causes"] = [c.to_dict() for c in self.causes]
            if self.retry_after_seconds:
                details["retryAfterSeconds"] = self.retry_after_seconds
            # NewNotFound, NewForbidden and the 405 always have details, even empty ones
            if details or self.reason in ("NotFound", "MethodNotAllowed", "Forbidden"):
                body["details"] = details
        body["code"] = self.code
        return body

    def body(self) -> bytes:
        return orjson.dumps(self.status())


def qualified(resource: str, group: str) -> str:
    """schema.GroupResource.String(): "deployments.apps", or "configmaps" for the core group."""
    return f"{resource}.{group}" if group else resource


def new_not_found(group: str, resource: str, name: str) -> StatusError:
    return StatusError(404, "NotFound", f'{qualified(resource, group)} "{name}" not found', name, group, resource)


def new_already_exists(group: str, resource: str, name: str) -> StatusError:
    return StatusError(
        409, "AlreadyExists", f'{qualified(resource, group)} "{name}" already exists', name, group, resource
    )


def new_generate_name_conflict(group: str, resource: str, name: str) -> StatusError:
    """NewGenerateNameConflict: a generated name was taken; the client may retry after a second."""
    return StatusError(
        409,
        "AlreadyExists",
        f'{qualified(resource, group)} "{name}" already exists, the server was not able to generate a unique name '
        "for the object",
        name,
        group,
        resource,
        retry_after_seconds=1,
    )


def new_conflict(group: str, resource: str, name: str, err: str) -> StatusError:
    return StatusError(
        409,
        "Conflict",
        f'Operation cannot be fulfilled on {qualified(resource, group)} "{name}": {err}',
        name,
        group,
        resource,
    )


OPTIMISTIC_LOCK_ERROR = "the object has been modified; please apply your changes to the latest version and try again"


def new_invalid(group: str, kind: str, name: str, causes: list[StatusCause]) -> StatusError:
    """errors.NewInvalid: '<Kind>[.<group>] "<name>" is invalid: <field errors joined>'."""
    # ErrorList.ToAggregate: identical messages are shown once (the causes keep every error).
    texts = list(dict.fromkeys(_cause_text(c) for c in causes))
    summary = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    qualified_kind = f"{kind}.{group}" if group else kind  # GroupKind.String()
    return StatusError(
        422, "Invalid", f'{qualified_kind} "{name}" is invalid: {summary}', name, group, kind, causes=causes
    )


def _cause_text(cause: StatusCause) -> str:
    return f"{cause.field}: {cause.message}" if cause.field else cause.message


def new_bad_request(message: str) -> StatusError:
    return StatusError(400, "BadRequest", message, details=False)


def new_method_not_supported(group: str, resource: str, action: str) -> StatusError:
    return StatusError(
        405,
        "MethodNotAllowed",
        f'{action} is not supported on resources of kind "{qualified(resource, group)}"',
        group=group,
        kind=resource,
    )


def new_method_not_allowed() -> StatusError:
    """A method no route of the path takes (NewGenericServerResponse for 405: empty details)."""
    return StatusError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")


def new_not_found_path() -> StatusError:
    return StatusError(404, "NotFound", "the server could not find the requested resource")


def new_gone(message: str) -> StatusError:
    return StatusError(410, "Gone", message, details=False)


def new_resource_expired(message: str) -> StatusError:
    return StatusError(410, "Expired", message, details=False)


def new_too_many_requests(message: str, retry_after: int) -> StatusError:
    return StatusError(429, "TooManyRequests", message, retry_after_seconds=retry_after)


def new_request_entity_too_large(limit: int) -> StatusError:
    return StatusError(413, "RequestEntityTooLarge", f"Request entity too large: limit is {limit}", details=False)


def new_timeout(message: str) -> StatusError:
    """NewTimeoutError, which prefixes its message with "Timeout: "."""
    return StatusError(504, "Timeout", f"Timeout: {message}", details=False)


def new_internal_error(err: str) -> StatusError:
    return StatusError(500, "InternalError", f"Internal error occurred: {err}", causes=[StatusCause("", err)])


def new_unauthorized(message: str = "Unauthorized") -> StatusError:
    return StatusError(401, "Unauthorized", message, details=False)


def new_forbidden(group: str, resource: str, name: str, err: str) -> StatusError:
    return StatusError(
        403, "Forbidden", f'{qualified(resource, group)} "{name}" is forbidden: {err}', name, group, resource
    )


def new_service_unavailable(message: str) -> StatusError:
    return StatusError(503, "ServiceUnavailable", message, details=False)


MEDIA_TYPES = "application/json, application/yaml, application/vnd.kubernetes.protobuf"


# What a watch can be streamed as (MediaTypesForSerializer's stream types: YAML has no stream serializer).
STREAM_MEDIA_TYPES = "application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"


def new_not_acceptable(stream: bool = False) -> StatusError:
    supported = STREAM_MEDIA_TYPES if stream else MEDIA_TYPES
    return StatusError(406, "NotAcceptable", f"only the following media types are accepted: {supported}", details=False)


def new_unsupported_media_type(content_type: str) -> StatusError:
    return StatusError(
        415,
        "UnsupportedMediaType",
        f"the body of the request was in an unknown format - accepted media types include: {MEDIA_TYPES}",
        details=False,
    )


# Field error helpers (k8s.io/apimachinery/pkg/util/validation/field), used to build Invalid causes.


class GoRepr(str):
    """A bad value already spelled as Go's %#v would print it (a struct, a typed slice): shown verbatim."""


def _quote(value: Any) -> str:
    if isinstance(value, GoRepr):
        return str(value)
    if isinstance(value, str):
        # Go's %q (strconv.Quote), not JSON: non-ASCII printable runes stay as they are.
        return go_quote(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def field_invalid(path: str, value: Any, detail: str) -> StatusCause:
    msg = f"Invalid value: {_quote(value)}"
    if detail:
        msg += f": {detail}"
    return StatusCause("FieldValueInvalid", msg, path)


def field_required(path: str, detail: str = "") -> StatusCause:
    return StatusCause("FieldValueRequired", "Required value" + (f": {detail}" if detail else ""), path)


def field_forbidden(path: str, detail: str) -> StatusCause:
    return StatusCause("FieldValueForbidden", f"Forbidden: {detail}", path)


def field_duplicate(path: str, value: Any) -> StatusCause:
    return StatusCause("FieldValueDuplicate", f"Duplicate value: {_quote(value)}", path)


def field_not_supported(path: str, value: Any, valid: list[str]) -> StatusCause:
    options = ", ".join(_quote(v) for v in valid)
    return StatusCause(
        "FieldValueNotSupported", f"Unsupported value: {_quote(value)}: supported values: {options}", path
    )


def field_too_long(path: str, value: Any, limit: int) -> StatusCause:
    return StatusCause("FieldValueTooLong", f"Too long: may not be more than {limit} bytes", path)


def field_not_found(path: str, value: Any, detail: str = "") -> StatusCause:
    msg = f"Not found: {_quote(value)}"
    if detail:
        msg += f": {detail}"
    return StatusCause("FieldValueNotFound", msg, path)


def field_too_many(path: str, actual: int, limit: int) -> StatusCause:
    return StatusCause("FieldValueTooMany", f"Too many: {actual}: must have at most {limit} items", path)


def field_internal(path: str, detail: str) -> StatusCause:
    return StatusCause("InternalError", f"Internal error: {detail}", path)
