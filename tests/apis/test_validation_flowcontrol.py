"""flowcontrol.apiserver.k8s.io/v1 validation: kube-apiserver 1.33's messages, field paths and order."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from validation_groups_helpers import errors, with_changes

from kube_apiserver.apis.flowcontrol import bootstrap
from kube_apiserver.apis.flowcontrol.defaults import (
    set_object_defaults_flow_schema,
    set_object_defaults_priority_level_configuration,
)
from kube_apiserver.apis.flowcontrol.validation import (
    UPDATE_VALIDATORS,
    VALIDATORS,
    required_entropy_bits,
    validate_flow_schema,
    validate_non_resource_url_path,
    validate_priority_level_configuration,
)
from kube_apiserver.apis.scheme import build_scheme

GROUP = "flowcontrol.apiserver.k8s.io"
SUPPORTED_VERBS = '"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"'


def plc(name: str = "team", **changes: Any) -> dict[str, Any]:
    obj = {
        "apiVersion": f"{GROUP}/v1",
        "kind": "PriorityLevelConfiguration",
        "metadata": {"name": name},
        "spec": {
            "type": "Limited",
            "limited": {
                "nominalConcurrencyShares": 10,
                "lendablePercent": 0,
                "limitResponse": {"type": "Queue", "queuing": {"queues": 64, "handSize": 8, "queueLengthLimit": 50}},
            },
        },
    }
    return with_changes(obj, **changes)


def fs(name: str = "team", **changes: Any) -> dict[str, Any]:
    obj = {
        "apiVersion": f"{GROUP}/v1",
        "kind": "FlowSchema",
        "metadata": {"name": name},
        "spec": {
            "priorityLevelConfiguration": {"name": "team"},
            "matchingPrecedence": 500,
            "distinguisherMethod": {"type": "ByUser"},
            "rules": [
                {
                    "subjects": [{"kind": "Group", "group": {"name": "team"}}],
                    "resourceRules": [
                        {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"], "namespaces": ["team"]}
                    ],
                    "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/metrics/*"]}],
                }
            ],
        },
    }
    return with_changes(obj, **changes)


def rule(**members: Any) -> dict[str, Any]:
    """A FlowSchema with one rule, made of the given members."""
    return fs(spec__rules=[members])


GROUP_SUBJECT = [{"kind": "Group", "group": {"name": "team"}}]


# --- the tables the scheme gathers ---


def test_registered_in_the_scheme() -> None:
    assert set(VALIDATORS) == {("v1", "FlowSchema"), ("v1", "PriorityLevelConfiguration")}
    # upstream's update validation is the create validation of the new object, which the store runs
    assert UPDATE_VALIDATORS == {}
    scheme = build_scheme()
    assert errors(scheme.validate(plc(spec__type="bogus"))) == [
        'spec.type: Unsupported value: "bogus": supported values: "Exempt", "Limited"'
    ]


# --- PriorityLevelConfiguration ---


def test_valid_priority_levels() -> None:
    assert validate_priority_level_configuration(plc()) == []
    reject = plc(spec__limited__limitResponse={"type": "Reject"}, spec__limited__borrowingLimitPercent=0)
    assert validate_priority_level_configuration(reject) == []
    # a level with no nominal seats of its own, only borrowed ones (allowed since 1.30)
    assert validate_priority_level_configuration(plc(spec__limited__nominalConcurrencyShares=0)) == []
    assert validate_priority_level_configuration(plc(spec__limited__lendablePercent=100)) == []


@pytest.mark.parametrize("obj", bootstrap.mandatory_priority_levels() + bootstrap.suggested_priority_levels())
def test_bootstrap_priority_levels_are_valid(obj: dict[str, Any]) -> None:
    defaulted = copy.deepcopy(obj)
    set_object_defaults_priority_level_configuration(defaulted)
    assert validate_priority_level_configuration(defaulted) == []


def test_priority_level_type() -> None:
    assert errors(validate_priority_level_configuration(plc(spec__type="bogus"))) == [
        'spec.type: Unsupported value: "bogus": supported values: "Exempt", "Limited"'
    ]
    assert errors(validate_priority_level_configuration(plc(spec__type=""))) == [
        'spec.type: Unsupported value: "": supported values: "Exempt", "Limited"'
    ]
    assert errors(validate_priority_level_configuration(plc(spec={}))) == [
        'spec.type: Unsupported value: "": supported values: "Exempt", "Limited"'
    ]
    # only the level named "exempt" is Exempt
    exempt = plc(spec={"type": "Exempt", "exempt": {"nominalConcurrencyShares": 0, "lendablePercent": 0}})
    assert errors(validate_priority_level_configuration(exempt)) == [
        "spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'"
    ]


def test_priority_level_union() -> None:
    assert errors(validate_priority_level_configuration(plc(spec__limited=None))) == [
        "spec.limited: Required value: must not be empty when type is Limited"
    ]
    both = plc(spec__exempt={"nominalConcurrencyShares": 0})
    assert errors(validate_priority_level_configuration(both)) == [
        "spec.exempt: Forbidden: must be nil if the type is Limited"
    ]
    neither = plc(spec__exempt={}, spec__limited=None)
    assert errors(validate_priority_level_configuration(neither)) == [
        "spec.exempt: Forbidden: must be nil if the type is Limited",
        "spec.limited: Required value: must not be empty when type is Limited",
    ]
    # the exempt level with a limited section, and bad exempt numbers
    exempt = plc(
        "exempt",
        spec={
            "type": "Exempt",
            "limited": {"nominalConcurrencyShares": 5, "limitResponse": {"type": "Reject"}},
            "exempt": {"nominalConcurrencyShares": -1, "lendablePercent": 101},
        },
    )
    found = errors(validate_priority_level_configuration(exempt))
    assert found[:3] == [
        "spec.limited: Forbidden: must be nil if the type is not Limited",
        "spec.exempt.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer",
        "spec.exempt.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive",
    ]
    assert found[3].startswith('spec: Invalid value: flowcontrol.PriorityLevelConfigurationSpec{Type:"Exempt", ')
    assert found[3].endswith(": spec of 'exempt' except the 'spec.exempt' field must equal the fixed value")
    assert len(found) == 4


def test_limited_numbers() -> None:
    bad = plc(
        spec__limited__nominalConcurrencyShares=-1,
        spec__limited__lendablePercent=-1,
        spec__limited__borrowingLimitPercent=-5,
    )
    assert errors(validate_priority_level_configuration(bad)) == [
        "spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer",
        "spec.limited.lendablePercent: Invalid value: -1: must be between 0 and 100, inclusive",
        "spec.limited.borrowingLimitPercent: Invalid value: -5: if specified, must be a non-negative integer",
    ]
    assert errors(validate_priority_level_configuration(plc(spec__limited__lendablePercent=101))) == [
        "spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive"
    ]


def test_limit_response() -> None:
    def check(response: Any) -> list[str]:
        return errors(validate_priority_level_configuration(plc(spec__limited__limitResponse=response)))

    assert check({"type": "Drop"}) == [
        'spec.limited.limitResponse.type: Unsupported value: "Drop": supported values: "Queue", "Reject"'
    ]
    assert check(None) == [
        'spec.limited.limitResponse.type: Unsupported value: "": supported values: "Queue", "Reject"'
    ]
    assert check({"type": "Queue"}) == [
        "spec.limited.limitResponse.queuing: Required value: must not be empty if limited.limitResponse.type is Limited"
    ]
    assert check({"type": "Reject", "queuing": {"queues": 1, "handSize": 1, "queueLengthLimit": 1}}) == [
        "spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited"
    ]


def test_queuing() -> None:
    def check(queues: int, hand_size: int, queue_length: int) -> list[str]:
        queuing = {"queues": queues, "handSize": hand_size, "queueLengthLimit": queue_length}
        obj = plc(spec__limited__limitResponse={"type": "Queue", "queuing": queuing})
        return errors(validate_priority_level_configuration(obj))

    path = "spec.limited.limitResponse.queuing"
    assert check(1, 1, 1) == []
    assert check(10_000_000, 1, 1) == []
    assert check(-1, -2, -3) == [
        f"{path}.queueLengthLimit: Invalid value: -3: must be positive",
        f"{path}.queues: Invalid value: -1: must be positive",
        f"{path}.handSize: Invalid value: -2: must be positive",
    ]
    assert check(10_000_001, 2, 50) == [f"{path}.queues: Invalid value: 10000001: must not be greater than 10000000"]
    # too many queues does not stop the hand size checks
    assert check(10_000_001, 8, 50) == [
        f"{path}.queues: Invalid value: 10000001: must not be greater than 10000000",
        f"{path}.handSize: Invalid value: 8: required entropy bits of deckSize 10000001 and handSize 8 should not be "
        "greater than 60",
    ]
    assert check(0, 1, 50) == [
        f"{path}.queues: Invalid value: 0: must be positive",
        f"{path}.handSize: Invalid value: 1: should not be greater than queues (0)",
    ]
    assert check(4, 5, 50) == [f"{path}.handSize: Invalid value: 5: should not be greater than queues (4)"]
    # 2^10 queues need 10 bits a card: 6 cards fit in 60 bits, 7 do not
    assert check(1024, 6, 50) == []
    assert check(1024, 7, 50) == [
        f"{path}.handSize: Invalid value: 7: required entropy bits of deckSize 1024 and handSize 7 should not be "
        "greater than 60"
    ]


def test_required_entropy_bits() -> None:
    assert required_entropy_bits(64, 8) == 48
    assert required_entropy_bits(128, 6) == 42
    assert required_entropy_bits(1000, 6) == 60  # log2(1000) * 6 = 59.79...
    assert required_entropy_bits(1_000_000, 4) == 80


def test_mandatory_priority_levels() -> None:
    catch_all = bootstrap.mandatory_priority_level_catch_all()
    assert validate_priority_level_configuration(catch_all) == []
    changed = with_changes(catch_all, spec__limited__nominalConcurrencyShares=50)
    assert errors(validate_priority_level_configuration(changed)) == [
        'spec: Invalid value: flowcontrol.PriorityLevelConfigurationSpec{Type:"Limited", '
        f"Limited:{_pointer_of(changed)}, Exempt:(*flowcontrol.ExemptPriorityLevelConfiguration)(nil)}}: "
        "spec of 'catch-all' must equal the fixed value"
    ]
    # a borrowing limit that the bootstrap object does not have is a change (a pointer, set or not)
    borrowing = with_changes(catch_all, spec__limited__borrowingLimitPercent=0)
    assert [c.field for c in validate_priority_level_configuration(borrowing)] == ["spec"]
    # the exempt level's exempt section is the operator's to tune
    exempt = bootstrap.mandatory_priority_level_exempt()
    tuned = with_changes(exempt, spec__exempt={"nominalConcurrencyShares": 10, "lendablePercent": 50})
    assert validate_priority_level_configuration(tuned) == []
    assert validate_priority_level_configuration(with_changes(exempt, spec__exempt=None)) == []
    limited = plc("exempt")
    assert errors(validate_priority_level_configuration(limited))[0] == (
        "spec.type: Invalid value: \"Limited\": type must be 'Exempt' if and only if name is 'exempt'"
    )
    assert errors(validate_priority_level_configuration(limited))[-1].endswith(
        "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value"
    )


def _pointer_of(obj: dict[str, Any]) -> str:
    from kube_apiserver.apis.validation_util import gorepr

    return gorepr.pointer("flowcontrol.LimitedPriorityLevelConfiguration", obj["spec"]["limited"]).text


def test_priority_level_status() -> None:
    status = {
        "conditions": [
            {"type": "ConcurrencyShared", "status": "True"},
            {"type": "ConcurrencyShared", "status": "False"},
            {"type": "", "status": "True"},
        ]
    }
    assert errors(validate_priority_level_configuration(plc(status=status))) == [
        'status.conditions[1].type: Duplicate value: "ConcurrencyShared"',
        "status.conditions[2].type: Required value: must not be empty",
    ]


# --- FlowSchema ---


def test_valid_flow_schemas() -> None:
    assert validate_flow_schema(fs()) == []
    cluster = rule(
        subjects=[{"kind": "ServiceAccount", "serviceAccount": {"namespace": "kube-system", "name": "*"}}],
        resourceRules=[{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": True}],
    )
    assert validate_flow_schema(cluster) == []
    assert validate_flow_schema(fs(spec__distinguisherMethod=None)) == []
    assert validate_flow_schema(fs(spec__rules=[])) == []
    assert validate_flow_schema(fs(spec__matchingPrecedence=10000)) == []


@pytest.mark.parametrize("obj", bootstrap.mandatory_flow_schemas() + bootstrap.suggested_flow_schemas())
def test_bootstrap_flow_schemas_are_valid(obj: dict[str, Any]) -> None:
    defaulted = copy.deepcopy(obj)
    set_object_defaults_flow_schema(defaulted)
    assert validate_flow_schema(defaulted) == []


def test_matching_precedence() -> None:
    assert errors(validate_flow_schema(fs(spec__matchingPrecedence=-1))) == [
        "spec.matchingPrecedence: Invalid value: -1: must be a positive value"
    ]
    assert errors(validate_flow_schema(fs(spec__matchingPrecedence=10001))) == [
        "spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000"
    ]
    assert errors(validate_flow_schema(fs(spec__matchingPrecedence=1))) == [
        "spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1"
    ]


def test_distinguisher_and_priority_level_reference() -> None:
    bad = fs(spec__distinguisherMethod={"type": "ByGroup"}, spec__priorityLevelConfiguration={"name": "Team_A"})
    assert errors(validate_flow_schema(bad)) == [
        'spec.distinguisherMethod.type: Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:"ByGroup"}: '
        'supported values: "ByNamespace", "ByUser"',
        'spec.priorityLevelConfiguration.name: Invalid value: "Team_A": a lowercase RFC 1123 subdomain must consist '
        "of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]
    assert errors(validate_flow_schema(fs(spec__priorityLevelConfiguration=None))) == [
        "spec.priorityLevelConfiguration.name: Required value: must reference a priority level"
    ]


def test_rule_needs_subjects_and_rules() -> None:
    assert errors(validate_flow_schema(rule())) == [
        "spec.rules[0].subjects: Required value: subjects must contain at least one value",
        "spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty",
    ]


def test_subjects() -> None:
    def check(*subjects: dict[str, Any]) -> list[str]:
        obj = rule(subjects=list(subjects), nonResourceRules=[{"verbs": ["*"], "nonResourceURLs": ["*"]}])
        return errors(validate_flow_schema(obj))

    assert check({"kind": "Robot"}) == [
        'spec.rules[0].subjects[0].kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", '
        '"User"'
    ]
    assert check({"kind": "User"}, {"kind": "Group"}, {"kind": "ServiceAccount"}) == [
        "spec.rules[0].subjects[0].user: Required value: user is required when subject kind is 'User'",
        "spec.rules[0].subjects[1].group: Required value: group is required when subject kind is 'Group'",
        "spec.rules[0].subjects[2].serviceAccount: Required value: serviceAccount is required when subject kind is "
        "'ServiceAccount'",
    ]
    assert check({"kind": "User", "user": {}, "group": {"name": "g"}, "serviceAccount": {}}) == [
        "spec.rules[0].subjects[0].user.name: Required value",
        "spec.rules[0].subjects[0].serviceAccount: Forbidden: serviceAccount is forbidden when subject kind is not "
        "'ServiceAccount'",
        "spec.rules[0].subjects[0].group: Forbidden: group is forbidden when subject kind is not 'Group'",
    ]
    assert check({"kind": "Group", "group": {"name": ""}, "user": {"name": "u"}}) == [
        "spec.rules[0].subjects[0].group.name: Required value",
        "spec.rules[0].subjects[0].user: Forbidden: user is forbidden when subject kind is not 'User'",
    ]
    assert check({"kind": "ServiceAccount", "serviceAccount": {}, "user": {"name": "u"}}) == [
        "spec.rules[0].subjects[0].serviceAccount.name: Required value",
        "spec.rules[0].subjects[0].serviceAccount.namespace: Required value: must specify namespace for service "
        "account",
        "spec.rules[0].subjects[0].user: Forbidden: user is forbidden when subject kind is not 'User'",
    ]
    found = check({"kind": "ServiceAccount", "serviceAccount": {"name": "Bad_Name", "namespace": "a.b"}})
    assert [f.split(": Invalid value: ")[0] for f in found] == [
        "spec.rules[0].subjects[0].serviceAccount.name",
        "spec.rules[0].subjects[0].serviceAccount.namespace",
    ]
    # IsDNS1123Label (since 1.27): a valid subdomain that is no label can only be wrong by its dots
    assert found[1] == 'spec.rules[0].subjects[0].serviceAccount.namespace: Invalid value: "a.b": must not contain dots'
    found = check({"kind": "ServiceAccount", "serviceAccount": {"name": "n", "namespace": "A_B"}})
    assert found[0].startswith(
        'spec.rules[0].subjects[0].serviceAccount.namespace: Invalid value: "A_B": a lowercase '
        "RFC 1123 label must consist of"
    )
    # a null member is an unset pointer
    assert check({"kind": "Group", "group": {"name": "g"}, "user": None}) == []


def test_resource_rules() -> None:
    def check(**members: Any) -> list[str]:
        return errors(validate_flow_schema(rule(subjects=GROUP_SUBJECT, resourceRules=[members])))

    path = "spec.rules[0].resourceRules[0]"
    assert check() == [
        f"{path}.verbs: Required value: verbs must contain at least one value",
        f"{path}.apiGroups: Required value: resource rules must supply at least one api group",
        f"{path}.resources: Required value: resource rules must supply at least one resource",
        f"{path}.namespaces: Required value: resource rules that are not cluster scoped must supply at least one "
        "namespace",
    ]
    assert check(verbs=["*", "get"], apiGroups=["*", "apps"], resources=["pods", "*"], namespaces=["*", "a"]) == [
        f'{path}.verbs: Invalid value: []string{{"*", "get"}}: if \'*\' is present, must not specify other verbs',
        f'{path}.apiGroups: Invalid value: []string{{"*", "apps"}}: if \'*\' is present, must not specify other api '
        "groups",
        f'{path}.resources: Invalid value: []string{{"pods", "*"}}: if \'*\' is present, must not specify other '
        "resources",
        f'{path}.namespaces: Invalid value: []string{{"*", "a"}}: if \'*\' is present, must not specify other '
        "namespaces",
    ]
    assert check(verbs=["get", "fetch"], apiGroups=[""], resources=["pods"], namespaces=["ok", "Not_OK"]) == [
        f'{path}.verbs: Unsupported value: []string{{"get", "fetch"}}: supported values: {SUPPORTED_VERBS}',
        f"{path}.namespaces[1]: Invalid value: \"Not_OK\": each member of this list must be '*' or a DNS-1123 "
        "label; a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
        "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]
    # cluster-scoped rules need no namespace
    assert check(verbs=["get"], apiGroups=[""], resources=["nodes"], clusterScope=True) == []


def test_non_resource_rules() -> None:
    def check(**members: Any) -> list[str]:
        return errors(validate_flow_schema(rule(subjects=GROUP_SUBJECT, nonResourceRules=[members])))

    path = "spec.rules[0].nonResourceRules[0]"
    assert check() == [
        f"{path}.verbs: Required value: verbs must contain at least one value",
        f"{path}.nonResourceURLs: Required value: nonResourceURLs must contain at least one value",
    ]
    assert check(verbs=["get"], nonResourceURLs=["*", "/healthz"]) == [
        f'{path}.nonResourceURLs: Invalid value: []string{{"*", "/healthz"}}: if \'*\' is present, must not specify '
        "other non-resource URLs"
    ]
    assert check(verbs=["watch"], nonResourceURLs=["", "healthz", "/a b", "/a//b", "/a*", "/a/*/b", "/", "/a/*"]) == [
        f'{path}.nonResourceURLs[0]: Invalid value: "": must not be empty',
        f'{path}.nonResourceURLs[1]: Invalid value: "healthz": must start with slash',
        f'{path}.nonResourceURLs[2]: Invalid value: "/a b": must not contain white-space',
        f'{path}.nonResourceURLs[3]: Invalid value: "/a//b": must not contain double slash',
        f'{path}.nonResourceURLs[4]: Invalid value: "/a*": wildcard can only do suffix matching',
        f'{path}.nonResourceURLs[5]: Invalid value: "/a/*/b": wildcard can only do suffix matching',
    ]


def test_non_resource_url_path() -> None:
    assert validate_non_resource_url_path("/healthz/*", "p") is None
    assert validate_non_resource_url_path("/*", "p") is None
    err = validate_non_resource_url_path("/*/*", "p")
    assert err is not None and err.message == 'Invalid value: "/*/*": wildcard can only do suffix matching'


def test_mandatory_flow_schemas() -> None:
    exempt = bootstrap.mandatory_flow_schema_exempt()
    assert validate_flow_schema(exempt) == []
    # false and a missing clusterScope, an empty and a missing list, are the same Go value
    same = copy.deepcopy(exempt)
    same["spec"]["rules"][0]["resourceRules"][0]["namespaces"] = ["*"]
    same["spec"]["rules"][0]["subjects"][0]["user"] = None
    assert validate_flow_schema(same) == []
    changed = with_changes(exempt, spec__distinguisherMethod={"type": "ByUser"})
    found = errors(validate_flow_schema(changed))
    assert len(found) == 1
    assert found[0].startswith(
        "spec: Invalid value: flowcontrol.FlowSchemaSpec{PriorityLevelConfiguration:"
        'flowcontrol.PriorityLevelConfigurationReference{Name:"exempt"}, MatchingPrecedence:1, '
        "DistinguisherMethod:(*flowcontrol.FlowDistinguisherMethod)(0xc000"
    )
    assert (
        "Rules:[]flowcontrol.PolicyRulesWithSubjects{flowcontrol.PolicyRulesWithSubjects{Subjects:[]flowcontrol."
        'Subject{flowcontrol.Subject{Kind:"Group", User:(*flowcontrol.UserSubject)(nil), '
        "Group:(*flowcontrol.GroupSubject)(0xc000" in found[0]
    )
    assert (
        'ResourceRules:[]flowcontrol.ResourcePolicyRule{flowcontrol.ResourcePolicyRule{Verbs:[]string{"*"}, '
        'APIGroups:[]string{"*"}, Resources:[]string{"*"}, ClusterScope:true, Namespaces:[]string{"*"}}}, '
        "NonResourceRules:[]flowcontrol.NonResourcePolicyRule{flowcontrol.NonResourcePolicyRule{"
        'Verbs:[]string{"*"}, NonResourceURLs:[]string{"*"}}}}}}: spec of \'exempt\' must equal the fixed value'
        in found[0]
    )
    catch_all = with_changes(bootstrap.mandatory_flow_schema_catch_all(), spec__matchingPrecedence=9000)
    found = errors(validate_flow_schema(catch_all))
    assert len(found) == 1 and found[0].endswith(": spec of 'catch-all' must equal the fixed value")
    # a rule error comes before the mandatory check
    broken = with_changes(bootstrap.mandatory_flow_schema_catch_all(), spec__distinguisherMethod={"type": "x"})
    assert [c.field for c in validate_flow_schema(broken)] == ["spec.distinguisherMethod.type", "spec"]


def test_flow_schema_status() -> None:
    status = {"conditions": [{"type": "Dangling", "status": "False"}, {"type": "Dangling", "status": "True"}]}
    assert errors(validate_flow_schema(fs(status=status))) == ['status.conditions[1].type: Duplicate value: "Dangling"']
    assert errors(validate_flow_schema(fs(status={"conditions": [{"status": "True"}]}))) == [
        "status.conditions[0].type: Required value: must not be empty"
    ]


def test_odd_input_does_not_raise() -> None:
    odd = fs(
        spec={"rules": [{"subjects": [{"kind": {"x": 1}}, "s"], "resourceRules": ["r"]}], "matchingPrecedence": "a"}
    )
    assert validate_flow_schema(odd)
    assert validate_priority_level_configuration(plc(spec={"type": "Limited", "limited": "x"}))
