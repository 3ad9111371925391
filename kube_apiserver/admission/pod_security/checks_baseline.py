"""The baseline checks of pod-security-admission/policy (check_<id>.go), as of Kubernetes 1.33. Each takes
the pod's (or template's) metadata, its spec and the policy minor version it is evaluated at."""

from __future__ import annotations

from kube_apiserver.admission.pod_security.helpers import (
    ALLOWED,
    CheckResult,
    Obj,
    d,
    go_quote,
    items,
    join_quote,
    name,
    pluralize,
    pod_security_context,
    security_context,
    setters_detail,
    visit_containers,
)

APPARMOR_ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/"


def _allowed_apparmor_annotation(value: str) -> bool:
    return not value or value == "runtime/default" or value.startswith("localhost/")


def app_armor_profile(meta: Obj, spec: Obj, minor: int) -> CheckResult:
    """Neither the appArmorProfile fields nor the deprecated annotations may ask for Unconfined."""
    setters: list[str] = []
    bad_values: set[str] = set()
    psc = pod_security_context(spec)
    if psc is not None and isinstance(psc.get("appArmorProfile"), dict):
        kind = str(psc["appArmorProfile"].get("type") or "")
        if kind not in ("RuntimeDefault", "Localhost"):
            setters.append("pod")
            bad_values.add(kind)
    containers: list[str] = []
    for c in visit_containers(spec):
        sc = security_context(c)
        if sc is not None and isinstance(sc.get("appArmorProfile"), dict):
            kind = str(sc["appArmorProfile"].get("type") or "")
            if kind not in ("RuntimeDefault", "Localhost"):
                containers.append(name(c))
                bad_values.add(kind)
    subject = setters_detail(setters, containers)
    setters = [subject] if subject else []
    annotations = sorted(
        f"{k}={go_quote(str(v))}"
        for k, v in d(meta.get("annotations")).items()
        if k.startswith(APPARMOR_ANNOTATION_PREFIX) and not _allowed_apparmor_annotation(str(v))
    )
    values = sorted(bad_values) + annotations
    if annotations:
        setters.append(pluralize("annotation", "annotations", len(annotations)))
    if not setters:
        return ALLOWED
    return CheckResult(
        False,
        pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", len(values)),
        f"{' and '.join(setters)} must not set AppArmor profile type to {join_quote(values)}",
    )


CAPABILITIES_ALLOWED_1_0 = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)


def capabilities_baseline(meta: Obj, spec: Obj, minor: int) -> CheckResult:
    bad: list[str] = []
    caps: set[str] = set()
    for c in visit_containers(spec):
        added = [str(x) for x in d(d(security_context(c)).get("capabilities")).get("add") or []]
        wrong = [x for x in added if x not in CAPABILITIES_ALLOWED_1_0]
        if wrong:
            bad.append(name(c))
            caps.update(wrong)
    if not bad:
        return ALLOWED
    return CheckResult(
        False,
        "non-default capabilities",
        f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)} must not include "
        f"{join_quote(sorted(caps))} in securityContext.capabilities.add",
    )


def host_namespaces(meta: Obj, spec: Obj, minor: int) -> CheckResult:
    used = sorted(k for k in ("hostNetwork", "hostPID", "hostIPC") if spec.get(k) is True)
    if not used:
        return ALLOWED
    return CheckResult(False, "host namespaces", ", ".join(used))


def host_path_volumes(meta: Obj, spec: Obj, minor: int) -> CheckResult:
    volumes = [name(v) for v in items(spec.get("volumes")) if v.get("hostPath") is not None]
    if not volumes:
        return ALLOWED
    return CheckResult(
        False, "hostPath volumes", f"{pluralize('volume', 'volumes', len(volumes))} {join_quote(volumes)}"
    )


def host_ports(meta: Obj, spec: Obj, minor: int) -> CheckResult:
    bad: list[str] = []
    ports: set[str] = set()
    for c in visit_containers(spec):
        used = [str(p.get("hostPort")) for p in items(c.get("ports")) if p.get("hostPort") not in (None, 0)]
        if used:
            bad.append(name(c))
            ports.update(used)
    if not bad:
        return ALLOWED
    # sets.String.List(): the ports sorted as text
    return CheckResult(
        False,
        "hostPort",
        f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)} {pluralize('uses', 'use', len(bad))} "
        f"{pluralize('hostPort', 'hostPorts', len(ports))} {', '.join(sorted(ports))}",
    )


def privileged(meta: Obj, spec: Obj, minor: int) -> CheckResult:
    bad = [name(c) for c in visit_containers(spec) if d(security_context(c)).get("privileged") is True]
    if not bad:
        return ALLOWED
    return CheckResult(
        False,
        "privileged",
        f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)} must not set securityContext.privileged=true",
    )


def proc_mount(meta: Obj, spec: Obj, minor: int) -> CheckResult:
    # the user-namespace relaxation of 1.33 sits behind the alpha UserNamespacesPodSecurityStandards gate (off)
    bad: list[str] = []
    kinds: set[str] = set()
    for c in visit_containers(spec):
        value = d(security_context(c)).get("procMount")
        if value is not None and value != "Default":
            bad.append(name(c))
            kinds.add(str(value))
    if not bad:
        return ALLOWED
    return CheckResult(
        False,
        "procMount",
        f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)} must not set securityContext.procMount "
        f"to {join_quote(sorted(kinds))}",
    )


SELINUX_ALLOWED_TYPES_1_0 = frozenset({"", "container_t", "container_init_t", "container_kvm_t"})
SELINUX_ALLOWED_TYPES_1_31 = SELINUX_ALLOWED_TYPES_1_0 | {"container_engine_t"}


def se_linux_options(meta: Obj, spec: Obj, minor: int) -> CheckResult:
    allowed = SELINUX_ALLOWED_TYPES_1_31 if minor >= 31 else SELINUX_ALLOWED_TYPES_1_0
    bad_types: set[str] = set()
    found = {"user": False, "role": False}

    def valid(opts: Obj) -> bool:
        ok = True
        kind = str(opts.get("type") or "")
        if kind not in allowed:
            ok = False
            bad_types.add(kind)
        for key in ("user", "role"):
            if opts.get(key):
                ok = False
                found[key] = True
        return ok

    setters: list[str] = []
    psc = pod_security_context(spec)
    if psc is not None and isinstance(psc.get("seLinuxOptions"), dict) and not valid(psc["seLinuxOptions"]):
        setters.append("pod")
    containers = [
        name(c)
        for c in visit_containers(spec)
        if isinstance(d(security_context(c)).get("seLinuxOptions"), dict)
        and not valid(d(security_context(c))["seLinuxOptions"])
    ]
    if not setters and not containers:
        return ALLOWED
    data: list[str] = []
    if bad_types:
        data.append(f"{pluralize('type', 'types', len(bad_types))} {join_quote(sorted(bad_types))}")
    if found["user"]:
        data.append("user may not be set")
    if found["role"]:
        data.append("role may not be set")
    return CheckResult(
        False,
        "seLinuxOptions",
        f"{setters_detail(setters, containers)} set forbidden securityContext.seLinuxOptions: {'; '.join(data)}",
    )


def valid_seccomp(kind: str) -> bool:
    return kind in ("RuntimeDefault", "Localhost")


def seccomp_profile_baseline(meta: Obj, spec: Obj, minor: int) -> CheckResult:
    """The 1.19 field check (policy versions before 1.19 read the seccomp annotations; not modelled)."""
    setters: list[str] = []
    bad_values: set[str] = set()
    psc = pod_security_context(spec)
    if psc is not None and isinstance(psc.get("seccompProfile"), dict):
        kind = str(psc["seccompProfile"].get("type") or "")
        if not valid_seccomp(kind):
            setters.append("pod")
            bad_values.add(kind)
    containers: list[str] = []
    for c in visit_containers(spec):
        profile = d(security_context(c)).get("seccompProfile")
        if isinstance(profile, dict) and not valid_seccomp(str(profile.get("type") or "")):
            containers.append(name(c))
            bad_values.add(str(profile.get("type") or ""))
    if not setters and not containers:
        return ALLOWED
    return CheckResult(
        False,
        "seccompProfile",
        f"{setters_detail(setters, containers)} must not set securityContext.seccompProfile.type to "
        f"{join_quote(sorted(bad_values))}",
    )


SYSCTLS_ALLOWED_1_0 = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_unprivileged_port_start",
    }
)
SYSCTLS_ALLOWED_1_27 = SYSCTLS_ALLOWED_1_0 | {"net.ipv4.ip_local_reserved_ports"}
SYSCTLS_ALLOWED_1_29 = SYSCTLS_ALLOWED_1_27 | {
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
}
SYSCTLS_ALLOWED_1_32 = SYSCTLS_ALLOWED_1_29 | {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}


def sysctls(meta: Obj, spec: Obj, minor: int) -> CheckResult:
    allowed = (
        SYSCTLS_ALLOWED_1_32
        if minor >= 32
        else SYSCTLS_ALLOWED_1_29
        if minor >= 29
        else SYSCTLS_ALLOWED_1_27
        if minor >= 27
        else SYSCTLS_ALLOWED_1_0
    )
    bad = [name(s) for s in items(d(pod_security_context(spec)).get("sysctls")) if name(s) not in allowed]
    if not bad:
        return ALLOWED
    return CheckResult(False, "forbidden sysctls", ", ".join(bad))


def windows_host_process(meta: Obj, spec: Obj, minor: int) -> CheckResult:
    def host_process(sc: Obj | None) -> bool:
        return d(d(sc).get("windowsOptions")).get("hostProcess") is True

    containers = [name(c) for c in visit_containers(spec) if host_process(security_context(c))]
    setters = ["pod"] if host_process(pod_security_context(spec)) else []
    if not setters and not containers:
        return ALLOWED
    return CheckResult(
        False,
        "hostProcess",
        f"{setters_detail(setters, containers)} must not set securityContext.windowsOptions.hostProcess=true",
    )
