"""Tests for the Table printers: known cells of core and group resources."""

from __future__ import annotations

from typing import Any

from apis_samples import SAMPLES

from kube_apiserver.apis import builtin_resources
from kube_apiserver.apis.printing import parse_time
from kube_apiserver.registry.resource_spec import TablePrinter

NOW = parse_time("2024-01-10T00:00:00Z") or 0.0
PRINTED = [r for r in builtin_resources() if r.printer is not None]
BY_KEY = {(r.group, r.version, r.resource): r for r in builtin_resources()}


def printer(group: str, resource: str, version: str = "v1") -> TablePrinter:
    p = BY_KEY[(group, version, resource)].printer
    assert p is not None
    return p


def row(group: str, resource: str, obj: dict[str, Any], version: str = "v1") -> list[Any]:
    return printer(group, resource, version).row(obj, NOW)


def cells(group: str, resource: str, obj: dict[str, Any], version: str = "v1") -> dict[str, Any]:
    p = printer(group, resource, version)
    return dict(zip([c.name for c in p.columns], p.row(obj, NOW), strict=True))


# ---------------------------------------------------------------------------------------------
# core


def test_core_cells() -> None:
    assert row("", "services", SAMPLES[("", "services")]) == [
        "svc",
        "NodePort",
        "10.96.0.10",
        "<none>",
        "80:30080/TCP,53/UDP",
        "9d",
        "app=web",
    ]
    minimal_svc = cells("", "services", {"metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}})
    assert (minimal_svc["Type"], minimal_svc["Cluster-IP"], minimal_svc["External-IP"], minimal_svc["Port(s)"]) == (
        "ClusterIP",
        "<none>",
        "<none>",
        "80/TCP",
    )
    assert minimal_svc["Selector"] == "<none>"
    lb = {"metadata": {"name": "lb"}, "spec": {"type": "LoadBalancer", "clusterIPs": ["10.0.0.1"]}}
    assert cells("", "services", lb)["External-IP"] == "<pending>"
    lb["status"] = {"loadBalancer": {"ingress": [{"hostname": "b.example.com"}, {"ip": "1.2.3.4"}]}}
    assert cells("", "services", lb)["External-IP"] == "1.2.3.4,b.example.com"
    ext = {"metadata": {"name": "e"}, "spec": {"type": "ExternalName", "externalName": "db.example.com"}}
    assert cells("", "services", ext)["External-IP"] == "db.example.com"

    assert row("", "endpoints", SAMPLES[("", "endpoints")]) == ["svc", "10.0.0.1:80,10.0.0.2:80", "9d"]
    many = {"subsets": [{"addresses": [{"ip": f"10.0.0.{i}"} for i in range(5)], "ports": [{"port": 80}]}]}
    assert cells("", "endpoints", many)["Endpoints"] == "10.0.0.0:80,10.0.0.1:80,10.0.0.2:80 + 2 more..."
    v6 = {"subsets": [{"addresses": [{"ip": "fd00::1"}], "ports": [{"port": 443}]}]}
    assert cells("", "endpoints", v6)["Endpoints"] == "[fd00::1]:443"
    assert cells("", "endpoints", {})["Endpoints"] == "<none>"

    assert row("", "nodes", SAMPLES[("", "nodes")]) == [
        "node-1",
        "Ready,SchedulingDisabled",
        "control-plane",
        "9d",
        "v1.33.0",
        "192.168.1.10",
        "<none>",
        "Debian",
        "6.1",
        "containerd://1.7",
    ]
    assert cells("", "nodes", {})["Status"] == "Unknown"
    assert row("", "namespaces", SAMPLES[("", "namespaces")]) == ["team-a", "Active", "9d"]
    assert row("", "configmaps", SAMPLES[("", "configmaps")]) == ["cm", 3, "9d"]
    assert row("", "secrets", SAMPLES[("", "secrets")]) == ["s", "kubernetes.io/tls", 2, "9d"]
    assert cells("", "secrets", {})["Type"] == "Opaque"
    assert row("", "serviceaccounts", SAMPLES[("", "serviceaccounts")]) == ["default", 1, "9d"]
    assert row("", "resourcequotas", SAMPLES[("", "resourcequotas")]) == [
        "quota",
        "pods: 3/10, requests.cpu: 0/1",
        "limits.cpu: 500m/2",
        "9d",
    ]
    assert row("", "replicationcontrollers", SAMPLES[("", "replicationcontrollers")]) == [
        "rc",
        3,
        3,
        2,
        "9d",
        "web,side",
        "nginx:1.25,busybox",
        "app=web",
    ]
    assert row("", "podtemplates", SAMPLES[("", "podtemplates")]) == [
        "tpl",
        "web,side",
        "nginx:1.25,busybox",
        "app=web",
    ]
    assert row("", "componentstatuses", SAMPLES[("", "componentstatuses")]) == ["etcd-0", "Healthy", "ok", ""]
    assert row("", "limitranges", SAMPLES[("", "limitranges")]) == ["limits", "2024-01-01T00:00:00Z"]


def test_volumes() -> None:
    assert row("", "persistentvolumes", SAMPLES[("", "persistentvolumes")]) == [
        "pv-1",
        "10Gi",
        "RWO,RWX",
        "Delete",
        "Bound",
        "default/data",
        "fast",
        "<unset>",
        "",
        "9d",
        "Filesystem",
    ]
    assert row("", "persistentvolumeclaims", SAMPLES[("", "persistentvolumeclaims")]) == [
        "data",
        "Bound",
        "pv-1",
        "10Gi",
        "RWO",
        "fast",
        "<unset>",
        "9d",
        "Filesystem",
    ]
    pending = cells("", "persistentvolumeclaims", {"metadata": {"name": "d"}})
    assert (pending["Status"], pending["Volume"], pending["Capacity"], pending["Access Modes"]) == (
        "Pending",
        "",
        "",
        "",
    )


def test_events() -> None:
    assert row("", "events", SAMPLES[("", "events")]) == [
        "60s",
        "Normal",
        "Pulled",
        "pod/web-0",
        "spec.containers{web}",
        "kubelet, node-1",
        "Successfully pulled image",
        "60m",
        4,
        "web-0.17a",
    ]
    assert row("events.k8s.io", "events", SAMPLES[("events.k8s.io", "events")]) == [
        "2m",
        "Normal",
        "Scheduled",
        "pod/web-0",
        "",
        "default-scheduler, default-scheduler-cp-1",
        "Successfully assigned default/web-0 to node-1",
        "2m",
        1,
        "web-0.17b",
    ]
    series = {"eventTime": "2024-01-09T00:00:00Z", "series": {"count": 7, "lastObservedTime": "2024-01-09T23:59:50Z"}}
    got = cells("", "events", series)
    assert (got["Last Seen"], got["First Seen"], got["Count"]) == ("10s", "24h", 7)
    assert cells("", "events", {})["Last Seen"] == "<unknown>"


# ---------------------------------------------------------------------------------------------
# other groups


def test_apps_cells() -> None:
    assert row("apps", "deployments", SAMPLES[("apps", "deployments")]) == [
        "web",
        "2/3",
        3,
        2,
        "9d",
        "web,side",
        "nginx:1.25,busybox",
        "app=web",
    ]
    assert cells("apps", "deployments", {})["Ready"] == "0/1"
    assert row("apps", "replicasets", SAMPLES[("apps", "replicasets")])[:4] == ["web-abc", 3, 3, 3]
    assert row("apps", "statefulsets", SAMPLES[("apps", "statefulsets")]) == [
        "db",
        "1/2",
        "9d",
        "web,side",
        "nginx:1.25,busybox",
    ]
    assert row("apps", "daemonsets", SAMPLES[("apps", "daemonsets")])[:8] == ["agent", 3, 3, 2, 3, 2, "os=linux", "9d"]
    assert row("apps", "controllerrevisions", SAMPLES[("apps", "controllerrevisions")]) == [
        "agent-123",
        "daemonset.apps/agent",
        2,
        "9d",
    ]


def test_batch_cells() -> None:
    assert row("batch", "jobs", SAMPLES[("batch", "jobs")])[:5] == ["pi", "Complete", "3/3", "90s", "9d"]
    running = {"status": {"startTime": "2024-01-09T23:00:00Z"}, "spec": {"parallelism": 2}}
    got = cells("batch", "jobs", running)
    assert (got["Status"], got["Completions"], got["Duration"]) == ("Running", "0/1 of 2", "60m")
    assert cells("batch", "jobs", {})["Completions"] == "0/1"
    assert row("batch", "cronjobs", SAMPLES[("batch", "cronjobs")])[:7] == [
        "nightly",
        "0 0 * * *",
        "<none>",
        "False",
        1,
        "60m",
        "9d",
    ]


def test_hpa_cells() -> None:
    for version in ("v1", "v2"):
        assert row(
            "autoscaling", "horizontalpodautoscalers", SAMPLES[("autoscaling", "horizontalpodautoscalers")], version
        ) == [
            "web",
            "Deployment/web",
            "cpu: 42%/80%",
            "2",
            10,
            3,
            "9d",
        ]
    v1 = {
        "spec": {
            "scaleTargetRef": {"kind": "Deployment", "name": "w"},
            "maxReplicas": 5,
            "targetCPUUtilizationPercentage": 50,
        }
    }
    assert cells("autoscaling", "horizontalpodautoscalers", v1)["Targets"] == "cpu: <unknown>/50%"
    assert cells("autoscaling", "horizontalpodautoscalers", {})["Targets"] == "cpu: <unknown>/80%"
    many = {
        "spec": {
            "metrics": [
                {"type": "Pods", "pods": {"target": {"averageValue": "1k"}}},
                {"type": "External", "external": {"target": {"value": "10"}}},
                {"type": "Resource", "resource": {"name": "memory", "target": {"averageValue": "1Gi"}}},
            ]
        }
    }
    assert cells("autoscaling", "horizontalpodautoscalers", many)["Targets"] == "<unknown>/1k, <unknown>/10 + 1 more..."


def test_misc_cells() -> None:
    assert row("policy", "poddisruptionbudgets", SAMPLES[("policy", "poddisruptionbudgets")]) == [
        "web",
        "2",
        "N/A",
        1,
        "9d",
    ]
    assert row("rbac.authorization.k8s.io", "rolebindings", SAMPLES[("rbac.authorization.k8s.io", "rolebindings")]) == [
        "read",
        "Role/reader",
        "9d",
        "alice",
        "devs",
        "default/default",
    ]
    assert row("rbac.authorization.k8s.io", "roles", SAMPLES[("rbac.authorization.k8s.io", "roles")]) == [
        "reader",
        "2024-01-01T00:00:00Z",
    ]
    assert row("networking.k8s.io", "ingresses", SAMPLES[("networking.k8s.io", "ingresses")]) == [
        "web",
        "nginx",
        "a.example.com,b.example.com",
        "1.2.3.4",
        "80, 443",
        "9d",
    ]
    assert cells("networking.k8s.io", "ingresses", {})["Hosts"] == "*"
    hosts = {"spec": {"rules": [{"host": f"h{i}"} for i in range(5)]}}
    assert cells("networking.k8s.io", "ingresses", hosts)["Hosts"] == "h0,h1,h2 + 2 more..."
    assert row("networking.k8s.io", "ingressclasses", SAMPLES[("networking.k8s.io", "ingressclasses")])[2] == (
        "IngressParameters.k8s.example.com/p"
    )
    assert row("networking.k8s.io", "networkpolicies", SAMPLES[("networking.k8s.io", "networkpolicies")]) == [
        "deny",
        "app=web",
        "9d",
    ]
    assert cells("networking.k8s.io", "networkpolicies", {})["Pod-Selector"] == "<none>"
    assert row("networking.k8s.io", "ipaddresses", SAMPLES[("networking.k8s.io", "ipaddresses")]) == [
        "10.96.0.1",
        "services/default/kubernetes",
    ]
    assert (
        row("networking.k8s.io", "servicecidrs", SAMPLES[("networking.k8s.io", "servicecidrs")])[1]
        == "10.96.0.0/12,fd00::/108"
    )
    assert row("storage.k8s.io", "storageclasses", SAMPLES[("storage.k8s.io", "storageclasses")]) == [
        "standard (default)",
        "rancher.io/local-path",
        "Delete",
        "WaitForFirstConsumer",
        False,
        "9d",
    ]
    assert row("storage.k8s.io", "csidrivers", SAMPLES[("storage.k8s.io", "csidrivers")]) == [
        "csi.example.com",
        False,
        False,
        False,
        "a,b",
        False,
        "Persistent,Ephemeral",
        "9d",
    ]
    assert cells("storage.k8s.io", "csidrivers", {})["TokenRequests"] == "<unset>"
    assert row("discovery.k8s.io", "endpointslices", SAMPLES[("discovery.k8s.io", "endpointslices")]) == [
        "svc-abc",
        "IPv4",
        "80,metrics",
        "10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...",
        "9d",
    ]
    assert cells("discovery.k8s.io", "endpointslices", {})["Ports"] == "<unset>"
    assert row(
        "certificates.k8s.io",
        "certificatesigningrequests",
        SAMPLES[("certificates.k8s.io", "certificatesigningrequests")],
    ) == [
        "csr-1",
        "9d",
        "kubernetes.io/kube-apiserver-client",
        "alice",
        "24h",
        "Approved,Issued",
    ]
    assert cells("certificates.k8s.io", "certificatesigningrequests", {})["Condition"] == "Pending"
    assert row("scheduling.k8s.io", "priorityclasses", SAMPLES[("scheduling.k8s.io", "priorityclasses")]) == [
        "high",
        1000000,
        False,
        "9d",
        "PreemptLowerPriority",
    ]
    assert row("coordination.k8s.io", "leases", SAMPLES[("coordination.k8s.io", "leases")]) == [
        "kube-scheduler",
        "cp-1_abc",
        "9d",
    ]
    assert row("apiregistration.k8s.io", "apiservices", SAMPLES[("apiregistration.k8s.io", "apiservices")]) == [
        "v1beta1.metrics.k8s.io",
        "kube-system/metrics-server",
        "False (MissingEndpoints)",
        "9d",
    ]
    assert cells("apiregistration.k8s.io", "apiservices", {})["Service"] == "Local"
    fs = row("flowcontrol.apiserver.k8s.io", "flowschemas", SAMPLES[("flowcontrol.apiserver.k8s.io", "flowschemas")])
    assert fs == ["system-leader-election", "leader-election", 100, "ByUser", "9d", "False"]
    plc = row(
        "flowcontrol.apiserver.k8s.io",
        "prioritylevelconfigurations",
        SAMPLES[("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations")],
    )
    assert plc == ["workload-low", "Limited", 100, 128, 6, 50, "9d"]
    exempt = cells("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations", {"spec": {"type": "Exempt"}})
    assert exempt["Queues"] == "<none>"
    vap = SAMPLES[("admissionregistration.k8s.io", "validatingadmissionpolicies")]
    assert row("admissionregistration.k8s.io", "validatingadmissionpolicies", vap)[1:3] == [1, "v1/ConfigMap"]
    vapb = SAMPLES[("admissionregistration.k8s.io", "validatingadmissionpolicybindings")]
    assert row("admissionregistration.k8s.io", "validatingadmissionpolicybindings", vapb)[1:3] == ["p", "*/params"]
    mwc = SAMPLES[("admissionregistration.k8s.io", "mutatingwebhookconfigurations")]
    assert row("admissionregistration.k8s.io", "mutatingwebhookconfigurations", mwc) == ["m", 1, "9d"]
