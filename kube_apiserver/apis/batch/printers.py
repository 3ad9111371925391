"""Printers for batch/v1 (printers.go printJob, printCronJob)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.printing import (
    AGE_COLUMN,
    CONTAINERS_DOC,
    IMAGES_DOC,
    NAME_COLUMN,
    age,
    col,
    d,
    format_label_selector,
    get,
    human_duration,
    is_deleting,
    layout_containers,
    lst,
    name,
    num,
    parse_time,
    print_bool_ptr,
    since,
    template_containers,
    text,
)
from kube_apiserver.registry.resource_spec import TablePrinter

_SELECTOR_DOC = "A label query over pods that should match the pod count."


def _has_condition(job: dict[str, Any], type_: str) -> bool:
    """hasJobCondition: the first condition of that type decides."""
    for cond in lst(get(job, "status", "conditions")):
        if isinstance(cond, dict) and cond.get("type") == type_:
            return cond.get("status") == "True"
    return False


def job_status(job: dict[str, Any]) -> str:
    if _has_condition(job, "Complete"):
        return "Complete"
    if _has_condition(job, "Failed"):
        return "Failed"
    if is_deleting(job):
        return "Terminating"
    if _has_condition(job, "Suspended"):
        return "Suspended"
    if _has_condition(job, "FailureTarget"):
        return "FailureTarget"
    return "Running"


def job_completions(job: dict[str, Any]) -> str:
    spec = d(job.get("spec"))
    succeeded = num(get(job, "status", "succeeded"))
    if spec.get("completions") is not None:
        return f"{succeeded}/{num(spec.get('completions'))}"
    # batch/v1 defaulting: no completions and no parallelism means completions=parallelism=1
    parallelism = num(spec.get("parallelism"), 1)
    if parallelism > 1:
        return f"{succeeded}/1 of {parallelism}"
    return f"{succeeded}/1"


def job_duration(job: dict[str, Any], now: float) -> str:
    start = parse_time(get(job, "status", "startTime"))
    if start is None:
        return ""
    completion = parse_time(get(job, "status", "completionTime"))
    if completion is None:
        return human_duration(now - start)
    return human_duration(completion - start)


def job_row(job: dict[str, Any], now: float) -> list[Any]:
    names, images = layout_containers(template_containers(job))
    return [
        name(job),
        job_status(job),
        job_completions(job),
        job_duration(job, now),
        age(job, now),
        names,
        images,
        format_label_selector(get(job, "spec", "selector")),
    ]


JOB_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Status", description="Status of the job."),
        col("Completions", description="The number of pods which reached phase Succeeded."),
        col("Duration", description="Time required to complete the job."),
        AGE_COLUMN,
        col("Containers", priority=1, description=CONTAINERS_DOC),
        col("Images", priority=1, description=IMAGES_DOC),
        col("Selector", priority=1, description=_SELECTOR_DOC),
    ),
    row=job_row,
)


def cron_job_row(obj: dict[str, Any], now: float) -> list[Any]:
    spec = d(obj.get("spec"))
    last = get(obj, "status", "lastScheduleTime")
    names, images = layout_containers(get(spec, "jobTemplate", "spec", "template", "spec", "containers"))
    suspend = spec.get("suspend")
    return [
        name(obj),
        text(spec.get("schedule")),
        text(spec.get("timeZone")) if spec.get("timeZone") is not None else "<none>",
        print_bool_ptr(False if suspend is None else suspend),  # SetDefaults_CronJob: suspend=false
        len(lst(get(obj, "status", "active"))),
        "<none>" if last is None else since(last, now),
        age(obj, now),
        names,
        images,
        format_label_selector(get(spec, "jobTemplate", "spec", "selector")),
    ]


CRON_JOB_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        col("Schedule", description="The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."),
        col(
            "Timezone",
            description="The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.",
        ),
        col(
            "Suspend",
            "boolean",
            "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.",
        ),
        col("Active", "integer", "A list of pointers to currently running jobs."),
        col("Last Schedule", description="Information when was the last time the job was successfully scheduled."),
        AGE_COLUMN,
        col("Containers", priority=1, description=CONTAINERS_DOC),
        col("Images", priority=1, description=IMAGES_DOC),
        col("Selector", priority=1, description=_SELECTOR_DOC),
    ),
    row=cron_job_row,
)
