"""What the validation of admissionregistration.k8s.io's kinds shares
(pkg/apis/admissionregistration/validation/validation.go): the validationOptions, the rules
(validateRule, validateResources, validateRuleWithOperations), match conditions
(validateMatchConditions, validateMatchCondition, validateMatchConditionsExpression) and the CEL
compilers' types and convertCELErrorToValidationError; the compilers themselves (createCompiler and the
stateless compiler, on k8s.io/apiserver/pkg/admission/plugin/cel) are in ../cel_compiler.py, outside this
package and imported when an expression is compiled: the scheme imports every validation module at
start, and the CEL and protobuf libraries cost the start some 80 ms.

No tables here: webhooks.py (webhook configurations) and policies.py (ValidatingAdmissionPolicy and its
bindings) hold them and build on this module.

Upstream's validateResourcesNoSubResources is only reached through validateRule with
allowSubResource false, which no caller passes: validate_rule always allows subresources.

Every CEL expression is compiled as upstream compiles it at validation time, in the variables of
admission: object, oldObject, request (kubernetes.AdmissionRequest), namespaceObject
(kubernetes.Namespace), params when asked for, authorizer and authorizer.requestResource where upstream
declares them, and `variables` with one typed field per variable compiled so far (composition). The
expressions are only type checked: the authz library is declared for the checker alone. One
environment stands for upstream's NewExpressions and StoredExpressions ones (the preexisting
expressions of validationOptions are not modelled, nor the cost limits). A compile error reads
"compilation failed: " + the issues of the shared CEL environment (runtime/cel), whose wording follows
cel-go's but comes from cel-cpp.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.names import validate_qualified_name
from kube_apiserver.runtime.errors import StatusCause

# --- enumerations (sets.NewString(...).List() is sorted) ---

SUPPORTED_FAILURE_POLICIES = ["Fail", "Ignore"]
SUPPORTED_MATCH_POLICIES = ["Equivalent", "Exact"]
SUPPORTED_OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"]
VALID_SCOPES = ["*", "Cluster", "Namespaced"]

MAX_MATCH_CONDITIONS = 64


@dataclass(frozen=True)
class ValidationOptions:
    """validationOptions: what a create demands; an update relaxes some from its old object. Upstream
    passes it by value: change a field with dataclasses.replace. The webhook fields mean nothing to
    policies, as upstream."""

    ignore_match_conditions: bool = False
    allow_params_in_match_conditions: bool = False
    require_no_side_effects: bool = True
    require_recognized_admission_review_version: bool = True
    require_unique_webhook_names: bool = True
    allow_invalid_label_value_in_selector: bool = False


CREATE_OPTIONS = ValidationOptions()

# Go's strings.TrimSpace trims unicode.IsSpace, which (unlike str.isspace) leaves \x1c-\x1f alone
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

_CEL_IDENT = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")
_CEL_RESERVED = {
    "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
    "import", "let", "loop", "package", "namespace", "return", "var", "void", "while",
}  # fmt: skip


def trim_space(value: str) -> str:
    """strings.TrimSpace."""
    return value.strip(_GO_SPACE)


def is_cel_identifier(name: str) -> bool:
    """isCELIdentifier: IDENT of the CEL grammar, reserved words excluded."""
    return bool(_CEL_IDENT.fullmatch(name)) and name not in _CEL_RESERVED


# --- CEL types: the checker's type names, parsed, and printed as cel-go prints them ---

# A type as (name, parameters): ("BOOL", ()), ("LIST", (("STRING", ()),)), ("kubernetes.Quantity", ())
CelType = tuple[str, tuple[Any, ...]]

BOOL: CelType = ("BOOL", ())
STRING: CelType = ("STRING", ())
NULL: CelType = ("NULL", ())
DYN: CelType = ("DYN", ())
ANY: CelType = ("ANY", ())  # cel.AnyType: a variable may have any type

_GO_TYPE_NAMES = {
    "BOOL": "bool",
    "INT": "int",
    "UINT": "uint",
    "DOUBLE": "double",
    "STRING": "string",
    "BYTES": "bytes",
    "NULL": "null_type",
    "DYN": "dyn",
    "ANY": "any",
    "DURATION": "google.protobuf.Duration",
    "TIMESTAMP": "google.protobuf.Timestamp",
    "LIST": "list",
    "MAP": "map",
    "TYPE": "type",
    "ERROR": "*error*",
}


def parse_cel_type(name: str) -> CelType:
    """The type cel-expr-python names "MAP<STRING, LIST<INT>>" as a tree."""
    t, _ = _parse_type(name.replace(" ", ""), 0)
    return t


def _parse_type(text: str, pos: int) -> tuple[CelType, int]:
    start = pos
    while pos < len(text) and text[pos] not in "<>,":
        pos += 1
    name = text[start:pos]
    params: list[CelType] = []
    if pos < len(text) and text[pos] == "<":
        pos += 1
        while pos < len(text):
            param, pos = _parse_type(text, pos)
            params.append(param)
            if pos < len(text) and text[pos] == ",":
                pos += 1
                continue
            if pos < len(text) and text[pos] == ">":
                pos += 1
            break
    return (name, tuple(params)), pos


def cel_type_string(t: CelType) -> str:
    """cel-go's Type.String(): list(int), map(string, dyn), null_type, google.protobuf.Timestamp."""
    name, params = t
    go_name = _GO_TYPE_NAMES.get(name, "optional_type" if name == "optional_type" else name)
    if not params:
        return go_name
    return f"{go_name}({', '.join(cel_type_string(p) for p in params)})"


def convert_cel_error_to_validation_error(path: str, expression: str, err: tuple[str, str]) -> StatusCause:
    """convertCELErrorToValidationError: a compile error of CELCompiler.compile as a field error."""
    kind, detail = err
    if kind == "Invalid":
        return field.invalid(path, expression, detail)
    return field.internal_error(path, detail)


# --- rules ---


def has_wildcard(values: list[Any]) -> bool:
    """hasWildcard (and hasWildcardOperation)."""
    return "*" in values


def validate_resources(resources: list[Any], path: str) -> list[StatusCause]:
    """validateResources: "res/sub" entries, wildcards not mixed with what they cover."""
    errs: list[StatusCause] = []
    if not resources:
        errs.append(field.required(path, ""))
    with_wildcard_subresource: set[str] = set()  # x/*
    with_wildcard_resource: set[str] = set()  # */x
    has_double_wildcard = has_single_wildcard = False
    has_resource_without_subresource = False
    for i, res_sub in enumerate(resources):
        res_sub = field.as_str(res_sub)
        if not res_sub:
            errs.append(field.required(field.index(path, i), ""))
            continue
        if res_sub == "*/*":
            has_double_wildcard = True
        if res_sub == "*":
            has_single_wildcard = True
        res, slash, sub = res_sub.partition("/")
        if not slash:
            # assigned, not or-ed, as upstream does: only the last plain entry counts
            has_resource_without_subresource = res_sub != "*"
            continue
        if res in with_wildcard_subresource:
            errs.append(
                field.invalid(field.index(path, i), res_sub, f"if '{res}/*' is present, must not specify {res_sub}")
            )
        if sub in with_wildcard_resource:
            errs.append(
                field.invalid(field.index(path, i), res_sub, f"if '*/{sub}' is present, must not specify {res_sub}")
            )
        if sub == "*":
            with_wildcard_subresource.add(res)
        if res == "*":
            with_wildcard_resource.add(sub)
    shown = gorepr.string_slice(resources)
    if len(resources) > 1 and has_double_wildcard:
        errs.append(field.invalid(path, shown, "if '*/*' is present, must not specify other resources"))
    if has_single_wildcard and has_resource_without_subresource:
        errs.append(
            field.invalid(path, shown, "if '*' is present, must not specify other resources without subresources")
        )
    return errs


def _validate_listed(values: list[Any], path: str, what: str, type_name: str = "[]string") -> list[StatusCause]:
    """What validateRule and validateRuleWithOperations ask of apiGroups, apiVersions and operations:
    at least one, and '*' alone or not at all."""
    errs: list[StatusCause] = []
    if not values:
        errs.append(field.required(path, ""))
    if len(values) > 1 and has_wildcard(values):
        shown = gorepr.string_slice(values, type_name)
        errs.append(field.invalid(path, shown, f"if '*' is present, must not specify other {what}"))
    return errs


def validate_rule(rule: dict[str, Any], path: str) -> list[StatusCause]:
    """validateRule with allowSubResource, the only form its callers use."""
    groups = field.as_list(rule.get("apiGroups"))
    # an empty group is fine: the legacy core group
    errs = _validate_listed(groups, field.child(path, "apiGroups"), "API groups")
    versions = field.as_list(rule.get("apiVersions"))
    versions_path = field.child(path, "apiVersions")
    errs.extend(_validate_listed(versions, versions_path, "API versions"))
    for i, version in enumerate(versions):
        if not version:  # "", or a null that Go decodes as ""
            errs.append(field.required(field.index(versions_path, i), ""))
    errs.extend(validate_resources(field.as_list(rule.get("resources")), field.child(path, "resources")))
    scope = rule.get("scope")
    if scope is not None and scope not in VALID_SCOPES:
        errs.append(field.not_supported(field.child(path, "scope"), scope, VALID_SCOPES))
    return errs


def validate_rule_with_operations(rule: dict[str, Any], path: str) -> list[StatusCause]:
    """validateRuleWithOperations: the operations, then the rule."""
    operations = field.as_list(rule.get("operations"))
    ops_path = field.child(path, "operations")
    errs = _validate_listed(operations, ops_path, "operations", "[]admissionregistration.OperationType")
    for i, operation in enumerate(operations):
        if operation not in SUPPORTED_OPERATIONS:
            errs.append(field.not_supported(field.index(ops_path, i), operation, SUPPORTED_OPERATIONS))
    return errs + validate_rule(rule, path)


# --- match conditions (webhooks and policies alike) ---


def validate_match_conditions(conditions: list[Any], opts: ValidationOptions, path: str) -> list[StatusCause]:
    """validateMatchConditions: at most 64, each valid, names unique."""
    errs: list[StatusCause] = []
    if len(conditions) > MAX_MATCH_CONDITIONS:
        errs.append(field.too_many(path, len(conditions), MAX_MATCH_CONDITIONS))
    names: set[str] = set()
    for i, condition in enumerate(conditions):
        condition = field.as_dict(condition)
        errs.extend(validate_match_condition(condition, opts, field.index(path, i)))
        name = field.as_str(condition.get("name"))
        if name:
            if name in names:
                errs.append(field.duplicate(field.child(field.index(path, i), "name"), name))
            else:
                names.add(name)
    return errs


def validate_match_condition(condition: dict[str, Any], opts: ValidationOptions, path: str) -> list[StatusCause]:
    """validateMatchCondition: the trimmed expression is compiled and shown."""
    errs: list[StatusCause] = []
    expression = trim_space(field.as_str(condition.get("expression")))
    expression_path = field.child(path, "expression")
    if not expression:
        errs.append(field.required(expression_path, ""))
    else:
        errs.extend(validate_match_conditions_expression(expression, opts, expression_path))
    name = field.as_str(condition.get("name"))
    name_path = field.child(path, "name")
    if not name:
        errs.append(field.required(name_path, ""))
    else:
        errs.extend(validate_qualified_name(name, name_path))
    return errs


def validate_match_conditions_expression(expression: str, opts: ValidationOptions, path: str) -> list[StatusCause]:
    """validateMatchConditionsExpression: a bool, in the stateless compiler, with the authorizer and
    params when the policy has a paramKind."""
    from kube_apiserver.apis.admissionregistration.cel_compiler import stateless_compiler

    _, err = stateless_compiler().compile(expression, [BOOL], opts.allow_params_in_match_conditions, True)
    return [] if err is None else [convert_cel_error_to_validation_error(path, expression, err)]
