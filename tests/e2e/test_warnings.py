"""Warning headers kube-apiserver sends about objects (deprecated node labels, annotations and
volume plugins, entries that apply would drop), as kubectl prints them."""

from __future__ import annotations

import json

import yaml


def _pod(name: str, **spec_extra):
    spec = {"containers": [{"name": "c", "image": "busybox"}]}
    spec.update(spec_extra)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def test_pod_warnings_reach_kubectl(server, ns):
    pod = _pod(
        "warned",
        nodeSelector={"beta.kubernetes.io/os": "linux"},
        imagePullSecrets=[{"name": "a"}, {"name": "a"}],
        containers=[
            {
                "name": "c",
                "image": "busybox",
                "env": [{"name": "X", "value": "1"}, {"name": "X", "value": "2"}],
                "resources": {"limits": {"memory": "1.5"}},
            }
        ],
    )
    pod["metadata"]["annotations"] = {"scheduler.alpha.kubernetes.io/critical-pod": ""}
    res = server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(pod))
    assert res.stdout.strip() == "pod/warned created"
    warnings = [line for line in res.stderr.splitlines() if line.startswith("Warning: ")]
    assert warnings == [
        'Warning: spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead',
        'Warning: metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the "priorityClassName" field instead',
        'Warning: spec.imagePullSecrets[1].name: duplicate name "a"',
        'Warning: spec.containers[0].resources.limits[memory]: fractional byte value "1500m" is invalid, must be an integer',
        # requests default to the limits, so they carry the same fraction
        'Warning: spec.containers[0].resources.requests[memory]: fractional byte value "1500m" is invalid, must be an integer',
        'Warning: spec.containers[0].env[1]: hides previous definition of "X", which may be dropped when using apply',
    ], res.stderr


def test_workload_template_warnings_carry_the_template_path(server, ns):
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "wd"},
        "spec": {
            "selector": {"matchLabels": {"app": "wd"}},
            "template": {
                "metadata": {"labels": {"app": "wd"}},
                "spec": {
                    "containers": [{"name": "c", "image": "busybox"}],
                    "volumes": [{"name": "g", "gitRepo": {"repository": "https://example.com/r.git"}}],
                },
            },
        },
    }
    res = server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(deployment))
    assert "Warning: spec.template.spec.volumes[0].gitRepo: deprecated in v1.11" in res.stderr, res.stderr
    # an update that leaves the spec alone says nothing again
    res = server.kubectl("-n", ns, "label", "deployment", "wd", "x=y")
    assert "Warning" not in res.stderr, res.stderr


def test_no_warnings_for_a_plain_pod(server, ns):
    res = server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(_pod("plain")))
    assert "Warning" not in res.stderr, res.stderr


def test_deprecated_apis_warn_on_every_request(server, ns):
    """v1 Endpoints (deprecated in 1.33, replaced by EndpointSlice) and v1 ComponentStatus (1.19, no
    replacement) answer every request with deprecation.WarningMessage's text, as kubectl prints it; a
    resource that is not deprecated gets none."""
    ep_warning = "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"
    ep = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "ep"}}
    for args in (
        ("create", "-f", "-"),
        ("get", "endpoints"),
        ("get", "endpoints", "ep", "-o", "yaml"),
        ("label", "endpoints", "ep", "a=b"),
        ("delete", "endpoints", "ep"),
    ):
        res = server.kubectl("-n", ns, *args, input=yaml.safe_dump(ep) if args[0] == "create" else None)
        assert [line for line in res.stderr.splitlines() if line.startswith("Warning:")] == [ep_warning], args
    res = server.kubectl("get", "componentstatuses")
    assert "Warning: v1 ComponentStatus is deprecated in v1.19+" in res.stderr.splitlines()
    r = server.request("GET", f"/api/v1/namespaces/{ns}/endpoints?watch=1&timeoutSeconds=1")
    assert r.headers["Warning"] == '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"'
    res = server.kubectl("-n", ns, "get", "endpointslices,configmaps")
    assert "Warning" not in res.stderr


def test_duplicate_owner_references_are_dropped_with_a_warning(server, ns):
    """dedupOwnerReferencesAndAddWarning: a repeated ownerReference (same uid and fields) is dropped, with
    kube's warning; one that shares the uid but differs is kept. A patch gets the after-admission wording."""
    # a real owner: the garbage collector deletes an object none of whose owners exists
    res = server.kubectl("-n", ns, "create", "configmap", "o", "-o", "json")
    owner = {"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": json.loads(res.stdout)["metadata"]["uid"]}
    other = dict(owner, name="renamed")
    cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "owned", "ownerReferences": [owner, owner, other, owner]},
    }
    res = server.kubectl("-n", ns, "create", "-f", "-", "-o", "json", input=yaml.safe_dump(cm))
    assert json.loads(res.stdout)["metadata"]["ownerReferences"] == [owner, other]
    dups = f"{owner['uid']}, {owner['uid']}"
    assert [line for line in res.stderr.splitlines() if line.startswith("Warning:")] == [
        "Warning: .metadata.ownerReferences contains duplicate entries; API server dedups owner references in "
        "1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) "
        f"observed: {dups}"
    ]
    patch = json.dumps({"metadata": {"ownerReferences": [owner, owner]}})
    res = server.kubectl("-n", ns, "patch", "configmap", "owned", "--type=merge", "-p", patch, "-o", "json")
    assert json.loads(res.stdout)["metadata"]["ownerReferences"] == [owner]
    assert [line for line in res.stderr.splitlines() if line.startswith("Warning:")] == [
        "Warning: .metadata.ownerReferences contains duplicate entries after mutating admission happens; API "
        "server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix "
        f"your requests; duplicate UID(s) observed: {owner['uid']}"
    ]


def test_deleting_a_job_without_a_propagation_policy_warns(server, ns):
    """batch/v1 Jobs orphan their pods by default; a delete that leaves the policy unset is told so (kubectl
    sends propagationPolicy=Background and is not)."""
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}},
    }
    base = f"/apis/batch/v1/namespaces/{ns}/jobs"
    for name, query, warned in (
        ("j1", "", True),
        ("j2", "?propagationPolicy=Orphan", False),
        ("j3", "?orphanDependents=false", False),
    ):
        job["metadata"]["name"] = name
        assert server.request("POST", base, json=job).status_code == 201
        r = server.request("DELETE", f"{base}/{name}{query}")
        assert r.status_code == 200, r.text
        expected = (
            '299 - "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to '
            'remove them or set propagationPolicy=Orphan to suppress this warning"'
        )
        assert (r.headers.get("Warning") == expected) == warned, (query, r.headers.get("Warning"))
    job["metadata"]["name"] = "j4"
    server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(job))
    res = server.kubectl("-n", ns, "delete", "job", "j4")
    assert "Warning" not in res.stderr


def test_names_that_are_no_dns_labels_warn_on_create(server, ns):
    """Pods and the workloads that name pods after themselves warn, on create only, when their name is no
    DNS label (IsDNS1123Label's words, in Go's %v of a list)."""
    res = server.kubectl("-n", ns, "create", "deployment", "web.v1", "--image=nginx")
    assert [line for line in res.stderr.splitlines() if line.startswith("Warning:")] == [
        "Warning: metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; "
        "a DNS label is recommended: [must not contain dots]"
    ]
    res = server.kubectl("-n", ns, "label", "deployment", "web.v1", "a=b")
    assert "Warning" not in res.stderr
    pod = _pod("pod.v1")
    res = server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(pod))
    assert "Warning: metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; " in (
        res.stderr
    )
    long = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": "r" * 64},
        "spec": {
            "selector": {"matchLabels": {"a": "b"}},
            "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}},
        },
    }
    r = server.request("POST", f"/apis/apps/v1/namespaces/{ns}/replicasets", json=long)
    assert r.status_code == 201, r.text
    assert r.headers["Warning"].endswith('a DNS label is recommended: [must be no more than 63 characters]"')


def test_ingress_class_annotation_and_pvc_warnings(server, ns):
    ing = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "i", "annotations": {"kubernetes.io/ingress.class": "nginx"}},
        "spec": {"defaultBackend": {"service": {"name": "s", "port": {"number": 80}}}},
    }
    res = server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(ing))
    assert [line for line in res.stderr.splitlines() if line.startswith("Warning:")] == [
        "Warning: annotation \"kubernetes.io/ingress.class\" is deprecated, please use 'spec.ingressClassName' instead"
    ]
    pvc = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "c", "annotations": {"volume.beta.kubernetes.io/storage-class": "fast"}},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1.5"}}},
    }
    res = server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(pvc))
    assert [line for line in res.stderr.splitlines() if line.startswith("Warning:")] == [
        "Warning: metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "
        '"storageClassName" attribute instead',
        'Warning: spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer',
    ]


def test_scheduling_gated_pod_says_so(server, ns):
    """applySchedulingGatedCondition: a pod created with scheduling gates carries PodScheduled=False, reason
    SchedulingGated, which kubectl shows as its status."""
    pod = _pod("gated")
    pod["spec"]["schedulingGates"] = [{"name": "example.com/wait"}]
    server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(pod))
    got = json.loads(server.kubectl("-n", ns, "get", "pod", "gated", "-o", "json").stdout)
    assert got["status"]["conditions"] == [
        {
            "type": "PodScheduled",
            "status": "False",
            "lastProbeTime": None,
            "lastTransitionTime": None,
            "reason": "SchedulingGated",
            "message": "Scheduling is blocked due to non-empty scheduling gates",
        }
    ]
    assert "SchedulingGated" in server.kubectl("-n", ns, "get", "pod", "gated").stdout
