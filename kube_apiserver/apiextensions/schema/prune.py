"""Pruning (apiextensions-apiserver/pkg/apiserver/schema/pruning): fields a CRD's structural schema
does not declare are dropped, unless x-kubernetes-preserve-unknown-fields keeps them. The paths of
what was dropped are returned for fieldValidation (Strict rejects them, Warn reports them)."""

from __future__ import annotations

from typing import Any

# Fields every object (the root and x-kubernetes-embedded-resource values) keeps whatever its schema.
_OBJECT_FIELDS = ("apiVersion", "kind", "metadata")


def prune(obj: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """Drop the unknown fields of a custom resource in place; returns their paths, in walk order."""
    unknown: list[str] = []
    _prune_object(obj, schema, "", unknown, root=True)
    return unknown


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _prune_object(value: dict[str, Any], schema: dict[str, Any], path: str, unknown: list[str], root: bool) -> None:
    props = schema.get("properties")
    props = props if isinstance(props, dict) else {}
    addl = schema.get("additionalProperties")
    preserve = schema.get("x-kubernetes-preserve-unknown-fields") is True
    embedded = root or schema.get("x-kubernetes-embedded-resource") is True
    for key in list(value):
        if embedded and key in _OBJECT_FIELDS:
            continue  # ObjectMeta is decoded as such, never by the CRD's schema
        child = props.get(key)
        if isinstance(child, dict):
            _prune_value(value[key], child, _join(path, key), unknown)
        elif isinstance(addl, dict):
            _prune_value(value[key], addl, _join(path, key), unknown)
        elif not preserve and addl is not True:
            unknown.append(_join(path, key))
            del value[key]


def _prune_value(value: Any, schema: dict[str, Any], path: str, unknown: list[str]) -> None:
    if isinstance(value, dict):
        if schema.get("type") == "object" or "properties" in schema or "additionalProperties" in schema:
            _prune_object(value, schema, path, unknown, root=False)
        elif schema.get("x-kubernetes-preserve-unknown-fields") is not True and not schema.get(
            "x-kubernetes-int-or-string"
        ):
            # an object where the schema says a scalar: left for validation to reject
            return
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for i, item in enumerate(value):
                _prune_value(item, items, f"{path}[{i}]", unknown)
