"""Tests for the Table printers: shape on sample and near-empty objects, and known cells."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from apis_samples import CREATED, SAMPLES

from kube_apiserver.apis import builtin_resources
from kube_apiserver.apis.printing import parse_time
from kube_apiserver.registry.resource_spec import ResourceSpec, TablePrinter

NOW = parse_time("2024-01-10T00:00:00Z") or 0.0
PRINTED = [r for r in builtin_resources() if r.printer is not None]
BY_KEY = {(r.group, r.version, r.resource): r for r in builtin_resources()}


def printer(group: str, resource: str, version: str = "v1") -> TablePrinter:
    p = BY_KEY[(group, version, resource)].printer
    assert p is not None
    return p


def row(group: str, resource: str, obj: dict[str, Any], version: str = "v1") -> list[Any]:
    return printer(group, resource, version).row(obj, NOW)


def cells(group: str, resource: str, obj: dict[str, Any], version: str = "v1") -> dict[str, Any]:
    p = printer(group, resource, version)
    return dict(zip([c.name for c in p.columns], p.row(obj, NOW), strict=True))


def _id(r: ResourceSpec) -> str:
    return f"{r.group_version}/{r.resource}"


def test_every_printer_has_a_sample() -> None:
    assert {(r.group, r.resource) for r in PRINTED} <= set(SAMPLES)


@pytest.mark.parametrize("resource", PRINTED, ids=_id)
def test_row_matches_columns(resource: ResourceSpec) -> None:
    assert resource.printer is not None
    columns = resource.printer.columns
    assert columns, resource.resource
    for column in columns:
        assert column.type in ("string", "integer", "number", "boolean", "date")
        assert column.priority in (0, 1)
    sample = SAMPLES[(resource.group, resource.resource)]
    frozen = copy.deepcopy(sample)
    assert len(resource.printer.row(sample, NOW)) == len(columns)
    assert sample == frozen  # printers do not mutate their input
    minimal = {"metadata": {"name": "x", "creationTimestamp": CREATED}}
    assert len(resource.printer.row(minimal, NOW)) == len(columns)
    assert len(resource.printer.row({}, NOW)) == len(columns)
    garbage = {"metadata": None, "spec": [], "status": "x", "subsets": 3, "data": None}
    assert len(resource.printer.row(garbage, NOW)) == len(columns)


def test_name_and_age_columns() -> None:
    for r in PRINTED:
        assert r.printer is not None
        names = [c.name for c in r.printer.columns]
        if "Age" in names:
            got = dict(zip(names, r.printer.row(SAMPLES[(r.group, r.resource)], NOW), strict=True))
            assert got["Age"] == "9d", r.resource
        if "Name" in names:
            assert r.printer.columns[names.index("Name")].format == "name"


# ---------------------------------------------------------------------------------------------
# pods


def pod(status: dict[str, Any], spec: dict[str, Any] | None = None, **metadata: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "p", "creationTimestamp": CREATED, **metadata},
        "spec": spec or {"containers": [{"name": "c"}]},
        "status": status,
    }


def test_pod_running_wide() -> None:
    got = cells("", "pods", SAMPLES[("", "pods")])
    assert got == {
        "Name": "web-0",
        "Ready": "2/2",
        "Status": "Running",
        "Restarts": "0",
        "Age": "9d",
        "IP": "10.0.0.5",
        "Node": "node-1",
        "Nominated Node": "<none>",
        "Readiness Gates": "1/1",
    }


def test_pod_minimal() -> None:
    got = cells("", "pods", {"metadata": {"name": "x", "creationTimestamp": CREATED}})
    assert got["Ready"] == "0/0"
    assert got["Status"] == "Pending"
    assert got["Restarts"] == "0"
    assert (got["IP"], got["Node"], got["Nominated Node"], got["Readiness Gates"]) == ("<none>",) * 4


def test_pod_statuses() -> None:
    creating = pod(
        {
            "phase": "Pending",
            "containerStatuses": [{"name": "c", "state": {"waiting": {"reason": "ContainerCreating"}}}],
        }
    )
    assert cells("", "pods", creating)["Status"] == "ContainerCreating"
    completed = pod(
        {
            "phase": "Succeeded",
            "containerStatuses": [{"name": "c", "state": {"terminated": {"reason": "Completed", "exitCode": 0}}}],
        }
    )
    assert cells("", "pods", completed)["Status"] == "Completed"
    exit_code = pod({"phase": "Failed", "containerStatuses": [{"name": "c", "state": {"terminated": {"exitCode": 2}}}]})
    assert cells("", "pods", exit_code)["Status"] == "ExitCode:2"
    terminating = pod({"phase": "Running"}, deletionTimestamp="2024-01-09T00:00:00Z")
    assert cells("", "pods", terminating)["Status"] == "Terminating"
    node_lost = pod({"phase": "Running", "reason": "NodeLost"}, deletionTimestamp="2024-01-09T00:00:00Z")
    assert cells("", "pods", node_lost)["Status"] == "Unknown"
    evicted = pod({"phase": "Failed", "reason": "Evicted"})
    assert cells("", "pods", evicted)["Status"] == "Evicted"
    gated = pod(
        {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]}
    )
    assert cells("", "pods", gated)["Status"] == "SchedulingGated"


def test_pod_init_containers() -> None:
    spec = {"initContainers": [{"name": "init"}, {"name": "init2"}], "containers": [{"name": "c"}]}
    waiting = pod({"phase": "Pending", "initContainerStatuses": [{"name": "init", "state": {"running": {}}}]}, spec)
    assert cells("", "pods", waiting)["Status"] == "Init:0/2"
    failing = pod(
        {
            "phase": "Pending",
            "initContainerStatuses": [{"name": "init", "state": {"waiting": {"reason": "CrashLoopBackOff"}}}],
        },
        spec,
    )
    assert cells("", "pods", failing)["Status"] == "Init:CrashLoopBackOff"
    sidecar_spec = {"initContainers": [{"name": "proxy", "restartPolicy": "Always"}], "containers": [{"name": "c"}]}
    sidecar = pod(
        {
            "phase": "Running",
            "conditions": [{"type": "Initialized", "status": "True"}],
            "initContainerStatuses": [
                {"name": "proxy", "started": True, "ready": True, "restartCount": 1, "state": {"running": {}}}
            ],
            "containerStatuses": [{"name": "c", "ready": True, "state": {"running": {}}}],
        },
        sidecar_spec,
    )
    got = cells("", "pods", sidecar)
    assert (got["Ready"], got["Status"], got["Restarts"]) == ("2/2", "Running", "1")


def test_pod_restarts_with_last_restart() -> None:
    crashing = pod(
        {
            "phase": "Running",
            "containerStatuses": [
                {
                    "name": "c",
                    "restartCount": 3,
                    "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                    "lastState": {"terminated": {"exitCode": 1, "finishedAt": "2024-01-09T23:55:00Z"}},
                }
            ],
        }
    )
    got = cells("", "pods", crashing)
    assert (got["Status"], got["Restarts"], got["Ready"]) == ("CrashLoopBackOff", "3 (5m ago)", "0/1")
