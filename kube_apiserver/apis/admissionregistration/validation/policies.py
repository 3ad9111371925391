"""ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding validation
(pkg/apis/admissionregistration/validation/validation.go: ValidateValidatingAdmissionPolicy,
ValidateValidatingAdmissionPolicyUpdate, ValidateValidatingAdmissionPolicyStatusUpdate,
ValidateValidatingAdmissionPolicyBinding and ValidateValidatingAdmissionPolicyBindingUpdate); the rules,
match conditions and CEL compilers they share with webhook configurations are in common.py.

Object metadata is checked by the registry strategy (validate_object_meta) before these run, as
upstream checks it first. A policy's update validation replaces its create validation
(UPDATE_REPLACES_OBJECT_VALIDATION): it is the create validation of the new policy but for match
conditions left as they were, and the status. A binding's update validation is its create validation,
which the registry runs on update anyway.

Every CEL expression is compiled here (cel_compiler.CELCompiler, imported when first needed), the stateless compiler for a policy without
variables and a composing one, which types `variables`, for a policy with some.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from kube_apiserver.apis.admissionregistration.validation.common import (
    BOOL,
    NULL,
    STRING,
    SUPPORTED_FAILURE_POLICIES,
    SUPPORTED_MATCH_POLICIES,
    ValidationOptions,
    convert_cel_error_to_validation_error,
    is_cel_identifier,
    trim_space,
    validate_match_conditions,
    validate_rule_with_operations,
)
from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.names import (
    is_dns1123_subdomain,
    is_valid_path_segment_name,
    validate_qualified_name,
)
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.validation.metav1 import validate_label_name, validate_label_selector
from kube_apiserver.runtime.validation.names import is_dns1035_label, regex_error

if TYPE_CHECKING:
    from kube_apiserver.apis.admissionregistration.cel_compiler import CELCompiler

# --- enumerations (sets.NewString(...).List() is sorted); the shared ones are in common ---

SUPPORTED_VALIDATION_POLICY_REASONS = ["Forbidden", "Invalid", "RequestEntityTooLarge"]
VALID_VALIDATION_ACTIONS = ["Audit", "Deny", "Warn"]
# validateParamRef lists these in its own order, unsorted
PARAMETER_NOT_FOUND_ACTIONS = ["Deny", "Allow"]

MAX_AUDIT_ANNOTATIONS = 20
# a 5 KiB expression: less than the 10 KiB an audit annotation value may have, as concatenation grows it
MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH = 5 * 1024

_NEWLINES = re.compile(r"[\n\r]+")  # the newline characters of the CEL grammar


# --- match resources (policies and bindings) ---


def validate_named_rule_with_operations(rule: dict[str, Any], path: str) -> list[StatusCause]:
    errs = []
    seen: set[str] = set()
    names_path = field.child(path, "resourceNames")
    for i, name in enumerate(field.as_list(rule.get("resourceNames"))):
        name = field.as_str(name)
        errs.extend(field.invalid(field.index(names_path, i), name, msg) for msg in is_valid_path_segment_name(name))
        if name in seen:
            errs.append(field.duplicate(field.index(names_path, i), name))
        else:
            seen.add(name)
    errs.extend(validate_rule_with_operations(rule, path))
    return errs


def validate_match_resources(match: Any, path: str) -> list[StatusCause]:
    """validateMatchResources: nothing for a nil MatchResources; selectors validated strictly, as the
    type came after label values were tightened (kubernetes#99139)."""
    if match is None:
        return []
    match = field.as_dict(match)
    errs = []
    policy = match.get("matchPolicy")
    if policy is None:
        errs.append(field.required(field.child(path, "matchPolicy"), ""))
    elif policy not in SUPPORTED_MATCH_POLICIES:
        errs.append(field.not_supported(field.child(path, "matchPolicy"), policy, SUPPORTED_MATCH_POLICIES))
    for name in ("namespaceSelector", "objectSelector"):
        selector = match.get(name)
        if selector is None:
            errs.append(field.required(field.child(path, name), ""))
        else:
            errs.extend(validate_label_selector(selector, field.child(path, name)))
    for name in ("resourceRules", "excludeResourceRules"):
        for i, rule in enumerate(field.as_list(match.get(name))):
            errs.extend(
                validate_named_rule_with_operations(field.as_dict(rule), field.index(field.child(path, name), i))
            )
    return errs


# --- the policy ---


def validate_param_kind(kind: dict[str, Any], path: str) -> list[StatusCause]:
    errs = []
    api_version = field.as_str(kind.get("apiVersion"))
    version_path = field.child(path, "apiVersion")
    if not api_version:
        errs.append(field.required(version_path, ""))
    elif api_version.count("/") > 1:
        errs.append(field.invalid(version_path, api_version, f"unexpected GroupVersion string: {api_version}"))
    else:
        group, version = ("", "") if api_version == "/" else _split_group_version(api_version)
        # the group and version rules of APIService
        if group:
            msgs = is_dns1123_subdomain(group)
            if msgs:
                errs.append(field.invalid(version_path, group, ",".join(msgs)))
        if not version:
            errs.append(field.invalid(version_path, api_version, "version must be specified"))
        else:
            msgs = is_dns1035_label(version)
            if msgs:
                errs.append(field.invalid(version_path, version, ",".join(msgs)))
    kind_name = field.as_str(kind.get("kind"))
    if not kind_name:
        errs.append(field.required(field.child(path, "kind"), ""))
    else:
        msgs = is_dns1035_label(kind_name.lower())
        if msgs:
            errs.append(
                field.invalid(
                    field.child(path, "kind"),
                    kind_name,
                    "may have mixed case, but should otherwise match: " + ",".join(msgs),
                )
            )
    return errs


def _split_group_version(api_version: str) -> tuple[str, str]:
    """parseGroupVersion for strings with at most one slash."""
    group, slash, version = api_version.partition("/")
    return (group, version) if slash else ("", api_version)


def validate_variable(
    compiler: CELCompiler, variable: dict[str, Any], has_params: bool, path: str
) -> list[StatusCause]:
    errs = []
    name = field.as_str(variable.get("name"))
    if not trim_space(name):
        errs.append(field.required(field.child(path, "name"), "name is not specified"))
    elif not is_cel_identifier(name):
        errs.append(field.invalid(field.child(path, "name"), name, "name is not a valid CEL identifier"))
    expression = field.as_str(variable.get("expression"))
    if not trim_space(expression):
        errs.append(field.required(field.child(path, "expression"), "expression is not specified"))
    else:
        err = compiler.compile_and_store_variable(name, expression, has_params)
        if err is not None:
            errs.append(convert_cel_error_to_validation_error(field.child(path, "expression"), expression, err))
    return errs


def validate_validation(
    compiler: CELCompiler, validation: dict[str, Any], has_params: bool, opts: ValidationOptions, path: str
) -> list[StatusCause]:
    errs = []
    expression = field.as_str(validation.get("expression"))
    message = field.as_str(validation.get("message"))
    message_expression = field.as_str(validation.get("messageExpression"))
    trimmed_message = trim_space(message)
    trimmed_message_expression = trim_space(message_expression)
    expression_path = field.child(path, "expression")
    if not trim_space(expression):
        errs.append(field.required(expression_path, "expression is not specified"))
    else:
        _, err = compiler.compile(expression, [BOOL], has_params, True)
        if err is not None:
            errs.append(convert_cel_error_to_validation_error(expression_path, expression, err))
    message_expression_path = field.child(path, "messageExpression")
    if message_expression and not trimmed_message_expression:
        errs.append(field.invalid(message_expression_path, message_expression, "must be non-empty if specified"))
    elif trimmed_message_expression:
        # the untrimmed text, so that error columns point into what the user wrote; no authorizer here
        _, err = compiler.compile(message_expression, [STRING], opts.allow_params_in_match_conditions, False)
        if err is not None:
            errs.append(convert_cel_error_to_validation_error(message_expression_path, message_expression, err))
    message_path = field.child(path, "message")
    if message and not trimmed_message:
        errs.append(field.invalid(message_path, message, "message must be non-empty if specified"))
    elif _NEWLINES.search(trimmed_message):
        errs.append(field.invalid(message_path, message, "message must not contain line breaks"))
    reason = validation.get("reason")
    if reason is not None and reason not in SUPPORTED_VALIDATION_POLICY_REASONS:
        errs.append(field.not_supported(field.child(path, "reason"), reason, SUPPORTED_VALIDATION_POLICY_REASONS))
    return errs


def validate_audit_annotation(
    compiler: CELCompiler, policy_name: str, annotation: dict[str, Any], has_params: bool, path: str
) -> list[StatusCause]:
    errs = []
    key = field.as_str(annotation.get("key"))
    key_path = field.child(path, "key")
    if policy_name:
        # the annotation is recorded as "<policy name>/<key>"
        errs.extend(validate_qualified_name(f"{policy_name}/{key}", key_path))
    else:
        errs.append(field.invalid(key_path, key, "requires metadata.name be non-empty"))
    value_expression = field.as_str(annotation.get("valueExpression"))
    trimmed = trim_space(value_expression)
    value_path = field.child(path, "valueExpression")
    if not trimmed:
        errs.append(field.required(value_path, "valueExpression is not specified"))
    elif len(trimmed.encode()) > MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH:
        errs.append(
            field.required(
                value_path, f"must not exceed {MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH} bytes in length"
            )
        )
    else:
        # upstream compiles the trimmed text but shows the text as written
        _, err = compiler.compile(trimmed, [STRING, NULL], has_params, True)
        if err is not None:
            errs.append(convert_cel_error_to_validation_error(value_path, value_expression, err))
    return errs


def _audit_annotations_value(annotations: list[Any]) -> gorepr.GoValue:
    items = []
    for a in annotations:
        a = field.as_dict(a)
        fields = [("Key", field.as_str(a.get("key"))), ("ValueExpression", field.as_str(a.get("valueExpression")))]
        items.append(gorepr.struct("admissionregistration.AuditAnnotation", fields).text)
    return gorepr.GoValue("[]admissionregistration.AuditAnnotation{" + ", ".join(items) + "}")


def validate_validating_admission_policy_spec(
    name: str, spec: dict[str, Any], opts: ValidationOptions, path: str = "spec"
) -> list[StatusCause]:
    """validateValidatingAdmissionPolicySpec."""
    errs = []
    variables = field.as_list(spec.get("variables"))
    # one compiler per policy, made when first needed: with variables it composes them, so it has state
    compiler: CELCompiler | None = None

    def get_compiler() -> CELCompiler:
        nonlocal compiler
        if compiler is None:
            from kube_apiserver.apis.admissionregistration.cel_compiler import create_compiler

            compiler = create_compiler(len(variables) > 0)
        return compiler

    failure_policy = spec.get("failurePolicy")
    if failure_policy is None:
        errs.append(field.required(field.child(path, "failurePolicy"), ""))
    elif failure_policy not in SUPPORTED_FAILURE_POLICIES:
        errs.append(field.not_supported(field.child(path, "failurePolicy"), failure_policy, SUPPORTED_FAILURE_POLICIES))
    param_kind = spec.get("paramKind")
    has_params = param_kind is not None
    if has_params:
        opts = dataclasses.replace(opts, allow_params_in_match_conditions=True)
        errs.extend(validate_param_kind(field.as_dict(param_kind), field.child(path, "paramKind")))
    match = spec.get("matchConstraints")
    if match is None:
        errs.append(field.required(field.child(path, "matchConstraints"), ""))
    else:
        errs.extend(validate_match_resources(match, field.child(path, "matchConstraints")))
        # the resource rules give the expressions their types
        if not field.as_list(field.as_dict(match).get("resourceRules")):
            errs.append(field.required(field.child(path, "matchConstraints", "resourceRules"), ""))
    if not opts.ignore_match_conditions:
        errs.extend(
            validate_match_conditions(
                field.as_list(spec.get("matchConditions")), opts, field.child(path, "matchConditions")
            )
        )
    for i, variable in enumerate(variables):
        errs.extend(
            validate_variable(
                get_compiler(), field.as_dict(variable), has_params, field.index(field.child(path, "variables"), i)
            )
        )
    validations = field.as_list(spec.get("validations"))
    annotations = field.as_list(spec.get("auditAnnotations"))
    if not validations and not annotations:
        detail = "validations or auditAnnotations must contain at least one item"
        errs.append(field.required(field.child(path, "validations"), detail))
        errs.append(field.required(field.child(path, "auditAnnotations"), detail))
        return errs
    for i, validation in enumerate(validations):
        errs.extend(
            validate_validation(
                get_compiler(),
                field.as_dict(validation),
                has_params,
                opts,
                field.index(field.child(path, "validations"), i),
            )
        )
    annotations_path = field.child(path, "auditAnnotations")
    if len(annotations) > MAX_AUDIT_ANNOTATIONS:
        errs.append(
            field.invalid(
                annotations_path,
                _audit_annotations_value(annotations),
                f"must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations",
            )
        )
    keys: set[str] = set()
    for i, annotation in enumerate(annotations):
        annotation = field.as_dict(annotation)
        annotation_path = field.index(annotations_path, i)
        errs.extend(validate_audit_annotation(get_compiler(), name, annotation, has_params, annotation_path))
        key = field.as_str(annotation.get("key"))
        if key in keys:
            errs.append(field.duplicate(field.child(annotation_path, "key"), key))
        keys.add(key)
    return errs


def validate_validating_admission_policy(obj: dict[str, Any]) -> list[StatusCause]:
    """ValidateValidatingAdmissionPolicy (metadata: see the module docstring)."""
    name = field.as_str(field.meta_of(obj).get("name"))
    return validate_validating_admission_policy_spec(name, field.spec_of(obj), ValidationOptions())


# --- the policy's status ---

_CONDITION_STATUSES = ["False", "True", "Unknown"]
_MAX_CONDITION_REASON_LEN = 1024
_MAX_CONDITION_MESSAGE_LEN = 32 * 1024
_CONDITION_REASON_FMT = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
_CONDITION_REASON_RE = re.compile(_CONDITION_REASON_FMT)
_CONDITION_REASON_MSG = (
    "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric "
    "characters or '_,:', and must end with an alphanumeric character or '_'"
)


def validate_conditions(conditions: list[Any], path: str) -> list[StatusCause]:
    """metav1validation.ValidateConditions."""
    errs = []
    seen: set[str] = set()
    for i, condition in enumerate(conditions):
        condition = field.as_dict(condition)
        condition_path = field.index(path, i)
        kind = field.as_str(condition.get("type"))
        if kind in seen:
            errs.append(field.duplicate(field.child(condition_path, "type"), kind))
        else:
            seen.add(kind)
        errs.extend(validate_condition(condition, condition_path))
    return errs


def validate_condition(condition: dict[str, Any], path: str) -> list[StatusCause]:
    """metav1validation.ValidateCondition."""
    errs = validate_label_name(field.as_str(condition.get("type")), field.child(path, "type"))
    status = field.as_str(condition.get("status"))
    if status not in _CONDITION_STATUSES:
        errs.append(field.not_supported(field.child(path, "status"), status, _CONDITION_STATUSES))
    generation = condition.get("observedGeneration")
    if field.is_int(generation) and generation < 0:
        errs.append(
            field.invalid(field.child(path, "observedGeneration"), generation, "must be greater than or equal to zero")
        )
    if not condition.get("lastTransitionTime"):
        errs.append(field.required(field.child(path, "lastTransitionTime"), "must be set"))
    reason = field.as_str(condition.get("reason"))
    reason_path = field.child(path, "reason")
    if not reason:
        errs.append(field.required(reason_path, "must be set"))
    else:
        if not _CONDITION_REASON_RE.fullmatch(reason):
            examples = ("my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB")
            errs.append(
                field.invalid(reason_path, reason, regex_error(_CONDITION_REASON_MSG, _CONDITION_REASON_FMT, *examples))
            )
        if len(reason.encode()) > _MAX_CONDITION_REASON_LEN:
            errs.append(field.too_long(reason_path, reason, _MAX_CONDITION_REASON_LEN))
    message = field.as_str(condition.get("message"))
    if len(message.encode()) > _MAX_CONDITION_MESSAGE_LEN:
        errs.append(field.too_long(field.child(path, "message"), message, _MAX_CONDITION_MESSAGE_LEN))
    return errs


def validate_validating_admission_policy_status(status: dict[str, Any], path: str = "status") -> list[StatusCause]:
    errs = []
    type_checking = status.get("typeChecking")
    if type_checking is not None:
        warnings_path = field.child(path, "typeChecking", "expressionWarnings")
        for i, warning in enumerate(field.as_list(field.as_dict(type_checking).get("expressionWarnings"))):
            warning = field.as_dict(warning)
            warning_path = field.index(warnings_path, i)
            if not field.as_str(warning.get("warning")):
                errs.append(field.required(field.child(warning_path, "warning"), ""))
            # upstream also parses the fieldRef as a JSONPath; only its presence is checked here
            if not trim_space(field.as_str(warning.get("fieldRef"))):
                errs.append(field.required(field.child(warning_path, "fieldRef"), ""))
    errs.extend(validate_conditions(field.as_list(status.get("conditions")), field.child(path, "conditions")))
    return errs


def ignore_validating_admission_policy_match_conditions(new: dict[str, Any], old: dict[str, Any]) -> bool:
    """ignoreValidatingAdmissionPolicyMatchConditions: neither paramKind nor matchConditions changed."""
    new_spec, old_spec = field.spec_of(new), field.spec_of(old)
    return all(new_spec.get(key) == old_spec.get(key) for key in ("paramKind", "matchConditions"))


def validate_validating_admission_policy_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    """ValidateValidatingAdmissionPolicyUpdate, which replaces the create validation (see the module
    docstring): the new policy as on create, its match conditions compiled only if they or paramKind
    changed. Then its status, as ValidateValidatingAdmissionPolicyStatusUpdate checks it: the table has
    one update validator for the policy and its /status (where the spec is the stored one, validated
    again); on a plain update the status is the stored one, carried over."""
    opts = ValidationOptions(ignore_match_conditions=ignore_validating_admission_policy_match_conditions(new, old))
    name = field.as_str(field.meta_of(new).get("name"))
    errs = validate_validating_admission_policy_spec(name, field.spec_of(new), opts)
    return errs + validate_validating_admission_policy_status(field.as_dict(new.get("status")))


# --- the binding ---


def validate_param_ref(ref: Any, path: str) -> list[StatusCause]:
    if ref is None:
        return []
    ref = field.as_dict(ref)
    errs = []
    name = field.as_str(ref.get("name"))
    selector = ref.get("selector")
    exclusive = "name and selector are mutually exclusive"
    if name:
        errs.extend(field.invalid(field.child(path, "name"), name, msg) for msg in is_valid_path_segment_name(name))
        if selector is not None:
            errs.append(field.forbidden(field.child(path, "name"), exclusive))
    if selector is not None:
        errs.extend(validate_label_selector(selector, field.child(path, "selector")))
        if name:
            errs.append(field.forbidden(field.child(path, "selector"), exclusive))
    if not name and selector is None:
        errs.append(field.required(path, "one of name or selector must be specified"))
    action = ref.get("parameterNotFoundAction")
    action_path = field.child(path, "parameterNotFoundAction")
    if action is None or action == "":
        errs.append(field.required(action_path, ""))
    elif action not in PARAMETER_NOT_FOUND_ACTIONS:
        errs.append(field.not_supported(action_path, action, PARAMETER_NOT_FOUND_ACTIONS))
    return errs


def validate_validation_actions(actions: list[Any], path: str) -> list[StatusCause]:
    errs = []
    seen: set[Any] = set()
    for i, action in enumerate(actions):
        if action not in VALID_VALIDATION_ACTIONS:
            errs.append(field.not_supported(field.index(path, i), action, VALID_VALIDATION_ACTIONS))
        if _hashable(action) in seen:
            errs.append(field.duplicate(field.index(path, i), action))
        seen.add(_hashable(action))
    if "Deny" in seen and "Warn" in seen:
        errs.append(
            field.invalid(
                path,
                gorepr.string_slice(actions, "[]admissionregistration.ValidationAction"),
                "must not contain both Deny and Warn (repeating the same validation failure information in the API "
                "response and headers serves no purpose)",
            )
        )
    if not seen:
        errs.append(field.required(path, "at least one validation action is required"))
    return errs


def _hashable(value: Any) -> Any:
    return value if isinstance(value, str | int | float | bool | None) else repr(value)


def validate_validating_admission_policy_binding(obj: dict[str, Any]) -> list[StatusCause]:
    """ValidateValidatingAdmissionPolicyBinding (metadata: see the module docstring)."""
    spec = field.spec_of(obj)
    errs = []
    policy_name = field.as_str(spec.get("policyName"))
    if not policy_name:
        errs.append(field.required("spec.policyName", ""))
    else:
        errs.extend(field.invalid("spec.policyName", policy_name, msg) for msg in is_dns1123_subdomain(policy_name))
    errs.extend(validate_param_ref(spec.get("paramRef"), "spec.paramRef"))
    # sic: upstream reports matchResources under the misspelt "matchResouces"
    errs.extend(validate_match_resources(spec.get("matchResources"), "spec.matchResouces"))
    errs.extend(validate_validation_actions(field.as_list(spec.get("validationActions")), "spec.validationActions"))
    return errs


def validate_validating_admission_policy_binding_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    """ValidateValidatingAdmissionPolicyBindingUpdate validates the new binding alone, which validate()
    does already: nothing changes only on update."""
    return []


VALIDATORS = {
    ("v1", "ValidatingAdmissionPolicy"): validate_validating_admission_policy,
    ("v1", "ValidatingAdmissionPolicyBinding"): validate_validating_admission_policy_binding,
}
UPDATE_VALIDATORS = {
    ("v1", "ValidatingAdmissionPolicy"): validate_validating_admission_policy_update,
    ("v1", "ValidatingAdmissionPolicyBinding"): validate_validating_admission_policy_binding_update,
}
# the policy's update validator checks the new policy itself, with update's leniency
UPDATE_REPLACES_OBJECT_VALIDATION = {("v1", "ValidatingAdmissionPolicy")}
