"""The check registry (policy/registry.go) of Kubernetes 1.33: which checks a level and version run, in
what order. Upstream sorts checks by ID so messages are stable; restricted runs the baseline checks it does
not override, then its own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kube_apiserver.admission.pod_security import checks_baseline as b
from kube_apiserver.admission.pod_security import checks_restricted as r
from kube_apiserver.admission.pod_security.api import LEVEL_BASELINE, LEVEL_PRIVILEGED, LevelVersion
from kube_apiserver.admission.pod_security.helpers import CheckResult, Obj

CheckPodFn = Callable[[Obj, Obj, int], CheckResult]


@dataclass(frozen=True)
class Check:
    id: str
    minimum_version: int  # the minor of the first policy version (v1.<minor>) the check applies to
    check_pod: CheckPodFn
    override_check_ids: tuple[str, ...] = ()  # baseline checks a restricted check replaces where it applies


BASELINE_CHECKS = tuple(
    sorted(
        (
            Check("appArmorProfile", 0, b.app_armor_profile),
            Check("capabilities_baseline", 0, b.capabilities_baseline),
            Check("hostNamespaces", 0, b.host_namespaces),
            Check("hostPathVolumes", 0, b.host_path_volumes),
            Check("hostPorts", 0, b.host_ports),
            Check("privileged", 0, b.privileged),
            Check("procMount", 0, b.proc_mount),
            Check("seLinuxOptions", 0, b.se_linux_options),
            Check("seccompProfile_baseline", 0, b.seccomp_profile_baseline),
            Check("sysctls", 0, b.sysctls),
            Check("windowsHostProcess", 0, b.windows_host_process),
        ),
        key=lambda c: c.id,
    )
)
RESTRICTED_CHECKS = tuple(
    sorted(
        (
            Check("allowPrivilegeEscalation", 8, r.allow_privilege_escalation),
            Check("capabilities_restricted", 22, r.capabilities_restricted, ("capabilities_baseline",)),
            Check("restrictedVolumes", 0, r.restricted_volumes, ("hostPathVolumes",)),
            Check("runAsNonRoot", 0, r.run_as_non_root),
            Check("runAsUser", 23, r.run_as_user),
            Check("seccompProfile_restricted", 19, r.seccomp_profile_restricted, ("seccompProfile_baseline",)),
        ),
        key=lambda c: c.id,
    )
)
# the newest MinimumVersion of any check of 1.33 (sysctls v1.32): "latest" and newer versions evaluate as it
MAX_VERSION = 32


def evaluate_pod(lv: LevelVersion, meta: Obj, spec: Obj) -> list[CheckResult]:
    """EvaluatePod: the results of every check the level runs at the version (none for privileged)."""
    if lv.level == LEVEL_PRIVILEGED:
        return []
    minor = MAX_VERSION if lv.version is None or lv.version > MAX_VERSION else lv.version
    if lv.level == LEVEL_BASELINE:
        checks = [c for c in BASELINE_CHECKS if c.minimum_version <= minor]
    else:
        restricted = [c for c in RESTRICTED_CHECKS if c.minimum_version <= minor]
        overridden = {i for c in restricted for i in c.override_check_ids}
        checks = [c for c in BASELINE_CHECKS if c.minimum_version <= minor and c.id not in overridden] + restricted
    return [c.check_pod(meta, spec, minor) for c in checks]
