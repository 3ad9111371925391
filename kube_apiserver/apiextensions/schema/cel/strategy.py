"""How the custom resource strategy runs the rules (customResourceStrategy.Validate/ValidateUpdate):
after the schema errors, unless one of them blocks them (a wrong type, a missing required field, an enum,
size or length violation: the rules would read an object of another shape); on update with the stored
object as oldSelf.

The registry calls strategy.validate(new) on create and update alike, after prepare_for_update; the
strategy hands the old object over through remember_old so that the rules run once, with it."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from kube_apiserver.apiextensions.schema.cel.validation import Validator, validate
from kube_apiserver.runtime.errors import StatusCause, field_invalid

_OLD: ContextVar[tuple[int, dict[str, Any]] | None] = ContextVar("crd_cel_old", default=None)

BLOCKED = (
    "some validation rules were not checked because the object was invalid; correct the existing errors to "
    "complete validation"
)


# hasBlockingErr: a schema error of these types means the object has not the shape the rules were written for
# (a wrong type, a missing required field, a value outside its enum, too long or too many)
_BLOCKING = frozenset(
    {
        "FieldValueNotSupported",
        "FieldValueRequired",
        "FieldValueTooLong",
        "FieldValueTooMany",
        "FieldValueTypeInvalid",
    }
)


def remember_old(new: dict[str, Any], old: dict[str, Any]) -> None:
    _OLD.set((id(new), old))


def rule_errors(
    validator: Validator | None, obj: dict[str, Any], schema_causes: list[StatusCause]
) -> list[StatusCause]:
    pending = _OLD.get()
    old = None
    if pending is not None and pending[0] == id(obj):
        old = pending[1]
        _OLD.set(None)
    if validator is None:
        return []
    if any(c.reason in _BLOCKING for c in schema_causes):
        return [field_invalid("<nil>", "null", BLOCKED)]
    return validate(validator, obj, old)
