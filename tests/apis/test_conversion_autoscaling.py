"""autoscaling/v1 ↔ autoscaling/v2 HorizontalPodAutoscaler conversion, as kube-apiserver 1.33 does it
(pkg/apis/autoscaling/v1/conversion.go): the CPU target as targetCPUUtilizationPercentage, everything
else v2 has in the autoscaling.alpha.kubernetes.io/* annotations, with their exact text."""

from __future__ import annotations

import copy
import json

import orjson

from kube_apiserver.apis.autoscaling.conversion import (
    BEHAVIOR_SPECS_ANNOTATION,
    CONDITIONS_ANNOTATION,
    CONVERTERS,
    METRIC_SPECS_ANNOTATION,
    METRIC_STATUSES_ANNOTATION,
    hpa_v1_to_v2,
    hpa_v2_to_v1,
)

REF = {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"}


def meta(**annotations: str) -> dict:
    m = {"name": "h", "namespace": "default", "uid": "u-1", "resourceVersion": "7", "generation": 2}
    if annotations:
        m["annotations"] = dict(annotations)
    return m


def cpu(utilization: int) -> dict:
    return {
        "type": "Resource",
        "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": utilization}},
    }


def v1_hpa(**spec) -> dict:
    return {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": meta(),
        "spec": {"scaleTargetRef": REF, "minReplicas": 1, "maxReplicas": 5, **spec},
    }


FULL_V2 = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": meta(team="a"),
    "spec": {
        "scaleTargetRef": REF,
        "minReplicas": 2,
        "maxReplicas": 10,
        "metrics": [
            {
                "type": "Resource",
                "resource": {"name": "memory", "target": {"type": "Utilization", "averageUtilization": 70}},
            },
            {
                "type": "Pods",
                "pods": {"metric": {"name": "pps"}, "target": {"type": "AverageValue", "averageValue": "1k"}},
            },
            {
                "type": "Object",
                "object": {
                    "describedObject": {"kind": "Ingress", "name": "main", "apiVersion": "networking.k8s.io/v1"},
                    "target": {"type": "Value", "value": "10k"},
                    "metric": {"name": "rps", "selector": {"matchLabels": {"b": "2", "a": "1"}}},
                },
            },
            {
                "type": "External",
                "external": {
                    "metric": {"name": "queue", "selector": {"matchExpressions": [{"key": "q", "operator": "Exists"}]}},
                    "target": {"type": "AverageValue", "averageValue": "30"},
                },
            },
            {
                "type": "ContainerResource",
                "containerResource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 50},
                    "container": "app",
                },
            },
            cpu(60),
        ],
        "behavior": {
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
        },
    },
    "status": {
        "observedGeneration": 2,
        "lastScaleTime": "2025-01-01T00:00:00Z",
        "currentReplicas": 3,
        "desiredReplicas": 4,
        "currentMetrics": [
            {
                "type": "Resource",
                "resource": {"name": "cpu", "current": {"averageValue": "250m", "averageUtilization": 62}},
            },
            {"type": "Pods", "pods": {"metric": {"name": "pps"}, "current": {"averageValue": "900"}}},
        ],
        "conditions": [
            {
                "type": "AbleToScale",
                "status": "True",
                "lastTransitionTime": "2025-01-01T00:00:00Z",
                "reason": "ReadyForNewScale",
                "message": "recommended size matches current size",
            }
        ],
    },
}


def test_target_cpu_percentage_becomes_a_cpu_utilization_metric():
    v2 = hpa_v1_to_v2(v1_hpa(targetCPUUtilizationPercentage=60))
    assert v2["apiVersion"] == "autoscaling/v2"
    assert v2["spec"] == {"scaleTargetRef": REF, "minReplicas": 1, "maxReplicas": 5, "metrics": [cpu(60)]}
    assert v2["status"] == {"desiredReplicas": 0, "currentMetrics": None}
    assert "annotations" not in v2["metadata"]
    assert v2["metadata"] == meta()


def test_no_cpu_target_is_the_implicit_80_percent():
    assert hpa_v1_to_v2(v1_hpa())["spec"]["metrics"] == [cpu(80)]


def test_cpu_metric_reads_back_as_the_percentage_without_annotations():
    v1 = hpa_v2_to_v1(hpa_v1_to_v2(v1_hpa(targetCPUUtilizationPercentage=60)))
    assert v1["apiVersion"] == "autoscaling/v1"
    assert v1["spec"] == {
        "scaleTargetRef": REF,
        "minReplicas": 1,
        "maxReplicas": 5,
        "targetCPUUtilizationPercentage": 60,
    }
    assert v1["status"] == {"currentReplicas": 0, "desiredReplicas": 0}
    assert "annotations" not in v1["metadata"]


def test_v2_to_v1_annotations_are_kubes_exact_text():
    v1 = hpa_v2_to_v1(FULL_V2)
    ann = v1["metadata"]["annotations"]
    assert list(ann) == sorted(ann)  # Go writes a map in key order
    assert ann["team"] == "a"
    assert ann[METRIC_SPECS_ANNOTATION] == (
        '[{"type":"Resource","resource":{"name":"memory","targetAverageUtilization":70}},'
        '{"type":"Pods","pods":{"metricName":"pps","targetAverageValue":"1k"}},'
        '{"type":"Object","object":{"target":{"kind":"Ingress","name":"main","apiVersion":"networking.k8s.io/v1"},'
        '"metricName":"rps","targetValue":"10k","selector":{"matchLabels":{"a":"1","b":"2"}}}},'
        '{"type":"External","external":{"metricName":"queue","metricSelector":{"matchExpressions":'
        '[{"key":"q","operator":"Exists"}]},"targetAverageValue":"30"}},'
        '{"type":"ContainerResource","containerResource":{"name":"cpu","targetAverageUtilization":50,"container":"app"}}]'
    )
    assert ann[METRIC_STATUSES_ANNOTATION] == (
        '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":62,"currentAverageValue":"250m"}},'
        '{"type":"Pods","pods":{"metricName":"pps","currentAverageValue":"900"}}]'
    )
    assert ann[CONDITIONS_ANNOTATION] == (
        '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2025-01-01T00:00:00Z",'
        '"reason":"ReadyForNewScale","message":"recommended size matches current size"}]'
    )
    # The internal type, which has no json tags: Go field names, null for unset pointers.
    assert ann[BEHAVIOR_SPECS_ANNOTATION] == (
        '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max",'
        '"Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15}],"Tolerance":null},'
        '"ScaleDown":{"StabilizationWindowSeconds":120,"SelectPolicy":"Min",'
        '"Policies":[{"Type":"Percent","Value":10,"PeriodSeconds":60}],"Tolerance":null}}'
    )
    assert v1["spec"] == {
        "scaleTargetRef": REF,
        "minReplicas": 2,
        "maxReplicas": 10,
        "targetCPUUtilizationPercentage": 60,
    }
    assert v1["status"] == {
        "observedGeneration": 2,
        "lastScaleTime": "2025-01-01T00:00:00Z",
        "currentReplicas": 3,
        "desiredReplicas": 4,
        "currentCPUUtilizationPercentage": 62,
    }


def test_v2_v1_v2_round_trip_keeps_everything():
    # FULL_V2 has its CPU target last: kube reads the annotation's metrics back first and the
    # spec's CPU target after them, so an object in that order comes back exactly.
    assert hpa_v1_to_v2(hpa_v2_to_v1(FULL_V2)) == FULL_V2


def test_the_cpu_target_comes_back_after_the_other_metrics():
    v2 = copy.deepcopy(FULL_V2)
    metrics = v2["spec"]["metrics"]
    v2["spec"]["metrics"] = [metrics[-1], *metrics[:-1]]
    assert hpa_v1_to_v2(hpa_v2_to_v1(v2))["spec"]["metrics"] == metrics


def test_round_trip_does_not_touch_the_input():
    before = orjson.dumps(FULL_V2)
    hpa_v1_to_v2(hpa_v2_to_v1(FULL_V2))
    assert orjson.dumps(FULL_V2) == before


def test_v1_v2_v1_round_trip_is_stable():
    v1 = hpa_v2_to_v1(FULL_V2)
    assert hpa_v2_to_v1(hpa_v1_to_v2(v1)) == v1


def test_v1_writer_changes_keep_the_v2_fields():
    v1 = hpa_v2_to_v1(FULL_V2)
    v1["spec"]["maxReplicas"] = 20
    v1["spec"]["targetCPUUtilizationPercentage"] = 75
    v2 = hpa_v1_to_v2(v1)
    assert v2["spec"]["maxReplicas"] == 20
    assert v2["spec"]["metrics"][-1] == cpu(75)
    assert v2["spec"]["metrics"][:-1] == FULL_V2["spec"]["metrics"][:-1]
    assert v2["spec"]["behavior"] == FULL_V2["spec"]["behavior"]
    assert v2["metadata"]["annotations"] == {"team": "a"}


def test_round_trip_annotations_on_a_v2_object_are_not_served_to_v1():
    v2 = copy.deepcopy(FULL_V2)
    v2["metadata"]["annotations"][METRIC_SPECS_ANNOTATION] = "stale"
    v2["spec"]["metrics"] = [cpu(50)]
    del v2["spec"]["behavior"]
    del v2["status"]
    v1 = hpa_v2_to_v1(v2)
    assert v1["metadata"]["annotations"] == {"team": "a"}


def test_malformed_annotations_are_ignored_and_dropped():
    v1 = v1_hpa(targetCPUUtilizationPercentage=40)
    v1["metadata"]["annotations"] = {
        METRIC_SPECS_ANNOTATION: "{not json",
        BEHAVIOR_SPECS_ANNOTATION: '{"ScaleUp":{"StabilizationWindowSeconds":"soon"}}',
        METRIC_STATUSES_ANNOTATION: '{"an":"object"}',
        CONDITIONS_ANNOTATION: "[1]",
        "keep": "me",
    }
    v2 = hpa_v1_to_v2(v1)
    assert v2["spec"]["metrics"] == [cpu(40)]
    assert "behavior" not in v2["spec"]
    assert v2["status"] == {"desiredReplicas": 0, "currentMetrics": None}
    assert v2["metadata"]["annotations"] == {"keep": "me"}


def test_behavior_annotation_is_read_ignoring_case_and_an_empty_one_is_no_behavior():
    v1 = v1_hpa()
    v1["metadata"]["annotations"] = {BEHAVIOR_SPECS_ANNOTATION: '{"scaledown":{"selectpolicy":"Disabled"}}'}
    assert hpa_v1_to_v2(v1)["spec"]["behavior"] == {"scaleDown": {"selectPolicy": "Disabled"}}
    v1["metadata"]["annotations"] = {BEHAVIOR_SPECS_ANNOTATION: '{"ScaleUp":null,"ScaleDown":null}'}
    assert "behavior" not in hpa_v1_to_v2(v1)["spec"]


def test_status_cpu_percentage_and_current_metrics_annotation():
    v1 = v1_hpa()
    v1["status"] = {"currentReplicas": 2, "desiredReplicas": 2, "currentCPUUtilizationPercentage": 33}
    assert hpa_v1_to_v2(v1)["status"] == {
        "currentReplicas": 2,
        "desiredReplicas": 2,
        "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 33}}}],
    }
    # The annotation has more than the percentage (the raw value): it wins over the field.
    v1["metadata"]["annotations"] = {
        METRIC_STATUSES_ANNOTATION: json.dumps(
            [
                {
                    "type": "Resource",
                    "resource": {"name": "cpu", "currentAverageUtilization": 33, "currentAverageValue": "120m"},
                }
            ]
        )
    }
    assert hpa_v1_to_v2(v1)["status"]["currentMetrics"] == [
        {"type": "Resource", "resource": {"name": "cpu", "current": {"averageValue": "120m", "averageUtilization": 33}}}
    ]


def test_go_json_escapes_html_characters():
    v2 = copy.deepcopy(FULL_V2)
    v2["spec"]["metrics"] = [
        {
            "type": "Pods",
            "pods": {"metric": {"name": "a<b>&c"}, "target": {"type": "AverageValue", "averageValue": "1"}},
        }
    ]
    ann = hpa_v2_to_v1(v2)["metadata"]["annotations"][METRIC_SPECS_ANNOTATION]
    assert ann == '[{"type":"Pods","pods":{"metricName":"a\\u003cb\\u003e\\u0026c","targetAverageValue":"1"}}]'
    assert hpa_v1_to_v2(hpa_v2_to_v1(v2))["spec"]["metrics"][0]["pods"]["metric"]["name"] == "a<b>&c"


def test_odd_input_never_raises():
    for odd in ({}, {"spec": None, "status": 3, "metadata": []}, {"spec": {"metrics": [1, None, {"type": 5}]}}):
        hpa_v2_to_v1(odd)
        hpa_v1_to_v2(odd)


def test_the_conversion_table_has_both_directions():
    assert CONVERTERS[(("v2", "HorizontalPodAutoscaler"), "v1")] is hpa_v2_to_v1
    assert CONVERTERS[(("v1", "HorizontalPodAutoscaler"), "v2")] is hpa_v1_to_v2
