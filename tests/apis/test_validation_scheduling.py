"""scheduling.k8s.io/v1 PriorityClass validation: kube-apiserver 1.33's messages."""

from __future__ import annotations

from validation_groups_helpers import errors

from kube_apiserver.apis.scheduling.validation import validate_priority_class, validate_priority_class_update


def pc(name: str = "high", value: int = 1000, **extra: object) -> dict[str, object]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        **extra,
    }


def test_priority_class() -> None:
    assert validate_priority_class(pc(preemptionPolicy="Never")) == []
    assert validate_priority_class(pc("system-node-critical", 2000001000)) == []
    assert errors(validate_priority_class(pc(value=1_000_000_001))) == [
        "value: Forbidden: maximum allowed value of a user defined priority is 1000000000"
    ]
    assert errors(validate_priority_class(pc("system-mine"))) == [
        "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
        "error: system-mine is not a known system priority class"
    ]
    assert errors(validate_priority_class(pc("system-cluster-critical", 5))) == [
        "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
        "error: value of system-cluster-critical PriorityClass must be 2000000000"
    ]
    assert errors(validate_priority_class(pc(preemptionPolicy="Always"))) == [
        'preemptionPolicy: Unsupported value: "Always": supported values: "PreemptLowerPriority", "Never"'
    ]


def test_update() -> None:
    old = pc(preemptionPolicy="PreemptLowerPriority")
    assert errors(validate_priority_class_update(pc(value=5, preemptionPolicy="Never"), old)) == [
        "value: Forbidden: may not be changed in an update.",
        'preemptionPolicy: Invalid value: "Never": field is immutable',
    ]
    assert validate_priority_class_update(pc(preemptionPolicy="PreemptLowerPriority", description="x"), old) == []
