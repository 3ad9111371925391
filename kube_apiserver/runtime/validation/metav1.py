"""Validation of meta/v1 values embedded in objects (apimachinery/pkg/apis/meta/v1/validation):
label selectors, labels, annotations. Being written; the signatures below are what the groups call."""

from __future__ import annotations

from typing import Any

from kube_apiserver.runtime.errors import StatusCause


def validate_label_selector(selector: Any, path: str) -> list[StatusCause]:
    return []


def validate_labels(labels: Any, path: str) -> list[StatusCause]:
    return []


def validate_annotations(annotations: Any, path: str) -> list[StatusCause]:
    return []
