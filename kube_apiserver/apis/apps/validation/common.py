"""What the apps kinds share: the workload selector (required, non-empty, matching the template),
the pod template of a replicated workload, and the selector immutability of apps/v1."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.validation.pods import validate_pod_template_spec
from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.selectors import (
    is_empty_selector,
    label_selector_as_selector,
    string_labels,
)
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.labels import LabelSelector
from kube_apiserver.runtime.validation.metav1 import validate_label_selector

SELECTOR_MISMATCH = "`selector` does not match template `labels`"


def validate_workload_selector(spec: dict[str, Any], kind: str, path: str) -> list[StatusCause]:
    """spec.selector is required, valid and not empty ("empty selector is invalid for <kind>")."""
    selector = spec.get("selector")
    sel_path = field.child(path, "selector")
    if selector is None:
        return [field.required(sel_path, "")]
    errs = validate_label_selector(selector, sel_path)
    if is_empty_selector(selector):
        errs.append(field.invalid(sel_path, gorepr.label_selector(selector), f"empty selector is invalid for {kind}"))
    return errs


def template_matches(selector: LabelSelector, template: dict[str, Any], path: str) -> list[StatusCause]:
    """The template's labels must be selected (checked when the selector restricts anything)."""
    meta = field.as_dict(template.get("metadata"))
    labels = meta.get("labels")
    if not selector.empty and not selector.matches(string_labels(labels)):
        return [field.invalid(field.child(path, "metadata", "labels"), gorepr.string_map(labels), SELECTOR_MISMATCH)]
    return []


def validate_pod_template_spec_for_replica_set(
    template: dict[str, Any], selector: LabelSelector, path: str, owner: str = "ReplicaSet"
) -> list[StatusCause]:
    """ValidatePodTemplateSpecForReplicaSet: selector match, the pod template, restartPolicy Always
    and no activeDeadlineSeconds (the message names ReplicaSet for Deployments too, as upstream)."""
    errs = template_matches(selector, template, path)
    errs.extend(validate_pod_template_spec(template, path))
    errs.extend(validate_always_restart(template, path, owner))
    return errs


def validate_always_restart(template: dict[str, Any], path: str, owner: str) -> list[StatusCause]:
    pod_spec = field.as_dict(template.get("spec"))
    errs = []
    restart = pod_spec.get("restartPolicy", "")
    if restart != "Always":
        errs.append(field.not_supported(field.child(path, "spec", "restartPolicy"), restart, ["Always"]))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        errs.append(
            field.forbidden(
                field.child(path, "spec", "activeDeadlineSeconds"), f"activeDeadlineSeconds in {owner} is not Supported"
            )
        )
    return errs


def selector_and_template(
    spec: dict[str, Any], path: str, on_error: str
) -> tuple[LabelSelector | None, list[StatusCause]]:
    """LabelSelectorAsSelector(spec.selector); an unparsable selector is reported with `on_error`."""
    selector = label_selector_as_selector(spec.get("selector"))
    if selector is None:
        return None, [
            field.invalid(field.child(path, "selector"), gorepr.label_selector(spec.get("selector")), on_error)
        ]
    return selector, []


def validate_selector_immutable(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    """apps/v1 strategies: spec.selector may not change ("field is immutable")."""
    new_sel = field.spec_of(new).get("selector")
    old_sel = field.spec_of(old).get("selector")
    return field.validate_immutable_field(new_sel, old_sel, "spec.selector", gorepr.label_selector(new_sel))


def validate_revision_history_limit(spec: dict[str, Any], path: str) -> list[StatusCause]:
    limit = spec.get("revisionHistoryLimit")
    if limit is None:
        return []
    return field.validate_nonnegative_field(limit, field.child(path, "revisionHistoryLimit"))
