"""ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding validation
(pkg/apis/admissionregistration/validation/validation.go: ValidateValidatingAdmissionPolicy,
ValidateValidatingAdmissionPolicyUpdate, ValidateValidatingAdmissionPolicyStatusUpdate,
ValidateValidatingAdmissionPolicyBinding and ValidateValidatingAdmissionPolicyBindingUpdate).

Object metadata is checked by the registry strategy (validate_object_meta) before these run, as
upstream checks it first. On update the registry runs validate() on the new object as well as the
update validator, so the update validator adds only what upstream checks on update alone: the status.

Every CEL expression is compiled here, as upstream compiles it at validation time
(k8s.io/apiserver/pkg/admission/plugin/cel: Compiler, and CompositedCompiler once a policy declares
variables), in the variables of admission: object, oldObject, request (kubernetes.AdmissionRequest),
namespaceObject (kubernetes.Namespace), params when the policy has a paramKind, authorizer and
authorizer.requestResource where upstream declares them, and `variables` with one typed field per
variable compiled so far. The expressions are only type checked: the authz library is declared for
the checker alone. A compile error reads "compilation failed: " + the issues of the shared CEL
environment (runtime/cel), whose wording follows cel-go's but comes from cel-cpp.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from cel_expr_python import cel
from google.protobuf import descriptor_pb2

from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.names import (
    is_dns1123_subdomain,
    is_valid_path_segment_name,
    validate_qualified_name,
)
from kube_apiserver.runtime.cel import types as celtypes

# checker_env() takes no extra library; the base extensions are the same, the authz library is added
from kube_apiserver.runtime.cel.environment import base_extensions, compile_error_text
from kube_apiserver.runtime.cel.library import checker_extension
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.validation.metav1 import validate_label_name, validate_label_selector
from kube_apiserver.runtime.validation.names import is_dns1035_label, regex_error

# --- enumerations (sets.NewString(...).List() is sorted) ---

SUPPORTED_FAILURE_POLICIES = ["Fail", "Ignore"]
SUPPORTED_MATCH_POLICIES = ["Equivalent", "Exact"]
SUPPORTED_OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"]
VALID_SCOPES = ["*", "Cluster", "Namespaced"]
SUPPORTED_VALIDATION_POLICY_REASONS = ["Forbidden", "Invalid", "RequestEntityTooLarge"]
VALID_VALIDATION_ACTIONS = ["Audit", "Deny", "Warn"]
# validateParamRef lists these in its own order, unsorted
PARAMETER_NOT_FOUND_ACTIONS = ["Deny", "Allow"]

MAX_MATCH_CONDITIONS = 64
MAX_AUDIT_ANNOTATIONS = 20
# a 5 KiB expression: less than the 10 KiB an audit annotation value may have, as concatenation grows it
MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH = 5 * 1024

# Go's strings.TrimSpace trims unicode.IsSpace, which (unlike str.isspace) leaves \x1c-\x1f alone
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_NEWLINES = re.compile(r"[\n\r]+")  # the newline characters of the CEL grammar

_CEL_IDENT = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")
_CEL_RESERVED = {
    "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
    "import", "let", "loop", "package", "namespace", "return", "var", "void", "while",
}  # fmt: skip


def _trim_space(value: str) -> str:
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


class PolicyCompiler:
    """plugincel.Compiler, or with composition the CompositedCompiler: each variable compiled becomes a
    field of `variables` typed by its result (dyn when it did not compile) for what is compiled next."""

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


def _cel_error(path: str, expression: str, err: tuple[str, str]) -> StatusCause:
    """convertCELErrorToValidationError."""
    kind, detail = err
    if kind == "Invalid":
        return field.invalid(path, expression, detail)
    return field.internal_error(path, detail)


# --- rules and match resources (shared shapes with webhook configurations, kept here on purpose) ---


def _has_wildcard(values: list[Any]) -> bool:
    return "*" in values


def validate_resources(resources: list[Any], path: str) -> list[StatusCause]:
    """validateResources: subresources allowed, wildcards not mixed with what they cover."""
    errs = []
    if not resources:
        errs.append(field.required(path, ""))
    with_wildcard_subresource: set[str] = set()  # x/*
    with_wildcard_resource: set[str] = set()  # */x
    has_double_wildcard = False
    has_single_wildcard = False
    has_resource_without_subresource = False
    for i, res_sub in enumerate(resources):
        res_sub = field.as_str(res_sub)
        if res_sub == "":
            errs.append(field.required(field.index(path, i), ""))
            continue
        if res_sub == "*/*":
            has_double_wildcard = True
        if res_sub == "*":
            has_single_wildcard = True
        res, slash, sub = res_sub.partition("/")
        if not slash:
            # upstream keeps only the last such entry's answer
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
    if len(resources) > 1 and has_double_wildcard:
        errs.append(
            field.invalid(path, gorepr.string_slice(resources), "if '*/*' is present, must not specify other resources")
        )
    if has_single_wildcard and has_resource_without_subresource:
        errs.append(
            field.invalid(
                path,
                gorepr.string_slice(resources),
                "if '*' is present, must not specify other resources without subresources",
            )
        )
    return errs


def validate_rule(rule: dict[str, Any], path: str) -> list[StatusCause]:
    """validateRule with subresources allowed (the only way policies use it)."""
    errs = []
    groups = field.as_list(rule.get("apiGroups"))
    groups_path = field.child(path, "apiGroups")
    if not groups:
        errs.append(field.required(groups_path, ""))
    if len(groups) > 1 and _has_wildcard(groups):
        errs.append(
            field.invalid(
                groups_path, gorepr.string_slice(groups), "if '*' is present, must not specify other API groups"
            )
        )
    # a group may be empty: the legacy "v1" API
    versions = field.as_list(rule.get("apiVersions"))
    versions_path = field.child(path, "apiVersions")
    if not versions:
        errs.append(field.required(versions_path, ""))
    if len(versions) > 1 and _has_wildcard(versions):
        errs.append(
            field.invalid(
                versions_path, gorepr.string_slice(versions), "if '*' is present, must not specify other API versions"
            )
        )
    for i, version in enumerate(versions):
        if version == "":
            errs.append(field.required(field.index(versions_path, i), ""))
    errs.extend(validate_resources(field.as_list(rule.get("resources")), field.child(path, "resources")))
    scope = rule.get("scope")
    if scope is not None and scope not in VALID_SCOPES:
        errs.append(field.not_supported(field.child(path, "scope"), scope, VALID_SCOPES))
    return errs


def validate_rule_with_operations(rule: dict[str, Any], path: str) -> list[StatusCause]:
    errs = []
    operations = field.as_list(rule.get("operations"))
    ops_path = field.child(path, "operations")
    if not operations:
        errs.append(field.required(ops_path, ""))
    if len(operations) > 1 and _has_wildcard(operations):
        errs.append(
            field.invalid(
                ops_path,
                gorepr.string_slice(operations, "[]admissionregistration.OperationType"),
                "if '*' is present, must not specify other operations",
            )
        )
    for i, operation in enumerate(operations):
        if operation not in SUPPORTED_OPERATIONS:
            errs.append(field.not_supported(field.index(ops_path, i), operation, SUPPORTED_OPERATIONS))
    errs.extend(validate_rule(rule, path))
    return errs


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


class _Options:
    """validationOptions, as far as policies use them. ignoreMatchConditions (an update that keeps
    paramKind and matchConditions skips them) cannot be had: validate() sees no old object."""

    def __init__(self) -> None:
        self.allow_params_in_match_conditions = False


def validate_match_conditions(conditions: list[Any], opts: _Options, path: str) -> list[StatusCause]:
    errs = []
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


def validate_match_condition(condition: dict[str, Any], opts: _Options, path: str) -> list[StatusCause]:
    errs = []
    expression = _trim_space(field.as_str(condition.get("expression")))
    expression_path = field.child(path, "expression")
    if not expression:
        errs.append(field.required(expression_path, ""))
    else:
        # the stateless compiler: match conditions never see `variables`; the trimmed text is compiled and shown
        compiler = PolicyCompiler(False)
        _, err = compiler.compile(expression, [BOOL], opts.allow_params_in_match_conditions, True)
        if err is not None:
            errs.append(_cel_error(expression_path, expression, err))
    name = field.as_str(condition.get("name"))
    name_path = field.child(path, "name")
    if not name:
        errs.append(field.required(name_path, ""))
    else:
        errs.extend(validate_qualified_name(name, name_path))
    return errs


def validate_variable(
    compiler: PolicyCompiler, variable: dict[str, Any], has_params: bool, path: str
) -> list[StatusCause]:
    errs = []
    name = field.as_str(variable.get("name"))
    if not _trim_space(name):
        errs.append(field.required(field.child(path, "name"), "name is not specified"))
    elif not is_cel_identifier(name):
        errs.append(field.invalid(field.child(path, "name"), name, "name is not a valid CEL identifier"))
    expression = field.as_str(variable.get("expression"))
    if not _trim_space(expression):
        errs.append(field.required(field.child(path, "expression"), "expression is not specified"))
    else:
        err = compiler.compile_and_store_variable(name, expression, has_params)
        if err is not None:
            errs.append(_cel_error(field.child(path, "expression"), expression, err))
    return errs


def validate_validation(
    compiler: PolicyCompiler, validation: dict[str, Any], has_params: bool, opts: _Options, path: str
) -> list[StatusCause]:
    errs = []
    expression = field.as_str(validation.get("expression"))
    message = field.as_str(validation.get("message"))
    message_expression = field.as_str(validation.get("messageExpression"))
    trimmed_message = _trim_space(message)
    trimmed_message_expression = _trim_space(message_expression)
    expression_path = field.child(path, "expression")
    if not _trim_space(expression):
        errs.append(field.required(expression_path, "expression is not specified"))
    else:
        _, err = compiler.compile(expression, [BOOL], has_params, True)
        if err is not None:
            errs.append(_cel_error(expression_path, expression, err))
    message_expression_path = field.child(path, "messageExpression")
    if message_expression and not trimmed_message_expression:
        errs.append(field.invalid(message_expression_path, message_expression, "must be non-empty if specified"))
    elif trimmed_message_expression:
        # the untrimmed text, so that error columns point into what the user wrote; no authorizer here
        _, err = compiler.compile(message_expression, [STRING], opts.allow_params_in_match_conditions, False)
        if err is not None:
            errs.append(_cel_error(message_expression_path, message_expression, err))
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
    compiler: PolicyCompiler, policy_name: str, annotation: dict[str, Any], has_params: bool, path: str
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
    trimmed = _trim_space(value_expression)
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
            errs.append(_cel_error(value_path, value_expression, err))
    return errs


def _audit_annotations_value(annotations: list[Any]) -> gorepr.GoValue:
    items = []
    for a in annotations:
        a = field.as_dict(a)
        fields = [("Key", field.as_str(a.get("key"))), ("ValueExpression", field.as_str(a.get("valueExpression")))]
        items.append(gorepr.struct("admissionregistration.AuditAnnotation", fields).text)
    return gorepr.GoValue("[]admissionregistration.AuditAnnotation{" + ", ".join(items) + "}")


def validate_validating_admission_policy_spec(
    name: str, spec: dict[str, Any], opts: _Options, path: str = "spec"
) -> list[StatusCause]:
    errs = []
    variables = field.as_list(spec.get("variables"))
    # one compiler per policy, made when first needed: with variables it composes them, so it has state
    compiler: PolicyCompiler | None = None

    def get_compiler() -> PolicyCompiler:
        nonlocal compiler
        if compiler is None:
            compiler = PolicyCompiler(len(variables) > 0)
        return compiler

    failure_policy = spec.get("failurePolicy")
    if failure_policy is None:
        errs.append(field.required(field.child(path, "failurePolicy"), ""))
    elif failure_policy not in SUPPORTED_FAILURE_POLICIES:
        errs.append(field.not_supported(field.child(path, "failurePolicy"), failure_policy, SUPPORTED_FAILURE_POLICIES))
    param_kind = spec.get("paramKind")
    has_params = param_kind is not None
    if has_params:
        opts.allow_params_in_match_conditions = True
        errs.extend(validate_param_kind(field.as_dict(param_kind), field.child(path, "paramKind")))
    match = spec.get("matchConstraints")
    if match is None:
        errs.append(field.required(field.child(path, "matchConstraints"), ""))
    else:
        errs.extend(validate_match_resources(match, field.child(path, "matchConstraints")))
        # the resource rules give the expressions their types
        if not field.as_list(field.as_dict(match).get("resourceRules")):
            errs.append(field.required(field.child(path, "matchConstraints", "resourceRules"), ""))
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
    return validate_validating_admission_policy_spec(name, field.spec_of(obj), _Options())


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
            if not _trim_space(field.as_str(warning.get("fieldRef"))):
                errs.append(field.required(field.child(warning_path, "fieldRef"), ""))
    errs.extend(validate_conditions(field.as_list(status.get("conditions")), field.child(path, "conditions")))
    return errs


def validate_validating_admission_policy_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    """What upstream checks on update beyond the new object's own rules (which validate() checks here):
    the status, as ValidateValidatingAdmissionPolicyStatusUpdate does for /status. On a plain update
    the status is the stored one, carried over."""
    return validate_validating_admission_policy_status(field.as_dict(new.get("status")))


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
