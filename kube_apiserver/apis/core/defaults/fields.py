"""Small accessors the defaulting functions of every group share.

Objects are decoded JSON, so a defaulter must cope with any shape: a field of the wrong type is left
alone (validation or the schema layer reports it), never an exception. The helpers spell the Go
zero-value tests defaulters are written with: a pointer, map or slice field is nil when it is missing
or JSON null (default); a string or number field is also unset at "" or 0 (default_zero).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def empty(obj: dict[str, Any], key: str) -> bool:
    value = obj.get(key)
    # bool is an int in Python; a Go string or number field never holds one, so False counts as set.
    return value is None or value == "" or (value == 0 and not isinstance(value, bool))


def default(obj: dict[str, Any], key: str, value: Any) -> None:
    """obj[key] = value when the field is nil (Go: `if obj.X == nil`)."""
    if obj.get(key) is None:
        obj[key] = value


def default_zero(obj: dict[str, Any], key: str, value: Any) -> None:
    """obj[key] = value when the field is at its zero value (Go: `if obj.X == ""` / `== 0`)."""
    if empty(obj, key):
        obj[key] = value


def child(obj: Any, key: str, *, create: bool = False) -> dict[str, Any] | None:
    """obj[key] when it is an object. With create, a missing (or null) field becomes {}: a Go struct
    field that is not a pointer always exists, so its defaults always apply."""
    if not isinstance(obj, dict):
        return None
    value = obj.get(key)
    if isinstance(value, dict):
        return value
    if value is None and create:
        value = obj[key] = {}
        return value
    return None


def items(obj: Any, key: str) -> Iterator[dict[str, Any]]:
    """The object elements of the list obj[key] (other elements are skipped)."""
    if not isinstance(obj, dict):
        return
    value = obj.get(key)
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                yield item


def spec_of(obj: Any) -> dict[str, Any] | None:
    """obj.spec, created when missing: every workload's spec is a struct, not a pointer."""
    return child(obj, "spec", create=True)
