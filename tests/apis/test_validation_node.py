"""node.k8s.io/v1 RuntimeClass validation: kube-apiserver 1.33's messages."""

from __future__ import annotations

from validation_groups_helpers import errors

from kube_apiserver.apis.node.validation import validate_runtime_class, validate_runtime_class_update


def test_runtime_class() -> None:
    assert validate_runtime_class({"handler": "runc"}) == []
    assert errors(validate_runtime_class({"handler": "Run_C"})) == [
        'handler: Invalid value: "Run_C": a lowercase RFC 1123 label must consist of lower case alphanumeric characters '
        "or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
        "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
    ]
    assert errors(validate_runtime_class_update({"handler": "kata"}, {"handler": "runc"})) == [
        'handler: Invalid value: "kata": field is immutable'
    ]


def test_runtime_class_overhead_and_tolerations() -> None:
    """validateOverhead checks podFixed as a container's limits; validateScheduling the tolerations as a pod's."""
    good = {
        "handler": "kata",
        "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}},
        "scheduling": {"nodeSelector": {"a": "b"}, "tolerations": [{"key": "k", "operator": "Exists"}]},
    }
    assert validate_runtime_class(good) == []
    bad = {
        "handler": "kata",
        "overhead": {"podFixed": {"cpu": "-1"}},
        "scheduling": {"tolerations": [{"key": "a", "operator": "Exists", "value": "b"}]},
    }
    assert errors(validate_runtime_class(bad)) == [
        'overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0',
        'scheduling.tolerations[0].operator: Invalid value: core.Toleration{Key:"a", Operator:"Exists", Value:"b", '
        "Effect:\"\", TolerationSeconds:(*int64)(nil)}: value must be empty when `operator` is 'Exists'",
    ]
