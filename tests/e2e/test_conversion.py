"""One storage, several versions: autoscaling/v1 and autoscaling/v2 HorizontalPodAutoscalers are one object
(stored as v2, read and written in either), and core/v1 and events.k8s.io/v1 Events are one resource (stored
as core/v1), as kubectl and the official Python client see them."""

from __future__ import annotations

import datetime
import json

import pytest
from e2e_helpers import parse_table
from kubernetes import client, watch

CPU_60 = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}
TWO_METRICS = [
    {"type": "Resource", "resource": {"name": "memory", "target": {"type": "Utilization", "averageUtilization": 70}}},
    {
        "type": "Pods",
        "pods": {"metric": {"name": "packets-per-second"}, "target": {"type": "AverageValue", "averageValue": "1k"}},
    },
]
# Every field given, so that no default changes what the annotation holds.
BEHAVIOR = {
    "scaleUp": {
        "stabilizationWindowSeconds": 0,
        "selectPolicy": "Max",
        "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15}],
    },
    "scaleDown": {
        "stabilizationWindowSeconds": 120,
        "selectPolicy": "Min",
        "policies": [{"type": "Percent", "value": 10, "periodSeconds": 60}],
    },
}
METRICS_ANNOTATION = (
    '[{"type":"Resource","resource":{"name":"memory","targetAverageUtilization":70}},'
    '{"type":"Pods","pods":{"metricName":"packets-per-second","targetAverageValue":"1k"}}]'
)
BEHAVIOR_ANNOTATION = (
    '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max",'
    '"Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15}],"Tolerance":null},'
    '"ScaleDown":{"StabilizationWindowSeconds":120,"SelectPolicy":"Min",'
    '"Policies":[{"Type":"Percent","Value":10,"PeriodSeconds":60}],"Tolerance":null}}'
)
V1_HPAS = "horizontalpodautoscalers.v1.autoscaling"  # kubectl drops the version of a short name ("hpa.v1...")


@pytest.fixture(scope="module")
def autoscaling_v1(api_client):
    return client.AutoscalingV1Api(api_client)


@pytest.fixture(scope="module")
def autoscaling_v2(api_client):
    return client.AutoscalingV2Api(api_client)


@pytest.fixture(scope="module")
def events_v1(api_client):
    return client.EventsV1Api(api_client)


def v1_manifest(name: str, cpu: int = 60) -> dict:
    return {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 1,
            "maxReplicas": 5,
            "targetCPUUtilizationPercentage": cpu,
        },
    }


def v2_manifest(name: str) -> dict:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 2,
            "maxReplicas": 10,
            "metrics": TWO_METRICS,
            "behavior": BEHAVIOR,
        },
    }


def kubectl_json(server, *args: str) -> dict:
    return json.loads(server.kubectl(*args, "-o", "json").stdout)


def watch_events(server, path: str, resource_version: str, count: int) -> list[dict]:
    """The first count events of a watch from resource_version (replayed from the watch cache's history)."""
    events: list[dict] = []
    url = f"{path}?watch=true&resourceVersion={resource_version}&timeoutSeconds=5"
    with server.request("GET", url, stream=True) as r:
        assert r.status_code == 200, r.text
        for line in r.iter_lines():
            if line:
                events.append(json.loads(line))
                if len(events) == count:
                    break
    assert len(events) == count, events
    return events


# --- HorizontalPodAutoscaler ----------------------------------------------------------------------


def test_hpa_created_as_v1_reads_as_v2(server, ns, autoscaling_v1, autoscaling_v2):
    server.kubectl("apply", "-n", ns, "-f", "-", input=json.dumps(v1_manifest("cpu")))
    v2 = kubectl_json(server, "get", "hpa.v2.autoscaling", "cpu", "-n", ns)
    assert v2["apiVersion"] == "autoscaling/v2"
    assert v2["spec"]["metrics"] == [CPU_60]
    assert "targetCPUUtilizationPercentage" not in v2["spec"]

    got = autoscaling_v2.read_namespaced_horizontal_pod_autoscaler("cpu", ns)
    (metric,) = got.spec.metrics
    assert (metric.type, metric.resource.name) == ("Resource", "cpu")
    assert (metric.resource.target.type, metric.resource.target.average_utilization) == ("Utilization", 60)

    v1 = autoscaling_v1.read_namespaced_horizontal_pod_autoscaler("cpu", ns)
    assert v1.spec.target_cpu_utilization_percentage == 60
    assert v1.metadata.uid == got.metadata.uid
    assert v1.metadata.resource_version == got.metadata.resource_version
    assert not (v1.metadata.annotations or {}).keys() - {"kubectl.kubernetes.io/last-applied-configuration"}


def test_hpa_created_as_v2_reads_as_v1_with_the_annotations(server, ns, autoscaling_v1, autoscaling_v2):
    autoscaling_v2.create_namespaced_horizontal_pod_autoscaler(ns, v2_manifest("two"))
    v1 = kubectl_json(server, "get", V1_HPAS, "two", "-n", ns)
    assert v1["apiVersion"] == "autoscaling/v1"
    assert v1["spec"] == {
        "scaleTargetRef": {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"},
        "minReplicas": 2,
        "maxReplicas": 10,
    }
    assert v1["status"] == {"currentReplicas": 0, "desiredReplicas": 0}
    assert v1["metadata"]["annotations"] == {
        "autoscaling.alpha.kubernetes.io/behavior": BEHAVIOR_ANNOTATION,
        "autoscaling.alpha.kubernetes.io/metrics": METRICS_ANNOTATION,
    }

    # A v1 client writes it back with a change: the v2 fields come back from the annotations.
    v1["spec"]["maxReplicas"] = 12
    server.kubectl("replace", "-n", ns, "-f", "-", input=json.dumps(v1))
    back = autoscaling_v2.read_namespaced_horizontal_pod_autoscaler("two", ns)
    assert back.spec.max_replicas == 12
    assert _api_dict(back.spec.metrics) == TWO_METRICS
    raw = server.request("GET", f"/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers/two").json()
    assert raw["spec"]["metrics"] == TWO_METRICS
    assert raw["spec"]["behavior"] == BEHAVIOR
    assert "annotations" not in raw["metadata"]
    assert "generation" not in raw["metadata"]  # an HPA has none in 1.33

    # The Python client's v1 API does the same round trip.
    hpa = autoscaling_v1.read_namespaced_horizontal_pod_autoscaler("two", ns)
    hpa.spec.min_replicas = 3
    autoscaling_v1.replace_namespaced_horizontal_pod_autoscaler("two", ns, hpa)
    raw = server.request("GET", f"/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers/two").json()
    assert raw["spec"]["minReplicas"] == 3
    assert raw["spec"]["metrics"] == TWO_METRICS and raw["spec"]["behavior"] == BEHAVIOR


def _api_dict(models) -> list[dict]:
    """Client models back in the API's JSON form."""
    return [client.ApiClient().sanitize_for_serialization(m) for m in models]


def test_hpa_list_and_watch_through_both_versions(server, ns, autoscaling_v1):
    base = f"/namespaces/{ns}/horizontalpodautoscalers"
    start = server.request("GET", f"/apis/autoscaling/v1{base}").json()["metadata"]["resourceVersion"]
    server.kubectl("create", "-n", ns, "-f", "-", input=json.dumps(v1_manifest("w1")))
    server.kubectl("create", "-n", ns, "-f", "-", input=json.dumps(v2_manifest("w2")))
    server.kubectl("patch", "hpa", "w2", "-n", ns, "--type=merge", "-p", '{"spec":{"maxReplicas":7}}')
    server.kubectl("delete", "hpa", "w1", "-n", ns)

    lists = {v: server.request("GET", f"/apis/autoscaling/{v}{base}").json() for v in ("v1", "v2")}
    for v, lst in lists.items():
        assert lst["apiVersion"] == f"autoscaling/{v}" and lst["kind"] == "HorizontalPodAutoscalerList"
        # a typed list's items leave out apiVersion: each is in the list's version (v2's metrics, v1's not)
        assert [("apiVersion" in i, "metrics" in i["spec"]) for i in lst["items"]] == [(False, v == "v2")]
    (i1,), (i2,) = lists["v1"]["items"], lists["v2"]["items"]
    for k in ("name", "uid", "resourceVersion", "creationTimestamp"):
        assert i1["metadata"][k] == i2["metadata"][k]
    assert i1["spec"]["maxReplicas"] == i2["spec"]["maxReplicas"] == 7

    streams = {v: watch_events(server, f"/apis/autoscaling/{v}{base}", start, 4) for v in ("v1", "v2")}
    summary = {
        v: [(e["type"], e["object"]["metadata"]["name"], e["object"]["metadata"]["resourceVersion"]) for e in evs]
        for v, evs in streams.items()
    }
    assert summary["v1"] == summary["v2"]
    assert [(t, n) for t, n, _ in summary["v1"]] == [
        ("ADDED", "w1"),
        ("ADDED", "w2"),
        ("MODIFIED", "w2"),
        ("DELETED", "w1"),
    ]
    for v, evs in streams.items():
        assert {e["object"]["apiVersion"] for e in evs} == {f"autoscaling/{v}"}
    assert streams["v1"][0]["object"]["spec"]["targetCPUUtilizationPercentage"] == 60
    assert streams["v2"][0]["object"]["spec"]["metrics"] == [CPU_60]
    assert streams["v1"][1]["object"]["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/metrics"] == (
        METRICS_ANNOTATION
    )

    # The Python client's watch of the v1 API sees the v2 object's changes.
    w = watch.Watch()
    seen = []
    for ev in w.stream(
        autoscaling_v1.list_namespaced_horizontal_pod_autoscaler, ns, resource_version=start, timeout_seconds=3
    ):
        seen.append((ev["type"], ev["object"].metadata.name, ev["object"].spec.max_replicas))
        if len(seen) == 4:
            w.stop()
    assert seen == [("ADDED", "w1", 5), ("ADDED", "w2", 10), ("MODIFIED", "w2", 7), ("DELETED", "w1", 5)]


def test_hpa_label_selector_and_table_in_v1(server, ns):
    m = v2_manifest("labelled")
    m["metadata"]["labels"] = {"tier": "web"}
    server.kubectl("create", "-n", ns, "-f", "-", input=json.dumps(m))
    server.kubectl("create", "-n", ns, "-f", "-", input=json.dumps(v1_manifest("other")))
    names = server.kubectl("get", V1_HPAS, "-n", ns, "-l", "tier=web", "-o", "name").stdout.split()
    assert names == ["horizontalpodautoscaler.autoscaling/labelled"]
    rows = parse_table(server.kubectl("get", V1_HPAS, "-n", ns).stdout)
    assert {r["NAME"]: r["TARGETS"] for r in rows} == {
        "labelled": "memory: <unknown>/70%, <unknown>/1k",  # printed from the v2 metrics, as upstream
        "other": "cpu: <unknown>/60%",
    }


def test_hpa_table_through_v1_prints_the_stored_metrics_in_their_order(server, ns):
    """kube-apiserver prints the object it decoded from storage, whichever version is asked for: an HPA made
    with the CPU metric first lists it first through autoscaling/v1 too, although v1 carries it apart."""
    m = v2_manifest("cpu-first")
    cpu = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}
    m["spec"]["metrics"] = [cpu, *TWO_METRICS]
    server.kubectl("create", "-n", ns, "-f", "-", input=json.dumps(m))
    want = "cpu: <unknown>/50%, memory: <unknown>/70% + 1 more..."
    for resource in (V1_HPAS, "horizontalpodautoscalers.v2.autoscaling"):
        rows = parse_table(server.kubectl("get", resource, "-n", ns).stdout)
        assert [r["TARGETS"] for r in rows] == [want], resource
        rows = parse_table(server.kubectl("get", resource, "cpu-first", "-n", ns).stdout)
        assert [r["TARGETS"] for r in rows] == [want], resource


# --- Event ------------------------------------------------------------------------------------------


def core_event(name: str, ns: str, pod: str, message: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name},
        "involvedObject": {"kind": "Pod", "namespace": ns, "name": pod, "apiVersion": "v1"},
        "reason": "Pulled",
        "message": message,
        "type": "Normal",
        "source": {"component": "kubelet", "host": "node-1"},
        "firstTimestamp": "2025-01-01T00:00:00Z",
        "lastTimestamp": "2025-01-01T00:00:05Z",
        "count": 2,
    }


def test_core_events_are_events_k8s_io_events(server, ns):
    ev = core_event("pulled.1", ns, "web-0", "Successfully pulled image")
    server.kubectl("create", "-n", ns, "-f", "-", input=json.dumps(ev))
    got = server.request("GET", f"/apis/events.k8s.io/v1/namespaces/{ns}/events/pulled.1").json()
    core = server.request("GET", f"/api/v1/namespaces/{ns}/events/pulled.1").json()
    assert got["apiVersion"] == "events.k8s.io/v1"
    assert got["note"] == "Successfully pulled image"
    assert got["regarding"] == {"kind": "Pod", "namespace": ns, "name": "web-0", "apiVersion": "v1"}
    assert got["deprecatedSource"] == {"component": "kubelet", "host": "node-1"}
    assert got["deprecatedFirstTimestamp"] == "2025-01-01T00:00:00Z"
    assert got["deprecatedLastTimestamp"] == "2025-01-01T00:00:05Z"
    assert got["deprecatedCount"] == 2
    assert got["eventTime"] is None
    assert "message" not in got and "involvedObject" not in got
    for k in ("uid", "resourceVersion", "creationTimestamp"):
        assert got["metadata"][k] == core["metadata"][k]

    # Field selectors in events.k8s.io's spelling, on the events.k8s.io shape.
    server.kubectl("create", "-n", ns, "-f", "-", input=json.dumps(core_event("other.1", ns, "db-0", "x")))
    selected = server.request(
        "GET", f"/apis/events.k8s.io/v1/namespaces/{ns}/events?fieldSelector=regarding.name%3Dweb-0"
    ).json()
    assert [i["metadata"]["name"] for i in selected["items"]] == ["pulled.1"]


def test_events_k8s_io_events_are_core_events(server, ns, core_v1, events_v1):
    body = client.EventsV1Event(
        metadata=client.V1ObjectMeta(name="scaled.1"),
        # a MicroTime needs its six fraction digits (the client writes a datetime with isoformat(), which
        # leaves them out when they are 0, and kube-apiserver then refuses the event)
        event_time=datetime.datetime(2025, 1, 1, 0, 0, 0, 120000, tzinfo=datetime.UTC),
        reporting_controller="example.com/scaler",
        reporting_instance="scaler-1",
        action="Scale",
        reason="Scaled",
        regarding=client.V1ObjectReference(kind="Deployment", name="web", namespace=ns, api_version="apps/v1"),
        note="Scaled up to 3",
        type="Normal",
    )
    created = events_v1.create_namespaced_event(ns, body)
    assert created.note == "Scaled up to 3" and created.reporting_controller == "example.com/scaler"
    raw = server.request("GET", f"/apis/events.k8s.io/v1/namespaces/{ns}/events/scaled.1").json()
    assert raw["eventTime"] == "2025-01-01T00:00:00.120000Z"
    body.metadata.name = "scaled.2"
    body.event_time = datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC)  # isoformat(): no fraction
    with pytest.raises(client.ApiException) as exc:
        events_v1.create_namespaced_event(ns, body)
    assert exc.value.status == 400
    assert json.loads(exc.value.body)["message"].endswith('cannot parse "+00:00" as ".000000"')

    core = core_v1.read_namespaced_event("scaled.1", ns)
    assert core.message == "Scaled up to 3"
    assert core.involved_object.kind == "Deployment" and core.involved_object.name == "web"
    assert core.reporting_component == "example.com/scaler"
    assert core.reporting_instance == "scaler-1"
    assert core.action == "Scale" and core.reason == "Scaled"
    assert core.metadata.uid == created.metadata.uid
    raw = server.request("GET", f"/api/v1/namespaces/{ns}/events/scaled.1").json()
    assert raw["apiVersion"] == "v1"
    assert raw["firstTimestamp"] is None and raw["lastTimestamp"] is None and raw["source"] == {}

    listed = events_v1.list_namespaced_event(ns)
    assert listed.api_version == "events.k8s.io/v1"
    assert [(e.metadata.name, e.note) for e in listed.items] == [("scaled.1", "Scaled up to 3")]
    names = [e.metadata.name for e in core_v1.list_namespaced_event(ns).items]
    assert names == ["scaled.1"]


def test_event_watch_across_groups(server, ns):
    start = server.request("GET", f"/api/v1/namespaces/{ns}/events").json()["metadata"]["resourceVersion"]
    server.kubectl("create", "-n", ns, "-f", "-", input=json.dumps(core_event("a.1", ns, "web-0", "from core")))
    new = {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": "b.1"},
        "eventTime": "2025-01-01T00:00:00.000000Z",
        "reportingController": "example.com/ctl",
        "reportingInstance": "ctl-1",
        "action": "Do",
        "reason": "Done",
        "regarding": {"kind": "Pod", "name": "web-0", "namespace": ns},
        "note": "from events.k8s.io",
        "type": "Normal",
    }
    server.kubectl("create", "-n", ns, "-f", "-", input=json.dumps(new))
    server.kubectl("delete", "event", "a.1", "-n", ns)

    evs = watch_events(server, f"/apis/events.k8s.io/v1/namespaces/{ns}/events", start, 3)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in evs] == [
        ("ADDED", "a.1"),
        ("ADDED", "b.1"),
        ("DELETED", "a.1"),
    ]
    assert {e["object"]["apiVersion"] for e in evs} == {"events.k8s.io/v1"}
    assert evs[0]["object"]["note"] == "from core"
    assert evs[0]["object"]["regarding"]["name"] == "web-0"
    core = watch_events(server, f"/api/v1/namespaces/{ns}/events", start, 3)
    assert [e["object"]["metadata"]["resourceVersion"] for e in core] == [
        e["object"]["metadata"]["resourceVersion"] for e in evs
    ]
    assert core[1]["object"]["apiVersion"] == "v1"
    assert core[1]["object"]["message"] == "from events.k8s.io"
    assert core[1]["object"]["reportingComponent"] == "example.com/ctl"


def test_kubectl_get_events_and_kubectl_events(server, ns):
    server.kubectl("create", "-n", ns, "-f", "-", input=json.dumps(core_event("c.1", ns, "web-0", "core message")))
    new = {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": "d.1"},
        "eventTime": "2025-01-01T00:00:01.000000Z",
        "reportingController": "example.com/ctl",
        "reportingInstance": "ctl-1",
        "action": "Do",
        "reason": "Done",
        "regarding": {"kind": "Pod", "name": "web-1", "namespace": ns},
        "note": "events message",
        "type": "Warning",
    }
    server.kubectl("create", "-n", ns, "-f", "-", input=json.dumps(new))
    expected = {
        ("Normal", "Pulled", "pod/web-0", "core message"),
        ("Warning", "Done", "pod/web-1", "events message"),
    }
    for resource in ("events", "events.v1.events.k8s.io"):
        rows = parse_table(server.kubectl("get", resource, "-n", ns).stdout)
        assert {(r["TYPE"], r["REASON"], r["OBJECT"], r["MESSAGE"]) for r in rows} == expected
    rows = parse_table(server.kubectl("events", "-n", ns).stdout)
    assert {(r["TYPE"], r["REASON"], r["OBJECT"], r["MESSAGE"]) for r in rows} == {
        ("Normal", "Pulled", "Pod/web-0", "core message"),
        ("Warning", "Done", "Pod/web-1", "events message"),
    }
