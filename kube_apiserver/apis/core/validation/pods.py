"""Pod, PodSpec and PodTemplateSpec validation (pkg/apis/core/validation: ValidatePod, ValidatePodSpec,
ValidatePodTemplateSpec). Being written; the signatures below are what other groups call."""

from __future__ import annotations

from typing import Any

from kube_apiserver.runtime.errors import StatusCause


def validate_pod_spec(spec: Any, path: str) -> list[StatusCause]:
    return []


def validate_pod_template_spec(template: Any, path: str) -> list[StatusCause]:
    """The template of a workload (path e.g. "spec.template"): its metadata labels/annotations and spec."""
    return []
