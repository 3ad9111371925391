"""The CRD controllers' conditions as pure functions: naming, NonStructuralSchema, API approval, deprecation."""

from __future__ import annotations

from kube_apiserver.apiextensions.conditions import (
    api_approval_condition,
    api_approval_state,
    calculate_names_and_conditions,
    non_structural_condition,
    set_condition,
)
from kube_apiserver.apiextensions.deprecation import default_deprecation_warning, deprecation_warning


def _crd(names: dict, accepted: dict | None = None, conditions: list | None = None, group: str = "g.example.com"):
    status: dict = {"acceptedNames": accepted or {"plural": "", "kind": ""}}
    if conditions is not None:
        status["conditions"] = conditions
    return {
        "metadata": {"name": f"{names['plural']}.{group}"},
        "spec": {"group": group, "names": names},
        "status": status,
    }


FOOS = {"plural": "foos", "singular": "foo", "kind": "Foo", "listKind": "FooList", "shortNames": ["fo"]}


def test_fresh_names_are_accepted_and_installing():
    crd = _crd(FOOS)
    names, accepted, established = calculate_names_and_conditions(crd, [crd])
    assert names == FOOS
    assert accepted == {
        "type": "NamesAccepted",
        "status": "True",
        "reason": "NoConflicts",
        "message": "no conflicts found",
    }
    assert established == {
        "type": "Established",
        "status": "False",
        "reason": "Installing",
        "message": "the initial names have been accepted",
    }


def test_each_conflict_keeps_the_old_name_and_the_last_one_is_reported():
    taken = _crd(FOOS, accepted=FOOS)
    bars = {"plural": "bars", "singular": "foo", "kind": "Foo", "listKind": "BarList", "shortNames": ["fo", "b"]}
    crd = _crd(bars)
    names, accepted, established = calculate_names_and_conditions(crd, [taken, crd])
    assert names == {"plural": "bars", "kind": "", "listKind": "BarList"}  # singular, kind, short names refused
    assert accepted["reason"] == "KindConflict"
    assert accepted["message"] == '"Foo" is already in use'
    assert established["reason"] == "NotAccepted"


def test_several_short_names_are_one_aggregate():
    taken = _crd(FOOS | {"shortNames": ["a", "b"]}, accepted=FOOS | {"shortNames": ["a", "b"]})
    crd = _crd({"plural": "bars", "singular": "bar", "kind": "Bar", "listKind": "BarList", "shortNames": ["a", "b"]})
    _, accepted, _ = calculate_names_and_conditions(crd, [taken, crd])
    assert accepted["reason"] == "ShortNamesConflict"
    assert accepted["message"] == '["a" is already in use, "b" is already in use]'


def test_established_stays_true_through_later_conflicts():
    est = {"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "m"}
    crd = _crd(FOOS | {"shortNames": ["x"]}, accepted=FOOS, conditions=[est])
    taken = _crd({"plural": "xs", "kind": "X"}, accepted={"plural": "xs", "singular": "x", "kind": "X"})
    names, accepted, established = calculate_names_and_conditions(crd, [crd, taken])
    assert accepted["reason"] == "ShortNamesConflict"
    assert names["shortNames"] == ["fo"]
    assert established == {k: est[k] for k in ("type", "status", "reason", "message")}


def test_set_condition_keeps_transition_time_while_status_holds():
    conds = [{"type": "A", "status": "True", "reason": "r", "message": "m", "lastTransitionTime": "T0"}]
    out = set_condition(conds, {"type": "A", "status": "True", "reason": "r2", "message": "m2"})
    assert out[0]["lastTransitionTime"] == "T0" and out[0]["reason"] == "r2"
    out = set_condition(conds, {"type": "A", "status": "False", "reason": "r", "message": "m"})
    assert out[0]["lastTransitionTime"] != "T0"


def test_non_structural_condition():
    crd = {
        "spec": {
            "preserveUnknownFields": True,
            "versions": [
                {"name": "v1", "schema": {"openAPIV3Schema": {"type": "object", "properties": {"a": {}}}}},
                {"name": "v2", "schema": {"openAPIV3Schema": {"type": "object"}}},
            ],
        }
    }
    assert non_structural_condition(crd) == {
        "type": "NonStructuralSchema",
        "status": "True",
        "reason": "Violations",
        "message": "[spec.preserveUnknownFields: Invalid value: true: must be false, "
        "spec.versions[0].schema.openAPIV3Schema.properties[a].type: Required value: must not be empty for "
        "specified object fields]",
    }
    crd["spec"]["preserveUnknownFields"] = False
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["a"]["type"] = "string"
    assert non_structural_condition(crd) is None


def test_api_approval():
    assert api_approval_state({}) == (
        "Missing",
        'protected groups must have approval annotation "api-approved.kubernetes.io", see '
        "https://github.com/kubernetes/enhancements/pull/1111",
    )
    assert api_approval_state({"api-approved.kubernetes.io": "unapproved, testing"}) == (
        "Bypassed",
        'not approved: "unapproved, testing"',
    )
    assert api_approval_state({"api-approved.kubernetes.io": "https://github.com/kubernetes/kubernetes/pull/1"})[0] == (
        "Approved"
    )
    assert api_approval_state({"api-approved.kubernetes.io": "github.com/kubernetes/kubernetes/pull/1"})[0] == "Invalid"
    crd = {"metadata": {"annotations": {}}, "spec": {"group": "x.kubernetes.io"}}
    assert api_approval_condition(crd)["reason"] == "MissingAnnotation"
    assert api_approval_condition({"metadata": {}, "spec": {"group": "k8s.io.example.com"}}) is None


def test_default_deprecation_warning():
    spec = {
        "group": "g.io",
        "names": {"kind": "Foo"},
        "versions": [
            {"name": "v1alpha1", "served": True, "deprecated": True},
            {"name": "v1beta1", "served": True},
            {"name": "v1", "served": True},
            {"name": "v2", "served": False},
            {"name": "v1beta2", "served": True, "deprecated": True},
        ],
    }
    assert default_deprecation_warning("v1alpha1", spec) == "g.io/v1alpha1 Foo is deprecated; use g.io/v1 Foo"
    assert default_deprecation_warning("v1", spec) == "g.io/v1 Foo is deprecated"
    assert deprecation_warning(spec["versions"][1], spec) is None
    assert deprecation_warning({"name": "v1", "deprecated": True, "deprecationWarning": "bye"}, spec) == "bye"
