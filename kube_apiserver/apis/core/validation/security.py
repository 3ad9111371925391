"""Security contexts (pkg/apis/core/validation: validatePodSpecSecurityContext, ValidateSecurityContext,
seccomp and AppArmor profiles, sysctls, user namespaces).

Privileged containers are allowed unless the server is started with --allow-privileged=false (kube-apiserver's
own default is false, which every cluster installer overrides)."""

from __future__ import annotations

import re
from typing import Any

from kube_apiserver.apis.core.validation.common import as_dict, as_list, as_str, is_int
from kube_apiserver.apis.core.validation.volumes import validate_local_descending_path
from kube_apiserver.runtime.errors import (
    GoRepr,
    StatusCause,
    field_duplicate,
    field_forbidden,
    field_invalid,
    field_not_supported,
    field_required,
    field_too_long,
)
from kube_apiserver.runtime.validation.names import is_valid_group_id, is_valid_user_id

_SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SYSCTL_RE = re.compile("^(" + _SYSCTL_SEGMENT + "[\\./])*" + _SYSCTL_SEGMENT + "$")
_SECCOMP_TYPES = ["Localhost", "RuntimeDefault", "Unconfined"]
_MAX_LOCALHOST_PROFILE_BYTES = 4095  # maxLocalhostProfileLength


def _ids(sc: dict[str, Any], path: str, keys: tuple[str, ...]) -> list[StatusCause]:
    causes: list[StatusCause] = []
    for key in keys:
        value = sc.get(key)
        if is_int(value):
            check = is_valid_user_id if key == "runAsUser" else is_valid_group_id
            causes += [field_invalid(f"{path}.{key}", value, m) for m in check(value)]
    return causes


def validate_seccomp_profile(profile: Any, path: str) -> list[StatusCause]:
    if not isinstance(profile, dict):
        return []
    causes: list[StatusCause] = []
    kind = as_str(profile.get("type"))
    if not kind:
        causes.append(field_required(f"{path}.type", "type is required when seccompProfile is set"))
    elif kind not in _SECCOMP_TYPES:
        causes.append(field_not_supported(f"{path}.type", kind, _SECCOMP_TYPES))
    local = profile.get("localhostProfile")
    if kind == "Localhost":
        if local is None:
            causes.append(field_required(f"{path}.localhostProfile", "must be set when seccomp type is Localhost"))
        else:
            causes += validate_local_descending_path(as_str(local), f"{path}.localhostProfile")
    elif local is not None:
        shown = GoRepr(f'&core.SeccompProfile{{Type:"{kind}", LocalhostProfile:&"{local}"}}')
        causes.append(
            field_invalid(f"{path}.localhostProfile", shown, "can only be set when seccomp type is Localhost")
        )
    return causes


def validate_app_armor_profile(profile: Any, path: str) -> list[StatusCause]:
    if not isinstance(profile, dict):
        return []
    kind, local = as_str(profile.get("type")), profile.get("localhostProfile")
    if kind == "Localhost":
        if local is None:
            return [field_required(f"{path}.localhostProfile", "must be set when AppArmor type is Localhost")]
        local = as_str(local)
        if local.strip() != local:
            return [field_invalid(f"{path}.localhostProfile", local, "must not be padded with whitespace")]
        if not local:
            return [field_required(f"{path}.localhostProfile", "must be set when AppArmor type is Localhost")]
        if len(local.encode()) > _MAX_LOCALHOST_PROFILE_BYTES:
            return [field_too_long(f"{path}.localhostProfile", "", _MAX_LOCALHOST_PROFILE_BYTES)]
        return []
    if kind in ("RuntimeDefault", "Unconfined"):
        if local is not None:
            return [field_invalid(f"{path}.localhostProfile", local, "can only be set when AppArmor type is Localhost")]
        return []
    if not kind:
        return [field_required(f"{path}.type", "type is required when appArmorProfile is set")]
    return [field_not_supported(f"{path}.type", kind, _SECCOMP_TYPES)]


def _sysctl_namespace(name: str) -> str:
    if name.startswith("net.") or name.startswith("net/"):
        return "net"
    if name.startswith(("kernel.shm", "kernel.msg", "kernel/shm", "kernel/msg")) or name in (
        "kernel.sem",
        "kernel/sem",
    ):
        return "ipc"
    if name.startswith(("fs.mqueue.", "fs/mqueue/")):
        return "ipc"
    return ""


def _validate_sysctls(spec: dict[str, Any], sysctls: list[Any], path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    names: set[str] = set()
    for i, sysctl in enumerate(sysctls):
        name = as_str(as_dict(sysctl).get("name"))
        name_path = f"{path}[{i}].name"
        if not name:
            causes.append(field_required(name_path))
        elif len(name) > 253 or not _SYSCTL_RE.match(name):
            detail = f"must have at most 253 characters and match regex {_SYSCTL_RE.pattern}"
            causes.append(field_invalid(name_path, name, detail))
        elif name in names:
            causes.append(field_duplicate(name_path, name))
        namespace = _sysctl_namespace(name)
        if spec.get("hostNetwork") and namespace == "net":
            causes.append(field_invalid(name_path, name, "may not be specified when 'hostNetwork' is true"))
        elif spec.get("hostIPC") and namespace == "ipc":
            causes.append(field_invalid(name_path, name, "may not be specified when 'hostIPC' is true"))
        names.add(name)
    return causes


def validate_pod_security_context(spec: dict[str, Any], path: str) -> list[StatusCause]:
    sc = spec.get("securityContext")
    if not isinstance(sc, dict):
        return []
    # Defaulting gives every pod a securityContext, most often empty: only the spec-level rule
    # applies to an empty one.
    causes = _ids(sc, path, ("fsGroup", "runAsUser", "runAsGroup")) if sc else []
    if sc.get("supplementalGroups"):
        for i, gid in enumerate(as_list(sc["supplementalGroups"])):
            if is_int(gid):
                causes += [field_invalid(f"{path}.supplementalGroups[{i}]", gid, m) for m in is_valid_group_id(gid)]
    if spec.get("shareProcessNamespace") is True and spec.get("hostPID") is True:
        detail = "ShareProcessNamespace and HostPID cannot both be enabled"
        causes.append(field_invalid(f"{path}.shareProcessNamespace", True, detail))
    if not sc:
        return causes
    if as_list(sc.get("sysctls")):
        causes += _validate_sysctls(spec, sc["sysctls"], f"{path}.sysctls")
    policy = sc.get("fsGroupChangePolicy")
    if policy is not None and policy not in ("Always", "OnRootMismatch"):
        causes.append(field_not_supported(f"{path}.fsGroupChangePolicy", policy, ["Always", "OnRootMismatch"]))
    if isinstance(sc.get("seccompProfile"), dict):
        causes += validate_seccomp_profile(sc["seccompProfile"], f"{path}.seccompProfile")
    if isinstance(sc.get("appArmorProfile"), dict):
        causes += validate_app_armor_profile(sc["appArmorProfile"], f"{path}.appArmorProfile")
    groups_policy = sc.get("supplementalGroupsPolicy")
    if groups_policy is not None and groups_policy not in ("Merge", "Strict"):
        causes.append(field_not_supported(f"{path}.supplementalGroupsPolicy", groups_policy, ["Merge", "Strict"]))
    return causes


def validate_host_users(spec: dict[str, Any], path: str) -> list[StatusCause]:
    """With a user namespace (hostUsers false) the pod may not share the host's other namespaces."""
    if as_dict(spec.get("securityContext")).get("hostUsers") is not False:
        return []
    causes: list[StatusCause] = []
    for key, shown in (("hostNetwork", "hostNetwork"), ("hostPID", "HostPID"), ("hostIPC", "HostIPC")):
        if spec.get(key):
            causes.append(field_forbidden(f"{path}.{shown}", "when `pod.Spec.HostUsers` is false"))
    return causes


class Capabilities:
    """capabilities.Get(): what --allow-privileged set at start."""

    allow_privileged = True


def validate_container_security_context(sc: Any, path: str, host_users: bool) -> list[StatusCause]:
    if not isinstance(sc, dict):
        return []
    causes: list[StatusCause] = []
    if sc.get("privileged") is True and not Capabilities.allow_privileged:
        causes.append(field_forbidden(f"{path}.privileged", "disallowed by cluster policy"))
    causes += _ids(sc, path, ("runAsUser", "runAsGroup"))
    proc_mount = sc.get("procMount")
    if proc_mount is not None:
        if proc_mount not in ("Default", "Unmasked"):
            causes.append(field_not_supported(f"{path}.procMount", proc_mount, ["Default", "Unmasked"]))
        if host_users and proc_mount == "Unmasked":
            causes.append(field_invalid(f"{path}.procMount", proc_mount, "`hostUsers` must be false to use `Unmasked`"))
    causes += validate_seccomp_profile(sc.get("seccompProfile"), f"{path}.seccompProfile")
    if sc.get("allowPrivilegeEscalation") is False:
        shown = GoRepr("&core.SecurityContext{...}")
        if sc.get("privileged") is True:
            detail = "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"
            causes.append(field_invalid(path, shown, detail))
        for cap in as_list(as_dict(sc.get("capabilities")).get("add")):
            if cap == "CAP_SYS_ADMIN":
                detail = "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"
                causes.append(field_invalid(path, shown, detail))
    return causes + validate_app_armor_profile(sc.get("appArmorProfile"), f"{path}.appArmorProfile")
