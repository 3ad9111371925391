"""batch/v1 defaults (pkg/apis/batch/v1/defaults.go and the generated SetObjectDefaults_*).

A CronJob's jobTemplate is a JobTemplateSpec, not a Job: SetDefaults_Job does not run on it (no
backoffLimit, completions... there), only the pod template defaults below it.
"""

from __future__ import annotations

import copy
from typing import Any

from kube_apiserver.apis.core.defaults.fields import child, default, default_zero, items, spec_of
from kube_apiserver.apis.core.defaults.pods import set_defaults_pod_template_spec

MAX_INT32 = 2**31 - 1
DEFAULT_BACKOFF_LIMIT = 6


def set_defaults_job(obj: dict[str, Any]) -> None:
    spec = spec_of(obj)
    if spec is None:
        return
    # A non-parallel job may leave both unset: both become 1.
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
        spec["parallelism"] = 1
    default(spec, "parallelism", 1)
    if spec.get("backoffLimit") is None:
        # with a per-index limit the global one is effectively off
        spec["backoffLimit"] = MAX_INT32 if spec.get("backoffLimitPerIndex") is not None else DEFAULT_BACKOFF_LIMIT
    copy_template_labels(obj)
    default(spec, "completionMode", "NonIndexed")
    default(spec, "suspend", False)
    failure_policy = child(spec, "podFailurePolicy")
    for rule in items(failure_policy, "rules"):
        for pattern in items(rule, "onPodConditions"):
            default_zero(pattern, "status", "True")
    # JobPodReplacementPolicy is beta and on in 1.33.
    if spec.get("podReplacementPolicy") is None:
        spec["podReplacementPolicy"] = "Failed" if failure_policy is not None else "TerminatingOrFailed"
    default(spec, "manualSelector", False)


def copy_template_labels(obj: dict[str, Any]) -> None:
    """A job without labels of its own is labelled like its pod template."""
    template_meta = child(child(child(obj, "spec"), "template"), "metadata")
    labels = (template_meta or {}).get("labels")
    if not isinstance(labels, dict) or not labels:
        return
    meta = child(obj, "metadata", create=True)
    if meta is not None and not meta.get("labels"):
        meta["labels"] = copy.deepcopy(labels)


def set_object_defaults_job(obj: dict[str, Any]) -> None:
    set_defaults_job(obj)
    spec = spec_of(obj)
    if spec is not None:
        set_defaults_pod_template_spec(child(spec, "template", create=True))


def set_defaults_cron_job(obj: dict[str, Any]) -> None:
    spec = spec_of(obj)
    if spec is None:
        return
    default_zero(spec, "concurrencyPolicy", "Allow")
    default(spec, "suspend", False)
    default(spec, "successfulJobsHistoryLimit", 3)
    default(spec, "failedJobsHistoryLimit", 1)


def set_object_defaults_cron_job(obj: dict[str, Any]) -> None:
    set_defaults_cron_job(obj)
    job_spec = child(child(spec_of(obj), "jobTemplate", create=True), "spec", create=True)
    if job_spec is not None:
        set_defaults_pod_template_spec(child(job_spec, "template", create=True))


DEFAULTERS = {
    ("v1", "Job"): set_object_defaults_job,
    ("v1", "CronJob"): set_object_defaults_cron_job,
}
