"""Defaulting (apiextensions-apiserver/pkg/apiserver/schema/defaulting): `default` values of a
structural schema fill missing fields, on every write and whenever an object is read from storage.
Nulls of fields that are not nullable are dropped first, so that their default applies."""

from __future__ import annotations

import copy
from typing import Any


def default(value: Any, schema: dict[str, Any]) -> None:
    """Fill in defaults in place (value is an object or array; scalars have nothing to fill)."""
    if isinstance(value, dict):
        props = schema.get("properties")
        if isinstance(props, dict):
            for key, child in props.items():
                if not isinstance(child, dict):
                    continue
                if key in value and value[key] is None and not child.get("nullable"):
                    del value[key]  # PruneNonNullableNullsWithoutDefaults, then the default below
                if key not in value and "default" in child:
                    value[key] = copy.deepcopy(child["default"])
                if key in value:
                    default(value[key], child)
        addl = schema.get("additionalProperties")
        if isinstance(addl, dict):
            for key in list(value):
                if isinstance(props, dict) and key in props:
                    continue
                if value[key] is None and not addl.get("nullable"):
                    if "default" in addl:
                        value[key] = copy.deepcopy(addl["default"])
                    else:
                        continue
                default(value[key], addl)
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for i, item in enumerate(value):
                if item is None and not items.get("nullable") and "default" in items:
                    value[i] = copy.deepcopy(items["default"])
                default(value[i], items)
