"""Field errors (k8s.io/apimachinery/pkg/util/validation/field) with Go's rendering of values, and
the small generic validators of api/validation (ValidateNonnegativeField, ValidateImmutableField).

The errors are StatusCauses, as the rest of the server builds them; values go through gorepr so a
string prints as %q and a struct as %#v, exactly as field.Error.ErrorBody does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kube_apiserver.apis.validation_util.gorepr import GoValue, render
from kube_apiserver.runtime.errors import StatusCause, field_forbidden, field_required, field_too_long
from kube_apiserver.runtime.labels import go_quote

IS_NEGATIVE_ERROR_MSG = "must be greater than or equal to 0"
FIELD_IMMUTABLE_ERROR_MSG = "field is immutable"

required = field_required
forbidden = field_forbidden
too_long = field_too_long


def invalid(path: str, value: Any, detail: str) -> StatusCause:
    """field.Invalid: "Invalid value: <value>: <detail>"."""
    msg = f"Invalid value: {render(value)}"
    if detail:
        msg += f": {detail}"
    return StatusCause("FieldValueInvalid", msg, path)


def invalid_omit_value(path: str, detail: str) -> StatusCause:
    """field.Invalid with field.OmitValueType{}: the value is left out."""
    return StatusCause("FieldValueInvalid", "Invalid value" + (f": {detail}" if detail else ""), path)


def not_supported(path: str, value: Any, valid: Iterable[str]) -> StatusCause:
    """field.NotSupported: the supported values quoted with strconv.Quote, in the order given."""
    options = [go_quote(v) for v in valid]
    msg = f"Unsupported value: {render(value)}"
    if options:
        msg += ": supported values: " + ", ".join(options)
    return StatusCause("FieldValueNotSupported", msg, path)


def duplicate(path: str, value: Any) -> StatusCause:
    return StatusCause("FieldValueDuplicate", f"Duplicate value: {render(value)}", path)


def too_many(path: str, actual: int, limit: int) -> StatusCause:
    """field.TooMany: "Too many: <n>: must have at most <limit> items"."""
    return StatusCause("FieldValueTooMany", f"Too many: {actual}: must have at most {limit} items", path)


def internal_error(path: str, detail: str) -> StatusCause:
    return StatusCause("InternalError", f"Internal error: {detail}", path)


def child(path: str, *names: str) -> str:
    """field.Path.Child: names joined by dots (a root path "" starts without one)."""
    for name in names:
        path = f"{path}.{name}" if path else name
    return path


def index(path: str, i: int) -> str:
    return f"{path}[{i}]"


def key(path: str, k: str) -> str:
    """field.Path.Key: map keys print bare in brackets."""
    return f"{path}[{k}]"


def validate_nonnegative_field(value: Any, path: str) -> list[StatusCause]:
    """ValidateNonnegativeField; a value of the wrong type is left to the schema check."""
    if is_int(value) and value < 0:
        return [invalid(path, value, IS_NEGATIVE_ERROR_MSG)]
    return []


def validate_immutable_field(new: Any, old: Any, path: str, shown: GoValue | Any = None) -> list[StatusCause]:
    """ValidateImmutableField: "field is immutable" with the new value (rendered as `shown` when
    the caller knows its Go type). Missing and null compare equal, as a nil pointer does."""
    if _semantic_equal(new, old):
        return []
    return [invalid(path, shown if shown is not None else new, FIELD_IMMUTABLE_ERROR_MSG)]


def _semantic_equal(a: Any, b: Any) -> bool:
    return semantic_normalize(a) == semantic_normalize(b)


def semantic_normalize(value: Any) -> Any:
    """apiequality.Semantic.DeepEqual treats a nil and an empty map or slice as equal; in JSON
    terms a missing, null, [] or {} member compares equal to the others."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            n = semantic_normalize(v)
            if n is not None and n != {} and n != []:
                out[k] = n
        return out
    if isinstance(value, list):
        return [semantic_normalize(v) for v in value]
    return value


def semantic_equal(a: Any, b: Any) -> bool:
    return _semantic_equal(a, b)


# --- robust accessors: the schema check runs elsewhere, validation must never raise on odd input ---


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def spec_of(obj: dict[str, Any]) -> dict[str, Any]:
    return as_dict(obj.get("spec"))


def meta_of(obj: dict[str, Any]) -> dict[str, Any]:
    return as_dict(obj.get("metadata"))
