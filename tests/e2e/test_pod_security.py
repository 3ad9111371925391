"""PodSecurity admission as kubectl users meet it: namespace labels choose the level a pod must meet
(enforce: refused; warn: a Warning), pod templates of workloads are warned about, and
--disable-admission-plugins=PodSecurity turns it off."""

from __future__ import annotations

import json

RESTRICTED_PLAIN = (
    'violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "web" must set '
    'securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "web" must set '
    'securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "web" must set '
    'securityContext.runAsNonRoot=true), seccompProfile (pod or container "web" must set '
    'securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'
)
COMPLIANT = {
    "spec": {
        "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [
            {
                "name": "web",
                "image": "nginx",
                "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
            }
        ],
    }
}


def _label(server, ns: str, *labels: str, check: bool = True):
    return server.kubectl("label", "--overwrite", "ns", ns, *labels, check=check)


def test_enforce_restricted_refuses_a_plain_pod(server, ns):
    _label(server, ns, "pod-security.kubernetes.io/enforce=restricted")
    out = server.kubectl("-n", ns, "run", "web", "--image=nginx", check=False)
    assert out.returncode != 0
    assert f'Error from server (Forbidden): pods "web" is forbidden: {RESTRICTED_PLAIN}' in out.stderr
    body = server.request("POST", f"/api/v1/namespaces/{ns}/pods", json={"metadata": {"name": "web"}, **COMPLIANT})
    status = server.request(
        "POST",
        f"/api/v1/namespaces/{ns}/pods",
        json={"metadata": {"name": "web2"}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}},
    ).json()
    assert body.status_code == 201, body.text
    assert status["code"] == 403 and status["reason"] == "Forbidden"
    assert status["details"] == {"name": "web2", "kind": "pods"}
    # the compliant pod (with its service account volume) can be relabelled: no spec change, no evaluation
    assert server.kubectl("-n", ns, "label", "pod", "web", "x=y").returncode == 0


def test_compliant_pod_is_created_with_kubectl(server, ns):
    _label(server, ns, "pod-security.kubernetes.io/enforce=restricted")
    out = server.kubectl("-n", ns, "run", "web", "--image=nginx", f"--overrides={json.dumps(COMPLIANT)}")
    assert "pod/web created" in out.stdout and "Warning" not in out.stderr


def test_enforce_baseline_refuses_host_network_and_privileged(server, ns):
    _label(server, ns, "pod-security.kubernetes.io/enforce=baseline")
    overrides = {"spec": {"hostNetwork": True, "containers": [{"name": "p", "image": "nginx"}]}}
    out = server.kubectl("-n", ns, "run", "p", "--image=nginx", f"--overrides={json.dumps(overrides)}", check=False)
    assert 'pods "p" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork)' in out.stderr
    out = server.kubectl("-n", ns, "run", "p", "--image=nginx", "--privileged", check=False)
    assert (
        'violates PodSecurity "baseline:latest": privileged (container "p" must not set '
        "securityContext.privileged=true)" in out.stderr
    )
    assert server.kubectl("-n", ns, "run", "plain", "--image=nginx").returncode == 0


def test_warn_on_pods_and_deployments(server, ns):
    _label(server, ns, "pod-security.kubernetes.io/warn=restricted")
    out = server.kubectl("-n", ns, "run", "web", "--image=nginx")
    assert "pod/web created" in out.stdout
    assert "Warning: would violate" + RESTRICTED_PLAIN.removeprefix("violates") in out.stderr
    out = server.kubectl("-n", ns, "create", "deployment", "web", "--image=nginx")
    assert "deployment.apps/web created" in out.stdout
    assert 'Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container ' in (
        out.stderr
    )
    assert server.kubectl("-n", ns, "create", "deployment", "ok", "--image=nginx", "--dry-run=server").returncode == 0


def test_enforce_never_refuses_templates(server, ns):
    _label(server, ns, "pod-security.kubernetes.io/enforce=restricted")
    out = server.kubectl("-n", ns, "create", "job", "j", "--image=nginx")
    assert "job.batch/j created" in out.stdout and "Warning" not in out.stderr


def test_unlabelled_namespace_is_not_touched(server, ns):
    out = server.kubectl("-n", ns, "run", "p", "--image=nginx", "--privileged")
    assert "pod/p created" in out.stdout and "Warning" not in out.stderr


def test_invalid_labels_are_refused(server, ns):
    # the in-tree plugin's answer: admission's Forbidden details with the library's Invalid message and code
    patch = {"metadata": {"labels": {"pod-security.kubernetes.io/enforce": "bogus"}}}
    r = server.request(
        "PATCH", f"/api/v1/namespaces/{ns}", json=patch, headers={"Content-Type": "application/merge-patch+json"}
    )
    assert r.status_code == 422, r.text
    status = r.json()
    assert status["reason"] == "Invalid" and status["details"] == {"name": ns, "kind": "namespaces"}
    assert status["message"] == (
        f'namespaces "{ns}" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: '
        '"bogus": must be one of privileged, baseline, restricted'
    )
    out = _label(server, ns, "pod-security.kubernetes.io/enforce=bogus", check=False)
    assert out.returncode != 0 and f'The namespaces "{ns}" is invalid' in out.stderr  # kubectl's words for it
    patch = {"metadata": {"labels": {"pod-security.kubernetes.io/warn-version": "1.30"}}}
    r = server.request(
        "PATCH", f"/api/v1/namespaces/{ns}", json=patch, headers={"Content-Type": "application/merge-patch+json"}
    )
    assert r.json()["message"].endswith(
        'metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.30": must be "latest" or "v1.x"'
    )
    assert _label(server, ns, "pod-security.kubernetes.io/warn-version=v1.30").returncode == 0


def test_tightening_enforce_warns_about_existing_pods(server, ns):
    for name in ("b", "a", "c"):
        server.kubectl("-n", ns, "run", name, "--image=nginx")
    out = _label(server, ns, "pod-security.kubernetes.io/enforce=restricted")
    assert (
        f'Warning: existing pods in namespace "{ns}" violate the new PodSecurity enforce level "restricted:latest"'
        in (out.stderr)
    )
    assert (
        "Warning: a (and 2 other pods): allowPrivilegeEscalation != false, unrestricted capabilities, "
        "runAsNonRoot != true, seccompProfile" in out.stderr
    )
    # relaxing it warns about nothing
    assert "Warning" not in _label(server, ns, "pod-security.kubernetes.io/enforce=baseline").stderr


def test_disabled_plugin(server_factory):
    srv = server_factory("--disable-admission-plugins=PodSecurity")
    srv.kubectl("create", "namespace", "psa-off")
    srv.kubectl("label", "ns", "psa-off", "pod-security.kubernetes.io/enforce=restricted")
    out = srv.kubectl("-n", "psa-off", "run", "p", "--image=nginx", "--privileged")
    assert "pod/p created" in out.stdout
