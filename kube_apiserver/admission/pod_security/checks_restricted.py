"""The restricted checks of pod-security-admission/policy (check_<id>.go), as of Kubernetes 1.33."""

from __future__ import annotations

from kube_apiserver.admission.pod_security.checks_baseline import valid_seccomp
from kube_apiserver.admission.pod_security.helpers import (
    ALLOWED,
    CheckResult,
    Obj,
    d,
    is_windows,
    items,
    join_quote,
    name,
    pluralize,
    pod_security_context,
    security_context,
    setters_detail,
    visit_containers,
)


def allow_privilege_escalation(meta: Obj, spec: Obj, minor: int) -> CheckResult:
    if minor >= 25 and is_windows(spec):
        return ALLOWED
    bad = [
        name(c) for c in visit_containers(spec) if d(security_context(c)).get("allowPrivilegeEscalation") is not False
    ]
    if not bad:
        return ALLOWED
    return CheckResult(
        False,
        "allowPrivilegeEscalation != false",
        f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)} must set "
        "securityContext.allowPrivilegeEscalation=false",
    )


def capabilities_restricted(meta: Obj, spec: Obj, minor: int) -> CheckResult:
    if minor >= 25 and is_windows(spec):
        return ALLOWED
    missing_drop: list[str] = []
    adding: list[str] = []
    caps: set[str] = set()
    for c in visit_containers(spec):
        capabilities = d(security_context(c)).get("capabilities")
        if not isinstance(capabilities, dict):
            missing_drop.append(name(c))
            continue
        if "ALL" not in (capabilities.get("drop") or []):
            missing_drop.append(name(c))
        wrong = [str(x) for x in capabilities.get("add") or [] if x != "NET_BIND_SERVICE"]
        if wrong:
            adding.append(name(c))
            caps.update(wrong)
    details: list[str] = []
    if missing_drop:
        details.append(
            f"{pluralize('container', 'containers', len(missing_drop))} {join_quote(missing_drop)} must set "
            'securityContext.capabilities.drop=["ALL"]'
        )
    if adding:
        details.append(
            f"{pluralize('container', 'containers', len(adding))} {join_quote(adding)} must not include "
            f"{join_quote(sorted(caps))} in securityContext.capabilities.add"
        )
    if not details:
        return ALLOWED
    return CheckResult(False, "unrestricted capabilities", "; ".join(details))


# the volume sources restricted allows; the image volume joined them in 1.33 (for every policy version)
_ALLOWED_VOLUME_SOURCES = (
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "image",
    "persistentVolumeClaim",
    "projected",
    "secret",
)
# the names the detail gives the other sources, in the order upstream tests for them
_RESTRICTED_VOLUME_TYPES = (
    ("hostPath", "hostPath"),
    ("gcePersistentDisk", "gcePersistentDisk"),
    ("awsElasticBlockStore", "awsElasticBlockStore"),
    ("gitRepo", "gitRepo"),
    ("nfs", "nfs"),
    ("iscsi", "iscsi"),
    ("glusterfs", "glusterfs"),
    ("rbd", "rbd"),
    ("flexVolume", "flexVolume"),
    ("cinder", "cinder"),
    ("cephfs", "cephfs"),
    ("flocker", "flocker"),
    ("fc", "fc"),
    ("azureFile", "azureFile"),
    ("vsphereVolume", "vsphereVolume"),
    ("quobyte", "quobyte"),
    ("azureDisk", "azureDisk"),
    ("photonPersistentDisk", "photonPersistentDisk"),
    ("portworxVolume", "portworxVolume"),
    ("scaleIO", "scaleIO"),
    ("storageos", "storageos"),
)


def restricted_volumes(meta: Obj, spec: Obj, minor: int) -> CheckResult:
    bad: list[str] = []
    kinds: set[str] = set()
    for volume in items(spec.get("volumes")):
        if any(volume.get(source) is not None for source in _ALLOWED_VOLUME_SOURCES):
            continue
        bad.append(name(volume))
        kinds.add(next((label for key, label in _RESTRICTED_VOLUME_TYPES if volume.get(key) is not None), "unknown"))
    if not bad:
        return ALLOWED
    return CheckResult(
        False,
        "restricted volume types",
        f"{pluralize('volume', 'volumes', len(bad))} {join_quote(bad)} {pluralize('uses', 'use', len(bad))} "
        f"{pluralize('restricted volume type', 'restricted volume types', len(kinds))} {join_quote(sorted(kinds))}",
    )


def run_as_non_root(meta: Obj, spec: Obj, minor: int) -> CheckResult:
    # the user-namespace relaxation of 1.33 sits behind the alpha UserNamespacesPodSecurityStandards gate (off)
    setters: list[str] = []
    pod_non_root = False
    value = d(pod_security_context(spec)).get("runAsNonRoot")
    if value is not None:
        if value is False:
            setters.append("pod")
        else:
            pod_non_root = True
    explicit: list[str] = []
    implicit: list[str] = []
    for c in visit_containers(spec):
        own = d(security_context(c)).get("runAsNonRoot")
        if own is not None:
            if own is False:
                explicit.append(name(c))
        elif not pod_non_root:
            implicit.append(name(c))
    if setters or explicit:
        return CheckResult(
            False,
            "runAsNonRoot != true",
            f"{setters_detail(setters, explicit)} must not set securityContext.runAsNonRoot=false",
        )
    if implicit:
        return CheckResult(
            False,
            "runAsNonRoot != true",
            f"pod or {pluralize('container', 'containers', len(implicit))} {join_quote(implicit)} must set "
            "securityContext.runAsNonRoot=true",
        )
    return ALLOWED


def run_as_user(meta: Obj, spec: Obj, minor: int) -> CheckResult:
    setters = ["pod"] if d(pod_security_context(spec)).get("runAsUser") == 0 else []
    containers = [name(c) for c in visit_containers(spec) if d(security_context(c)).get("runAsUser") == 0]
    if not setters and not containers:
        return ALLOWED
    return CheckResult(False, "runAsUser=0", f"{setters_detail(setters, containers)} must not set runAsUser=0")


def seccomp_profile_restricted(meta: Obj, spec: Obj, minor: int) -> CheckResult:
    if minor >= 25 and is_windows(spec):
        return ALLOWED
    setters: list[str] = []
    bad_values: set[str] = set()
    pod_set = False
    profile = d(pod_security_context(spec)).get("seccompProfile")
    if isinstance(profile, dict):
        if valid_seccomp(str(profile.get("type") or "")):
            pod_set = True
        else:
            setters.append("pod")
            bad_values.add(str(profile.get("type") or ""))
    explicit: list[str] = []
    implicit: list[str] = []
    for c in visit_containers(spec):
        own = d(security_context(c)).get("seccompProfile")
        if isinstance(own, dict):
            if not valid_seccomp(str(own.get("type") or "")):
                explicit.append(name(c))
                bad_values.add(str(own.get("type") or ""))
        elif not pod_set:
            implicit.append(name(c))
    if setters or explicit:
        return CheckResult(
            False,
            "seccompProfile",
            f"{setters_detail(setters, explicit)} must not set securityContext.seccompProfile.type to "
            f"{join_quote(sorted(bad_values))}",
        )
    if implicit:
        return CheckResult(
            False,
            "seccompProfile",
            f"pod or {pluralize('container', 'containers', len(implicit))} {join_quote(implicit)} must set "
            'securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
        )
    return ALLOWED
