"""kube-apiserver's defaults as kubectl users see them: create a workload, read it back with -o json."""

from __future__ import annotations

import json

import yaml

CONTAINER_DEFAULTS = {
    "resources": {},
    "terminationMessagePath": "/dev/termination-log",
    "terminationMessagePolicy": "File",
}
TEMPLATE_SPEC_DEFAULTS = {
    "dnsPolicy": "ClusterFirst",
    "restartPolicy": "Always",
    "schedulerName": "default-scheduler",
    "securityContext": {},
    "terminationGracePeriodSeconds": 30,
}


def create_and_get(server, ns: str, manifest: dict) -> dict:
    server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(manifest))
    kind, name = manifest["kind"].lower(), manifest["metadata"]["name"]
    return json.loads(server.kubectl("-n", ns, "get", kind, name, "-o", "json").stdout)


def test_deployment_defaults(server, ns):
    manifest = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx", "ports": [{"containerPort": 80}]}]},
            },
        },
    }
    spec = create_and_get(server, ns, manifest)["spec"]
    assert spec["replicas"] == 1
    assert spec["strategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}
    assert spec["revisionHistoryLimit"] == 10
    assert spec["progressDeadlineSeconds"] == 600
    template_spec = spec["template"]["spec"]
    assert {k: template_spec[k] for k in TEMPLATE_SPEC_DEFAULTS} == TEMPLATE_SPEC_DEFAULTS
    # Pods only: a template gets no enableServiceLinks
    assert "enableServiceLinks" not in template_spec
    assert template_spec["containers"] == [
        {
            "name": "nginx",
            "image": "nginx",
            "imagePullPolicy": "Always",
            "ports": [{"containerPort": 80, "protocol": "TCP"}],
            **CONTAINER_DEFAULTS,
        }
    ]


def test_pod_defaults(server, ns):
    manifest = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {
            "containers": [
                {
                    "name": "main",
                    "image": "busybox:1.36",
                    "readinessProbe": {"httpGet": {"port": 8080}},
                    "resources": {"limits": {"cpu": "100m"}},
                }
            ],
            "volumes": [{"name": "cfg", "configMap": {"name": "c"}}, {"name": "scratch"}],
        },
    }
    spec = create_and_get(server, ns, manifest)["spec"]
    assert {k: spec[k] for k in TEMPLATE_SPEC_DEFAULTS} == TEMPLATE_SPEC_DEFAULTS
    assert spec["enableServiceLinks"] is True
    container = spec["containers"][0]
    assert container["terminationMessagePath"] == "/dev/termination-log"
    assert container["terminationMessagePolicy"] == "File"
    assert container["imagePullPolicy"] == "IfNotPresent"
    assert container["resources"] == {"limits": {"cpu": "100m"}, "requests": {"cpu": "100m"}}
    assert container["readinessProbe"] == {
        "httpGet": {"path": "/", "port": 8080, "scheme": "HTTP"},
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    }
    # then the service account's API credentials, added by the ServiceAccount admission plugin
    assert spec["volumes"][:2] == [
        {"name": "cfg", "configMap": {"name": "c", "defaultMode": 420}},
        {"name": "scratch", "emptyDir": {}},
    ]
    assert spec["volumes"][2]["name"].startswith("kube-api-access-")


def test_job_defaults_and_generated_selector(server, ns):
    manifest = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "pi"},
        "spec": {
            "template": {
                "spec": {"restartPolicy": "Never", "containers": [{"name": "pi", "image": "perl:5.34"}]},
            }
        },
    }
    # the create response itself carries the defaults
    created = json.loads(
        server.kubectl("-n", ns, "create", "-f", "-", "-o", "json", input=yaml.safe_dump(manifest)).stdout
    )
    job = json.loads(server.kubectl("-n", ns, "get", "job", "pi", "-o", "json").stdout)
    assert created["spec"] == job["spec"]
    uid = job["metadata"]["uid"]
    spec = job["spec"]
    generated = {
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": "pi",
        "controller-uid": uid,
        "job-name": "pi",
    }
    assert spec["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    assert spec["template"]["metadata"]["labels"] == generated
    assert job["metadata"]["labels"] == generated
    assert {k: spec[k] for k in ("backoffLimit", "completions", "parallelism", "completionMode", "suspend")} == {
        "backoffLimit": 6,
        "completions": 1,
        "parallelism": 1,
        "completionMode": "NonIndexed",
        "suspend": False,
    }
    assert spec["manualSelector"] is False
    assert spec["podReplacementPolicy"] == "TerminatingOrFailed"
    assert spec["template"]["spec"]["restartPolicy"] == "Never"
    assert spec["template"]["spec"]["containers"][0]["terminationMessagePath"] == "/dev/termination-log"
    # kubectl shows the generated selector
    out = server.kubectl("-n", ns, "get", "job", "pi", "-o", "wide").stdout
    assert f"batch.kubernetes.io/controller-uid={uid}" in out


def test_cronjob_defaults(server, ns):
    manifest = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "hello"},
        "spec": {
            "schedule": "*/5 * * * *",
            "jobTemplate": {
                "spec": {
                    "template": {
                        "spec": {"restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "busybox:1.36"}]}
                    }
                }
            },
        },
    }
    spec = create_and_get(server, ns, manifest)["spec"]
    assert spec["concurrencyPolicy"] == "Allow"
    assert spec["suspend"] is False
    assert spec["successfulJobsHistoryLimit"] == 3
    assert spec["failedJobsHistoryLimit"] == 1
    job_spec = spec["jobTemplate"]["spec"]
    # a job template is not a Job: no job defaults there, only the pod template's
    assert "backoffLimit" not in job_spec and "completions" not in job_spec
    template_spec = job_spec["template"]["spec"]
    assert template_spec["restartPolicy"] == "OnFailure"
    assert template_spec["dnsPolicy"] == "ClusterFirst"
    assert template_spec["containers"][0]["imagePullPolicy"] == "IfNotPresent"


def test_new_statuses_carry_the_fields_go_always_writes(server, ns):
    """A new object's status is Go's zero value as kube writes it: a StatefulSet's availableReplicas (no
    omitempty, though OpenAPI calls it optional), a Service's loadBalancer struct."""
    sts = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "st"},
        "spec": {
            "selector": {"matchLabels": {"a": "b"}},
            "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}},
        },
    }
    r = server.request("POST", f"/apis/apps/v1/namespaces/{ns}/statefulsets", json=sts)
    assert r.status_code == 201, r.text
    assert r.json()["status"] == {"replicas": 0, "availableReplicas": 0}
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "sv"}, "spec": {"ports": [{"port": 80}]}}
    r = server.request("POST", f"/api/v1/namespaces/{ns}/services", json=svc)
    assert r.status_code == 201 and r.json()["status"] == {"loadBalancer": {}}, r.text


def test_persistent_volume_phase_transition_time(server):
    """A new PersistentVolume is Pending since its creation; a /status write that changes the phase records
    the time of the change, one that keeps the phase keeps the time (lastPhaseTransitionTime, GA in 1.31)."""
    pv = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "pv-phase"},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp/x"}},
    }
    r = server.request("POST", "/api/v1/persistentvolumes", json=pv)
    assert r.status_code == 201, r.text
    status = r.json()["status"]
    assert status["phase"] == "Pending" and status["lastPhaseTransitionTime"].endswith("Z")
    path = "/api/v1/persistentvolumes/pv-phase/status"
    headers = {"Content-Type": "application/merge-patch+json"}
    kept = server.request("PATCH", path, json={"status": {"message": "m"}}, headers=headers).json()["status"]
    assert kept["lastPhaseTransitionTime"] == status["lastPhaseTransitionTime"]
    given = "2020-01-01T00:00:00Z"
    moved = server.request(
        "PATCH", path, json={"status": {"phase": "Available", "lastPhaseTransitionTime": given}}, headers=headers
    ).json()["status"]
    assert moved["phase"] == "Available" and moved["lastPhaseTransitionTime"] == given  # the client's own time
    server.request("DELETE", "/api/v1/persistentvolumes/pv-phase")


def test_pod_affinity_match_label_keys_become_selector_requirements(server, ns):
    """mutatePodAffinity (MatchLabelKeysInPodAffinity, on in 1.33): on create, matchLabelKeys and
    mismatchLabelKeys add In / NotIn requirements on the pod's own label values to the term's selector."""
    term = {
        "topologyKey": "kubernetes.io/hostname",
        "labelSelector": {"matchLabels": {"app": "web"}},
        "matchLabelKeys": ["ver", "absent"],
        "mismatchLabelKeys": ["team"],
    }
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "aff", "labels": {"app": "web", "ver": "1", "team": "a"}},
        "spec": {
            "containers": [{"name": "c", "image": "nginx"}],
            "affinity": {
                "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]},
                "podAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 1, "podAffinityTerm": {**term, "mismatchLabelKeys": []}}
                    ]
                },
            },
        },
    }
    r = server.request("POST", f"/api/v1/namespaces/{ns}/pods", json=pod)
    assert r.status_code == 201, r.text
    affinity = r.json()["spec"]["affinity"]
    required = affinity["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert required["labelSelector"] == {
        "matchLabels": {"app": "web"},
        "matchExpressions": [
            {"key": "ver", "operator": "In", "values": ["1"]},
            {"key": "team", "operator": "NotIn", "values": ["a"]},
        ],
    }
    preferred = affinity["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0]["podAffinityTerm"]
    assert preferred["labelSelector"]["matchExpressions"] == [{"key": "ver", "operator": "In", "values": ["1"]}]


def test_v1_conversions_keep_single_and_plural_fields_together(server, ns):
    """The v1 conversions kube applies on the way in and out: a Node's podCIDR and podCIDRs, a Pod's podIP
    and podIPs, hostIP and hostIPs are one value seen twice (the list is the truth, the single field its
    first entry; a single field an older client sets differently wins)."""
    node = f"cidr-{ns[-6:]}"
    server.kubectl(
        "create",
        "-f",
        "-",
        input=json.dumps(
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": node}, "spec": {"podCIDR": "10.244.1.0/24"}}
        ),
    )
    try:
        spec = json.loads(server.kubectl("get", "node", node, "-o", "json").stdout)["spec"]
        assert spec["podCIDR"] == "10.244.1.0/24" and spec["podCIDRs"] == ["10.244.1.0/24"]
        server.kubectl("label", "node", node, "x=y")  # an update keeps them
        spec = json.loads(server.kubectl("get", "node", node, "-o", "json").stdout)["spec"]
        assert spec["podCIDRs"] == ["10.244.1.0/24"]
    finally:
        server.kubectl("delete", "node", node)
    server.kubectl("-n", ns, "run", "ips", "--image=nginx")
    path = f"/api/v1/namespaces/{ns}/pods/ips/status"
    patch = {"status": {"podIP": "10.1.1.5", "hostIP": "192.168.0.2"}}
    r = server.request("PATCH", path, json=patch, headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200, r.text
    status = r.json()["status"]
    assert status["podIPs"] == [{"ip": "10.1.1.5"}] and status["hostIPs"] == [{"ip": "192.168.0.2"}]
    patch = {"status": {"podIP": None, "podIPs": [{"ip": "10.1.1.9"}, {"ip": "fd00::9"}]}}
    r = server.request("PATCH", path, json=patch, headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200, r.text
    status = json.loads(server.kubectl("-n", ns, "get", "pod", "ips", "-o", "json").stdout)["status"]
    assert status["podIP"] == "10.1.1.9" and status["podIPs"] == [{"ip": "10.1.1.9"}, {"ip": "fd00::9"}]


def test_roles_without_rules_write_them_as_null(server, ns):
    """A Role's rules are a Go slice without omitempty: none are written as null, as kube writes them."""
    server.kubectl(
        "-n",
        ns,
        "create",
        "-f",
        "-",
        input=json.dumps({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "none"}}),
    )
    raw = server.kubectl("get", "--raw", f"/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles/none").stdout
    assert json.loads(raw)["rules"] is None
    name = f"agg-{ns[-6:]}"
    server.kubectl("create", "clusterrole", name, "--aggregation-rule=never=matched")
    try:
        assert "rules: null" in server.kubectl("get", "clusterrole", name, "-o", "yaml").stdout
    finally:
        server.kubectl("delete", "clusterrole", name)
