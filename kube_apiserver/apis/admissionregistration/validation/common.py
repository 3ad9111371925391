"""What the validation of admissionregistration.k8s.io's kinds shares
(pkg/apis/admissionregistration/validation/validation.go): the validationOptions, the rules
(validateRule, validateResources, validateRuleWithOperations), match conditions
(validateMatchConditions, validateMatchCondition, validateMatchConditionsExpression) and the CEL
compilers behind every expression (createCompiler and the stateless compiler, on
k8s.io/apiserver/pkg/admission/plugin/cel), with convertCELErrorToValidationError.

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
from functools import lru_cache
from typing import Any

from cel_expr_python import cel
from google.protobuf import descriptor_pb2

from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.names import validate_qualified_name
from kube_apiserver.runtime.cel import types as celtypes

# the base extensions of checker_env(), to which the authz library is added
from kube_apiserver.runtime.cel.environment import base_extensions, compile_error_text
from kube_apiserver.runtime.cel.library import checker_extension
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


# --- the declarations of admission's CEL variables, as protobuf messages the checker reads ---

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    "BOOL": _F.TYPE_BOOL,
    "INT": _F.TYPE_INT64,
    "UINT": _F.TYPE_UINT64,
    "DOUBLE": _F.TYPE_DOUBLE,
    "STRING": _F.TYPE_STRING,
    "BYTES": _F.TYPE_BYTES,
}
_WELL_KNOWN = {"TIMESTAMP": ".google.protobuf.Timestamp", "DURATION": ".google.protobuf.Duration"}
_MAP_KEYS = {"STRING", "INT", "UINT", "BOOL"}
_DEPENDENCIES = [
    "google/protobuf/struct.proto",
    "google/protobuf/timestamp.proto",
    "google/protobuf/duration.proto",
]

REQUEST_TYPE = "kubernetes.AdmissionRequest"
NAMESPACE_TYPE = "kubernetes.Namespace"
AUTHORIZER_TYPE = "kubernetes.authorization.Authorizer"
PATH_CHECK_TYPE = "kubernetes.authorization.PathCheck"
GROUP_CHECK_TYPE = "kubernetes.authorization.GroupCheck"
RESOURCE_CHECK_TYPE = "kubernetes.authorization.ResourceCheck"
DECISION_TYPE = "kubernetes.authorization.Decision"
VARIABLES_TYPE = "kubernetes.variables"

_ADMISSION_FILE = "k8s_admission_policy.proto"
_AUTHZ_FILE = "k8s_admission_authz.proto"
_VARIABLES_FILE = "k8s_admission_variables.proto"


def _add_field(msg: Any, full_name: str, name: str, number: int, t: CelType, known: set[str]) -> None:
    """A field of message full_name whose CEL type is t where protobuf can say it; dyn
    (google.protobuf.Value) elsewhere."""
    f = msg.field.add(name=name, number=number, label=_F.LABEL_OPTIONAL, json_name=f"f{number}")
    kind, params = t
    if kind == "LIST" and params and _element(params[0], known):
        f.label = _F.LABEL_REPEATED
        _set_element(f, params[0])
    elif kind == "LIST":
        f.label = _F.LABEL_REPEATED
        f.type, f.type_name = _F.TYPE_MESSAGE, ".google.protobuf.Value"
    elif kind == "MAP" and len(params) == 2 and params[0][0] in _MAP_KEYS and _entry_name(name) not in _nested(msg):
        entry_name = _entry_name(name)
        entry = msg.nested_type.add(name=entry_name)
        entry.options.map_entry = True
        entry.field.add(name="key", number=1, label=_F.LABEL_OPTIONAL, type=_SCALARS[params[0][0]])
        value = entry.field.add(name="value", number=2, label=_F.LABEL_OPTIONAL)
        if _element(params[1], known):
            _set_element(value, params[1])
        elif params[1][0] == "LIST":
            value.type, value.type_name = _F.TYPE_MESSAGE, ".google.protobuf.ListValue"
        else:
            value.type, value.type_name = _F.TYPE_MESSAGE, ".google.protobuf.Value"
        f.label, f.type, f.type_name = _F.LABEL_REPEATED, _F.TYPE_MESSAGE, f".{full_name}.{entry_name}"
    elif _element(t, known):
        _set_element(f, t)
    else:
        f.type, f.type_name = _F.TYPE_MESSAGE, ".google.protobuf.Value"


def _entry_name(field_name: str) -> str:
    """The nested type protobuf requires for a map field: FooBarEntry for foo_bar."""
    return "".join(part[:1].upper() + part[1:] for part in field_name.split("_")) + "Entry"


def _nested(msg: Any) -> set[str]:
    # foo_bar and fooBar would both need FooBarEntry: the second map is then dyn
    return {n.name for n in msg.nested_type}


def _element(t: CelType, known: set[str]) -> bool:
    """Whether t fits a single (or repeated) protobuf field as itself."""
    kind, params = t
    return kind in _SCALARS or kind in _WELL_KNOWN or (not params and kind in known)


def _set_element(f: Any, t: CelType) -> None:
    kind = t[0]
    if kind in _SCALARS:
        f.type = _SCALARS[kind]
    elif kind in _WELL_KNOWN:
        f.type, f.type_name = _F.TYPE_MESSAGE, _WELL_KNOWN[kind]
    else:
        f.type, f.type_name = _F.TYPE_MESSAGE, "." + kind


def _list_of(t: CelType) -> CelType:
    return ("LIST", (t,))


def _map_of(k: CelType, v: CelType) -> CelType:
    return ("MAP", (k, v))


_INT: CelType = ("INT", ())
_TIMESTAMP: CelType = ("TIMESTAMP", ())

# BuildRequestType (uid, object and oldObject left out, as upstream leaves them) and BuildNamespaceType
_ADMISSION_MESSAGES: list[tuple[str, list[tuple[str, CelType]]]] = [
    ("GroupVersionKind", [("group", STRING), ("version", STRING), ("kind", STRING)]),
    ("GroupVersionResource", [("group", STRING), ("version", STRING), ("resource", STRING)]),
    (
        "UserInfo",
        [
            ("username", STRING),
            ("uid", STRING),
            ("groups", _list_of(STRING)),
            ("extra", _map_of(STRING, _list_of(STRING))),
        ],
    ),
    (
        "AdmissionRequest",
        [
            ("kind", ("kubernetes.GroupVersionKind", ())),
            ("resource", ("kubernetes.GroupVersionResource", ())),
            ("subResource", STRING),
            ("requestKind", ("kubernetes.GroupVersionKind", ())),
            ("requestResource", ("kubernetes.GroupVersionResource", ())),
            ("requestSubResource", STRING),
            ("name", STRING),
            ("namespace", STRING),
            ("operation", STRING),
            ("userInfo", ("kubernetes.UserInfo", ())),
            ("dryRun", BOOL),
            ("options", DYN),
        ],
    ),
    ("NamespaceSpec", [("finalizers", _list_of(STRING))]),
    (
        "NamespaceCondition",
        [
            ("status", STRING),
            ("type", STRING),
            ("lastTransitionTime", _TIMESTAMP),
            ("message", STRING),
            ("reason", STRING),
        ],
    ),
    ("NamespaceStatus", [("conditions", _list_of(("kubernetes.NamespaceCondition", ()))), ("phase", STRING)]),
    (
        "NamespaceMetadata",
        [
            ("name", STRING),
            ("generateName", STRING),
            ("namespace", STRING),
            ("labels", _map_of(STRING, STRING)),
            ("annotations", _map_of(STRING, STRING)),
            ("UID", STRING),
            ("creationTimestamp", _TIMESTAMP),
            ("deletionGracePeriodSeconds", _INT),
            ("deletionTimestamp", _TIMESTAMP),
            ("generation", _INT),
            ("resourceVersion", STRING),
            ("finalizers", _list_of(STRING)),
        ],
    ),
    (
        "Namespace",
        [
            ("metadata", ("kubernetes.NamespaceMetadata", ())),
            ("spec", ("kubernetes.NamespaceSpec", ())),
            ("status", ("kubernetes.NamespaceStatus", ())),
        ],
    ),
]

# the Kubernetes CEL types runtime/cel ships (kubernetes.Quantity, net.IP, ...): a variable may hold one
_OPAQUE_TYPES = {
    celtypes.QUANTITY,
    celtypes.URL,
    celtypes.IP,
    celtypes.CIDR,
    celtypes.NAMED_FORMAT,
    celtypes.FORMAT_RESULT,
}
_AUTHZ_TYPES = [AUTHORIZER_TYPE, PATH_CHECK_TYPE, GROUP_CHECK_TYPE, RESOURCE_CHECK_TYPE, DECISION_TYPE]
_ADMISSION_TYPES = {f"kubernetes.{name}" for name, _ in _ADMISSION_MESSAGES}
_KNOWN_MESSAGES = _OPAQUE_TYPES | set(_AUTHZ_TYPES) | _ADMISSION_TYPES


@lru_cache(maxsize=1)
def _fixed_files() -> tuple[descriptor_pb2.FileDescriptorProto, ...]:
    admission = descriptor_pb2.FileDescriptorProto(
        name=_ADMISSION_FILE, package="kubernetes", syntax="proto3", dependency=_DEPENDENCIES
    )
    for name, fields in _ADMISSION_MESSAGES:
        msg = admission.message_type.add(name=name)
        for number, (field_name, t) in enumerate(fields, start=1):
            _add_field(msg, f"kubernetes.{name}", field_name, number, t, _ADMISSION_TYPES)
    # receiver-only values: the checker needs their names, the library's functions do the rest
    authz = descriptor_pb2.FileDescriptorProto(name=_AUTHZ_FILE, package="kubernetes.authorization", syntax="proto3")
    for full_name in _AUTHZ_TYPES:
        authz.message_type.add(name=full_name.rsplit(".", 1)[1])
    return admission, authz


@lru_cache(maxsize=1)
def _opaque_files() -> list[str]:
    """The files of runtime/cel's pools that declare its Kubernetes types."""
    pool = celtypes.shared_pool()
    return sorted({pool.FindMessageTypeByName(name).file.name for name in _OPAQUE_TYPES})


def _new_pool(variables: dict[str, CelType] | None) -> Any:
    pool = celtypes.new_pool()
    for fdp in _fixed_files():
        pool.Add(fdp)
    if variables is not None:
        # proto2: cel-cpp refuses proto3 fields whose JSON names collide (foo_bar and fooBar)
        fdp = descriptor_pb2.FileDescriptorProto(
            name=_VARIABLES_FILE,
            package="kubernetes",
            syntax="proto2",
            dependency=[*_DEPENDENCIES, *_opaque_files(), _ADMISSION_FILE, _AUTHZ_FILE],
        )
        msg = fdp.message_type.add(name="variables")
        for number, (name, t) in enumerate(variables.items(), start=1):
            _add_field(msg, VARIABLES_TYPE, name, number, t, _KNOWN_MESSAGES)
        pool.Add(fdp)
    return pool


def _authz_library() -> cel.CelExtension:
    """library.Authz and library.AuthzSelectors (on by default in 1.33), declared for type checking."""
    authorizer, path_check, group_check, resource_check, decision = (cel.Type(n) for n in _AUTHZ_TYPES)
    s = cel.Type.STRING

    def member(name: str, oid: str, result: Any, params: list[Any]) -> cel.FunctionDecl:
        return cel.FunctionDecl(name, [cel.Overload(oid, result, params, is_member=True)])

    return cel.CelExtension(
        "kubernetes.authz",
        [
            member("path", "authorizer_path", path_check, [authorizer, s]),
            member("group", "authorizer_group", group_check, [authorizer, s]),
            member("serviceAccount", "authorizer_serviceaccount", authorizer, [authorizer, s, s]),
            member("resource", "groupcheck_resource", resource_check, [group_check, s]),
            member("subresource", "resourcecheck_subresource", resource_check, [resource_check, s]),
            member("namespace", "resourcecheck_namespace", resource_check, [resource_check, s]),
            member("name", "resourcecheck_name", resource_check, [resource_check, s]),
            cel.FunctionDecl(
                "check",
                [
                    cel.Overload("pathcheck_check", decision, [path_check, s], is_member=True),
                    cel.Overload("resourcecheck_check", decision, [resource_check, s], is_member=True),
                ],
            ),
            member("errored", "decision_errored", cel.Type.BOOL, [decision]),
            member("error", "decision_error", s, [decision]),
            member("allowed", "decision_allowed", cel.Type.BOOL, [decision]),
            member("reason", "decision_reason", s, [decision]),
            member("fieldSelector", "authorizer_fieldselector", resource_check, [resource_check, s]),
            member("labelSelector", "authorizer_labelselector", resource_check, [resource_check, s]),
        ],
    )


def _new_env(pool: Any, has_params: bool, has_authorizer: bool, composition: bool) -> cel.Env:
    """createEnvForOpts: object and oldObject are dyn, request and namespaceObject typed."""
    variables: dict[str, Any] = {
        "object": cel.Type.DYN,
        "oldObject": cel.Type.DYN,
        "namespaceObject": cel.Type(NAMESPACE_TYPE),
        "request": cel.Type(REQUEST_TYPE),
    }
    if has_params:
        variables["params"] = cel.Type.DYN
    if has_authorizer:
        variables["authorizer"] = cel.Type(AUTHORIZER_TYPE)
        variables["authorizer.requestResource"] = cel.Type(RESOURCE_CHECK_TYPE)
    if composition:
        variables["variables"] = cel.Type(VARIABLES_TYPE)
    extensions = [*base_extensions(), checker_extension(), _authz_library()]
    return cel.NewEnv(pool, variables=variables, extensions=extensions)


@lru_cache(maxsize=4)
def _stateless_env(has_params: bool, has_authorizer: bool) -> cel.Env:
    return _new_env(_new_pool(None), has_params, has_authorizer, False)


class CELCompiler:
    """plugincel.Compiler, or with composition the CompositedCompiler: each variable compiled becomes a
    field of `variables` typed by its result (dyn when it did not compile) for what is compiled next.
    Use create_compiler() (createCompiler) for a policy's expressions and stateless_compiler() for
    match conditions."""

    def __init__(self, composition: bool) -> None:
        self.composition = composition
        self.variables: dict[str, CelType] = {}
        self._envs: dict[tuple[bool, bool], cel.Env] = {}

    def _env(self, has_params: bool, has_authorizer: bool) -> cel.Env:
        if not self.composition:
            return _stateless_env(has_params, has_authorizer)
        key = (has_params, has_authorizer)
        env = self._envs.get(key)
        if env is None:
            env = _new_env(_new_pool(self.variables), has_params, has_authorizer, True)
            self._envs[key] = env
        return env

    def compile(
        self, source: str, return_types: list[CelType], has_params: bool, has_authorizer: bool
    ) -> tuple[CelType | None, tuple[str, str] | None]:
        """CompileCELExpression: the result type, or an error as (Invalid|Internal, detail)."""
        try:
            checked = self._env(has_params, has_authorizer).compile(source)
        except RuntimeError as e:
            return None, ("Invalid", "compilation failed: " + compile_error_text(str(e)))
        except Exception as e:  # a failure of the environment, never the expression's fault
            return None, ("Internal", f"unexpected compilation error: {e}")
        out = parse_cel_type(checked.return_type().name())
        if ANY not in return_types and not any(out == t for t in return_types):
            got = cel_type_string(out)
            if len(return_types) == 1:
                reason = f"must evaluate to {cel_type_string(return_types[0])} but got {got}"
            else:
                names = " ".join(cel_type_string(t) for t in return_types)
                reason = f"must evaluate to one of [{names}] but got {got}"
            return None, ("Invalid", reason)
        return out, None

    def compile_and_store_variable(self, name: str, source: str, has_params: bool) -> tuple[str, str] | None:
        out, err = self.compile(source, [ANY], has_params, True)
        # a name CEL cannot select is still stored upstream, where nothing can reach it
        if is_cel_identifier(name):
            self.variables[name] = out or DYN
            self._envs.clear()
        return err


def create_compiler(allow_composition: bool) -> CELCompiler:
    """createCompiler: a composing compiler (it has state: one per policy) for a policy with variables,
    else the stateless one."""
    return CELCompiler(True) if allow_composition else stateless_compiler()


@lru_cache(maxsize=1)
def stateless_compiler() -> CELCompiler:
    """getStrictStatelessCELCompiler / getNonStrictStatelessCELCompiler (the cost limits are not
    modelled): the compiler of match conditions, which never see `variables`."""
    return CELCompiler(False)


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
    _, err = stateless_compiler().compile(expression, [BOOL], opts.allow_params_in_match_conditions, True)
    return [] if err is None else [convert_cel_error_to_validation_error(path, expression, err)]
