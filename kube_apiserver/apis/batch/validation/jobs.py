"""Job validation (ValidateJob, validateJobSpec, ValidateJobSpecUpdate), shared with CronJob's
jobTemplate. The job strategy has generated the selector and template labels before this runs."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.batch.validation.policies import (
    validate_pod_failure_policy,
    validate_pod_replacement_policy,
    validate_success_policy,
)
from kube_apiserver.apis.core.validation.pods import validate_pod_template_spec
from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.names import is_dns1123_label, is_domain_prefixed_path
from kube_apiserver.apis.validation_util.selectors import label_selector_as_selector, string_labels
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.validation.metav1 import validate_label_selector

MAX_PARALLELISM_FOR_INDEXED_JOB = 100_000
MAX_FAILED_INDEXES_FOR_INDEXED_JOB = 100_000
COMPLETIONS_SOFT_LIMIT = 100_000
PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS = 10_000
MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS = 10_000
MAX_MANAGED_BY_LENGTH = 63

LEGACY_CONTROLLER_UID_LABEL = "controller-uid"
LEGACY_JOB_NAME_LABEL = "job-name"
CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"


def validate_job(obj: dict[str, Any]) -> list[StatusCause]:
    meta = field.meta_of(obj)
    spec = field.spec_of(obj)
    errs = validate_generated_selector(obj)
    errs.extend(validate_job_spec(spec, "spec"))
    completions = spec.get("completions")
    if spec.get("completionMode") == "Indexed" and field.is_int(completions) and completions > 0:
        # the controller names pods <job>-<index>; the last index must still make a DNS label
        name = field.as_str(meta.get("name"))
        hostname = f"{name}-{completions - 1}"
        if is_dns1123_label(hostname):
            errs.append(
                field.invalid("metadata.name", name, f"will not able to create pod with invalid DNS label: {hostname}")
            )
    return errs


def validate_generated_selector(obj: dict[str, Any]) -> list[StatusCause]:
    """The generated selector and template labels must be the job's own (unless manualSelector)."""
    spec = field.spec_of(obj)
    if spec.get("manualSelector") is True or spec.get("selector") is None:
        return []
    meta = field.meta_of(obj)
    uid, name = field.as_str(meta.get("uid")), field.as_str(meta.get("name"))
    errs = []
    if not uid:
        errs.append(field.required("metadata.uid", ""))
    template_meta = field.as_dict(field.as_dict(spec.get("template")).get("metadata"))
    expected = {
        LEGACY_CONTROLLER_UID_LABEL: uid,
        LEGACY_JOB_NAME_LABEL: name,
        CONTROLLER_UID_LABEL: uid,
        JOB_NAME_LABEL: name,
    }
    for label, value in expected.items():
        errs.extend(validate_has_label(template_meta, "spec.template.metadata", label, value))
    selector = label_selector_as_selector(spec.get("selector"))
    if selector is not None and not selector.matches(expected):
        errs.append(
            field.invalid("spec.selector", gorepr.label_selector(spec.get("selector")), "`selector` not auto-generated")
        )
    return errs


def validate_has_label(meta: dict[str, Any], path: str, key: str, expected: str) -> list[StatusCause]:
    """ValidateHasLabel: labels[key] must be `expected`."""
    labels = meta.get("labels")
    label_path = field.key(field.child(path, "labels"), key)
    if not isinstance(labels, dict) or key not in labels:
        return [field.required(label_path, f"must be '{expected}'")]
    if labels[key] != expected:
        return [field.invalid(label_path, gorepr.string_map(labels), f"must be '{expected}'")]
    return []


def validate_job_spec(spec: dict[str, Any], path: str) -> list[StatusCause]:
    """ValidateJobSpec: the spec, a required selector, and a template the selector selects."""
    errs = validate_job_spec_fields(spec, path)
    selector_value = spec.get("selector")
    if selector_value is None:
        errs.append(field.required(field.child(path, "selector"), ""))
    else:
        errs.extend(validate_label_selector(selector_value, field.child(path, "selector")))
    selector = label_selector_as_selector(selector_value)
    labels = field.as_dict(field.as_dict(spec.get("template")).get("metadata")).get("labels")
    if selector is not None and not selector.matches(string_labels(labels)):
        errs.append(
            field.invalid(
                field.child(path, "template", "metadata", "labels"),
                gorepr.string_map(labels),
                "`selector` does not match template `labels`",
            )
        )
    return errs


def validate_job_spec_fields(spec: dict[str, Any], path: str) -> list[StatusCause]:
    """validateJobSpec: counts, completion mode, policies, the pod template and its restart policy."""
    errs: list[StatusCause] = []
    for name in (
        "parallelism",
        "completions",
        "activeDeadlineSeconds",
        "backoffLimit",
        "ttlSecondsAfterFinished",
        "backoffLimitPerIndex",
        "maxFailedIndexes",
    ):
        errs.extend(field.validate_nonnegative_field(spec.get(name), field.child(path, name)))
    per_index, max_failed = spec.get("backoffLimitPerIndex"), spec.get("maxFailedIndexes")
    if max_failed is not None and per_index is None:
        errs.append(field.required(field.child(path, "backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
    managed_by = spec.get("managedBy")
    if isinstance(managed_by, str):
        managed_path = field.child(path, "managedBy")
        errs.extend(is_domain_prefixed_path(managed_path, managed_by))
        if len(managed_by.encode()) > MAX_MANAGED_BY_LENGTH:
            errs.append(field.too_long(managed_path, managed_by, MAX_MANAGED_BY_LENGTH))
    mode = spec.get("completionMode")
    if mode is not None:
        if mode not in ("NonIndexed", "Indexed"):
            errs.append(field.not_supported(field.child(path, "completionMode"), mode, ["NonIndexed", "Indexed"]))
        if mode == "Indexed":
            errs.extend(_validate_indexed(spec, path))
    if mode is None or mode == "NonIndexed":
        if per_index is not None:
            errs.append(
                field.invalid(field.child(path, "backoffLimitPerIndex"), per_index, "requires indexed completion mode")
            )
        if max_failed is not None:
            errs.append(
                field.invalid(field.child(path, "maxFailedIndexes"), max_failed, "requires indexed completion mode")
            )
    failure_policy = spec.get("podFailurePolicy")
    if failure_policy is not None:
        errs.extend(validate_pod_failure_policy(spec, field.child(path, "podFailurePolicy")))
    success_policy = spec.get("successPolicy")
    if success_policy is not None:
        success_path = field.child(path, "successPolicy")
        if mode != "Indexed":
            shown = gorepr.approx("batch.SuccessPolicy", success_policy)
            errs.append(field.invalid(success_path, shown, "requires indexed completion mode"))
        else:
            errs.extend(validate_success_policy(spec, success_path))
    errs.extend(validate_pod_replacement_policy(spec, field.child(path, "podReplacementPolicy")))
    template = field.as_dict(spec.get("template"))
    template_path = field.child(path, "template")
    errs.extend(validate_pod_template_spec(template, template_path))
    restart_path = field.child(template_path, "spec", "restartPolicy")
    restart = field.as_dict(template.get("spec")).get("restartPolicy", "")
    # the pod defaults turn a missing restartPolicy into Always, so both read as "not chosen"
    if restart in ("Always", ""):
        errs.append(field.required(restart_path, 'valid values: "OnFailure", "Never"'))
    elif restart not in ("OnFailure", "Never"):
        errs.append(field.not_supported(restart_path, restart, ["OnFailure", "Never"]))
    elif failure_policy is not None and restart != "Never":
        errs.append(
            field.invalid(restart_path, restart, 'only "Never" is supported when podFailurePolicy is specified')
        )
    return errs


def _validate_indexed(spec: dict[str, Any], path: str) -> list[StatusCause]:
    errs = []
    parallelism, completions = spec.get("parallelism"), spec.get("completions")
    per_index, max_failed = spec.get("backoffLimitPerIndex"), spec.get("maxFailedIndexes")
    if completions is None:
        errs.append(field.required(field.child(path, "completions"), "when completion mode is Indexed"))
    if field.is_int(parallelism) and parallelism > MAX_PARALLELISM_FOR_INDEXED_JOB:
        errs.append(
            field.invalid(
                field.child(path, "parallelism"),
                parallelism,
                f"must be less than or equal to {MAX_PARALLELISM_FOR_INDEXED_JOB} when completion mode is Indexed",
            )
        )
    max_failed_path = field.child(path, "maxFailedIndexes")
    if field.is_int(completions) and field.is_int(max_failed) and max_failed > completions:
        errs.append(field.invalid(max_failed_path, max_failed, "must be less than or equal to completions"))
    if field.is_int(max_failed) and max_failed > MAX_FAILED_INDEXES_FOR_INDEXED_JOB:
        errs.append(
            field.invalid(
                max_failed_path, max_failed, f"must be less than or equal to {MAX_FAILED_INDEXES_FOR_INDEXED_JOB}"
            )
        )
    if field.is_int(completions) and completions > COMPLETIONS_SOFT_LIMIT and per_index is not None:
        high = f"when completions are above {COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index"
        if max_failed is None:
            errs.append(
                field.required(max_failed_path, f"must be specified when completions is above {COMPLETIONS_SOFT_LIMIT}")
            )
        if field.is_int(parallelism) and parallelism > PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS:
            errs.append(
                field.invalid(
                    field.child(path, "parallelism"),
                    parallelism,
                    f"must be less than or equal to {PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS} {high}",
                )
            )
        if field.is_int(max_failed) and max_failed > MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS:
            errs.append(
                field.invalid(
                    max_failed_path,
                    max_failed,
                    f"must be less than or equal to {MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS} {high}",
                )
            )
    return errs


def validate_job_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    """ValidateJobSpecUpdate: what a running job may not change."""
    spec, old_spec = field.spec_of(new), field.spec_of(old)
    errs = _validate_completions_update(spec, old_spec)
    sel = spec.get("selector")
    errs.extend(
        field.validate_immutable_field(sel, old_spec.get("selector"), "spec.selector", gorepr.label_selector(sel))
    )
    errs.extend(_validate_template_update(spec, old_spec, field.as_dict(old.get("status"))))
    immutable = (
        ("completionMode", None),
        ("podFailurePolicy", "batch.PodFailurePolicy"),
        ("backoffLimitPerIndex", None),
        ("managedBy", None),
        ("successPolicy", "batch.SuccessPolicy"),
    )
    for name, type_name in immutable:
        value = spec.get(name)
        shown = gorepr.approx(type_name, value) if type_name and value is not None else None
        errs.extend(field.validate_immutable_field(value, old_spec.get(name), f"spec.{name}", shown))
    return errs


def _validate_completions_update(spec: dict[str, Any], old_spec: dict[str, Any]) -> list[StatusCause]:
    completions, old_completions = spec.get("completions"), old_spec.get("completions")
    if spec.get("completionMode") != "Indexed":
        return field.validate_immutable_field(completions, old_completions, "spec.completions")
    # Elastic indexed jobs: completions may change together with parallelism.
    if completions == old_completions or completions is None:
        return []
    if completions != spec.get("parallelism"):
        return [field.invalid("spec.completions", completions, "can only be modified in tandem with spec.parallelism")]
    return []


_SCHEDULING_FIELDS = ("nodeSelector", "tolerations", "schedulingGates")


def _validate_template_update(
    spec: dict[str, Any], old_spec: dict[str, Any], old_status: dict[str, Any]
) -> list[StatusCause]:
    template = field.as_dict(spec.get("template"))
    old_template = field.as_dict(old_spec.get("template"))
    if old_spec.get("suspend") is True and old_status.get("startTime") is None:
        # A suspended job that never started may still change where its pods will run.
        old_template = _with_scheduling_directives_of(old_template, template)
    return field.validate_immutable_field(
        template, old_template, "spec.template", gorepr.approx("core.PodTemplateSpec", template)
    )


def _with_scheduling_directives_of(old_template: dict[str, Any], template: dict[str, Any]) -> dict[str, Any]:
    merged = dict(old_template)
    old_meta = dict(field.as_dict(old_template.get("metadata")))
    new_meta = field.as_dict(template.get("metadata"))
    for name in ("labels", "annotations"):
        old_meta.pop(name, None)
        if name in new_meta:
            old_meta[name] = new_meta[name]
    merged["metadata"] = old_meta
    old_pod = dict(field.as_dict(old_template.get("spec")))
    new_pod = field.as_dict(template.get("spec"))
    for name in _SCHEDULING_FIELDS:
        old_pod.pop(name, None)
        if name in new_pod:
            old_pod[name] = new_pod[name]
    old_affinity = dict(field.as_dict(old_pod.get("affinity")))
    new_affinity = new_pod.get("affinity")
    old_affinity.pop("nodeAffinity", None)
    if isinstance(new_affinity, dict) and "nodeAffinity" in new_affinity:
        old_affinity["nodeAffinity"] = new_affinity["nodeAffinity"]
    if old_affinity or new_affinity is not None:
        old_pod["affinity"] = old_affinity
    else:
        old_pod.pop("affinity", None)
    merged["spec"] = old_pod
    return merged


VALIDATORS = {("v1", "Job"): validate_job}
UPDATE_VALIDATORS = {("v1", "Job"): validate_job_update}
