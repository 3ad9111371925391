"""The bootstrap configuration ensurer's decisions (ensurer/strategy.go ReviseIfNeeded)."""

from __future__ import annotations

import copy

from kube_apiserver.apis.flowcontrol import bootstrap
from kube_apiserver.server.flowcontrol.ensurer import parse_bool, revise_if_needed, should_update_spec, spec_equalish

ANNOTATION = "apf.kubernetes.io/autoupdate-spec"


def stored(obj: dict, generation: int = 1, annotation: str | None = "true") -> dict:
    out = copy.deepcopy(obj)
    out["metadata"]["generation"] = generation
    out["metadata"]["resourceVersion"] = "7"
    if annotation is None:
        out["metadata"].pop("annotations", None)
    else:
        out["metadata"]["annotations"] = {ANNOTATION: annotation}
    return out


def test_parse_bool_as_go():
    assert [parse_bool(v) for v in ("1", "t", "T", "TRUE", "true", "True")] == [True] * 6
    assert [parse_bool(v) for v in ("0", "f", "F", "FALSE", "false", "False")] == [False] * 6
    assert [parse_bool(v) for v in ("yes", "", "tRUE", None, 1)] == [None] * 5


def test_up_to_date_objects_are_left_alone():
    for boot in bootstrap.mandatory_flow_schemas() + bootstrap.suggested_priority_levels():
        assert (
            revise_if_needed(stored(boot), boot, mandatory=boot["metadata"]["name"] in ("exempt", "catch-all")) is None
        )


def test_mandatory_spec_is_always_put_back():
    boot = bootstrap.mandatory_priority_level_catch_all()
    edited = stored(boot, generation=3, annotation="false")
    edited["spec"]["limited"]["nominalConcurrencyShares"] = 500
    revised = revise_if_needed(edited, boot, mandatory=True)
    assert revised is not None
    assert revised["spec"] == boot["spec"]
    assert revised["metadata"]["annotations"] == {ANNOTATION: "true"}
    assert revised["metadata"]["resourceVersion"] == "7"  # an update of what was read


def test_exempt_level_keeps_the_operators_shares_and_lendable_percent():
    boot = bootstrap.mandatory_priority_level_exempt()
    edited = stored(boot, generation=2)
    edited["spec"]["exempt"] = {"nominalConcurrencyShares": 10, "lendablePercent": 50}
    assert spec_equalish(boot, edited)
    assert revise_if_needed(edited, boot, mandatory=True) is None
    # anything else changed: the whole bootstrap spec comes back
    edited["spec"]["type"] = "Limited"
    revised = revise_if_needed(edited, boot, mandatory=True)
    assert revised is not None and revised["spec"] == boot["spec"]


def test_suggested_spec_follows_the_annotation():
    boot = bootstrap.suggested_flow_schemas()[-1]  # global-default
    edited = stored(boot, generation=2, annotation="true")
    edited["spec"]["matchingPrecedence"] = 9800
    revised = revise_if_needed(edited, boot, mandatory=False)
    assert revised is not None and revised["spec"]["matchingPrecedence"] == 9900
    # autoupdate off: the operator's spec stays, nothing to write
    edited["metadata"]["annotations"][ANNOTATION] = "false"
    assert revise_if_needed(edited, boot, mandatory=False) is None


def test_suggested_without_annotation_by_generation():
    boot = bootstrap.suggested_priority_levels()[0]  # system
    untouched = stored(boot, generation=1, annotation=None)
    untouched["spec"]["limited"]["lendablePercent"] = 10  # e.g. an older release's spec
    assert should_update_spec(untouched)
    revised = revise_if_needed(untouched, boot, mandatory=False)
    assert revised is not None
    assert revised["spec"] == boot["spec"] and revised["metadata"]["annotations"] == {ANNOTATION: "true"}
    # an operator edited it (generation moved on): the spec stays, the annotation records the choice
    edited = stored(boot, generation=4, annotation=None)
    edited["spec"]["limited"]["lendablePercent"] = 10
    revised = revise_if_needed(edited, boot, mandatory=False)
    assert revised is not None
    assert revised["spec"]["limited"]["lendablePercent"] == 10
    assert revised["metadata"]["annotations"] == {ANNOTATION: "false"}
    # a value that is no boolean counts as missing, and is corrected
    odd = stored(boot, generation=1, annotation="maybe")
    revised = revise_if_needed(odd, boot, mandatory=False)
    assert revised is not None and revised["metadata"]["annotations"] == {ANNOTATION: "true"}
