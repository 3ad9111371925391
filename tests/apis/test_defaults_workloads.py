"""Golden tests of the apps/v1 and batch/v1 defaults (pkg/apis/apps/v1 and batch/v1 defaults_test.go,
and the objects kubectl shows for a new Deployment, StatefulSet, Job, CronJob), and of the Job
strategy's generated selector."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kube_apiserver.apis import builtin_resources
from kube_apiserver.apis.batch.job_strategy import JobStrategy
from kube_apiserver.apis.scheme import build_scheme

CONTAINER_DEFAULTS = {
    "resources": {},
    "terminationMessagePath": "/dev/termination-log",
    "terminationMessagePolicy": "File",
}
TEMPLATE_SPEC_DEFAULTS = {
    "dnsPolicy": "ClusterFirst",
    "restartPolicy": "Always",
    "schedulerName": "default-scheduler",
    "securityContext": {},
    "terminationGracePeriodSeconds": 30,
}


def defaulted(obj: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    build_scheme().default(out)
    return out


def template(image: str = "nginx:1.27", **spec: Any) -> dict[str, Any]:
    return {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": image}], **spec}}


def defaulted_template(image: str = "nginx:1.27", pull: str = "IfNotPresent", **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"labels": {"app": "web"}},
        "spec": {
            "containers": [{"name": "c", "image": image, "imagePullPolicy": pull, **CONTAINER_DEFAULTS}],
            **TEMPLATE_SPEC_DEFAULTS,
            **spec,
        },
    }


SELECTOR = {"matchLabels": {"app": "web"}}


def test_deployment():
    dep = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"selector": SELECTOR, "template": template()},
    }
    assert defaulted(dep) == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 1,
            "selector": SELECTOR,
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600,
            "template": defaulted_template(),
        },
    }


def test_deployment_recreate_and_partial_rolling_update():
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"strategy": {"type": "Recreate"}, "replicas": 0}}
    out = defaulted(dep)["spec"]
    assert out["strategy"] == {"type": "Recreate"}
    assert out["replicas"] == 0
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"strategy": {"rollingUpdate": {"maxSurge": 0}}}}
    assert defaulted(dep)["spec"]["strategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": 0, "maxUnavailable": "25%"},
    }


def test_replica_set():
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "spec": {"selector": SELECTOR, "template": template()}}
    assert defaulted(rs)["spec"] == {"replicas": 1, "selector": SELECTOR, "template": defaulted_template()}


def test_daemon_set():
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "spec": {"selector": SELECTOR, "template": template()}}
    assert defaulted(ds)["spec"] == {
        "selector": SELECTOR,
        "template": defaulted_template(),
        "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
        "revisionHistoryLimit": 10,
    }
    ds["spec"]["updateStrategy"] = {"type": "OnDelete"}
    assert defaulted(ds)["spec"]["updateStrategy"] == {"type": "OnDelete"}


def test_stateful_set():
    sts = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db"},
        "spec": {
            "serviceName": "db",
            "selector": SELECTOR,
            "template": template(),
            "volumeClaimTemplates": [
                {
                    "metadata": {"name": "data"},
                    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
                }
            ],
        },
    }
    assert defaulted(sts)["spec"] == {
        "serviceName": "db",
        "selector": SELECTOR,
        "replicas": 1,
        "podManagementPolicy": "OrderedReady",
        "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
        "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
        "revisionHistoryLimit": 10,
        "template": defaulted_template(),
        "volumeClaimTemplates": [
            {
                "metadata": {"name": "data"},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "1Gi"}},
                    "volumeMode": "Filesystem",
                },
                "status": {"phase": "Pending"},
            }
        ],
    }


def test_stateful_set_explicit_strategies():
    # TestSetDefaultStatefulSet: an explicit RollingUpdate without rollingUpdate gets no partition;
    # OnDelete is left alone.
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "spec": {"updateStrategy": {"type": "RollingUpdate"}}}
    assert defaulted(sts)["spec"]["updateStrategy"] == {"type": "RollingUpdate"}
    sts["spec"]["updateStrategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2}}
    assert defaulted(sts)["spec"]["updateStrategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": 2, "partition": 0},
    }
    sts["spec"]["updateStrategy"] = {"type": "OnDelete"}
    sts["spec"]["persistentVolumeClaimRetentionPolicy"] = {"whenDeleted": "Delete"}
    sts["spec"]["podManagementPolicy"] = "Parallel"
    out = defaulted(sts)["spec"]
    assert out["updateStrategy"] == {"type": "OnDelete"}
    assert out["persistentVolumeClaimRetentionPolicy"] == {"whenDeleted": "Delete", "whenScaled": "Retain"}
    assert out["podManagementPolicy"] == "Parallel"


JOB_TEMPLATE = {"spec": {"restartPolicy": "Never", "containers": [{"name": "pi", "image": "perl:5.34"}]}}
DEFAULTED_JOB_TEMPLATE = {
    "spec": {
        "containers": [{"name": "pi", "image": "perl:5.34", "imagePullPolicy": "IfNotPresent", **CONTAINER_DEFAULTS}],
        **TEMPLATE_SPEC_DEFAULTS,
        "restartPolicy": "Never",
    }
}


def test_job():
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"}, "spec": {"template": JOB_TEMPLATE}}
    assert defaulted(job) == {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "pi"},
        "spec": {
            "backoffLimit": 6,
            "completionMode": "NonIndexed",
            "completions": 1,
            "manualSelector": False,
            "parallelism": 1,
            "podReplacementPolicy": "TerminatingOrFailed",
            "suspend": False,
            "template": DEFAULTED_JOB_TEMPLATE,
        },
    }


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        # TestSetDefaultJob: completions/parallelism
        ({"completions": 3}, {"completions": 3, "parallelism": 1}),
        ({"parallelism": 4}, {"parallelism": 4}),
        ({"completions": 0, "parallelism": 0}, {"completions": 0, "parallelism": 0}),
        # a per-index backoff limit turns the global one off
        ({"backoffLimitPerIndex": 1, "completionMode": "Indexed"}, {"backoffLimit": 2147483647}),
        ({"backoffLimit": 0}, {"backoffLimit": 0}),
        ({"podFailurePolicy": {"rules": []}}, {"podReplacementPolicy": "Failed"}),
        ({"podReplacementPolicy": "Failed"}, {"podReplacementPolicy": "Failed"}),
        ({"suspend": True, "manualSelector": True}, {"suspend": True, "manualSelector": True}),
    ],
)
def test_job_spec_defaults(given, expected):
    job = {"apiVersion": "batch/v1", "kind": "Job", "spec": {"template": JOB_TEMPLATE, **given}}
    out = defaulted(job)["spec"]
    assert {k: out.get(k) for k in expected} == expected
    if "completions" not in given and "parallelism" in given:
        assert "completions" not in out


def test_job_pod_failure_policy_condition_status():
    rules = [
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}, {"type": "X", "status": "False"}]},
        {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}},
    ]
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "spec": {"template": JOB_TEMPLATE, "podFailurePolicy": {"rules": rules}},
    }
    assert defaulted(job)["spec"]["podFailurePolicy"]["rules"] == [
        {
            "action": "Ignore",
            "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}, {"type": "X", "status": "False"}],
        },
        {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}},
    ]


def test_job_labels_from_template():
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j"},
        "spec": {"template": {**JOB_TEMPLATE, "metadata": {"labels": {"app": "batch"}}}},
    }
    assert defaulted(job)["metadata"]["labels"] == {"app": "batch"}
    job["metadata"]["labels"] = {"own": "x"}
    assert defaulted(job)["metadata"]["labels"] == {"own": "x"}


def test_cron_job_job_template_gets_only_pod_defaults():
    cj = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "hello"},
        "spec": {"schedule": "*/1 * * * *", "jobTemplate": {"spec": {"template": JOB_TEMPLATE}}},
    }
    assert defaulted(cj) == {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "hello"},
        "spec": {
            "schedule": "*/1 * * * *",
            "concurrencyPolicy": "Allow",
            "suspend": False,
            "successfulJobsHistoryLimit": 3,
            "failedJobsHistoryLimit": 1,
            "jobTemplate": {"spec": {"template": DEFAULTED_JOB_TEMPLATE}},
        },
    }


def _job_strategy() -> JobStrategy:
    spec = next(r for r in builtin_resources() if r.group == "batch" and r.resource == "jobs")
    return JobStrategy(spec, build_scheme())


def _create(job: dict[str, Any], uid: str) -> dict[str, Any]:
    """What the Store does on create: defaults, system metadata, then prepare_for_create."""
    strategy = _job_strategy()
    job = copy.deepcopy(job)
    strategy.default(job)
    job["metadata"]["uid"] = uid
    strategy.prepare_for_create(job)
    return job


UID = "3f2c1a9e-8d7b-4c6a-9e5f-0a1b2c3d4e5f"


def test_job_strategy_generates_selector_and_labels():
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"}, "spec": {"template": JOB_TEMPLATE}}
    out = _create(job, UID)
    labels = {
        "batch.kubernetes.io/controller-uid": UID,
        "batch.kubernetes.io/job-name": "pi",
        "controller-uid": UID,
        "job-name": "pi",
    }
    assert out["spec"]["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": UID}}
    assert out["spec"]["template"]["metadata"] == {"labels": labels}
    # read back from storage, kube defaults the job again: it gets its template's labels
    assert out["metadata"]["labels"] == labels
    assert out["metadata"]["generation"] == 1


def test_job_strategy_keeps_user_labels_and_selector_entries():
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "pi", "labels": {"team": "a"}},
        "spec": {
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "wrong"}},
            "template": {**JOB_TEMPLATE, "metadata": {"labels": {"job-name": "mine", "tier": "x"}}},
        },
    }
    out = _create(job, UID)
    assert out["metadata"]["labels"] == {"team": "a"}
    assert out["spec"]["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": "wrong"}}
    assert out["spec"]["template"]["metadata"]["labels"] == {
        "job-name": "mine",
        "tier": "x",
        "batch.kubernetes.io/job-name": "pi",
        "controller-uid": UID,
        "batch.kubernetes.io/controller-uid": UID,
    }


def test_job_strategy_manual_selector():
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "pi"},
        "spec": {
            "manualSelector": True,
            "selector": {"matchLabels": {"app": "x"}},
            "template": {**JOB_TEMPLATE, "metadata": {"labels": {"app": "x"}}},
        },
    }
    out = _create(job, UID)
    assert out["spec"]["selector"] == {"matchLabels": {"app": "x"}}
    assert out["spec"]["template"]["metadata"]["labels"] == {"app": "x"}
    assert out["metadata"]["labels"] == {"app": "x"}
