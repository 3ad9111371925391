"""Validation of meta/v1 values embedded in objects (apimachinery/pkg/apis/meta/v1/validation and the
annotation rules of apimachinery/pkg/api/validation): label selectors, labels, annotations.

Values arrive as decoded JSON; anything of the wrong type is skipped (the decoder reports types).
"""

from __future__ import annotations

from typing import Any

from kube_apiserver.runtime.errors import (
    StatusCause,
    field_forbidden,
    field_invalid,
    field_required,
    field_too_long,
)
from kube_apiserver.runtime.labels import byte_len
from kube_apiserver.runtime.validation.names import is_qualified_name, is_valid_label_value

TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * (1 << 10)


def validate_label_name(name: Any, path: str) -> list[StatusCause]:
    if not isinstance(name, str):
        return []
    return [field_invalid(path, name, msg) for msg in is_qualified_name(name)]


def validate_labels(labels: Any, path: str) -> list[StatusCause]:
    """ValidateLabels: every key a qualified name, every value a label value; errors name the map's path."""
    if not isinstance(labels, dict):
        return []
    causes: list[StatusCause] = []
    for key, value in labels.items():
        if isinstance(key, str):
            msgs = is_qualified_name(key)
            if msgs:
                causes += [field_invalid(path, key, msg) for msg in msgs]
        if isinstance(value, str):
            msgs = is_valid_label_value(value)
            if msgs:
                causes += [field_invalid(path, value, msg) for msg in msgs]
    return causes


def validate_annotations(annotations: Any, path: str) -> list[StatusCause]:
    """ValidateAnnotations: keys are qualified names (case-insensitively), 256 KiB of keys and values in all."""
    if not isinstance(annotations, dict):
        return []
    causes: list[StatusCause] = []
    total = 0
    for key, value in annotations.items():
        if not isinstance(key, str):
            continue
        msgs = is_qualified_name(key.lower())
        if msgs:
            causes += [field_invalid(path, key, msg) for msg in msgs]
        total += byte_len(key) + (byte_len(value) if isinstance(value, str) else 0)
    if total > TOTAL_ANNOTATION_SIZE_LIMIT_B:
        causes.append(field_too_long(path, "", TOTAL_ANNOTATION_SIZE_LIMIT_B))
    return causes


def validate_label_selector_requirement(req: Any, path: str, allow_invalid_values: bool = False) -> list[StatusCause]:
    if not isinstance(req, dict):
        return []
    causes: list[StatusCause] = []
    operator = req.get("operator", "")
    values = req.get("values") or []
    if operator in ("In", "NotIn"):
        if not values:
            causes.append(field_required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            causes.append(
                field_forbidden(f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
            )
    else:
        causes.append(field_invalid(f"{path}.operator", operator, "not a valid selector operator"))
    causes += validate_label_name(req.get("key", ""), f"{path}.key")
    if not allow_invalid_values and isinstance(values, list):
        for i, value in enumerate(values):
            if isinstance(value, str):
                causes += [field_invalid(f"{path}.values[{i}]", value, m) for m in is_valid_label_value(value)]
    return causes


def validate_label_selector(selector: Any, path: str, allow_invalid_values: bool = False) -> list[StatusCause]:
    """ValidateLabelSelector: matchLabels as labels, each matchExpressions entry as a requirement."""
    if not isinstance(selector, dict):
        return []
    causes = validate_labels(selector.get("matchLabels"), f"{path}.matchLabels")
    expressions = selector.get("matchExpressions")
    if isinstance(expressions, list):
        for i, req in enumerate(expressions):
            causes += validate_label_selector_requirement(req, f"{path}.matchExpressions[{i}]", allow_invalid_values)
    return causes
