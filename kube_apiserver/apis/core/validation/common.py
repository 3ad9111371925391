"""Small pieces shared by the core validation modules: field-error shorthands for the recurring name
checks, Go spellings of bad values, and semantic equality of decoded objects."""

from __future__ import annotations

from typing import Any

from kube_apiserver.runtime.errors import GoRepr, StatusCause, field_invalid
from kube_apiserver.runtime.labels import go_quote
from kube_apiserver.runtime.quantity import QuantityError, quantity_value
from kube_apiserver.runtime.validation.names import is_dns1123_label, is_dns1123_subdomain, is_qualified_name


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_create(obj: dict[str, Any]) -> bool:
    """Whether the object is being created: the store sets metadata.resourceVersion on every update
    before validating, and refuses one on create."""
    return not as_dict(obj.get("metadata")).get("resourceVersion")


def go_typed_slice(type_name: str, values: list[Any]) -> GoRepr:
    """%#v of a slice of a named string type, e.g. []core.PersistentVolumeAccessMode{"RWO"}."""
    if not values:
        return GoRepr(f"[]{type_name}(nil)")
    return GoRepr(f"[]{type_name}{{" + ", ".join(go_quote(str(v)) for v in values) + "}")


def go_string_map(values: dict[str, Any]) -> GoRepr:
    """%#v of a map[string]string (Go prints map keys sorted)."""
    if not values:
        return GoRepr("map[string]string(nil)")
    items = ", ".join(f"{go_quote(str(k))}:{go_quote(str(values[k]))}" for k in sorted(values))
    return GoRepr("map[string]string{" + items + "}")


def validate_dns1123_label(value: str, path: str) -> list[StatusCause]:
    return [field_invalid(path, value, msg) for msg in is_dns1123_label(value)]


def validate_dns1123_subdomain(value: str, path: str) -> list[StatusCause]:
    return [field_invalid(path, value, msg) for msg in is_dns1123_subdomain(value)]


def validate_qualified_name(value: str, path: str) -> list[StatusCause]:
    return [field_invalid(path, value, msg) for msg in is_qualified_name(value)]


def validate_name_fn(fn: Any, value: str, path: str) -> list[StatusCause]:
    """Errors of a ValidateNameFunc applied to a referenced name (no generateName prefix)."""
    return [field_invalid(path, value, msg) for msg in fn(value, False)]


def normalize(value: Any) -> Any:
    """A decoded value as apiequality.Semantic compares it: absent, null and empty are alike
    (Go's zero values), quantities compare by value."""
    if isinstance(value, dict):
        out = {k: normalize(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if not _zero(v)}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return value


def normalize_quantities(table: Any) -> Any:
    if not isinstance(table, dict):
        return table
    out = {}
    for k, v in table.items():
        try:
            out[k] = quantity_value(v)
        except (QuantityError, TypeError, ValueError):
            out[k] = v
    return out


def _zero(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def semantic_equal(a: Any, b: Any) -> bool:
    return normalize(a) == normalize(b)
