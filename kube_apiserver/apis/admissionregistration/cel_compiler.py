"""The CEL compilers of admissionregistration.k8s.io's validation (createCompiler and the stateless
compiler of k8s.io/apiserver/pkg/admission/plugin/cel): admission's variables declared as protobuf
messages the checker reads, the authz library for the checker, and CELCompiler. Imported by the
validation modules (validation/common.py, validation/policies.py) only when they compile an
expression, so a server that never sees one does not load the CEL libraries at start."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from cel_expr_python import cel
from google.protobuf import descriptor_pb2

from kube_apiserver.apis.admissionregistration.validation.common import (
    ANY,
    BOOL,
    DYN,
    STRING,
    CelType,
    cel_type_string,
    is_cel_identifier,
    parse_cel_type,
)
from kube_apiserver.runtime.cel import types as celtypes

# the base extensions of checker_env(), to which the authz library is added
from kube_apiserver.runtime.cel.environment import base_extensions, compile_error_text
from kube_apiserver.runtime.cel.library import checker_extension

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
