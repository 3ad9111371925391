"""HorizontalPodAutoscaler validation (autoscaling/v1 and v2): kube-apiserver 1.33's messages and paths."""

from __future__ import annotations

from typing import Any

from validation_groups_helpers import errors, with_changes

from kube_apiserver.apis.autoscaling.validation import validate_hpa_v1, validate_hpa_v2
from kube_apiserver.apis.scheme import build_scheme

REF = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
CPU = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}


def hpa_v2(**changes: Any) -> dict[str, Any]:
    obj = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"scaleTargetRef": REF, "minReplicas": 1, "maxReplicas": 5, "metrics": [CPU]},
    }
    return with_changes(obj, **changes)


def hpa_v1(**changes: Any) -> dict[str, Any]:
    obj = {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"scaleTargetRef": REF, "minReplicas": 1, "maxReplicas": 5, "targetCPUUtilizationPercentage": 80},
    }
    return with_changes(obj, **changes)


def test_valid() -> None:
    assert validate_hpa_v2(hpa_v2()) == []
    assert validate_hpa_v1(hpa_v1()) == []
    scheme = build_scheme()
    assert scheme.validate(hpa_v1()) == [] and scheme.validate(hpa_v2()) == []


def test_replica_bounds() -> None:
    assert errors(validate_hpa_v2(hpa_v2(spec__minReplicas=6))) == [
        "spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`"
    ]
    assert errors(validate_hpa_v1(hpa_v1(spec__minReplicas=0, spec__maxReplicas=0))) == [
        "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
        "spec.maxReplicas: Invalid value: 0: must be greater than 0",
        "spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas",
    ]


def test_scale_target_ref() -> None:
    assert errors(validate_hpa_v2(hpa_v2(spec__scaleTargetRef={"kind": "", "name": "a/b"}))) == [
        "spec.scaleTargetRef.kind: Required value",
        "spec.scaleTargetRef.name: Invalid value: \"a/b\": may not contain '/'",
    ]


def test_v1_target_is_reported_at_its_internal_path() -> None:
    assert errors(validate_hpa_v1(hpa_v1(spec__targetCPUUtilizationPercentage=0))) == [
        "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0"
    ]


def test_metrics() -> None:
    metrics = [
        {"type": "Pods", "resource": CPU["resource"]},
        {"type": "Resource", "resource": {"name": "", "target": {"type": "Average"}}},
        {"type": "External", "external": {"metric": {"name": "queue"}, "target": {"type": "Value", "value": "0"}}},
        {"type": "Object", "object": {"describedObject": REF, "metric": {"name": "rps"}, "target": {"type": "Value"}}},
    ]
    assert errors(validate_hpa_v2(hpa_v2(spec__metrics=metrics))) == [
        "spec.metrics[0].pods: Required value: must populate information for the given metric source",
        "spec.metrics[1].resource.name: Required value: must specify a resource name",
        'spec.metrics[1].resource.target.type: Invalid value: "Average": must be either Utilization, Value, or AverageValue',
        "spec.metrics[1].resource.target.averageUtilization: Required value: must set either a target raw value or a "
        "target utilization",
        "spec.metrics[2].external.target.value: Invalid value: resource.Quantity{i:resource.int64Amount{value:0, scale:0}, "
        'd:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}: must be positive',
        "spec.metrics[3].object.target.averageValue: Required value: must set either a target value or averageValue",
    ]
    assert errors(validate_hpa_v2(hpa_v2(spec__metrics=[{"type": "Memory"}]))) == [
        'spec.metrics[0].type: Unsupported value: "Memory": supported values: "ContainerResource", "External", '
        '"Object", "Pods", "Resource"',
        'spec.metrics[0].type: Unsupported value: "Memory": supported values: "ContainerResource", "External", '
        '"Object", "Pods", "Resource"',
    ]


def test_behavior() -> None:
    behavior = {
        "scaleUp": {"stabilizationWindowSeconds": 4000, "selectPolicy": "Most", "policies": []},
        "scaleDown": {"policies": [{"type": "Nodes", "value": 0, "periodSeconds": 0}]},
    }
    assert errors(validate_hpa_v2(hpa_v2(spec__behavior=behavior))) == [
        "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600",
        'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Most": supported values: "Disabled", "Max", "Min"',
        "spec.behavior.scaleUp.policies: Required value: must specify at least one Policy",
        'spec.behavior.scaleDown.policies[0].type: Unsupported value: "Nodes": supported values: "Percent", "Pods"',
        "spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero",
        "spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 0: must be greater than zero",
    ]
