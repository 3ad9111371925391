"""batch/v1 validation: Job and CronJob messages and field paths of kube-apiserver 1.33, and the
robfig/cron schedule parser's errors."""

from __future__ import annotations

from typing import Any

import pytest
from validation_groups_helpers import errors, pod_template, with_changes

from kube_apiserver.apis.batch.validation.cron import go_parse_duration_error, parse_standard
from kube_apiserver.apis.batch.validation.cronjobs import validate_cron_job
from kube_apiserver.apis.batch.validation.jobs import validate_job, validate_job_update

UID = "0b9b8c0a-6a3b-4d0e-9a47-1f0b3c7d2e11"
GENERATED = {
    "controller-uid": UID,
    "job-name": "pi",
    "batch.kubernetes.io/controller-uid": UID,
    "batch.kubernetes.io/job-name": "pi",
}


def job(**changes: Any) -> dict[str, Any]:
    obj = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "pi", "namespace": "default", "uid": UID},
        "spec": {
            "parallelism": 1,
            "completions": 1,
            "backoffLimit": 6,
            "completionMode": "NonIndexed",
            "suspend": False,
            "manualSelector": False,
            "podReplacementPolicy": "TerminatingOrFailed",
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": UID}},
            "template": pod_template(GENERATED, restart="Never"),
        },
    }
    return with_changes(obj, **changes)


def test_valid_job() -> None:
    assert validate_job(job()) == []


def test_negative_counts() -> None:
    obj = job(spec__parallelism=-1, spec__completions=-2, spec__backoffLimit=-3, spec__ttlSecondsAfterFinished=-4)
    assert errors(validate_job(obj)) == [
        "spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
        "spec.completions: Invalid value: -2: must be greater than or equal to 0",
        "spec.backoffLimit: Invalid value: -3: must be greater than or equal to 0",
        "spec.ttlSecondsAfterFinished: Invalid value: -4: must be greater than or equal to 0",
    ]


def test_restart_policy() -> None:
    assert errors(validate_job(job(spec__template__spec__restartPolicy="Always"))) == [
        'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'
    ]
    # the pod template's own check comes first, then the job's narrower one
    assert errors(validate_job(job(spec__template__spec__restartPolicy="Sometimes"))) == [
        'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
        'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "OnFailure", "Never"',
    ]


def test_completion_mode() -> None:
    assert errors(validate_job(job(spec__completionMode="Sequential"))) == [
        'spec.completionMode: Unsupported value: "Sequential": supported values: "NonIndexed", "Indexed"'
    ]
    assert errors(validate_job(job(spec__completionMode="Indexed", spec__completions=None))) == [
        "spec.completions: Required value: when completion mode is Indexed"
    ]
    obj = job(spec__backoffLimitPerIndex=1)
    assert errors(validate_job(obj)) == [
        "spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode"
    ]


def test_indexed_job_name_must_leave_room_for_the_index() -> None:
    name = "a" * 62
    obj = job(metadata__name=name, spec__completionMode="Indexed", spec__completions=10)
    obj["spec"]["template"]["metadata"]["labels"]["job-name"] = name
    obj["spec"]["template"]["metadata"]["labels"]["batch.kubernetes.io/job-name"] = name
    assert errors(validate_job(obj))[-1] == (
        f'metadata.name: Invalid value: "{name}": will not able to create pod with invalid DNS label: {name}-9'
    )


def test_generated_selector_and_labels() -> None:
    obj = job()
    obj["spec"]["template"]["metadata"]["labels"]["job-name"] = "other"
    obj["spec"]["template"]["metadata"]["labels"].pop("batch.kubernetes.io/controller-uid")
    obj["spec"]["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": "nope"}}
    labels = obj["spec"]["template"]["metadata"]["labels"]
    shown = ", ".join(f'"{k}":"{labels[k]}"' for k in sorted(labels))
    assert errors(validate_job(obj)) == [
        f"spec.template.metadata.labels[job-name]: Invalid value: map[string]string{{{shown}}}: must be 'pi'",
        f"spec.template.metadata.labels[batch.kubernetes.io/controller-uid]: Required value: must be '{UID}'",
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"batch.kubernetes.io/controller-uid":'
        '"nope"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` not auto-generated',
        f"spec.template.metadata.labels: Invalid value: map[string]string{{{shown}}}: "
        "`selector` does not match template `labels`",
    ]


def test_manual_selector() -> None:
    obj = job(spec__manualSelector=True, spec__selector={"matchLabels": {"app": "x"}})
    obj["spec"]["template"]["metadata"]["labels"] = {"app": "x"}
    assert validate_job(obj) == []
    # a nil selector selects nothing, so the template labels are reported too
    assert errors(validate_job(with_changes(obj, spec__selector=None))) == [
        "spec.selector: Required value",
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: '
        "`selector` does not match template `labels`",
    ]


def test_pod_failure_policy() -> None:
    policy = {
        "rules": [
            {"action": "Explode", "onExitCodes": {"operator": "In", "values": [0, 3, 3, 1]}},
            {"action": "", "onPodConditions": [{"type": "DisruptionTarget", "status": "Maybe"}]},
            {"action": "Ignore"},
        ]
    }
    obj = job(spec__podFailurePolicy=policy, spec__podReplacementPolicy="Failed")
    assert errors(validate_job(obj)) == [
        'spec.podFailurePolicy.rules[0].action: Unsupported value: "Explode": supported values: "Count", "FailIndex", '
        '"FailJob", "Ignore"',
        "spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator",
        "spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 3",
        "spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{0, 3, 3, 1}: must be ordered",
        'spec.podFailurePolicy.rules[1].action: Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]',
        'spec.podFailurePolicy.rules[1].onPodConditions[0].status: Unsupported value: "Maybe": supported values: '
        '"False", "True", "Unknown"',
        "spec.podFailurePolicy.rules[2]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required",
    ]
    rules = [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1]}}]
    obj = job(spec__podFailurePolicy={"rules": rules})
    obj["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
    assert errors(validate_job(obj)) == [
        'spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"',
        'spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is '
        "specified",
    ]


def test_job_update_immutable_fields() -> None:
    old = job()
    changed = job(spec__completions=3, spec__template__spec__containers=[{"name": "web", "image": "busybox"}])
    msgs = errors(validate_job_update(changed, old))
    assert msgs[0] == "spec.completions: Invalid value: 3: field is immutable"
    assert msgs[1].startswith("spec.template: Invalid value: core.PodTemplateSpec{") and msgs[1].endswith(
        ": field is immutable"
    )
    selector = {"matchLabels": {"batch.kubernetes.io/controller-uid": UID, "x": "y"}}
    assert errors(validate_job_update(job(spec__selector=selector), old)) == [
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"batch.kubernetes.io/controller-uid":'
        f'"{UID}", "x":"y"}}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}}: field is immutable'
    ]
    assert validate_job_update(job(spec__parallelism=5, spec__backoffLimit=2), old) == []


def test_suspended_job_may_change_scheduling_directives() -> None:
    old = job(spec__suspend=True)
    new = job(spec__suspend=True, spec__template__spec__nodeSelector={"zone": "a"})
    assert validate_job_update(new, old) == []
    assert validate_job_update(new, job()) != []


def cron_job(**changes: Any) -> dict[str, Any]:
    obj = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "hello", "namespace": "default"},
        "spec": {
            "schedule": "*/5 * * * *",
            "concurrencyPolicy": "Allow",
            "suspend": False,
            "successfulJobsHistoryLimit": 3,
            "failedJobsHistoryLimit": 1,
            "jobTemplate": {"spec": {"backoffLimit": 6, "template": pod_template({}, restart="OnFailure")}},
        },
    }
    return with_changes(obj, **changes)


def test_valid_cron_job() -> None:
    assert validate_cron_job(cron_job()) == []
    for schedule in ("@hourly", "@every 1h30m", "0 0 1 jan-mar mon-fri", "*/15 9-17 * * 1,3,5", "0 0 ? * SUN"):
        assert validate_cron_job(cron_job(spec__schedule=schedule)) == [], schedule
    assert validate_cron_job(cron_job(spec__timeZone="Europe/Paris")) == []


def test_bad_schedules() -> None:
    cases = {
        "61 * * * *": "end of range (61) above maximum (59): 61",
        "* * * *": "expected exactly 5 fields, found 4: [* * * *]",
        "0 0 0 * *": "beginning of range (0) below minimum (1): 0",
        "x * * * *": 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax',
        "5-1 * * * *": "beginning of range (5) beyond end of range (1): 5-1",
        "*/0 * * * *": "step of range should be a positive number: */0",
        "1-2-3 * * * *": "too many hyphens: 1-2-3",
        "@weekdays": "unrecognized descriptor: @weekdays",
        "@every 5x": 'failed to parse duration @every 5x: time: unknown unit "x" in duration "5x"',
    }
    for schedule, detail in cases.items():
        assert errors(validate_cron_job(cron_job(spec__schedule=schedule))) == [
            f'spec.schedule: Invalid value: "{schedule}": {detail}'
        ], schedule
    assert errors(validate_cron_job(cron_job(spec__schedule=""))) == ["spec.schedule: Required value"]


def test_time_zone_in_schedule_is_forbidden() -> None:
    assert errors(validate_cron_job(cron_job(spec__schedule="TZ=UTC 0 * * * *"))) == [
        'spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead'
    ]
    assert errors(validate_cron_job(cron_job(spec__schedule="CRON_TZ=Mars/Base 0 * * * *"))) == [
        'spec.schedule: Invalid value: "CRON_TZ=Mars/Base 0 * * * *": provided bad location Mars/Base: '
        "unknown time zone Mars/Base",
        'spec.schedule: Invalid value: "CRON_TZ=Mars/Base 0 * * * *": cannot use TZ or CRON_TZ in schedule, '
        "use timeZone field instead",
    ]


def test_time_zone_field() -> None:
    assert errors(validate_cron_job(cron_job(spec__timeZone="Europe/Pariss"))) == [
        'spec.timeZone: Invalid value: "Europe/Pariss": unknown time zone Europe/Pariss'
    ]
    assert errors(validate_cron_job(cron_job(spec__timeZone="Etc/../UTC"))) == [
        'spec.timeZone: Invalid value: "Etc/../UTC": unknown time zone Etc/../UTC'
    ]
    assert errors(validate_cron_job(cron_job(spec__timeZone=""))) == [
        'spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string'
    ]
    assert errors(validate_cron_job(cron_job(spec__timeZone="Local"))) == [
        'spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in '
        "https://www.iana.org/time-zones"
    ]


def test_cron_job_spec_rules() -> None:
    obj = cron_job(
        spec__concurrencyPolicy="Sometimes",
        spec__startingDeadlineSeconds=-1,
        spec__successfulJobsHistoryLimit=-1,
        spec__jobTemplate__spec__selector={"matchLabels": {"a": "b"}},
        spec__jobTemplate__spec__manualSelector=True,
    )
    assert errors(validate_cron_job(obj)) == [
        "spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0",
        'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
        'spec.jobTemplate.spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"b"}, '
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be auto-generated",
        'spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"',
        "spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
    ]
    assert errors(validate_cron_job(cron_job(spec__jobTemplate__spec__template__spec__restartPolicy="Always"))) == [
        'spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'
    ]


def test_cron_job_name_length() -> None:
    name = "c" * 53
    assert errors(validate_cron_job(cron_job(metadata__name=name))) == [
        f'metadata.name: Invalid value: "{name}": must be no more than 52 characters'
    ]
    assert validate_cron_job(cron_job(metadata__name="c" * 52)) == []


@pytest.mark.parametrize(
    ("duration", "error"),
    [
        ("1h30m", None),
        ("1.5s", None),
        ("0", None),
        ("", 'time: invalid duration ""'),
        ("10", 'time: missing unit in duration "10"'),
        (".s", 'time: invalid duration ".s"'),
        ("3d", 'time: unknown unit "d" in duration "3d"'),
    ],
)
def test_go_durations(duration: str, error: str | None) -> None:
    assert go_parse_duration_error(duration) == error


def test_parse_standard_ranges() -> None:
    assert parse_standard("0 24 * * *") == "end of range (24) above maximum (23): 24"
    assert parse_standard("0 0 * 13 *") == "end of range (13) above maximum (12): 13"
    assert parse_standard("0 0 * * 7") == "end of range (7) above maximum (6): 7"
    assert parse_standard("0 0 * * -1") == 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'
    assert parse_standard("1,,2 * * * *") is None
