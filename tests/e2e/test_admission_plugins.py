"""The admission plugins of single kinds that kube-apiserver runs by default (DefaultTolerationSeconds,
Priority, TaintNodesByCondition, LimitRanger), seen the way kubectl users see them, and turned off by
--disable-admission-plugins as in kube-apiserver."""

from __future__ import annotations

import json
import time
import uuid

NOT_READY = {
    "key": "node.kubernetes.io/not-ready",
    "operator": "Exists",
    "effect": "NoExecute",
    "tolerationSeconds": 300,
}
UNREACHABLE = {
    "key": "node.kubernetes.io/unreachable",
    "operator": "Exists",
    "effect": "NoExecute",
    "tolerationSeconds": 300,
}


def _pod(server, ns: str, name: str) -> dict:
    return json.loads(server.kubectl("-n", ns, "get", "pod", name, "-o", "json").stdout)


def test_pods_get_default_tolerations_and_priority(server, ns):
    server.kubectl("-n", ns, "run", "plain", "--image=nginx")
    spec = _pod(server, ns, "plain")["spec"]
    assert spec["tolerations"] == [NOT_READY, UNREACHABLE]
    assert spec["priority"] == 0 and spec["preemptionPolicy"] == "PreemptLowerPriority"
    assert "priorityClassName" not in spec
    # set by admission, owned by no manager
    raw = server.kubectl("-n", ns, "get", "pod", "plain", "-o", "json", "--show-managed-fields").stdout
    assert '"f:tolerations"' not in raw and '"f:priority"' not in raw
    # a pod that tolerates them already (an empty key matches any) gets only what it lacks
    overrides = {"spec": {"tolerations": [{"key": "node.kubernetes.io/unreachable", "operator": "Exists"}]}}
    server.kubectl("-n", ns, "run", "tolerant", "--image=nginx", f"--overrides={json.dumps(overrides)}")
    assert _pod(server, ns, "tolerant")["spec"]["tolerations"] == [
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists"},
        NOT_READY,
    ]
    overrides = {"spec": {"tolerations": [{"operator": "Exists"}]}}
    server.kubectl("-n", ns, "run", "all", "--image=nginx", f"--overrides={json.dumps(overrides)}")
    assert _pod(server, ns, "all")["spec"]["tolerations"] == [{"operator": "Exists"}]
    # an update that leaves priority out keeps it (create set it; validation would refuse a change)
    pod = _pod(server, ns, "plain")
    del pod["spec"]["priority"], pod["spec"]["preemptionPolicy"]
    pod["metadata"]["labels"] = {"x": "y"}
    server.kubectl("replace", "-f", "-", input=json.dumps(pod))
    spec = _pod(server, ns, "plain")["spec"]
    assert spec["priority"] == 0 and spec["preemptionPolicy"] == "PreemptLowerPriority"


def test_priority_classes_set_and_refuse(server, ns):
    suffix = uuid.uuid4().hex[:6]
    high, default, other = f"high-{suffix}", f"default-{suffix}", f"other-{suffix}"
    r = server.kubectl(
        "-n",
        ns,
        "run",
        "lost",
        "--image=nginx",
        '--overrides={"spec":{"priorityClassName":"no-such-class"}}',
        check=False,
    )
    assert r.returncode != 0
    assert 'pods "lost" is forbidden: no PriorityClass with name no-such-class was found' in r.stderr
    server.kubectl("create", "priorityclass", high, "--value=1000", "--preemption-policy=Never")
    try:
        overrides = json.dumps({"spec": {"priorityClassName": high}})
        server.kubectl("-n", ns, "run", "high", "--image=nginx", f"--overrides={overrides}")
        spec = _pod(server, ns, "high")["spec"]
        assert spec["priority"] == 1000 and spec["preemptionPolicy"] == "Never"
        overrides = json.dumps({"spec": {"priorityClassName": high, "priority": 5}})
        r = server.kubectl("-n", ns, "run", "wrong", "--image=nginx", f"--overrides={overrides}", check=False)
        assert (
            "the integer value of priority (5) must not be provided in pod spec; priority admission controller "
            "computed 1000 from the given PriorityClass name"
        ) in r.stderr
        # one global default, which pods without a class get
        server.kubectl("create", "priorityclass", default, "--value=7", "--global-default")
        r = server.kubectl("create", "priorityclass", other, "--value=8", "--global-default", check=False)
        assert (
            f'priorityclasses.scheduling.k8s.io "{other}" is forbidden: PriorityClass {default} is already '
            "marked as default. Only one default can exist"
        ) in r.stderr
        server.kubectl("-n", ns, "run", "defaulted", "--image=nginx")
        spec = _pod(server, ns, "defaulted")["spec"]
        assert (spec["priorityClassName"], spec["priority"], spec["preemptionPolicy"]) == (
            default,
            7,
            "PreemptLowerPriority",
        )
    finally:
        server.kubectl("delete", "priorityclass", high, default, "--ignore-not-found")


def test_new_nodes_are_tainted_not_ready(server):
    name = f"node-{uuid.uuid4().hex[:6]}"
    server.kubectl(
        "create", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
    )
    try:
        node = json.loads(server.kubectl("get", "node", name, "-o", "json").stdout)
        assert node["spec"]["taints"] == [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]
        server.kubectl("taint", "node", name, "node.kubernetes.io/not-ready:NoSchedule-")  # removable after
        node = json.loads(server.kubectl("get", "node", name, "-o", "json").stdout)
        assert "taints" not in node["spec"]
    finally:
        server.kubectl("delete", "node", name)


def test_plugins_can_be_disabled_and_seconds_set(server_factory):
    srv = server_factory(
        "--disable-admission-plugins=Priority,TaintNodesByCondition,LimitRanger,ServiceAccount,DefaultIngressClass",
        "--default-not-ready-toleration-seconds=60",
    )
    srv.kubectl("run", "p", "--image=nginx")
    spec = json.loads(srv.kubectl("get", "pod", "p", "-o", "json").stdout)["spec"]
    assert "priority" not in spec
    assert "serviceAccountName" not in spec and "volumes" not in spec
    assert spec["tolerations"] == [dict(NOT_READY, tolerationSeconds=60), UNREACHABLE]
    srv.kubectl("create", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}))
    assert "taints" not in json.loads(srv.kubectl("get", "node", "n", "-o", "json").stdout)["spec"]
    srv.kubectl("create", "-f", "-", input=json.dumps(LIMIT_RANGE))
    srv.kubectl("run", "free", "--image=nginx")
    assert (
        json.loads(srv.kubectl("get", "pod", "free", "-o", "json").stdout)["spec"]["containers"][0]["resources"] == {}
    )


LIMIT_RANGE = {
    "apiVersion": "v1",
    "kind": "LimitRange",
    "metadata": {"name": "limits"},
    "spec": {
        "limits": [
            {
                "type": "Container",
                "default": {"cpu": "500m", "memory": "256Mi"},
                "defaultRequest": {"cpu": "100m"},
                "max": {"cpu": "1", "memory": "1Gi"},
                "min": {"cpu": "50m"},
                "maxLimitRequestRatio": {"cpu": "10"},
            },
            {"type": "Pod", "max": {"memory": "2Gi"}},
            {"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"}, "max": {"storage": "10Gi"}},
        ]
    },
}


def test_limit_ranges_default_and_hold_containers_pods_and_claims(server, ns):
    server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(LIMIT_RANGE))
    # what a container lacks comes from the range, and the pod says so
    overrides = {
        "spec": {
            "initContainers": [{"name": "init", "image": "busybox"}],
            "containers": [{"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "200m"}}}],
        }
    }
    server.kubectl("-n", ns, "run", "app", "--image=nginx", f"--overrides={json.dumps(overrides)}")
    pod = _pod(server, ns, "app")
    assert pod["metadata"]["annotations"]["kubernetes.io/limit-ranger"] == (
        "LimitRanger plugin set: memory request for container app; cpu, memory limit for container app; "
        "cpu, memory request for init container init; cpu, memory limit for init container init"
    )
    assert pod["spec"]["containers"][0]["resources"] == {
        "limits": {"cpu": "500m", "memory": "256Mi"},
        "requests": {"cpu": "200m", "memory": "256Mi"},
    }
    # one violation as it is, several together in brackets
    overrides = {"spec": {"containers": [{"name": "big", "image": "nginx", "resources": {"limits": {"cpu": "2"}}}]}}
    r = server.kubectl("-n", ns, "run", "big", "--image=nginx", f"--overrides={json.dumps(overrides)}", check=False)
    assert 'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2' in r.stderr
    resources = {"limits": {"cpu": "800m", "memory": "3Gi"}, "requests": {"cpu": "10m"}}
    overrides = {"spec": {"containers": [{"name": "bad", "image": "nginx", "resources": resources}]}}
    r = server.kubectl("-n", ns, "run", "bad", "--image=nginx", f"--overrides={json.dumps(overrides)}", check=False)
    assert (
        'pods "bad" is forbidden: [minimum cpu usage per Container is 50m, but request is 10m, '
        "maximum memory usage per Container is 1Gi, but limit is 3Gi, "
        "cpu max limit to request ratio per Container is 10, but provided ratio is 80.000000, "
        "maximum memory usage per Pod is 2Gi, but limit is 3Gi]"
    ) in r.stderr
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "small"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "500Mi"}}},
    }
    r = server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(claim), check=False)
    assert (
        'persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, '
        "but request is 500Mi"
    ) in r.stderr
    claim["spec"]["resources"]["requests"]["storage"] = "2Gi"
    server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(claim))
    # a namespace without ranges is not touched
    other = json.loads(server.kubectl("-n", "default", "get", "pods", "-o", "json").stdout)
    assert all("kubernetes.io/limit-ranger" not in (p["metadata"].get("annotations") or {}) for p in other["items"])


def test_claims_without_a_class_get_the_default_storage_class(server, ns):
    suffix = uuid.uuid4().hex[:6]
    names = [f"older-{suffix}", f"newer-{suffix}"]

    def claim(name: str, **spec) -> dict:
        spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, **spec}
        return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name}, "spec": spec}

    def class_of(name: str) -> str | None:
        pvc = json.loads(server.kubectl("-n", ns, "get", "pvc", name, "-o", "json").stdout)
        return pvc["spec"].get("storageClassName")

    server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(claim("before")))
    assert class_of("before") is None  # no default class yet
    try:
        for name in names:  # two defaults: the newest wins
            sc = {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "StorageClass",
                "metadata": {"name": name, "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
                "provisioner": "example.com/p",
            }
            server.kubectl("create", "-f", "-", input=json.dumps(sc))
            if name == names[0]:
                time.sleep(1.1)  # creationTimestamp has whole seconds
        server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(claim("plain")))
        assert class_of("plain") == names[1]
        # a claim that names a class, or asks for none with "", keeps what it asked for
        server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(claim("none", storageClassName="")))
        assert class_of("none") == ""
        server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(claim("named", storageClassName=names[0])))
        assert class_of("named") == names[0]
    finally:
        server.kubectl("delete", "storageclass", *names, "--ignore-not-found")


def test_ingresses_without_a_class_get_the_default_ingress_class(server, ns):
    suffix = uuid.uuid4().hex[:6]
    names = [f"older-{suffix}", f"newer-{suffix}"]

    def ingress(name: str, annotations: dict | None = None, **spec) -> dict:
        backend = {"service": {"name": "web", "port": {"number": 80}}}
        obj = {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": name}}
        if annotations:
            obj["metadata"]["annotations"] = annotations
        obj["spec"] = {"defaultBackend": backend, **spec}
        return obj

    def class_of(name: str) -> str | None:
        obj = json.loads(server.kubectl("-n", ns, "get", "ingress", name, "-o", "json").stdout)
        return obj["spec"].get("ingressClassName")

    server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(ingress("before")))
    assert class_of("before") is None  # no default class yet
    try:
        for name in names:  # two defaults: the newest wins
            ic = {
                "apiVersion": "networking.k8s.io/v1",
                "kind": "IngressClass",
                "metadata": {"name": name, "annotations": {"ingressclass.kubernetes.io/is-default-class": "true"}},
                "spec": {"controller": "example.com/ingress"},
            }
            server.kubectl("create", "-f", "-", input=json.dumps(ic))
            if name == names[0]:
                time.sleep(1.1)  # creationTimestamp has whole seconds
        server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(ingress("plain")))
        assert class_of("plain") == names[1]
        # one that names its class, by the field or by the old annotation, keeps what it asked for
        server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(ingress("named", ingressClassName=names[0])))
        assert class_of("named") == names[0]
        annotated = ingress("annotated", {"kubernetes.io/ingress.class": "nginx"})
        server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(annotated))
        assert class_of("annotated") is None
        # an update that drops the class is not defaulted again (create only)
        obj = json.loads(server.kubectl("-n", ns, "get", "ingress", "before", "-o", "json").stdout)
        obj["metadata"]["labels"] = {"touched": "yes"}
        server.kubectl("-n", ns, "replace", "-f", "-", input=json.dumps(obj))
        assert class_of("before") is None
    finally:
        server.kubectl("delete", "ingressclass", *names, "--ignore-not-found")


SA_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"


def _create_pod(server, ns: str, pod: dict, check: bool = True):
    pod = {"apiVersion": "v1", "kind": "Pod", **pod}
    pod["spec"].setdefault("containers", [{"name": "c", "image": "nginx"}])
    return server.kubectl("-n", ns, "create", "-f", "-", "-o", "json", input=json.dumps(pod), check=check)


def test_pods_run_as_a_service_account_with_its_credentials_mounted(server, ns):
    init = {"name": "init", "image": "busybox"}
    own = {"name": "own", "image": "nginx", "volumeMounts": [{"name": "mine", "mountPath": SA_MOUNT_PATH}]}
    spec = {"initContainers": [init], "containers": [{"name": "c", "image": "nginx"}, own]}
    spec["volumes"] = [{"name": "mine", "emptyDir": {}}]
    spec = json.loads(_create_pod(server, ns, {"metadata": {"name": "p"}, "spec": spec}).stdout)["spec"]
    assert spec["serviceAccountName"] == spec["serviceAccount"] == "default"
    volume = spec["volumes"][1]
    assert volume["name"].startswith("kube-api-access-") and len(volume["name"]) == len("kube-api-access-") + 5
    assert volume["projected"] == {
        "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {
                "downwardAPI": {
                    "items": [
                        {"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}
                    ]
                }
            },
        ],
        "defaultMode": 420,
    }
    mount = {"name": volume["name"], "readOnly": True, "mountPath": SA_MOUNT_PATH}
    assert spec["initContainers"][0]["volumeMounts"] == [mount]
    assert spec["containers"][0]["volumeMounts"] == [mount]
    assert spec["containers"][1]["volumeMounts"] == [{"name": "mine", "mountPath": SA_MOUNT_PATH}]  # its own wins
    # kubectl describe shows them as on a cluster
    described = server.kubectl("-n", ns, "describe", "pod", "p").stdout
    assert f"{SA_MOUNT_PATH} from {volume['name']} (ro)" in described
    assert "Service Account:  default" in described

    # automountServiceAccountToken: the pod's say first, then the service account's
    sa = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "quiet"}}
    sa["automountServiceAccountToken"] = False
    sa["imagePullSecrets"] = [{"name": "registry"}]
    server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(sa))
    quiet = {"metadata": {"name": "quiet"}, "spec": {"serviceAccountName": "quiet"}}
    spec = json.loads(_create_pod(server, ns, quiet).stdout)["spec"]
    assert "volumes" not in spec and "volumeMounts" not in spec["containers"][0]
    assert spec["imagePullSecrets"] == [{"name": "registry"}]  # the service account's, the pod having none
    loud = {"metadata": {"name": "loud"}, "spec": {"serviceAccountName": "quiet", "automountServiceAccountToken": True}}
    loud["spec"]["imagePullSecrets"] = [{"name": "own"}]
    spec = json.loads(_create_pod(server, ns, loud).stdout)["spec"]
    assert spec["volumes"][0]["name"].startswith("kube-api-access-")
    assert spec["imagePullSecrets"] == [{"name": "own"}]
    off = {"metadata": {"name": "off"}, "spec": {"automountServiceAccountToken": False}}
    assert "volumes" not in json.loads(_create_pod(server, ns, off).stdout)["spec"]


def test_a_pods_service_account_must_exist(server, ns):
    r = _create_pod(server, ns, {"metadata": {"name": "p"}, "spec": {"serviceAccountName": "nope"}}, check=False)
    assert r.returncode != 0
    assert (
        f'Error from server (Forbidden): error when creating "STDIN": pods "p" is forbidden: error looking up service '
        f'account {ns}/nope: serviceaccount "nope" not found'
    ) in r.stderr
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "gen-"}}
    pod["spec"] = {"serviceAccount": "nope", "containers": [{"name": "c", "image": "nginx"}]}  # the alias counts too
    r = server.request("POST", f"/api/v1/namespaces/{ns}/pods", json=pod)
    assert r.status_code == 403
    assert r.json()["message"] == (
        f'pods "gen-" is forbidden: error looking up service account {ns}/nope: serviceaccount "nope" not found'
    )
    # with enforce-mountable-secrets, the pod may use only the secrets its service account lists
    sa = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "strict"}, "secrets": [{"name": "ok"}]}
    sa["metadata"]["annotations"] = {"kubernetes.io/enforce-mountable-secrets": "true"}
    server.kubectl("-n", ns, "create", "-f", "-", input=json.dumps(sa))
    spec = {"serviceAccountName": "strict", "volumes": [{"name": "s", "secret": {"secretName": "other"}}]}
    r = _create_pod(server, ns, {"metadata": {"name": "strict"}, "spec": spec}, check=False)
    assert (
        'pods "strict" is forbidden: volume with secret.secretName="other" is not allowed because service account '
        "strict does not reference that secret"
    ) in r.stderr
    spec["volumes"][0]["secret"]["secretName"] = "ok"
    # envFrom counts too (CVE-2024-3177), for init containers as well
    init = {"name": "i", "image": "busybox", "envFrom": [{"secretRef": {"name": "bad"}}]}
    r = _create_pod(
        server, ns, {"metadata": {"name": "strict"}, "spec": {**spec, "initContainers": [init]}}, check=False
    )
    assert (
        'pods "strict" is forbidden: init container i with envFrom referencing secret.secretName="bad" is not '
        "allowed because service account strict does not reference that secret"
    ) in r.stderr
    _create_pod(server, ns, {"metadata": {"name": "strict"}, "spec": spec})
    # and so do the ephemeral containers added through pods/ephemeralcontainers (CVE-2023-2728)
    path = f"/api/v1/namespaces/{ns}/pods/strict/ephemeralcontainers"
    debug = {
        "name": "debug",
        "image": "busybox",
        "env": [{"name": "E", "valueFrom": {"secretKeyRef": {"name": "bad", "key": "k"}}}],
    }
    patch = {"spec": {"ephemeralContainers": [debug]}}
    merge = {"Content-Type": "application/strategic-merge-patch+json"}
    r = server.request("PATCH", path, json=patch, headers=merge)
    assert (r.status_code, r.json()["message"]) == (
        403,
        'pods "strict" is forbidden: ephemeral container debug with envVar E referencing secret.secretName="bad" '
        "is not allowed because service account strict does not reference that secret",
    )
    debug["env"] = [{"name": "E", "valueFrom": {"secretKeyRef": {"name": "ok", "key": "k"}}}]
    r = server.request("PATCH", path, json=patch, headers=merge)
    assert r.status_code == 200, r.text
    assert [c["name"] for c in r.json()["spec"]["ephemeralContainers"]] == ["debug"]


def test_mirror_pods_reference_no_service_account(server, ns):
    mirror = {"kubernetes.io/config.mirror": "hash"}
    node = {"nodeName": "n1"}
    spec = json.loads(
        _create_pod(server, ns, {"metadata": {"name": "m", "annotations": mirror}, "spec": dict(node)}).stdout
    )["spec"]
    assert "serviceAccountName" not in spec and "volumes" not in spec
    bad = {"metadata": {"name": "m2", "annotations": mirror}, "spec": {**node, "serviceAccountName": "default"}}
    r = _create_pod(server, ns, bad, check=False)
    assert 'pods "m2" is forbidden: a mirror pod may not reference service accounts' in r.stderr
    # any volume that names a secret, before a token projection
    csi = {"name": "v", "csi": {"driver": "d.example.com", "nodePublishSecretRef": {"name": "s"}}}
    token = {"name": "t", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}}
    bad = {"metadata": {"name": "m3", "annotations": mirror}, "spec": {**node, "volumes": [csi, token]}}
    r = _create_pod(server, ns, bad, check=False)
    assert 'pods "m3" is forbidden: a mirror pod may not reference secrets' in r.stderr


def test_a_pod_in_a_new_namespace_waits_for_its_default_service_account(server, api_client):
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    name = f"fresh-{uuid.uuid4().hex[:6]}"
    core.create_namespace({"metadata": {"name": name}})
    try:
        pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
        created = core.create_namespaced_pod(name, pod)
        assert created.spec.service_account_name == "default"
    finally:
        core.delete_namespace(name)
