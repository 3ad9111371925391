"""SelectionPredicate (k8s.io/apiserver/pkg/storage/selection_predicate.go): label and field selectors
turned into one test on an object, with the field set a resource supports."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from kube_apiserver.registry.resource_spec import ResourceSpec
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.fields import (
    parse_field_selector,
    unknown_field_selector_message,
    unsupported_field_message,
)
from kube_apiserver.runtime.labels import SelectorParseError, parse_label_selector
from kube_apiserver.runtime.schema.structural import schema_for_kind

Predicate = Callable[[dict[str, Any]], bool]


def _lookup(obj: dict[str, Any], path: str) -> str:
    cur: Any = obj
    for part in path.split("."):
        if not isinstance(cur, dict):
            return ""
        cur = cur.get(part)
    if cur is None:
        return ""
    if isinstance(cur, bool):
        return "true" if cur else "false"
    if isinstance(cur, list):  # status.podIPs and the like: the first entry's ip, as kube indexes it
        first = cur[0] if cur else None
        if isinstance(first, dict):
            return str(first.get("ip", ""))
        return "" if first is None else str(first)
    return str(cur)


@lru_cache(maxsize=512)
def _unset_value(group: str, version: str, kind: str, path: str) -> str:
    """What kube's field set reads for a field the object leaves out: it formats the Go struct's field,
    so a bool reads "false" and a number "0" (spec.unschedulable, spec.hostNetwork, status.successful)."""
    node = schema_for_kind(group, version, kind)
    for part in path.split("."):
        node = node.props.get(part) if node is not None else None
    if node is None:
        return ""
    return {"boolean": "false", "integer": "0"}.get(node.kind, "")


def field_set(spec: ResourceSpec, obj: dict[str, Any]) -> dict[str, str]:
    meta = obj.get("metadata") or {}
    fields = {"metadata.name": meta.get("name", "")}
    if spec.namespaced:
        fields["metadata.namespace"] = meta.get("namespace", "")
    for name, path in spec.selectable_fields.items():
        if not path:  # a label the kind accepts but never sets: it compares as ""
            continue
        value = _lookup(obj, path)
        fields[name] = value if value else _unset_value(spec.group, spec.version, spec.kind, path)
    return fields


def make_predicate(spec: ResourceSpec, label_selector: str, field_selector: str) -> Predicate | None:
    """None when nothing is selected out. Raises 400 BadRequest for a bad or unsupported selector."""
    try:
        labels = parse_label_selector(label_selector) if label_selector else None
        fields = parse_field_selector(field_selector) if field_selector else None
    except SelectorParseError as e:
        raise errors.new_bad_request(str(e)) from None
    if labels is not None and labels.empty:
        labels = None
    if fields is not None and fields.empty:
        fields = None
    if fields is not None:
        supported = {"metadata.name", "metadata.namespace", *spec.selectable_fields}
        if not spec.namespaced:
            supported.discard("metadata.namespace")
        for field, _op, _value in fields.requirements:
            if field not in supported:
                # Kinds with their own field label conversion say so; the rest get the default message.
                if spec.selectable_fields:
                    raise errors.new_bad_request(unsupported_field_message(field))
                raise errors.new_bad_request(unknown_field_selector_message(field))
    if labels is None and fields is None:
        return None

    def predicate(obj: dict[str, Any]) -> bool:
        if labels is not None and not labels.matches((obj.get("metadata") or {}).get("labels") or {}):
            return False
        return fields is None or fields.matches(field_set(spec, obj))

    return predicate
