"""StatefulSet validation (ValidateStatefulSetSpec, ValidateStatefulSetUpdate).

As upstream, a StatefulSet's pod template is checked for its selector match, labels and
annotations only: ValidatePodTemplateSpecForStatefulSet leaves the pod spec unvalidated (a TODO
there), and reports template labels under spec.template.labels.
"""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.apps.validation.common import (
    selector_and_template,
    template_matches,
    validate_always_restart,
    validate_workload_selector,
)
from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.validation.metav1 import validate_annotations, validate_labels

POD_MANAGEMENT_POLICIES = ("OrderedReady", "Parallel")
PVC_RETENTION_POLICIES = ("Retain", "Delete")
# Spec fields an update may change; any other change is refused as a whole.
UPDATABLE_FIELDS = (
    "replicas",
    "ordinals",
    "template",
    "updateStrategy",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
)
UPDATE_FORBIDDEN = (
    "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', "
    "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"
)


def validate_stateful_set(obj: dict[str, Any]) -> list[StatusCause]:
    return validate_stateful_set_spec(field.spec_of(obj), "spec")


def validate_stateful_set_spec(spec: dict[str, Any], path: str) -> list[StatusCause]:
    errs: list[StatusCause] = []
    policy = spec.get("podManagementPolicy", "")
    policy_path = field.child(path, "podManagementPolicy")
    if policy == "":
        errs.append(field.required(policy_path, ""))
    elif policy not in POD_MANAGEMENT_POLICIES:
        errs.append(field.invalid(policy_path, policy, "must be 'OrderedReady' or 'Parallel'"))
    errs.extend(
        _validate_update_strategy(field.as_dict(spec.get("updateStrategy")), field.child(path, "updateStrategy"))
    )
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    if isinstance(retention, dict):
        retention_path = field.child(path, "persistentVolumeClaimRetentionPolicy")
        for name in ("whenDeleted", "whenScaled"):
            value = retention.get(name, "")
            if value not in PVC_RETENTION_POLICIES:
                errs.append(field.not_supported(field.child(retention_path, name), value, PVC_RETENTION_POLICIES))
    errs.extend(field.validate_nonnegative_field(spec.get("replicas"), field.child(path, "replicas")))
    errs.extend(field.validate_nonnegative_field(spec.get("minReadySeconds"), field.child(path, "minReadySeconds")))
    ordinals = spec.get("ordinals")
    if isinstance(ordinals, dict):
        errs.extend(field.validate_nonnegative_field(ordinals.get("start"), field.child(path, "ordinals.start")))
    errs.extend(validate_workload_selector(spec, "statefulset", path))
    selector, sel_errs = selector_and_template(spec, path, "")
    errs.extend(sel_errs)
    template = field.as_dict(spec.get("template"))
    template_path = field.child(path, "template")
    if selector is not None:
        meta = field.as_dict(template.get("metadata"))
        errs.extend(template_matches(selector, template, template_path))
        errs.extend(validate_labels(meta.get("labels"), field.child(template_path, "labels")))
        errs.extend(validate_annotations(meta.get("annotations"), field.child(template_path, "annotations")))
    errs.extend(validate_always_restart(template, template_path, "StatefulSet"))
    return errs


def _rolling_update_value(rolling: Any) -> gorepr.GoValue:
    r = field.as_dict(rolling)
    return gorepr.struct(
        "apps.RollingUpdateStatefulSetStrategy",
        [
            ("Partition", r.get("partition", 0)),
            ("MaxUnavailable", gorepr.pointer("intstr.IntOrString", r.get("maxUnavailable"))),
        ],
    )


def _validate_update_strategy(strategy: dict[str, Any], path: str) -> list[StatusCause]:
    kind = strategy.get("type", "")
    rolling = strategy.get("rollingUpdate")
    if kind == "":
        return [field.required(path, "")]
    if kind == "OnDelete":
        if rolling is not None:
            return [
                field.invalid(
                    field.child(path, "rollingUpdate"),
                    _rolling_update_value(rolling),
                    "only allowed for updateStrategy 'RollingUpdate'",
                )
            ]
        return []
    if kind == "RollingUpdate":
        if rolling is None:
            return []
        partition_path = field.child(path, "rollingUpdate", "partition")
        # maxUnavailable is dropped by the strategy while MaxUnavailableStatefulSet (alpha) is off.
        return field.validate_nonnegative_field(field.as_dict(rolling).get("partition"), partition_path)
    value = gorepr.struct(
        "apps.StatefulSetUpdateStrategy",
        [
            ("Type", field.as_str(kind)),
            ("RollingUpdate", gorepr.pointer("apps.RollingUpdateStatefulSetStrategy", rolling)),
        ],
    )
    return [field.invalid(path, value, "must be 'RollingUpdate' or 'OnDelete'")]


def validate_stateful_set_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    new_spec = dict(field.spec_of(new))
    old_spec = field.spec_of(old)
    for name in UPDATABLE_FIELDS:
        new_spec.pop(name, None)
        if name in old_spec:
            new_spec[name] = old_spec[name]
    if not field.semantic_equal(new_spec, old_spec):
        return [field.forbidden("spec", UPDATE_FORBIDDEN)]
    return []


VALIDATORS = {("v1", "StatefulSet"): validate_stateful_set}
UPDATE_VALIDATORS = {("v1", "StatefulSet"): validate_stateful_set_update}
