"""RuntimeClass validation (pkg/apis/node/validation: ValidateRuntimeClass and its update): the handler, the
overhead (as a container's limits) and the scheduling (node selector labels, tolerations as a pod's)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.validation.resources import validate_resource_requirements
from kube_apiserver.apis.core.validation.scheduling import validate_tolerations
from kube_apiserver.apis.validation_util import field
from kube_apiserver.apis.validation_util.names import is_dns1123_label
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.validation.metav1 import validate_labels


def validate_runtime_class(obj: dict[str, Any]) -> list[StatusCause]:
    handler = field.as_str(obj.get("handler"))
    errs = [field.invalid("handler", handler, msg) for msg in is_dns1123_label(handler)]
    overhead = obj.get("overhead")
    if isinstance(overhead, dict):
        # validateOverhead: podFixed checked as a container's limits would be
        errs.extend(validate_resource_requirements({"limits": overhead.get("podFixed")}, "overhead", set()))
    scheduling = obj.get("scheduling")
    if isinstance(scheduling, dict):
        if scheduling.get("nodeSelector") is not None:
            errs.extend(validate_labels(scheduling.get("nodeSelector"), "scheduling.nodeSelector"))
        errs.extend(validate_tolerations(scheduling.get("tolerations"), "scheduling.tolerations"))
    return errs


def validate_runtime_class_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    return field.validate_immutable_field(new.get("handler"), old.get("handler"), "handler")


VALIDATORS = {("v1", "RuntimeClass"): validate_runtime_class}
UPDATE_VALIDATORS = {("v1", "RuntimeClass"): validate_runtime_class_update}
