"""metadata.managedFields and server-side apply (k8s.io/apimachinery/pkg/util/managedfields and
sigs.k8s.io/structured-merge-diff, written for plain dict objects).

Modules, bottom up: fieldpath (field sets in their FieldsV1 form), typeconv (the typed view of the
OpenAPI definitions), zero (a kind's empty object), typed (validation and field set of a value),
merge (compare, merge and remove on two values), managedfields (the entries' codec), updater
(ownership, conflicts, pruning), manager (the field manager stack), scale (the scale subresource's
view), hook (how handlers reach the Store).
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

from kube_apiserver.registry.fieldmanager.hook import WriteHook, current, managing
from kube_apiserver.registry.fieldmanager.manager import (
    RESET_ALL_BUT_STATUS,
    RESET_NONE,
    RESET_STATUS,
    FieldManager,
    conflict_error,
)
from kube_apiserver.registry.fieldmanager.scale import (
    SCALE_FIELD_MANAGER,
    ScaleHandler,
    replicas_path,
    through_scale,
)
from kube_apiserver.registry.versioned import scheme_converter
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.errors import StatusCause

__all__ = [
    "FieldManager",
    "SCALE_FIELD_MANAGER",
    "ScaleHandler",
    "replicas_path",
    "through_scale",
    "WriteHook",
    "conflict_error",
    "current",
    "field_manager_for",
    "field_manager_of",
    "hook_for",
    "manager_or_user_agent",
    "managing",
    "managing_as_server",
    "prefix_from_user_agent",
    "validate_field_manager",
]

FIELD_MANAGER_MAX_LENGTH = 128


@lru_cache(maxsize=256)  # a few clients send the same user agent on every request
def prefix_from_user_agent(user_agent: str) -> str:
    """The user agent's program: what precedes the first "/", printable characters only, at most
    128 bytes ("kubectl-edit/v1.33.0 (linux/amd64) ..." -> "kubectl-edit")."""
    program = user_agent.split("/", 1)[0]
    if program.isascii() and program.isprintable() and len(program) <= FIELD_MANAGER_MAX_LENGTH:
        return program  # the usual case, with nothing to drop or cut
    out: list[str] = []
    size = 0
    for ch in program:
        if not ch.isprintable():
            continue
        n = len(ch.encode())
        if size + n > FIELD_MANAGER_MAX_LENGTH:
            break
        out.append(ch)
        size += n
    return "".join(out)


def manager_or_user_agent(field_manager: str, user_agent: str) -> str:
    return field_manager or prefix_from_user_agent(user_agent)


def validate_field_manager(value: str, path: str = "fieldManager") -> list[StatusCause]:
    """ValidateFieldManager: at most 128 bytes, printable characters only."""
    if not value:
        return []
    causes = []
    if len(value.encode()) > FIELD_MANAGER_MAX_LENGTH:
        causes.append(errors.field_too_long(path, value, FIELD_MANAGER_MAX_LENGTH))
    position = 0
    for ch in value:
        if not ch.isprintable():
            causes.append(
                errors.field_invalid(path, value, f"invalid character U+{ord(ch):04X} (at position {position})")
            )
        position += len(ch.encode())
    return causes


def _reset_of(subresource: str, has_status: bool) -> str:
    if subresource == "status":
        return RESET_ALL_BUT_STATUS
    if not subresource and has_status:
        return RESET_STATUS
    return RESET_NONE


def field_manager_for(api_version: str, kind: str, subresource: str = "", *, has_status: bool = False) -> FieldManager:
    return _field_manager(api_version, kind, subresource, _reset_of(subresource, has_status))


@lru_cache(maxsize=1024)
def _field_manager(api_version: str, kind: str, subresource: str, reset: str) -> FieldManager:
    return FieldManager(api_version, kind, subresource, reset=reset)


def scheme_convert(scheme: Any) -> Any:
    """(object, apiVersion) -> the object converted by the scheme's converters, or None: how a
    manager that wrote in another version of the kind is compared in its own."""

    def convert(obj: Any, api_version: str) -> Any:
        if not isinstance(obj, dict) or "apiVersion" not in obj:
            return None
        try:
            return scheme_converter(scheme, api_version)(copy.deepcopy(obj))
        except Exception:  # no converter between these versions (KeyError), or a value it cannot take
            return None

    return convert


def field_manager_of(store: Any, spec: Any, subresource: str) -> FieldManager:
    """The field manager of writes to store (the resource of spec, through subresource)."""
    strategy = getattr(store, "strategy", None)
    fm = field_manager_for(
        spec.group_version, spec.kind, subresource, has_status=bool(getattr(strategy, "has_status", False))
    )
    scheme = getattr(strategy, "scheme", None)
    if fm.convert is None and scheme is not None:
        fm.convert = scheme_convert(scheme)
    return fm


def hook_for(store: Any, spec: Any, subresource: str, manager: str, *, apply: bool = False) -> WriteHook:
    """The hook a write handler opens for store (the resource of spec, through subresource)."""
    fm = None if apply else field_manager_of(store, spec, subresource)
    return WriteHook(store, fm if fm is None or fm.enabled else None, manager, applied=apply)


# The manager of the objects the server writes itself: upstream's controllers write through a loopback
# client whose user agent is "kube-apiserver/v1.33.x (...)".
SERVER_MANAGER = "kube-apiserver"


def managing_as_server(store: Any, subresource: str = "", manager: str = SERVER_MANAGER) -> managing:
    """`with managing_as_server(store):` around a write the server makes on its own to store, so that the
    object's managedFields record it (manager kube-apiserver, or the controller's upstream name, operation
    Update) as kube-apiserver's do."""
    return managing(hook_for(store, store.spec, subresource, manager))
