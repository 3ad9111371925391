"""flowcontrol.apiserver.k8s.io/v1 validation (pkg/apis/flowcontrol/validation): FlowSchema and
PriorityLevelConfiguration, their status conditions, and the mandatory "exempt" and "catch-all" objects
whose spec may not stray from the bootstrap configuration.

Upstream validates the internal types, where some v1 pointers are plain values (a FlowSchema's
matchingPrecedence, a limited level's nominalConcurrencyShares, a limit response): a missing member
reads as Go's zero value here. The objects reach validation already defaulted.

An update is validated as a create of the new object (ValidateFlowSchemaUpdate and
ValidatePriorityLevelConfigurationUpdate ignore the old one), which the store does already; so there
are no update validators.
"""

from __future__ import annotations

import math
from typing import Any

from kube_apiserver.apis.flowcontrol import bootstrap
from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.names import is_dns1123_label, is_dns1123_subdomain
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.labels import go_quote

# flowcontrol.FlowSchemaMaxMatchingPrecedence
FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE = 10000
# priorityLevelConfigurationQueuingMaxQueues: 10^7
PRIORITY_LEVEL_QUEUING_MAX_QUEUES = 10 * 1000 * 1000
# shufflesharding.MaxHashBits: the bits of a flow's hash a hand is dealt from
MAX_HASH_BITS = 60

# The supported sets, as sets.String.List() gives them (sorted): the order of NotSupported's message.
SUPPORTED_DISTINGUISHER_METHODS = ["ByNamespace", "ByUser"]
SUPPORTED_VERBS = sorted(["get", "list", "create", "update", "delete", "deletecollection", "patch", "watch", "proxy"])
SUPPORTED_SUBJECT_KINDS = ["Group", "ServiceAccount", "User"]
SUPPORTED_PRIORITY_LEVEL_ENABLEMENT = ["Exempt", "Limited"]
SUPPORTED_LIMIT_RESPONSE_TYPES = ["Queue", "Reject"]

NS_ERR_INTRO = "each member of this list must be '*' or a DNS-1123 label; "


def _has_wildcard(values: list[Any]) -> bool:
    return "*" in values


def _str_list(value: Any) -> list[str]:
    """A []string member; non-strings (left to the schema check) read as Go would never see them."""
    return [v for v in field.as_list(value) if isinstance(v, str)]


def _int(value: Any) -> int:
    """An int32 member of the internal type: missing (or not an int) is Go's zero value."""
    return value if field.is_int(value) else 0


# --- FlowSchema ---


def validate_flow_schema(obj: dict[str, Any]) -> list[StatusCause]:
    """ValidateFlowSchema, but for metadata, which the store checks for every kind."""
    name = field.as_str(field.meta_of(obj).get("name"))
    spec = field.spec_of(obj)
    errs = validate_flow_schema_spec(name, spec, "spec")
    mandatory = _MANDATORY_FLOW_SCHEMAS.get(name)
    if mandatory is not None:
        # the mandatory schemas keep requests flowing at all: their spec is fixed, nearly exactly
        if _go_value(spec, "FlowSchemaSpec") != _go_value(mandatory()["spec"], "FlowSchemaSpec"):
            errs.append(
                field.invalid(
                    "spec", _go_render(spec, "FlowSchemaSpec"), f"spec of '{name}' must equal the fixed value"
                )
            )
    errs.extend(validate_flow_schema_status(field.as_dict(obj.get("status")), "status"))
    return errs


def validate_flow_schema_spec(fs_name: str, spec: dict[str, Any], path: str) -> list[StatusCause]:
    errs = []
    precedence = _int(spec.get("matchingPrecedence"))
    precedence_path = field.child(path, "matchingPrecedence")
    if precedence <= 0:
        errs.append(field.invalid(precedence_path, precedence, "must be a positive value"))
    if precedence > FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE:
        errs.append(
            field.invalid(
                precedence_path, precedence, f"must not be greater than {FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE}"
            )
        )
    if precedence == 1 and fs_name != bootstrap.FLOW_SCHEMA_EXEMPT:
        # precedence 1 is what makes "exempt" match first
        errs.append(
            field.invalid(precedence_path, precedence, "only the schema named 'exempt' may have matchingPrecedence 1")
        )
    method = spec.get("distinguisherMethod")
    if method is not None:
        method_type = field.as_dict(method).get("type")
        if method_type not in SUPPORTED_DISTINGUISHER_METHODS:
            # upstream reports the whole method (a *FlowDistinguisherMethod), not its type
            errs.append(
                field.not_supported(
                    field.child(path, "distinguisherMethod", "type"),
                    _go_render(method, "FlowDistinguisherMethod"),
                    SUPPORTED_DISTINGUISHER_METHODS,
                )
            )
    pl_name = field.as_str(field.as_dict(spec.get("priorityLevelConfiguration")).get("name"))
    pl_path = field.child(path, "priorityLevelConfiguration", "name")
    if pl_name:
        # ValidatePriorityLevelConfigurationName: NameIsDNSSubdomain
        errs.extend(field.invalid(pl_path, pl_name, msg) for msg in is_dns1123_subdomain(pl_name))
    else:
        errs.append(field.required(pl_path, "must reference a priority level"))
    for i, rule in enumerate(field.as_list(spec.get("rules"))):
        errs.extend(
            validate_policy_rules_with_subjects(field.as_dict(rule), field.index(field.child(path, "rules"), i))
        )
    return errs


def validate_policy_rules_with_subjects(rule: dict[str, Any], path: str) -> list[StatusCause]:
    """ValidateFlowSchemaPolicyRulesWithSubjects."""
    errs = []
    subjects = field.as_list(rule.get("subjects"))
    if subjects:
        for i, subject in enumerate(subjects):
            errs.extend(validate_subject(field.as_dict(subject), field.index(field.child(path, "subjects"), i)))
    else:
        errs.append(field.required(field.child(path, "subjects"), "subjects must contain at least one value"))
    resource_rules = field.as_list(rule.get("resourceRules"))
    non_resource_rules = field.as_list(rule.get("nonResourceRules"))
    if not resource_rules and not non_resource_rules:
        errs.append(field.required(path, "at least one of resourceRules and nonResourceRules has to be non-empty"))
    for i, r in enumerate(resource_rules):
        errs.extend(validate_resource_policy_rule(field.as_dict(r), field.index(field.child(path, "resourceRules"), i)))
    for i, r in enumerate(non_resource_rules):
        errs.extend(
            validate_non_resource_policy_rule(field.as_dict(r), field.index(field.child(path, "nonResourceRules"), i))
        )
    return errs


# which member each subject kind uses, and the message when another kind's member is set
_SUBJECT_MEMBERS = {
    "User": ("user", "user is forbidden when subject kind is not 'User'"),
    "Group": ("group", "group is forbidden when subject kind is not 'Group'"),
    "ServiceAccount": ("serviceAccount", "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"),
}
# upstream's order of the "forbidden" checks, per kind
_OTHER_MEMBERS = {
    "ServiceAccount": ("User", "Group"),
    "User": ("ServiceAccount", "Group"),
    "Group": ("ServiceAccount", "User"),
}


def validate_subject(subject: dict[str, Any], path: str) -> list[StatusCause]:
    """ValidateFlowSchemaSubject: a union on kind; a null member counts as unset (a nil pointer)."""
    kind = subject.get("kind", "")
    if not isinstance(kind, str) or kind not in _OTHER_MEMBERS:
        return [field.not_supported(field.child(path, "kind"), kind, SUPPORTED_SUBJECT_KINDS)]
    member = _SUBJECT_MEMBERS[kind][0]
    member_path = field.child(path, member)
    value = subject.get(member)
    if kind == "ServiceAccount":
        errs = validate_service_account_subject(value, member_path)
    elif kind == "User":
        errs = _validate_named_subject(value, member_path, "user is required when subject kind is 'User'")
    else:
        errs = _validate_named_subject(value, member_path, "group is required when subject kind is 'Group'")
    for other in _OTHER_MEMBERS[kind]:
        other_member, msg = _SUBJECT_MEMBERS[other]
        if subject.get(other_member) is not None:
            errs.append(field.forbidden(field.child(path, other_member), msg))
    return errs


def validate_service_account_subject(subject: Any, path: str) -> list[StatusCause]:
    if subject is None:
        return [field.required(path, "serviceAccount is required when subject kind is 'ServiceAccount'")]
    subject = field.as_dict(subject)
    errs = []
    name = field.as_str(subject.get("name"))
    name_path = field.child(path, "name")
    if not name:
        errs.append(field.required(name_path, ""))
    elif name != bootstrap.NAME_ALL:
        # ValidateServiceAccountName: NameIsDNSSubdomain
        errs.extend(field.invalid(name_path, name, msg) for msg in is_dns1123_subdomain(name))
    namespace = field.as_str(subject.get("namespace"))
    namespace_path = field.child(path, "namespace")
    if namespace:
        # ValidateNamespaceName: NameIsDNSLabel
        errs.extend(field.invalid(namespace_path, namespace, msg) for msg in is_dns1123_label(namespace))
    else:
        errs.append(field.required(namespace_path, "must specify namespace for service account"))
    return errs


def _validate_named_subject(subject: Any, path: str, missing: str) -> list[StatusCause]:
    """ValidateUserSubject and ValidateGroupSubject: present, with a name."""
    if subject is None:
        return [field.required(path, missing)]
    if not field.as_str(field.as_dict(subject).get("name")):
        return [field.required(field.child(path, "name"), "")]
    return []


def _validate_verbs(verbs: list[str], raw: Any, path: str) -> list[StatusCause]:
    if not verbs:
        return [field.required(path, "verbs must contain at least one value")]
    if _has_wildcard(verbs):
        if len(verbs) > 1:
            return [field.invalid(path, gorepr.string_slice(raw), "if '*' is present, must not specify other verbs")]
        return []
    if not set(verbs) <= set(SUPPORTED_VERBS):
        return [field.not_supported(path, gorepr.string_slice(raw), SUPPORTED_VERBS)]
    return []


def validate_resource_policy_rule(rule: dict[str, Any], path: str) -> list[StatusCause]:
    """ValidateFlowSchemaResourcePolicyRule."""
    errs = _validate_verbs(_str_list(rule.get("verbs")), rule.get("verbs"), field.child(path, "verbs"))

    groups = _str_list(rule.get("apiGroups"))
    groups_path = field.child(path, "apiGroups")
    if not groups:
        errs.append(field.required(groups_path, "resource rules must supply at least one api group"))
    elif len(groups) > 1 and _has_wildcard(groups):
        errs.append(
            field.invalid(
                groups_path,
                gorepr.string_slice(rule.get("apiGroups")),
                "if '*' is present, must not specify other api groups",
            )
        )

    resources = _str_list(rule.get("resources"))
    resources_path = field.child(path, "resources")
    if not resources:
        errs.append(field.required(resources_path, "resource rules must supply at least one resource"))
    elif len(resources) > 1 and _has_wildcard(resources):
        errs.append(
            field.invalid(
                resources_path,
                gorepr.string_slice(rule.get("resources")),
                "if '*' is present, must not specify other resources",
            )
        )

    namespaces = _str_list(rule.get("namespaces"))
    namespaces_path = field.child(path, "namespaces")
    if not namespaces and rule.get("clusterScope") is not True:
        errs.append(
            field.required(
                namespaces_path, "resource rules that are not cluster scoped must supply at least one namespace"
            )
        )
    elif _has_wildcard(namespaces):
        if len(namespaces) > 1:
            errs.append(
                field.invalid(
                    namespaces_path,
                    gorepr.string_slice(rule.get("namespaces")),
                    "if '*' is present, must not specify other namespaces",
                )
            )
    else:
        for i, namespace in enumerate(namespaces):
            errs.extend(
                field.invalid(field.index(namespaces_path, i), namespace, NS_ERR_INTRO + msg)
                for msg in is_dns1123_label(namespace)
            )
    return errs


def validate_non_resource_policy_rule(rule: dict[str, Any], path: str) -> list[StatusCause]:
    """ValidateFlowSchemaNonResourcePolicyRule."""
    errs = _validate_verbs(_str_list(rule.get("verbs")), rule.get("verbs"), field.child(path, "verbs"))
    urls = _str_list(rule.get("nonResourceURLs"))
    urls_path = field.child(path, "nonResourceURLs")
    if not urls:
        errs.append(field.required(urls_path, "nonResourceURLs must contain at least one value"))
    elif _has_wildcard(urls):
        if len(urls) > 1:
            errs.append(
                field.invalid(
                    urls_path,
                    gorepr.string_slice(rule.get("nonResourceURLs")),
                    "if '*' is present, must not specify other non-resource URLs",
                )
            )
    else:
        for i, url in enumerate(urls):
            err = validate_non_resource_url_path(url, field.index(urls_path, i))
            if err is not None:
                errs.append(err)
    return errs


def validate_non_resource_url_path(path: str, fld_path: str) -> StatusCause | None:
    """ValidateNonResourceURLPath: a leading slash, no space, no "//", and "*" only as a "/*" suffix
    (the matcher globs only there)."""
    if not path:
        return field.invalid(fld_path, path, "must not be empty")
    if path == "/":
        return None
    if not path.startswith("/"):
        return field.invalid(fld_path, path, "must start with slash")
    if " " in path:
        return field.invalid(fld_path, path, "must not contain white-space")
    if "//" in path:
        return field.invalid(fld_path, path, "must not contain double slash")
    wildcards = path.count("*")
    if wildcards > 1 or (wildcards == 1 and path[-2:] != "/*"):
        return field.invalid(fld_path, path, "wildcard can only do suffix matching")
    return None


def validate_flow_schema_status(status: dict[str, Any], path: str) -> list[StatusCause]:
    """ValidateFlowSchemaStatus (ValidatePriorityLevelConfigurationStatus is the same): condition
    types are unique and not empty."""
    errs = []
    seen: set[str] = set()
    for i, condition in enumerate(field.as_list(status.get("conditions"))):
        condition_type = field.as_str(field.as_dict(condition).get("type"))
        type_path = field.child(field.index(field.child(path, "conditions"), i), "type")
        if condition_type in seen:
            errs.append(field.duplicate(type_path, condition_type))
        seen.add(condition_type)
        if not condition_type:
            errs.append(field.required(type_path, "must not be empty"))
    return errs


validate_priority_level_configuration_status = validate_flow_schema_status


# --- PriorityLevelConfiguration ---


def validate_priority_level_configuration(obj: dict[str, Any]) -> list[StatusCause]:
    """ValidatePriorityLevelConfiguration, but for metadata. Zero nominalConcurrencyShares are allowed
    for a limited level (1.30+, a level that only borrows)."""
    name = field.as_str(field.meta_of(obj).get("name"))
    spec = field.spec_of(obj)
    errs = validate_priority_level_configuration_spec(spec, name, "spec")
    errs.extend(_validate_if_mandatory_priority_level(name, spec, "spec"))
    errs.extend(validate_priority_level_configuration_status(field.as_dict(obj.get("status")), "status"))
    return errs


def _validate_if_mandatory_priority_level(name: str, spec: dict[str, Any], path: str) -> list[StatusCause]:
    """ValidateIfMandatoryPriorityLevelConfigurationObject."""
    mandatory = _MANDATORY_PRIORITY_LEVELS.get(name)
    if mandatory is None:
        return []
    want = mandatory()["spec"]
    have = dict(spec)
    detail = f"spec of '{name}' must equal the fixed value"
    if name == bootstrap.PRIORITY_LEVEL_EXEMPT:
        # the operator may tune the exempt level's shares and lendable percent, nothing else
        have["exempt"] = want["exempt"]
        detail = f"spec of '{name}' except the 'spec.exempt' field must equal the fixed value"
    if _go_value(have, "PriorityLevelConfigurationSpec") != _go_value(want, "PriorityLevelConfigurationSpec"):
        return [field.invalid(path, _go_render(spec, "PriorityLevelConfigurationSpec"), detail)]
    return []


def validate_priority_level_configuration_spec(spec: dict[str, Any], name: str, path: str) -> list[StatusCause]:
    errs = []
    level_type = spec.get("type", "")
    type_path = field.child(path, "type")
    if (name == bootstrap.PRIORITY_LEVEL_EXEMPT) != (level_type == "Exempt"):
        errs.append(field.invalid(type_path, level_type, "type must be 'Exempt' if and only if name is 'exempt'"))
    limited, exempt = spec.get("limited"), spec.get("exempt")
    if level_type == "Exempt":
        if limited is not None:
            errs.append(field.forbidden(field.child(path, "limited"), "must be nil if the type is not Limited"))
        if exempt is not None:
            errs.extend(
                validate_exempt_priority_level_configuration(field.as_dict(exempt), field.child(path, "exempt"))
            )
    elif level_type == "Limited":
        if exempt is not None:
            errs.append(field.forbidden(field.child(path, "exempt"), "must be nil if the type is Limited"))
        if limited is None:
            errs.append(field.required(field.child(path, "limited"), "must not be empty when type is Limited"))
        else:
            errs.extend(
                validate_limited_priority_level_configuration(field.as_dict(limited), field.child(path, "limited"))
            )
    else:
        errs.append(field.not_supported(type_path, level_type, SUPPORTED_PRIORITY_LEVEL_ENABLEMENT))
    return errs


def _validate_lendable_percent(value: Any, path: str) -> list[StatusCause]:
    if field.is_int(value) and not 0 <= value <= 100:
        return [field.invalid(path, value, "must be between 0 and 100, inclusive")]
    return []


def validate_limited_priority_level_configuration(limited: dict[str, Any], path: str) -> list[StatusCause]:
    """ValidateLimitedPriorityLevelConfiguration with AllowZeroLimitedNominalConcurrencyShares, as the
    1.33 strategy calls it."""
    errs = []
    shares = _int(limited.get("nominalConcurrencyShares"))
    if shares < 0:
        errs.append(
            field.invalid(field.child(path, "nominalConcurrencyShares"), shares, "must be a non-negative integer")
        )
    errs.extend(
        validate_limit_response(field.as_dict(limited.get("limitResponse")), field.child(path, "limitResponse"))
    )
    errs.extend(_validate_lendable_percent(limited.get("lendablePercent"), field.child(path, "lendablePercent")))
    borrowing = limited.get("borrowingLimitPercent")
    if field.is_int(borrowing) and borrowing < 0:
        errs.append(
            field.invalid(
                field.child(path, "borrowingLimitPercent"), borrowing, "if specified, must be a non-negative integer"
            )
        )
    return errs


def validate_exempt_priority_level_configuration(exempt: dict[str, Any], path: str) -> list[StatusCause]:
    errs = []
    shares = exempt.get("nominalConcurrencyShares")
    if field.is_int(shares) and shares < 0:
        errs.append(
            field.invalid(field.child(path, "nominalConcurrencyShares"), shares, "must be a non-negative integer")
        )
    errs.extend(_validate_lendable_percent(exempt.get("lendablePercent"), field.child(path, "lendablePercent")))
    return errs


def validate_limit_response(response: dict[str, Any], path: str) -> list[StatusCause]:
    """ValidateLimitResponse; its messages say "Limited" where they mean "Queue", as upstream's do."""
    response_type = response.get("type", "")
    queuing = response.get("queuing")
    if response_type == "Reject":
        if queuing is not None:
            return [
                field.forbidden(
                    field.child(path, "queuing"), "must be nil if limited.limitResponse.type is not Limited"
                )
            ]
        return []
    if response_type == "Queue":
        if queuing is None:
            return [
                field.required(
                    field.child(path, "queuing"), "must not be empty if limited.limitResponse.type is Limited"
                )
            ]
        return validate_queuing_configuration(field.as_dict(queuing), field.child(path, "queuing"))
    return [field.not_supported(field.child(path, "type"), response_type, SUPPORTED_LIMIT_RESPONSE_TYPES)]


def _go_log2(x: float) -> float:
    """Go's math.Log2: exact for powers of two, Log(frac)/Ln2 + exp otherwise."""
    frac, exp = math.frexp(x)
    if frac == 0.5:
        return float(exp - 1)
    return math.log(frac) * (1 / math.log(2)) + exp


def required_entropy_bits(deck_size: int, hand_size: int) -> int:
    """shufflesharding.RequiredEntropyBits: the hash bits needed to deal a hand without bias."""
    return math.ceil(_go_log2(deck_size) * hand_size)


def validate_queuing_configuration(queuing: dict[str, Any], path: str) -> list[StatusCause]:
    """ValidatePriorityLevelQueuingConfiguration: the shuffle-sharding parameters must be dealable."""
    errs = []
    queue_length = _int(queuing.get("queueLengthLimit"))
    if queue_length <= 0:
        errs.append(field.invalid(field.child(path, "queueLengthLimit"), queue_length, "must be positive"))
    queues = _int(queuing.get("queues"))
    queues_path = field.child(path, "queues")
    if queues <= 0:
        errs.append(field.invalid(queues_path, queues, "must be positive"))
    elif queues > PRIORITY_LEVEL_QUEUING_MAX_QUEUES:
        errs.append(field.invalid(queues_path, queues, f"must not be greater than {PRIORITY_LEVEL_QUEUING_MAX_QUEUES}"))
    hand_size = _int(queuing.get("handSize"))
    hand_path = field.child(path, "handSize")
    if hand_size <= 0:
        errs.append(field.invalid(hand_path, hand_size, "must be positive"))
    elif hand_size > queues:
        errs.append(field.invalid(hand_path, hand_size, f"should not be greater than queues ({queues})"))
    elif required_entropy_bits(queues, hand_size) > MAX_HASH_BITS:
        errs.append(
            field.invalid(
                hand_path,
                hand_size,
                f"required entropy bits of deckSize {queues} and handSize {hand_size} should not be greater than "
                f"{MAX_HASH_BITS}",
            )
        )
    return errs


# --- the internal Go types, for the mandatory objects' comparison and for %#v of a whole spec ---
#
# A shape is "string", "int32", "bool", ("ptr", shape), ("list", shape) or the name of a struct below,
# whose fields are (json name, Go name, shape) in Go's declaration order.

_STRUCTS: dict[str, list[tuple[str, str, Any]]] = {
    "FlowSchemaSpec": [
        ("priorityLevelConfiguration", "PriorityLevelConfiguration", "PriorityLevelConfigurationReference"),
        ("matchingPrecedence", "MatchingPrecedence", "int32"),
        ("distinguisherMethod", "DistinguisherMethod", ("ptr", "FlowDistinguisherMethod")),
        ("rules", "Rules", ("list", "PolicyRulesWithSubjects")),
    ],
    "PriorityLevelConfigurationReference": [("name", "Name", "string")],
    "FlowDistinguisherMethod": [("type", "Type", "string")],
    "PolicyRulesWithSubjects": [
        ("subjects", "Subjects", ("list", "Subject")),
        ("resourceRules", "ResourceRules", ("list", "ResourcePolicyRule")),
        ("nonResourceRules", "NonResourceRules", ("list", "NonResourcePolicyRule")),
    ],
    "Subject": [
        ("kind", "Kind", "string"),
        ("user", "User", ("ptr", "UserSubject")),
        ("group", "Group", ("ptr", "GroupSubject")),
        ("serviceAccount", "ServiceAccount", ("ptr", "ServiceAccountSubject")),
    ],
    "UserSubject": [("name", "Name", "string")],
    "GroupSubject": [("name", "Name", "string")],
    "ServiceAccountSubject": [("namespace", "Namespace", "string"), ("name", "Name", "string")],
    "ResourcePolicyRule": [
        ("verbs", "Verbs", ("list", "string")),
        ("apiGroups", "APIGroups", ("list", "string")),
        ("resources", "Resources", ("list", "string")),
        ("clusterScope", "ClusterScope", "bool"),
        ("namespaces", "Namespaces", ("list", "string")),
    ],
    "NonResourcePolicyRule": [
        ("verbs", "Verbs", ("list", "string")),
        ("nonResourceURLs", "NonResourceURLs", ("list", "string")),
    ],
    "PriorityLevelConfigurationSpec": [
        ("type", "Type", "string"),
        ("limited", "Limited", ("ptr", "LimitedPriorityLevelConfiguration")),
        ("exempt", "Exempt", ("ptr", "ExemptPriorityLevelConfiguration")),
    ],
    "LimitedPriorityLevelConfiguration": [
        ("nominalConcurrencyShares", "NominalConcurrencyShares", "int32"),
        ("limitResponse", "LimitResponse", "LimitResponse"),
        ("lendablePercent", "LendablePercent", ("ptr", "int32")),
        ("borrowingLimitPercent", "BorrowingLimitPercent", ("ptr", "int32")),
    ],
    "LimitResponse": [
        ("type", "Type", "string"),
        ("queuing", "Queuing", ("ptr", "QueuingConfiguration")),
    ],
    "QueuingConfiguration": [
        ("queues", "Queues", "int32"),
        ("handSize", "HandSize", "int32"),
        ("queueLengthLimit", "QueueLengthLimit", "int32"),
    ],
    "ExemptPriorityLevelConfiguration": [
        ("nominalConcurrencyShares", "NominalConcurrencyShares", ("ptr", "int32")),
        ("lendablePercent", "LendablePercent", ("ptr", "int32")),
    ],
}


def _go_value(value: Any, shape: Any) -> Any:
    """A hashable picture of the Go value for apiequality.Semantic.DeepEqual: a missing member is the
    zero value, a nil and an empty slice are equal, a nil pointer differs from one to a zero value."""
    if shape == "string":
        return value if isinstance(value, str) else ""
    if shape == "int32":
        return _int(value)
    if shape == "bool":
        return value is True
    if isinstance(shape, tuple):
        kind, inner = shape
        if kind == "ptr":
            return None if value is None else ("ptr", _go_value(value, inner))
        return tuple(_go_value(v, inner) for v in field.as_list(value))
    members = field.as_dict(value)
    return tuple(_go_value(members.get(json_name), sub) for json_name, _, sub in _STRUCTS[shape])


def _go_type(shape: Any) -> str:
    if isinstance(shape, tuple):
        kind, inner = shape
        return ("*" if kind == "ptr" else "[]") + _go_type(inner)
    if shape in ("string", "int32", "bool"):
        return shape
    return f"flowcontrol.{shape}"


def _go_text(value: Any, shape: Any) -> str:
    """%#v of the value as a member of a struct: pointers print as addresses, slices and structs typed."""
    if shape == "string":
        return go_quote(value if isinstance(value, str) else "")
    if shape == "int32":
        return str(_int(value))
    if shape == "bool":
        return "true" if value is True else "false"
    if isinstance(shape, tuple):
        kind, inner = shape
        if kind == "ptr":
            return gorepr.pointer(_go_type(inner), value).text
        if not isinstance(value, list):
            return f"{_go_type(shape)}(nil)"
        return _go_type(shape) + "{" + ", ".join(_go_text(v, inner) for v in value) + "}"
    members = field.as_dict(value)
    body = ", ".join(
        f"{go_name}:{_go_text(members.get(json_name), sub)}" for json_name, go_name, sub in _STRUCTS[shape]
    )
    return f"{_go_type(shape)}{{{body}}}"


def _go_render(value: Any, struct_name: str) -> gorepr.GoValue:
    return gorepr.GoValue(_go_text(value, struct_name))


_MANDATORY_FLOW_SCHEMAS = {
    bootstrap.FLOW_SCHEMA_EXEMPT: bootstrap.mandatory_flow_schema_exempt,
    bootstrap.FLOW_SCHEMA_CATCH_ALL: bootstrap.mandatory_flow_schema_catch_all,
}
_MANDATORY_PRIORITY_LEVELS = {
    bootstrap.PRIORITY_LEVEL_EXEMPT: bootstrap.mandatory_priority_level_exempt,
    bootstrap.PRIORITY_LEVEL_CATCH_ALL: bootstrap.mandatory_priority_level_catch_all,
}


VALIDATORS = {
    ("v1", "FlowSchema"): validate_flow_schema,
    ("v1", "PriorityLevelConfiguration"): validate_priority_level_configuration,
}
UPDATE_VALIDATORS: dict[tuple[str, str], Any] = {}
