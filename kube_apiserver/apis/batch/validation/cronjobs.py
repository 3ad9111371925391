"""CronJob validation (ValidateCronJobCreate, validateCronJobSpec, ValidateJobTemplateSpec)."""

from __future__ import annotations

import re
from typing import Any

from kube_apiserver.apis.batch.validation.cron import load_location, parse_standard
from kube_apiserver.apis.batch.validation.jobs import validate_job_spec_fields
from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.runtime.errors import StatusCause

# The controller names a job <cronjob>-<11-character suffix>, and job names are DNS-1035 labels.
MAX_CRONJOB_NAME_LENGTH = 63 - 11
CONCURRENCY_POLICIES = ["Allow", "Forbid", "Replace"]
# IANA naming rules, tolerating the digits and '+' of legacy compatibility names.
_TIME_ZONE_PART = re.compile(r"^[A-Za-z.\-_0-9+]{1,14}$")


def validate_cron_job(obj: dict[str, Any]) -> list[StatusCause]:
    errs = validate_cron_job_spec(field.spec_of(obj), None, "spec")
    name = field.meta_of(obj).get("name")
    if isinstance(name, str) and len(name.encode()) > MAX_CRONJOB_NAME_LENGTH:
        errs.append(field.invalid("metadata.name", name, f"must be no more than {MAX_CRONJOB_NAME_LENGTH} characters"))
    return errs


def validate_cron_job_spec(spec: dict[str, Any], old_spec: dict[str, Any] | None, path: str) -> list[StatusCause]:
    errs: list[StatusCause] = []
    schedule = spec.get("schedule")
    schedule_path = field.child(path, "schedule")
    if not schedule:
        errs.append(field.required(schedule_path, ""))
    elif isinstance(schedule, str):
        allow_tz = old_spec is not None and "TZ" in field.as_str(old_spec.get("schedule"))
        errs.extend(validate_schedule_format(schedule, allow_tz, spec.get("timeZone"), schedule_path))
    errs.extend(
        field.validate_nonnegative_field(
            spec.get("startingDeadlineSeconds"), field.child(path, "startingDeadlineSeconds")
        )
    )
    if old_spec is None or old_spec.get("timeZone") != spec.get("timeZone"):
        errs.extend(validate_time_zone(spec.get("timeZone"), field.child(path, "timeZone")))
    errs.extend(validate_concurrency_policy(spec.get("concurrencyPolicy", ""), field.child(path, "concurrencyPolicy")))
    errs.extend(validate_job_template_spec(field.as_dict(spec.get("jobTemplate")), field.child(path, "jobTemplate")))
    for name in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        errs.extend(field.validate_nonnegative_field(spec.get(name), field.child(path, name)))
    return errs


def validate_concurrency_policy(policy: Any, path: str) -> list[StatusCause]:
    if policy in CONCURRENCY_POLICIES:
        return []
    if policy == "":
        return [field.required(path, "")]
    return [field.not_supported(path, policy, CONCURRENCY_POLICIES)]


def validate_schedule_format(schedule: str, allow_tz: bool, time_zone: Any, path: str) -> list[StatusCause]:
    errs = []
    err = parse_standard(schedule)
    if err is not None:
        errs.append(field.invalid(path, schedule, err))
    if allow_tz and "TZ" in schedule and time_zone is not None:
        errs.append(field.invalid(path, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
    elif not allow_tz and "TZ" in schedule:
        errs.append(field.invalid(path, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
    return errs


def validate_time_zone(time_zone: Any, path: str) -> list[StatusCause]:
    """validateTimeZone: an explicit IANA zone name that loads (as Go's time.LoadLocation would)."""
    if not isinstance(time_zone, str):
        return []
    if not time_zone:
        return [field.invalid(path, time_zone, "timeZone must be nil or non-empty string")]
    for part in time_zone.split("/"):
        if part in (".", "..") or part.startswith("-") or not _TIME_ZONE_PART.match(part):
            return [field.invalid(path, time_zone, f"unknown time zone {time_zone}")]
    errs = []
    if time_zone.lower() == "local":
        errs.append(
            field.invalid(
                path, time_zone, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"
            )
        )
    err = load_location(time_zone)
    if err:
        errs.append(field.invalid(path, time_zone, err))
    return errs


def validate_job_template_spec(template: dict[str, Any], path: str) -> list[StatusCause]:
    """ValidateJobTemplateSpec: a job spec whose selector is left to be generated."""
    job_spec = field.as_dict(template.get("spec"))
    spec_path = field.child(path, "spec")
    errs = validate_job_spec_fields(job_spec, spec_path)
    selector = job_spec.get("selector")
    if selector is not None:
        errs.append(
            field.invalid(
                field.child(spec_path, "selector"), gorepr.label_selector(selector), "`selector` will be auto-generated"
            )
        )
    if job_spec.get("manualSelector") is True:
        errs.append(field.not_supported(field.child(spec_path, "manualSelector"), True, ["nil", "false"]))
    return errs


VALIDATORS = {("v1", "CronJob"): validate_cron_job}
# Nothing of a CronJob is immutable. (Upstream lets an update keep a TZ= schedule the old object
# had, and revalidates timeZone only when it changes; such objects cannot be created here.)
