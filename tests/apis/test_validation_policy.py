"""policy/v1 PodDisruptionBudget validation: kube-apiserver 1.33's messages and field paths."""

from __future__ import annotations

from validation_groups_helpers import errors

from kube_apiserver.apis.policy.validation import validate_pod_disruption_budget


def pdb(**spec: object) -> dict[str, object]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec},
    }


def test_valid() -> None:
    assert validate_pod_disruption_budget(pdb(minAvailable=2)) == []
    assert validate_pod_disruption_budget(pdb(maxUnavailable="50%", unhealthyPodEvictionPolicy="AlwaysAllow")) == []


def test_min_available_and_max_unavailable_together() -> None:
    msgs = errors(validate_pod_disruption_budget(pdb(minAvailable=1, maxUnavailable=1)))
    assert len(msgs) == 1
    assert msgs[0].startswith(
        "spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0xc"
    )
    assert msgs[0].endswith(
        "UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: "
        "minAvailable and maxUnavailable cannot be both set"
    )


def test_int_or_percent_values() -> None:
    assert errors(validate_pod_disruption_budget(pdb(minAvailable=-1))) == [
        "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"
    ]
    assert errors(validate_pod_disruption_budget(pdb(maxUnavailable="101%"))) == [
        'spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"101%"}: '
        "must not be greater than 100%"
    ]
    assert errors(validate_pod_disruption_budget(pdb(minAvailable="half"))) == [
        'spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"half"}: a valid percent string '
        "must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
    ]


def test_selector_and_eviction_policy() -> None:
    obj = pdb(minAvailable=1, unhealthyPodEvictionPolicy="Never")
    obj["spec"]["selector"] = {"matchExpressions": [{"key": "app", "operator": "In"}]}  # type: ignore[index]
    assert errors(validate_pod_disruption_budget(obj)) == [
        "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"',
    ]
