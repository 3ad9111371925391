"""The empty object of a kind as the field manager sees it (scope.Creater.New(kind) read through
structured-merge-diff's reflection): the Go zero value, where a non-pointer struct is always
present ({} and its own zero fields), a field without omitempty is present with its zero value
(null for a nil slice, map or pointer), metav1.Time is null, and omitempty fields are left out.

It is the live object of a create and of an apply that creates: fields the new object has and the
empty one lacks are "added" (their parents too), so `spec.template` stays a plain container while
`metadata.labels` or a Service's `spec.ports` become members of the creator's set, and a Pod's
`containers` (no omitempty) does not.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from kube_apiserver.runtime.protobuf import schema as pb

# A non-pointer field of these types always serializes (their own marshalling), as this value.
_SPECIAL_ZERO: dict[int, Any] = {
    pb.T_TIME: None,
    pb.T_MICROTIME: None,
    pb.T_QUANTITY: "0",
    pb.T_INTORSTRING: 0,
    pb.T_DURATION: "0s",
    pb.T_RAWEXTENSION: None,
    pb.T_FIELDSV1: None,
}
_SCALAR_ZERO = {pb.T_STRING: "", pb.T_BOOL: False}
_MISSING = object()


def _zero_field(field: Any, depth: int) -> Any:
    if field.repeated or field.is_map or field.pointer:
        return _MISSING if field.omitempty else None
    code = field.type.code
    if code == pb.T_MESSAGE:
        try:
            msg = field.type.message
        except pb.UnknownMessageError:
            return {}
        if msg.item is not None:  # a named slice type
            return _MISSING if field.omitempty else None
        return _zero_struct(msg, depth + 1)
    if code in _SPECIAL_ZERO:
        return _SPECIAL_ZERO[code]
    if field.omitempty:
        return _MISSING
    if code == pb.T_BYTES:
        return None
    return _SCALAR_ZERO.get(code, 0)


def _zero_struct(msg: Any, depth: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if depth > 32:  # recursive types are always behind pointers or slices; a guard all the same
        return out
    for field in msg.fields:
        if field.inline and field.type.message_name:
            try:
                out.update(_zero_struct(field.type.message, depth + 1))
            except pb.UnknownMessageError:
                pass
            continue
        value = _zero_field(field, depth)
        if value is not _MISSING:
            out[field.json] = value
    return out


@cache
def _zero_for(api_version: str, kind: str, top_fields: tuple[str, ...]) -> dict[str, Any]:
    try:
        msg = pb.message_for_kind(api_version, kind)
    except pb.UnknownMessageError:
        msg = None
    if msg is not None:
        out = _zero_struct(msg)
        out.pop("apiVersion", None)
        out.pop("kind", None)
        return out
    # Kinds without protobuf tables (CRDs, APIServices): ObjectMeta and value spec/status structs.
    out = {"metadata": {"creationTimestamp": None}}
    for name in ("spec", "status"):
        if name in top_fields:
            out[name] = {}
    return out


def zero_object(api_version: str, kind: str, top_fields: tuple[str, ...] = ()) -> dict[str, Any]:
    """A fresh copy of the kind's empty object (without apiVersion and kind, as New() has them)."""
    return copy.deepcopy(_zero_for(api_version, kind, top_fields))


def shared_zero_object(api_version: str, kind: str, top_fields: tuple[str, ...] = ()) -> dict[str, Any]:
    """The kind's empty object itself, not a copy: only for callers that read it and keep nothing
    of it (the live side of a create's managed fields update), which saves a deep copy per create."""
    return _zero_for(api_version, kind, top_fields)
