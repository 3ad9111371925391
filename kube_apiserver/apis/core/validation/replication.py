"""PodTemplate and ReplicationController (pkg/apis/core/validation: ValidatePodTemplate,
ValidateReplicationControllerSpec, ValidatePodTemplateSpecForRC)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.validation.common import as_dict, as_str, go_string_map
from kube_apiserver.apis.core.validation.pods import validate_pod_template_spec
from kube_apiserver.runtime.errors import (
    StatusCause,
    field_forbidden,
    field_invalid,
    field_not_supported,
    field_required,
)
from kube_apiserver.runtime.validation.objectmeta import validate_nonnegative_field


def validate_pod_template(obj: dict[str, Any]) -> list[StatusCause]:
    return validate_pod_template_spec(obj.get("template"), "template")


def validate_replication_controller(obj: dict[str, Any]) -> list[StatusCause]:
    spec = as_dict(obj.get("spec"))
    path = "spec"
    causes = validate_nonnegative_field(spec.get("minReadySeconds"), f"{path}.minReadySeconds")
    selector = as_dict(spec.get("selector"))
    if not selector:
        causes.append(field_required(f"{path}.selector"))
    causes += validate_nonnegative_field(spec.get("replicas"), f"{path}.replicas")
    template = spec.get("template")
    template_path = f"{path}.template"
    if not isinstance(template, dict):
        return causes + [field_required(template_path)]
    labels = as_dict(as_dict(template.get("metadata")).get("labels"))
    if selector and any(labels.get(k) != v for k, v in selector.items()):
        detail = "`selector` does not match template `labels`"
        causes.append(field_invalid(f"{template_path}.metadata.labels", go_string_map(labels), detail))
    causes += validate_pod_template_spec(template, template_path)
    pod_spec = as_dict(template.get("spec"))
    restart = as_str(pod_spec.get("restartPolicy"))
    if restart and restart != "Always":
        causes.append(field_not_supported(f"{template_path}.spec.restartPolicy", restart, ["Always"]))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        detail = "activeDeadlineSeconds in ReplicationController is not Supported"
        causes.append(field_forbidden(f"{template_path}.spec.activeDeadlineSeconds", detail))
    return causes


VALIDATORS = {
    ("v1", "PodTemplate"): validate_pod_template,
    ("v1", "ReplicationController"): validate_replication_controller,
}
