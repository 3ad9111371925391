"""Warnings for batch/v1 Jobs and CronJobs: their pod template's."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.pod_warnings import warnings_for_template, workload_name_warnings


def _changed(new: dict[str, Any], old: dict[str, Any] | None) -> bool:
    return old is None or (new.get("metadata") or {}).get("generation") != (old.get("metadata") or {}).get("generation")


def job_warnings(new: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
    if not _changed(new, old):
        return []
    named = workload_name_warnings(new.get("metadata")) if old is None else []
    return named + warnings_for_template((new.get("spec") or {}).get("template"), "spec.template.")


def cron_job_warnings(new: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
    if not _changed(new, old):
        return []
    job_template = ((new.get("spec") or {}).get("jobTemplate") or {}).get("spec") or {}
    named = workload_name_warnings(new.get("metadata")) if old is None else []
    return named + warnings_for_template(job_template.get("template"), "spec.jobTemplate.spec.template.")


WARNERS = {("v1", "Job"): job_warnings, ("v1", "CronJob"): cron_job_warnings}
