"""The Pod Security Standards checks of 1.33, each with upstream's reason and detail texts, and the
aggregation and namespace-label parsing the PodSecurity plugin builds on."""

from __future__ import annotations

from typing import Any

import pytest

from kube_apiserver.admission.pod_security import api
from kube_apiserver.admission.pod_security import checks_baseline as b
from kube_apiserver.admission.pod_security import checks_restricted as r
from kube_apiserver.admission.pod_security.admission import is_significant_pod_update
from kube_apiserver.admission.pod_security.helpers import aggregate_check_results
from kube_apiserver.admission.pod_security.registry import evaluate_pod

LATEST = 32
RESTRICTED = api.LevelVersion(api.LEVEL_RESTRICTED, api.LATEST)
BASELINE = api.LevelVersion(api.LEVEL_BASELINE, api.LATEST)


def c(name: str, **sc: Any) -> dict[str, Any]:
    return {"name": name, "image": "nginx", **({"securityContext": sc} if sc else {})}


def spec(*containers: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"containers": list(containers), **fields}


def fails(check: Any, s: dict[str, Any], meta: dict[str, Any] | None = None, minor: int = LATEST) -> tuple[str, str]:
    result = check(meta or {}, s, minor)
    assert not result.allowed
    return result.forbidden_reason, result.forbidden_detail


def passes(check: Any, s: dict[str, Any], meta: dict[str, Any] | None = None, minor: int = LATEST) -> None:
    assert check(meta or {}, s, minor).allowed


def test_host_namespaces():
    passes(b.host_namespaces, spec(c("a"), hostNetwork=False))
    assert fails(b.host_namespaces, spec(c("a"), hostPID=True, hostNetwork=True)) == (
        "host namespaces",
        "hostNetwork, hostPID",
    )


def test_privileged():
    passes(b.privileged, spec(c("a", privileged=False)))
    assert fails(b.privileged, spec(c("a", privileged=True), c("b", privileged=True))) == (
        "privileged",
        'containers "a", "b" must not set securityContext.privileged=true',
    )


def test_capabilities_baseline():
    passes(b.capabilities_baseline, spec(c("a", capabilities={"add": ["CHOWN", "NET_BIND_SERVICE"]})))
    assert fails(b.capabilities_baseline, spec(c("a", capabilities={"add": ["SYS_ADMIN", "NET_RAW", "KILL"]}))) == (
        "non-default capabilities",
        'container "a" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add',
    )


def test_host_path_volumes():
    passes(b.host_path_volumes, spec(c("a"), volumes=[{"name": "e", "emptyDir": {}}]))
    assert fails(b.host_path_volumes, spec(c("a"), volumes=[{"name": "h", "hostPath": {"path": "/"}}])) == (
        "hostPath volumes",
        'volume "h"',
    )


def test_host_ports():
    passes(b.host_ports, spec({"name": "a", "ports": [{"containerPort": 80, "hostPort": 0}]}))
    s = spec({"name": "a", "ports": [{"containerPort": 80, "hostPort": 8080}, {"containerPort": 1, "hostPort": 10000}]})
    assert fails(b.host_ports, s) == ("hostPort", 'container "a" uses hostPorts 10000, 8080')


def test_app_armor_profile():
    passes(b.app_armor_profile, spec(c("a", appArmorProfile={"type": "RuntimeDefault"})))
    passes(b.app_armor_profile, spec(c("a")), {"annotations": {b.APPARMOR_ANNOTATION_PREFIX + "a": "localhost/x"}})
    assert fails(b.app_armor_profile, spec(c("a", appArmorProfile={"type": "Unconfined"}))) == (
        "forbidden AppArmor profile",
        'container "a" must not set AppArmor profile type to "Unconfined"',
    )
    meta = {"annotations": {b.APPARMOR_ANNOTATION_PREFIX + "a": "unconfined"}}
    s = spec(c("a"), securityContext={"appArmorProfile": {"type": "Unconfined"}})
    assert fails(b.app_armor_profile, s, meta) == (
        "forbidden AppArmor profiles",
        'pod and annotation must not set AppArmor profile type to "Unconfined", '
        '"container.apparmor.security.beta.kubernetes.io/a="unconfined""',
    )


def test_se_linux_options():
    passes(b.se_linux_options, spec(c("a", seLinuxOptions={"type": "container_t", "level": "s0:c1"})))
    passes(b.se_linux_options, spec(c("a", seLinuxOptions={"type": "container_engine_t"})))
    assert fails(b.se_linux_options, spec(c("a", seLinuxOptions={"type": "container_engine_t"})), minor=30)[0] == (
        "seLinuxOptions"
    )
    s = spec(c("a", seLinuxOptions={"type": "spc_t", "user": "u"}), securityContext={"seLinuxOptions": {"role": "r"}})
    assert fails(b.se_linux_options, s) == (
        "seLinuxOptions",
        'pod and container "a" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; '
        "role may not be set",
    )


def test_proc_mount_and_sysctls_and_host_process():
    passes(b.proc_mount, spec(c("a", procMount="Default")))
    assert fails(b.proc_mount, spec(c("a", procMount="Unmasked"))) == (
        "procMount",
        'container "a" must not set securityContext.procMount to "Unmasked"',
    )
    ok = spec(c("a"), securityContext={"sysctls": [{"name": "net.ipv4.tcp_rmem", "value": "1"}]})
    passes(b.sysctls, ok)
    assert fails(b.sysctls, ok, minor=31) == ("forbidden sysctls", "net.ipv4.tcp_rmem")
    s = spec(c("a", windowsOptions={"hostProcess": True}), securityContext={"windowsOptions": {"hostProcess": True}})
    assert fails(b.windows_host_process, s) == (
        "hostProcess",
        'pod and container "a" must not set securityContext.windowsOptions.hostProcess=true',
    )


def test_seccomp_profile_baseline_and_restricted():
    passes(b.seccomp_profile_baseline, spec(c("a")))
    s = spec(c("a", seccompProfile={"type": "Unconfined"}))
    assert fails(b.seccomp_profile_baseline, s) == (
        "seccompProfile",
        'container "a" must not set securityContext.seccompProfile.type to "Unconfined"',
    )
    passes(r.seccomp_profile_restricted, spec(c("a"), securityContext={"seccompProfile": {"type": "RuntimeDefault"}}))
    assert fails(r.seccomp_profile_restricted, spec(c("a"), c("b", seccompProfile={"type": "Localhost"}))) == (
        "seccompProfile",
        'pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
    )
    passes(r.seccomp_profile_restricted, spec(c("a"), os={"name": "windows"}))


def test_allow_privilege_escalation_and_capabilities_restricted():
    passes(r.allow_privilege_escalation, spec(c("a", allowPrivilegeEscalation=False)))
    s = spec(c("a"), initContainers=[c("i", allowPrivilegeEscalation=True)])
    assert fails(r.allow_privilege_escalation, s) == (
        "allowPrivilegeEscalation != false",
        'containers "i", "a" must set securityContext.allowPrivilegeEscalation=false',
    )
    passes(r.capabilities_restricted, spec(c("a", capabilities={"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]})))
    s = spec(c("a"), c("b", capabilities={"drop": ["ALL"], "add": ["SYS_TIME"]}))
    assert fails(r.capabilities_restricted, s) == (
        "unrestricted capabilities",
        'container "a" must set securityContext.capabilities.drop=["ALL"]; '
        'container "b" must not include "SYS_TIME" in securityContext.capabilities.add',
    )


def test_restricted_volumes():
    ok = [{"name": n, k: {}} for n, k in (("p", "projected"), ("i", "image"), ("c", "csi"), ("s", "secret"))]
    passes(r.restricted_volumes, spec(c("a"), volumes=ok))
    bad = [{"name": "h", "hostPath": {}}, {"name": "n", "nfs": {}}, {"name": "g", "gitRepo": {}}]
    assert fails(r.restricted_volumes, spec(c("a"), volumes=bad)) == (
        "restricted volume types",
        'volumes "h", "n", "g" use restricted volume types "gitRepo", "hostPath", "nfs"',
    )


def test_run_as_non_root_and_run_as_user():
    passes(r.run_as_non_root, spec(c("a"), securityContext={"runAsNonRoot": True}))
    assert fails(r.run_as_non_root, spec(c("a"), c("b", runAsNonRoot=True))) == (
        "runAsNonRoot != true",
        'pod or container "a" must set securityContext.runAsNonRoot=true',
    )
    s = spec(c("a", runAsNonRoot=False), securityContext={"runAsNonRoot": False})
    assert fails(r.run_as_non_root, s)[1] == 'pod and container "a" must not set securityContext.runAsNonRoot=false'
    passes(r.run_as_user, spec(c("a", runAsUser=1000)))
    assert fails(r.run_as_user, spec(c("a", runAsUser=0), securityContext={"runAsUser": 0})) == (
        "runAsUser=0",
        'pod and container "a" must not set runAsUser=0',
    )


def test_ephemeral_containers_are_visited():
    s = spec(c("a"), ephemeralContainers=[c("debug", privileged=True)])
    assert fails(b.privileged, s)[1] == 'container "debug" must not set securityContext.privileged=true'


PLAIN = spec(c("nginx"))


def test_restricted_message_of_a_plain_pod():
    result = aggregate_check_results(evaluate_pod(RESTRICTED, {}, PLAIN))
    assert result.forbidden_detail() == (
        'allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), '
        'unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), '
        'runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), '
        'seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" '
        'or "Localhost")'
    )
    assert aggregate_check_results(evaluate_pod(BASELINE, {}, PLAIN)).allowed
    privileged = api.LevelVersion(api.LEVEL_PRIVILEGED, api.LATEST)
    assert evaluate_pod(privileged, {}, spec(c("a", privileged=True))) == []


def test_restricted_runs_baseline_checks_it_does_not_override():
    s = spec(c("a", privileged=True), hostNetwork=True, volumes=[{"name": "h", "hostPath": {}}])
    reasons = aggregate_check_results(evaluate_pod(RESTRICTED, {}, s)).forbidden_reasons
    assert reasons[:2] == ["host namespaces", "privileged"] and "hostPath volumes" not in reasons
    assert "restricted volume types" in reasons
    baseline = aggregate_check_results(evaluate_pod(BASELINE, {}, s)).forbidden_reason()
    assert baseline == "host namespaces, hostPath volumes, privileged"


def test_pinned_versions():
    old = api.LevelVersion(api.LEVEL_RESTRICTED, 21)  # before capabilities_restricted (1.22) and runAsUser (1.23)
    reasons = aggregate_check_results(evaluate_pod(old, {}, spec(c("a", runAsUser=0)))).forbidden_reasons
    assert "unrestricted capabilities" not in reasons and "runAsUser=0" not in reasons


@pytest.mark.parametrize(
    ("labels", "errors"),
    [
        ({api.ENFORCE_LEVEL_LABEL: "restricted", api.ENFORCE_VERSION_LABEL: "v1.30"}, []),
        ({api.ENFORCE_LEVEL_LABEL: "bogus"}, ["must be one of privileged, baseline, restricted"]),
        ({api.WARN_VERSION_LABEL: "1.30"}, ['must be "latest" or "v1.x"']),
        ({api.AUDIT_VERSION_LABEL: "v1.01"}, ['must be "latest" or "v1.x"']),
    ],
)
def test_policy_to_evaluate(labels, errors):
    policy, causes = api.policy_to_evaluate(labels)
    assert [cause.message.split('": ', 1)[-1] for cause in causes] == errors
    if not errors:
        assert policy.enforce == api.LevelVersion("restricted", 30) and str(policy.enforce) == "restricted:v1.30"
        assert str(policy.warn) == "privileged:latest"


def test_invalid_labels_fail_closed_for_enforce_and_open_for_warn():
    policy, _ = api.policy_to_evaluate({api.ENFORCE_LEVEL_LABEL: "x", api.WARN_LEVEL_LABEL: "y"})
    assert policy.enforce.level == "restricted" and policy.warn.level == "privileged"


def test_significant_pod_updates():
    old = {"metadata": {}, "spec": spec(c("a"))}
    relabelled = {"metadata": {"labels": {"x": "y"}}, "spec": spec(c("a"))}
    assert not is_significant_pod_update(relabelled, old)
    assert is_significant_pod_update({"metadata": {}, "spec": spec({"name": "a", "image": "other"})}, old)
    debug = {"metadata": {}, "spec": spec(c("a"), ephemeralContainers=[c("d")])}
    assert is_significant_pod_update(debug, old)
