"""Golden tests of the defaults of the core kinds other than pods, and of the other groups
(autoscaling, networking, storage, rbac, scheduling, discovery, admissionregistration, flowcontrol),
after upstream's defaults_test.go of each group and the API reference's documented defaults."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kube_apiserver.apis.scheme import build_scheme


def defaulted(obj: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    build_scheme().default(out)
    return out


# --- core ---


def test_secret_type_and_string_data():
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"user": "admin"}}
    assert defaulted(secret) == {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "s"},
        "type": "Opaque",
        "data": {"user": "YWRtaW4="},
    }
    # stringData wins over data for the same key; other data stays
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "kubernetes.io/basic-auth",
        "data": {"username": "b2xk", "password": "cHc="},
        "stringData": {"username": "new"},
    }
    assert defaulted(secret) == {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "kubernetes.io/basic-auth",
        "data": {"username": "bmV3", "password": "cHc="},
    }
    assert defaulted({"apiVersion": "v1", "kind": "Secret", "stringData": {}}) == {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "Opaque",
    }


def test_persistent_volume():
    pv = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "pv"},
        "spec": {
            "capacity": {"storage": "1Gi"},
            "accessModes": ["ReadWriteOnce"],
            "hostPath": {"path": "/data"},
        },
    }
    assert defaulted(pv) == {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "pv"},
        "spec": {
            "capacity": {"storage": "1Gi"},
            "accessModes": ["ReadWriteOnce"],
            "hostPath": {"path": "/data", "type": ""},
            "persistentVolumeReclaimPolicy": "Retain",
            "volumeMode": "Filesystem",
        },
        "status": {"phase": "Pending"},
    }
    pv["spec"].update(persistentVolumeReclaimPolicy="Delete", volumeMode="Block")
    pv["spec"].pop("hostPath")
    pv["spec"]["rbd"] = {"monitors": ["m"], "image": "i"}
    out = defaulted(pv)["spec"]
    assert out["persistentVolumeReclaimPolicy"] == "Delete" and out["volumeMode"] == "Block"
    assert out["rbd"] == {
        "monitors": ["m"],
        "image": "i",
        "pool": "rbd",
        "user": "admin",
        "keyring": "/etc/ceph/keyring",
    }


def test_persistent_volume_claim():
    pvc = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "c"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    assert defaulted(pvc) == {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "c"},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}},
            "volumeMode": "Filesystem",
        },
        "status": {"phase": "Pending"},
    }


def test_endpoints_port_protocol():
    ep = {
        "apiVersion": "v1",
        "kind": "Endpoints",
        "subsets": [{"addresses": [{"ip": "10.0.0.1"}], "ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}]}],
    }
    assert defaulted(ep)["subsets"][0]["ports"] == [{"port": 80, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]


def test_limit_range_item():
    # TestSetDefaultLimitRangeItem: default limit ← max, default request ← default limit, then ← min.
    lr = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "spec": {
            "limits": [
                {
                    "type": "Container",
                    "max": {"cpu": "100m"},
                    "min": {"memory": "100Mi"},
                    "default": {},
                    "defaultRequest": {},
                },
                {"type": "Pod", "max": {"cpu": "1"}},
                {
                    "type": "Container",
                    "default": {"cpu": "200m"},
                    "defaultRequest": {"cpu": "50m"},
                    "min": {"cpu": "10m"},
                },
            ]
        },
    }
    assert defaulted(lr)["spec"]["limits"] == [
        {
            "type": "Container",
            "max": {"cpu": "100m"},
            "min": {"memory": "100Mi"},
            "default": {"cpu": "100m"},
            "defaultRequest": {"cpu": "100m", "memory": "100Mi"},
        },
        {"type": "Pod", "max": {"cpu": "1"}},
        {"type": "Container", "default": {"cpu": "200m"}, "defaultRequest": {"cpu": "50m"}, "min": {"cpu": "10m"}},
    ]


def test_node_allocatable_from_capacity():
    node = {"apiVersion": "v1", "kind": "Node", "status": {"capacity": {"cpu": "4", "memory": "8Gi"}}}
    assert defaulted(node)["status"] == {
        "capacity": {"cpu": "4", "memory": "8Gi"},
        "allocatable": {"cpu": "4", "memory": "8Gi"},
    }
    node["status"]["allocatable"] = {"cpu": "3"}
    assert defaulted(node)["status"]["allocatable"] == {"cpu": "3"}


# --- autoscaling ---


def test_hpa_v1_min_replicas():
    hpa = {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "spec": {
            "scaleTargetRef": {"kind": "Deployment", "name": "d"},
            "maxReplicas": 5,
            "targetCPUUtilizationPercentage": 50,
        },
    }
    assert defaulted(hpa)["spec"] == {
        "scaleTargetRef": {"kind": "Deployment", "name": "d"},
        "maxReplicas": 5,
        "minReplicas": 1,
        "targetCPUUtilizationPercentage": 50,
    }


def test_hpa_v2_metrics_and_no_behavior():
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "maxReplicas": 5},
    }
    assert defaulted(hpa)["spec"] == {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
        "maxReplicas": 5,
        "minReplicas": 1,
        "metrics": [
            {
                "type": "Resource",
                "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
            }
        ],
    }


SCALE_UP = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
SCALE_DOWN = {"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}


@pytest.mark.parametrize(
    ("behavior", "expected"),
    [
        ({}, {"scaleUp": SCALE_UP, "scaleDown": SCALE_DOWN}),
        (
            {"scaleUp": {"stabilizationWindowSeconds": 30}},
            {"scaleUp": {**SCALE_UP, "stabilizationWindowSeconds": 30}, "scaleDown": SCALE_DOWN},
        ),
        (
            {
                "scaleDown": {
                    "selectPolicy": "Disabled",
                    "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}],
                }
            },
            {
                "scaleUp": SCALE_UP,
                "scaleDown": {
                    "selectPolicy": "Disabled",
                    "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}],
                },
            },
        ),
        (
            {"scaleDown": {"stabilizationWindowSeconds": 300}},
            {"scaleUp": SCALE_UP, "scaleDown": {**SCALE_DOWN, "stabilizationWindowSeconds": 300}},
        ),
    ],
)
def test_hpa_v2_behavior(behavior, expected):
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "spec": {"maxReplicas": 3, "minReplicas": 2, "metrics": [{"type": "Pods"}], "behavior": behavior},
    }
    out = defaulted(hpa)["spec"]
    assert out["behavior"] == expected
    assert out["minReplicas"] == 2 and out["metrics"] == [{"type": "Pods"}]


# --- networking ---


def test_network_policy():
    np = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "spec": {"podSelector": {}, "ingress": [{"ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}]}]},
    }
    assert defaulted(np)["spec"] == {
        "podSelector": {},
        "ingress": [{"ports": [{"port": 80, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]}],
        "policyTypes": ["Ingress"],
    }
    np["spec"]["egress"] = [{"ports": [{"port": 443}]}]
    out = defaulted(np)["spec"]
    assert out["policyTypes"] == ["Ingress", "Egress"]
    assert out["egress"] == [{"ports": [{"port": 443, "protocol": "TCP"}]}]
    np["spec"]["policyTypes"] = ["Egress"]
    assert defaulted(np)["spec"]["policyTypes"] == ["Egress"]


def test_ingress_class_parameters_scope():
    ic = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "IngressClass",
        "spec": {"controller": "x/y", "parameters": {"kind": "P", "name": "p"}},
    }
    assert defaulted(ic)["spec"]["parameters"] == {"kind": "P", "name": "p", "scope": "Cluster"}
    assert defaulted({"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "spec": {"controller": "x/y"}})[
        "spec"
    ] == {"controller": "x/y"}


# --- storage ---


def test_storage_class():
    sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "f"}, "provisioner": "p"}
    assert defaulted(sc) == {**sc, "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate"}


def test_csi_driver():
    drv = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "d"}, "spec": {}}
    assert defaulted(drv)["spec"] == {
        "attachRequired": True,
        "podInfoOnMount": False,
        "storageCapacity": False,
        "fsGroupPolicy": "ReadWriteOnceWithFSType",
        "volumeLifecycleModes": ["Persistent"],
        "requiresRepublish": False,
        "seLinuxMount": False,
    }


def test_volume_attachment_inline_spec():
    va = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "VolumeAttachment",
        "spec": {
            "attacher": "a",
            "nodeName": "n",
            "source": {"inlineVolumeSpec": {"iscsi": {"targetPortal": "t", "iqn": "i", "lun": 1}}},
        },
    }
    assert defaulted(va)["spec"]["source"] == {
        "inlineVolumeSpec": {"iscsi": {"targetPortal": "t", "iqn": "i", "lun": 1, "iscsiInterface": "default"}}
    }


# --- rbac, scheduling, discovery ---


def test_role_binding_api_groups():
    rb = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "roleRef": {"kind": "Role", "name": "r"},
        "subjects": [
            {"kind": "User", "name": "alice"},
            {"kind": "Group", "name": "devs"},
            {"kind": "ServiceAccount", "name": "sa", "namespace": "ns"},
            {"kind": "User", "name": "bob", "apiGroup": "custom"},
        ],
    }
    out = defaulted(rb)
    assert out["roleRef"] == {"kind": "Role", "name": "r", "apiGroup": "rbac.authorization.k8s.io"}
    assert out["subjects"] == [
        {"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"},
        {"kind": "Group", "name": "devs", "apiGroup": "rbac.authorization.k8s.io"},
        {"kind": "ServiceAccount", "name": "sa", "namespace": "ns"},
        {"kind": "User", "name": "bob", "apiGroup": "custom"},
    ]
    crb = {**rb, "kind": "ClusterRoleBinding", "roleRef": {"kind": "ClusterRole", "name": "c"}}
    assert defaulted(crb)["roleRef"]["apiGroup"] == "rbac.authorization.k8s.io"


def test_priority_class():
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "value": 1000}
    assert defaulted(pc) == {**pc, "preemptionPolicy": "PreemptLowerPriority"}
    pc["preemptionPolicy"] = "Never"
    assert defaulted(pc)["preemptionPolicy"] == "Never"


def test_endpoint_slice_ports():
    es = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "addressType": "IPv4",
        "endpoints": [],
        "ports": [{"port": 80}, {"name": "dns", "port": 53, "protocol": "UDP"}],
    }
    assert defaulted(es)["ports"] == [
        {"port": 80, "name": "", "protocol": "TCP"},
        {"name": "dns", "port": 53, "protocol": "UDP"},
    ]


# --- admissionregistration ---


def _webhook(**extra: Any) -> dict[str, Any]:
    return {
        "name": "w.example.com",
        "clientConfig": {"service": {"namespace": "ns", "name": "svc"}},
        "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
        **extra,
    }


WEBHOOK_DEFAULTS = {
    "failurePolicy": "Fail",
    "matchPolicy": "Equivalent",
    "namespaceSelector": {},
    "objectSelector": {},
    "timeoutSeconds": 10,
}


def test_validating_webhook_configuration():
    cfg = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "webhooks": [_webhook()],
    }
    assert defaulted(cfg)["webhooks"] == [
        {
            **_webhook(),
            "clientConfig": {"service": {"namespace": "ns", "name": "svc", "port": 443}},
            "rules": [
                {
                    "operations": ["CREATE"],
                    "apiGroups": [""],
                    "apiVersions": ["v1"],
                    "resources": ["pods"],
                    "scope": "*",
                }
            ],
            **WEBHOOK_DEFAULTS,
        }
    ]


def test_mutating_webhook_configuration():
    hook = _webhook(clientConfig={"url": "https://example.com/hook"}, timeoutSeconds=5, failurePolicy="Ignore")
    cfg = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration", "webhooks": [hook]}
    out = defaulted(cfg)["webhooks"][0]
    assert out["clientConfig"] == {"url": "https://example.com/hook"}
    assert out["timeoutSeconds"] == 5 and out["failurePolicy"] == "Ignore"
    assert out["reinvocationPolicy"] == "Never"
    assert out["matchPolicy"] == "Equivalent"
    assert out["namespaceSelector"] == {} and out["objectSelector"] == {}


def test_validating_admission_policy_and_binding():
    rules = [{"operations": ["CREATE"], "apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["deployments"]}]
    vap = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "spec": {"matchConstraints": {"resourceRules": rules}, "validations": [{"expression": "true"}]},
    }
    assert defaulted(vap)["spec"] == {
        "failurePolicy": "Fail",
        "matchConstraints": {
            "resourceRules": [{**rules[0], "scope": "*"}],
            "matchPolicy": "Equivalent",
            "namespaceSelector": {},
            "objectSelector": {},
        },
        "validations": [{"expression": "true"}],
    }
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "spec": {"policyName": "p", "validationActions": ["Deny"], "paramRef": {"name": "x"}},
    }
    # no matchResources: nothing to default; paramRef has no default in v1
    assert defaulted(binding)["spec"] == binding["spec"]
    binding["spec"]["matchResources"] = {"excludeResourceRules": rules}
    assert defaulted(binding)["spec"]["matchResources"] == {
        "excludeResourceRules": [{**rules[0], "scope": "*"}],
        "matchPolicy": "Equivalent",
        "namespaceSelector": {},
        "objectSelector": {},
    }


# --- flowcontrol ---


def test_flow_schema():
    fs = {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "FlowSchema",
        "spec": {"priorityLevelConfiguration": {"name": "p"}},
    }
    assert defaulted(fs)["spec"] == {"priorityLevelConfiguration": {"name": "p"}, "matchingPrecedence": 1000}


def test_priority_level_configuration():
    plc = {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "PriorityLevelConfiguration",
        "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Queue", "queuing": {}}}},
    }
    assert defaulted(plc)["spec"] == {
        "type": "Limited",
        "limited": {
            "nominalConcurrencyShares": 30,
            "lendablePercent": 0,
            "limitResponse": {"type": "Queue", "queuing": {"handSize": 8, "queues": 64, "queueLengthLimit": 50}},
        },
    }
    # an explicit 0 shares (a "jail" level) stays 0 in v1
    plc["spec"]["limited"]["nominalConcurrencyShares"] = 0
    assert defaulted(plc)["spec"]["limited"]["nominalConcurrencyShares"] == 0
    exempt = {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "PriorityLevelConfiguration",
        "spec": {"type": "Exempt", "exempt": {}},
    }
    assert defaulted(exempt)["spec"] == {
        "type": "Exempt",
        "exempt": {"nominalConcurrencyShares": 0, "lendablePercent": 0},
    }
