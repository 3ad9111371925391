"""Sample objects (as JSON-decoded dicts) for the printer tests, keyed by (group, resource)."""

from __future__ import annotations

from typing import Any

CREATED = "2024-01-01T00:00:00Z"


def meta(name: str, namespace: str | None = "default", **extra: Any) -> dict[str, Any]:
    m: dict[str, Any] = {"name": name, "creationTimestamp": CREATED, "uid": "u-1", **extra}
    if namespace:
        m["namespace"] = namespace
    return m


CONTAINERS = [{"name": "web", "image": "nginx:1.25"}, {"name": "side", "image": "busybox"}]
TEMPLATE = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": CONTAINERS}}
SELECTOR = {"matchLabels": {"app": "web"}}

SAMPLES: dict[tuple[str, str], dict[str, Any]] = {
    ("", "pods"): {
        "metadata": meta("web-0"),
        "spec": {"nodeName": "node-1", "containers": CONTAINERS, "readinessGates": [{"conditionType": "x/ready"}]},
        "status": {
            "phase": "Running",
            "podIP": "10.0.0.5",
            "podIPs": [{"ip": "10.0.0.5"}],
            "conditions": [{"type": "Ready", "status": "True"}, {"type": "x/ready", "status": "True"}],
            "containerStatuses": [
                {"name": "web", "ready": True, "restartCount": 0, "state": {"running": {}}},
                {"name": "side", "ready": True, "restartCount": 0, "state": {"running": {}}},
            ],
        },
    },
    ("", "podtemplates"): {"metadata": meta("tpl"), "template": TEMPLATE},
    ("", "replicationcontrollers"): {
        "metadata": meta("rc"),
        "spec": {"replicas": 3, "selector": {"app": "web"}, "template": TEMPLATE},
        "status": {"replicas": 3, "readyReplicas": 2},
    },
    ("", "services"): {
        "metadata": meta("svc"),
        "spec": {
            "type": "NodePort",
            "clusterIP": "10.96.0.10",
            "clusterIPs": ["10.96.0.10"],
            "ports": [{"port": 80, "protocol": "TCP", "nodePort": 30080}, {"port": 53, "protocol": "UDP"}],
            "selector": {"app": "web"},
        },
    },
    ("", "endpoints"): {
        "metadata": meta("svc"),
        "subsets": [{"addresses": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}], "ports": [{"port": 80}]}],
    },
    ("", "nodes"): {
        "metadata": meta("node-1", None, labels={"node-role.kubernetes.io/control-plane": ""}),
        "spec": {"unschedulable": True},
        "status": {
            "conditions": [{"type": "Ready", "status": "True"}],
            "addresses": [{"type": "InternalIP", "address": "192.168.1.10"}],
            "nodeInfo": {
                "kubeletVersion": "v1.33.0",
                "osImage": "Debian",
                "kernelVersion": "6.1",
                "containerRuntimeVersion": "containerd://1.7",
            },
        },
    },
    ("", "namespaces"): {"metadata": meta("team-a", None), "status": {"phase": "Active"}},
    ("", "componentstatuses"): {
        "metadata": meta("etcd-0", None),
        "conditions": [{"type": "Healthy", "status": "True", "message": "ok"}],
    },
    ("", "events"): {
        "metadata": meta("web-0.17a"),
        "involvedObject": {"kind": "Pod", "name": "web-0", "namespace": "default", "fieldPath": "spec.containers{web}"},
        "reason": "Pulled",
        "message": "Successfully pulled image\n",
        "source": {"component": "kubelet", "host": "node-1"},
        "firstTimestamp": "2024-01-09T23:00:00Z",
        "lastTimestamp": "2024-01-09T23:59:00Z",
        "count": 4,
        "type": "Normal",
    },
    ("", "configmaps"): {"metadata": meta("cm"), "data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}},
    ("", "secrets"): {"metadata": meta("s"), "type": "kubernetes.io/tls", "data": {"tls.crt": "", "tls.key": ""}},
    ("", "serviceaccounts"): {"metadata": meta("default"), "secrets": [{"name": "tok"}]},
    ("", "resourcequotas"): {
        "metadata": meta("quota"),
        "status": {
            "hard": {"limits.cpu": "2", "requests.cpu": "1", "pods": "10"},
            "used": {"limits.cpu": "500m", "pods": "3"},
        },
    },
    ("", "persistentvolumes"): {
        "metadata": meta("pv-1", None),
        "spec": {
            "capacity": {"storage": "10Gi"},
            "accessModes": ["ReadWriteMany", "ReadWriteOnce"],
            "persistentVolumeReclaimPolicy": "Delete",
            "claimRef": {"namespace": "default", "name": "data"},
            "storageClassName": "fast",
        },
        "status": {"phase": "Bound"},
    },
    ("", "persistentvolumeclaims"): {
        "metadata": meta("data"),
        "spec": {"volumeName": "pv-1", "storageClassName": "fast", "resources": {"requests": {"storage": "5Gi"}}},
        "status": {"phase": "Bound", "capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"]},
    },
    ("", "limitranges"): {"metadata": meta("limits")},
    ("apps", "deployments"): {
        "metadata": meta("web"),
        "spec": {"replicas": 3, "selector": SELECTOR, "template": TEMPLATE},
        "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2},
    },
    ("apps", "replicasets"): {
        "metadata": meta("web-abc"),
        "spec": {"replicas": 3, "selector": SELECTOR, "template": TEMPLATE},
        "status": {"replicas": 3, "readyReplicas": 3},
    },
    ("apps", "statefulsets"): {
        "metadata": meta("db"),
        "spec": {"replicas": 2, "selector": SELECTOR, "template": TEMPLATE},
        "status": {"readyReplicas": 1},
    },
    ("apps", "daemonsets"): {
        "metadata": meta("agent"),
        "spec": {
            "selector": SELECTOR,
            "template": {**TEMPLATE, "spec": {**TEMPLATE["spec"], "nodeSelector": {"os": "linux"}}},
        },
        "status": {
            "desiredNumberScheduled": 3,
            "currentNumberScheduled": 3,
            "numberReady": 2,
            "updatedNumberScheduled": 3,
            "numberAvailable": 2,
        },
    },
    ("apps", "controllerrevisions"): {
        "metadata": meta(
            "agent-123",
            ownerReferences=[{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "controller": True}],
        ),
        "revision": 2,
    },
    ("batch", "jobs"): {
        "metadata": meta("pi"),
        "spec": {"completions": 3, "selector": SELECTOR, "template": TEMPLATE},
        "status": {
            "succeeded": 3,
            "startTime": "2024-01-09T00:00:00Z",
            "completionTime": "2024-01-09T00:01:30Z",
            "conditions": [{"type": "Complete", "status": "True"}],
        },
    },
    ("batch", "cronjobs"): {
        "metadata": meta("nightly"),
        "spec": {"schedule": "0 0 * * *", "jobTemplate": {"spec": {"template": TEMPLATE}}},
        "status": {"active": [{"name": "nightly-1"}], "lastScheduleTime": "2024-01-09T23:00:00Z"},
    },
    ("autoscaling", "horizontalpodautoscalers"): {
        "metadata": meta("web"),
        "spec": {
            "scaleTargetRef": {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"},
            "minReplicas": 2,
            "maxReplicas": 10,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
                }
            ],
        },
        "status": {
            "currentReplicas": 3,
            "currentMetrics": [
                {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 42}}}
            ],
        },
    },
    ("policy", "poddisruptionbudgets"): {
        "metadata": meta("web"),
        "spec": {"minAvailable": 2},
        "status": {"disruptionsAllowed": 1},
    },
    ("rbac.authorization.k8s.io", "roles"): {"metadata": meta("reader")},
    ("rbac.authorization.k8s.io", "clusterroles"): {"metadata": meta("admin", None)},
    ("rbac.authorization.k8s.io", "rolebindings"): {
        "metadata": meta("read"),
        "roleRef": {"kind": "Role", "name": "reader", "apiGroup": "rbac.authorization.k8s.io"},
        "subjects": [
            {"kind": "User", "name": "alice"},
            {"kind": "Group", "name": "devs"},
            {"kind": "ServiceAccount", "name": "default", "namespace": "default"},
        ],
    },
    ("rbac.authorization.k8s.io", "clusterrolebindings"): {
        "metadata": meta("admins", None),
        "roleRef": {"kind": "ClusterRole", "name": "admin"},
        "subjects": [{"kind": "User", "name": "alice"}, {"kind": "User", "name": "bob"}],
    },
    ("networking.k8s.io", "ingresses"): {
        "metadata": meta("web"),
        "spec": {
            "ingressClassName": "nginx",
            "rules": [{"host": "a.example.com"}, {"host": "b.example.com"}],
            "tls": [{}],
        },
        "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}},
    },
    ("networking.k8s.io", "ingressclasses"): {
        "metadata": meta("nginx", None),
        "spec": {
            "controller": "k8s.io/ingress-nginx",
            "parameters": {"apiGroup": "k8s.example.com", "kind": "IngressParameters", "name": "p"},
        },
    },
    ("networking.k8s.io", "networkpolicies"): {
        "metadata": meta("deny"),
        "spec": {"podSelector": {"matchLabels": {"app": "web"}}},
    },
    ("networking.k8s.io", "servicecidrs"): {
        "metadata": meta("kubernetes", None),
        "spec": {"cidrs": ["10.96.0.0/12", "fd00::/108"]},
    },
    ("networking.k8s.io", "ipaddresses"): {
        "metadata": meta("10.96.0.1", None),
        "spec": {"parentRef": {"group": "", "resource": "services", "namespace": "default", "name": "kubernetes"}},
    },
    ("storage.k8s.io", "storageclasses"): {
        "metadata": meta("standard", None, annotations={"storageclass.kubernetes.io/is-default-class": "true"}),
        "provisioner": "rancher.io/local-path",
        "volumeBindingMode": "WaitForFirstConsumer",
    },
    ("storage.k8s.io", "volumeattachments"): {
        "metadata": meta("csi-123", None),
        "spec": {"attacher": "csi.example.com", "nodeName": "node-1", "source": {"persistentVolumeName": "pv-1"}},
        "status": {"attached": True},
    },
    ("storage.k8s.io", "csinodes"): {
        "metadata": meta("node-1", None),
        "spec": {"drivers": [{"name": "csi.example.com"}]},
    },
    ("storage.k8s.io", "csidrivers"): {
        "metadata": meta("csi.example.com", None),
        "spec": {
            "attachRequired": False,
            "tokenRequests": [{"audience": "a"}, {"audience": "b"}],
            "volumeLifecycleModes": ["Persistent", "Ephemeral"],
        },
    },
    ("storage.k8s.io", "csistoragecapacities"): {
        "metadata": meta("cap-1"),
        "storageClassName": "fast",
        "capacity": "100Gi",
    },
    ("coordination.k8s.io", "leases"): {
        "metadata": meta("kube-scheduler", "kube-system"),
        "spec": {"holderIdentity": "cp-1_abc"},
    },
    ("discovery.k8s.io", "endpointslices"): {
        "metadata": meta("svc-abc"),
        "addressType": "IPv4",
        "ports": [{"port": 80}, {"name": "metrics"}],
        "endpoints": [{"addresses": ["10.0.0.1"]}, {"addresses": ["10.0.0.2", "10.0.0.3", "10.0.0.4"]}],
    },
    ("events.k8s.io", "events"): {
        "metadata": meta("web-0.17b"),
        "regarding": {"kind": "Pod", "name": "web-0"},
        "reason": "Scheduled",
        "note": "Successfully assigned default/web-0 to node-1",
        "type": "Normal",
        "eventTime": "2024-01-09T23:58:00.000000Z",
        "reportingController": "default-scheduler",
        "reportingInstance": "default-scheduler-cp-1",
        "action": "Binding",
    },
    ("scheduling.k8s.io", "priorityclasses"): {
        "metadata": meta("high", None),
        "value": 1000000,
        "globalDefault": False,
    },
    ("node.k8s.io", "runtimeclasses"): {"metadata": meta("gvisor", None), "handler": "runsc"},
    ("certificates.k8s.io", "certificatesigningrequests"): {
        "metadata": meta("csr-1", None),
        "spec": {"signerName": "kubernetes.io/kube-apiserver-client", "username": "alice", "expirationSeconds": 86400},
        "status": {"conditions": [{"type": "Approved", "status": "True"}], "certificate": "Y2VydA=="},
    },
    ("admissionregistration.k8s.io", "mutatingwebhookconfigurations"): {
        "metadata": meta("m", None),
        "webhooks": [{"name": "a"}],
    },
    ("admissionregistration.k8s.io", "validatingwebhookconfigurations"): {"metadata": meta("v", None), "webhooks": []},
    ("admissionregistration.k8s.io", "validatingadmissionpolicies"): {
        "metadata": meta("p", None),
        "spec": {"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}, "validations": [{"expression": "true"}]},
    },
    ("admissionregistration.k8s.io", "validatingadmissionpolicybindings"): {
        "metadata": meta("b", None),
        "spec": {"policyName": "p", "paramRef": {"name": "params"}},
    },
    ("flowcontrol.apiserver.k8s.io", "flowschemas"): {
        "metadata": meta("system-leader-election", None),
        "spec": {
            "priorityLevelConfiguration": {"name": "leader-election"},
            "matchingPrecedence": 100,
            "distinguisherMethod": {"type": "ByUser"},
        },
        "status": {"conditions": [{"type": "Dangling", "status": "False"}]},
    },
    ("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations"): {
        "metadata": meta("workload-low", None),
        "spec": {
            "type": "Limited",
            "limited": {
                "nominalConcurrencyShares": 100,
                "limitResponse": {"type": "Queue", "queuing": {"queues": 128, "handSize": 6, "queueLengthLimit": 50}},
            },
        },
    },
    ("apiextensions.k8s.io", "customresourcedefinitions"): {"metadata": meta("widgets.example.com", None)},
    ("apiregistration.k8s.io", "apiservices"): {
        "metadata": meta("v1beta1.metrics.k8s.io", None),
        "spec": {"service": {"namespace": "kube-system", "name": "metrics-server"}},
        "status": {"conditions": [{"type": "Available", "status": "False", "reason": "MissingEndpoints"}]},
    },
}
