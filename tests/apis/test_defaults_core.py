"""Golden tests of the core/v1 pod defaults: a manifest in, the object kube-apiserver 1.33 defaults it to
(pkg/apis/core/v1/defaults_test.go and the objects kubectl shows), through the Scheme so that the
wiring is tested too."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kube_apiserver.apis.scheme import build_scheme


def defaulted(obj: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    build_scheme().default(out)
    return out


# What every container gets (plus imagePullPolicy, which depends on the image).
CONTAINER_DEFAULTS = {
    "resources": {},
    "terminationMessagePath": "/dev/termination-log",
    "terminationMessagePolicy": "File",
}
# SetDefaults_PodSpec: what every pod spec and pod template spec gets.
POD_SPEC_DEFAULTS = {
    "dnsPolicy": "ClusterFirst",
    "restartPolicy": "Always",
    "schedulerName": "default-scheduler",
    "securityContext": {},
    "terminationGracePeriodSeconds": 30,
}


def test_minimal_pod():
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "pod1"},
        "spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]},
    }
    assert defaulted(pod) == {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "pod1"},
        "spec": {
            "containers": [
                {"name": "main", "image": "nginx:1.27", "imagePullPolicy": "IfNotPresent", **CONTAINER_DEFAULTS}
            ],
            "enableServiceLinks": True,
            **POD_SPEC_DEFAULTS,
        },
    }


@pytest.mark.parametrize(
    ("image", "policy"),
    [
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("docker.io/library/nginx:latest", "Always"),
        ("localhost:5000/team/app", "Always"),
        ("registry.example.com:443/app:latest", "Always"),
        ("nginx:1.27", "IfNotPresent"),
        ("nginx@sha256:" + "a" * 64, "IfNotPresent"),
        ("nginx:latest@sha256:" + "a" * 64, "Always"),
        ("ghcr.io/org/app:v1", "IfNotPresent"),
        # does not parse (upper case repository, bad digest): no tag, so IfNotPresent
        ("NGINX", "IfNotPresent"),
        ("nginx@sha256:abc", "IfNotPresent"),
        ("", "IfNotPresent"),
    ],
)
def test_image_pull_policy_by_tag(image, policy):
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "c", "image": image}]}}
    assert defaulted(pod)["spec"]["containers"][0]["imagePullPolicy"] == policy


def test_explicit_values_are_kept():
    spec = {
        "containers": [
            {
                "name": "c",
                "image": "nginx",
                "imagePullPolicy": "Never",
                "terminationMessagePath": "/tmp/msg",
                "terminationMessagePolicy": "FallbackToLogsOnError",
                "ports": [{"containerPort": 53, "protocol": "UDP"}],
            }
        ],
        "dnsPolicy": "Default",
        "restartPolicy": "Never",
        "schedulerName": "mine",
        "securityContext": {"runAsUser": 1000},
        "terminationGracePeriodSeconds": 0,
        "enableServiceLinks": False,
    }
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": spec}
    out = defaulted(pod)["spec"]
    assert out == {**spec, "containers": [{**spec["containers"][0], "resources": {}}]}


def test_pod_containers_probes_env_and_lifecycle():
    container = {
        "name": "app",
        "image": "busybox:1.36",
        "ports": [{"containerPort": 8080}, {"containerPort": 53, "protocol": "UDP"}],
        "env": [
            {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
            {"name": "PLAIN", "value": "x"},
        ],
        "livenessProbe": {"httpGet": {"port": 8080}},
        "readinessProbe": {"tcpSocket": {"port": 8080}, "periodSeconds": 5},
        "startupProbe": {"grpc": {"port": 9000}, "failureThreshold": 30},
        "lifecycle": {"preStop": {"httpGet": {"port": 8080, "path": "/quit"}}, "postStart": {"exec": {}}},
    }
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": {"initContainers": [container], "containers": [container]}}
    expected = {
        "name": "app",
        "image": "busybox:1.36",
        "imagePullPolicy": "IfNotPresent",
        "ports": [{"containerPort": 8080, "protocol": "TCP"}, {"containerPort": 53, "protocol": "UDP"}],
        "env": [
            {"name": "NODE", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}},
            {"name": "PLAIN", "value": "x"},
        ],
        "livenessProbe": {
            "httpGet": {"port": 8080, "path": "/", "scheme": "HTTP"},
            "timeoutSeconds": 1,
            "periodSeconds": 10,
            "successThreshold": 1,
            "failureThreshold": 3,
        },
        "readinessProbe": {
            "tcpSocket": {"port": 8080},
            "timeoutSeconds": 1,
            "periodSeconds": 5,
            "successThreshold": 1,
            "failureThreshold": 3,
        },
        "startupProbe": {
            "grpc": {"port": 9000, "service": ""},
            "timeoutSeconds": 1,
            "periodSeconds": 10,
            "successThreshold": 1,
            "failureThreshold": 30,
        },
        "lifecycle": {
            "preStop": {"httpGet": {"port": 8080, "path": "/quit", "scheme": "HTTP"}},
            "postStart": {"exec": {}},
        },
        **CONTAINER_DEFAULTS,
    }
    out = defaulted(pod)["spec"]
    assert out["initContainers"] == [expected]
    assert out["containers"] == [expected]


def test_ephemeral_containers():
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "spec": {
            "containers": [{"name": "c", "image": "nginx:1"}],
            "ephemeralContainers": [{"name": "debug", "image": "busybox", "targetContainerName": "c"}],
        },
    }
    assert defaulted(pod)["spec"]["ephemeralContainers"] == [
        {
            "name": "debug",
            "image": "busybox",
            "targetContainerName": "c",
            "imagePullPolicy": "Always",
            **CONTAINER_DEFAULTS,
        }
    ]


def test_requests_default_to_limits_in_pods_only():
    # TestSetDefaultRequestsPod / TestDefaultRequestIsNotSetForReplicationController
    resources = {"limits": {"cpu": "100m", "memory": "1Gi"}, "requests": {"memory": "512Mi"}}
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "spec": {"containers": [{"name": "c", "image": "x:1", "resources": resources}]},
    }
    assert defaulted(pod)["spec"]["containers"][0]["resources"] == {
        "limits": {"cpu": "100m", "memory": "1Gi"},
        "requests": {"cpu": "100m", "memory": "512Mi"},
    }
    rc = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "spec": {
            "replicas": 3,
            "template": {
                "metadata": {"labels": {"foo": "bar"}},
                "spec": {"containers": [{"name": "c", "image": "x:1", "resources": {"limits": {"cpu": "100m"}}}]},
            },
        },
    }
    assert defaulted(rc)["spec"]["template"]["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "100m"}}


def test_resource_quantities_are_rounded_up_to_milli():
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "spec": {"containers": [{"name": "c", "image": "x:1", "resources": {"requests": {"cpu": "0.0001"}}}]},
    }
    assert defaulted(pod)["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "1m"}}


def test_host_network_ports_in_pods_but_not_templates():
    spec = {
        "hostNetwork": True,
        "containers": [
            {"name": "c", "image": "x:1", "ports": [{"containerPort": 80}, {"containerPort": 81, "hostPort": 8081}]}
        ],
        "initContainers": [{"name": "i", "image": "x:1", "ports": [{"containerPort": 90}]}],
    }
    pod = defaulted({"apiVersion": "v1", "kind": "Pod", "spec": spec})["spec"]
    assert pod["containers"][0]["ports"] == [
        {"containerPort": 80, "hostPort": 80, "protocol": "TCP"},
        {"containerPort": 81, "hostPort": 8081, "protocol": "TCP"},
    ]
    assert pod["initContainers"][0]["ports"] == [{"containerPort": 90, "hostPort": 90, "protocol": "TCP"}]
    # Since 1.28 (DefaultHostNetworkHostPortsInPodTemplates, removed in 1.31) templates keep hostPort unset.
    template = defaulted({"apiVersion": "v1", "kind": "PodTemplate", "template": {"spec": spec}})
    assert template["template"]["spec"]["containers"][0]["ports"][0] == {"containerPort": 80, "protocol": "TCP"}
    assert "enableServiceLinks" not in template["template"]["spec"]


def test_volumes():
    volumes = [
        {"name": "implicit"},
        {"name": "secret", "secret": {"secretName": "s"}},
        {"name": "cm", "configMap": {"name": "c", "defaultMode": 256}},
        {"name": "down", "downwardAPI": {"items": [{"path": "ns", "fieldRef": {"fieldPath": "metadata.namespace"}}]}},
        {
            "name": "proj",
            "projected": {
                "sources": [
                    {"serviceAccountToken": {"path": "token"}},
                    {"downwardAPI": {"items": [{"path": "n", "fieldRef": {"fieldPath": "metadata.name"}}]}},
                    {"configMap": {"name": "kube-root-ca.crt"}},
                ]
            },
        },
        {"name": "host", "hostPath": {"path": "/var/log"}},
        {"name": "iscsi", "iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.x", "lun": 0}},
        {"name": "rbd", "rbd": {"monitors": ["m"], "image": "img"}},
        {"name": "azure", "azureDisk": {"diskName": "d", "diskURI": "u"}},
        {"name": "sio", "scaleIO": {"gateway": "g", "system": "s", "secretRef": {"name": "x"}}},
        {
            "name": "eph",
            "ephemeral": {
                "volumeClaimTemplate": {
                    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
                }
            },
        },
        {"name": "pvc", "persistentVolumeClaim": {"claimName": "data"}},
    ]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "spec": {"containers": [{"name": "c", "image": "x:1"}], "volumes": volumes},
    }
    assert defaulted(pod)["spec"]["volumes"] == [
        {"name": "implicit", "emptyDir": {}},
        {"name": "secret", "secret": {"secretName": "s", "defaultMode": 420}},
        {"name": "cm", "configMap": {"name": "c", "defaultMode": 256}},
        {
            "name": "down",
            "downwardAPI": {
                "items": [{"path": "ns", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}],
                "defaultMode": 420,
            },
        },
        {
            "name": "proj",
            "projected": {
                "sources": [
                    {"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}},
                    {
                        "downwardAPI": {
                            "items": [{"path": "n", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}]
                        }
                    },
                    {"configMap": {"name": "kube-root-ca.crt"}},
                ],
                "defaultMode": 420,
            },
        },
        {"name": "host", "hostPath": {"path": "/var/log", "type": ""}},
        {
            "name": "iscsi",
            "iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.x", "lun": 0, "iscsiInterface": "default"},
        },
        {
            "name": "rbd",
            "rbd": {"monitors": ["m"], "image": "img", "pool": "rbd", "user": "admin", "keyring": "/etc/ceph/keyring"},
        },
        {
            "name": "azure",
            "azureDisk": {
                "diskName": "d",
                "diskURI": "u",
                "cachingMode": "ReadWrite",
                "fsType": "ext4",
                "readOnly": False,
                "kind": "Shared",
            },
        },
        {
            "name": "sio",
            "scaleIO": {
                "gateway": "g",
                "system": "s",
                "secretRef": {"name": "x"},
                "storageMode": "ThinProvisioned",
                "fsType": "xfs",
            },
        },
        {
            "name": "eph",
            "ephemeral": {
                "volumeClaimTemplate": {
                    "spec": {
                        "accessModes": ["ReadWriteOnce"],
                        "resources": {"requests": {"storage": "1Gi"}},
                        "volumeMode": "Filesystem",
                    }
                }
            },
        },
        {"name": "pvc", "persistentVolumeClaim": {"claimName": "data"}},
    ]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({"serviceAccountName": "sa"}, {"serviceAccountName": "sa", "serviceAccount": "sa"}),
        ({"serviceAccount": "old"}, {"serviceAccountName": "old", "serviceAccount": "old"}),
        (
            {"serviceAccountName": "new", "serviceAccount": "old"},
            {"serviceAccountName": "new", "serviceAccount": "new"},
        ),
        ({}, {}),
    ],
)
def test_service_account_alias(given, expected):
    # Convert_v1_PodSpec_To_core_PodSpec / Convert_core_PodSpec_To_v1_PodSpec: serviceAccount mirrors serviceAccountName.
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "c", "image": "x:1"}], **given}}
    out = defaulted(pod)["spec"]
    assert {k: out[k] for k in ("serviceAccountName", "serviceAccount") if k in out} == expected


def test_pod_template():
    template = {
        "apiVersion": "v1",
        "kind": "PodTemplate",
        "metadata": {"name": "t"},
        "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "x:1"}]}},
    }
    assert defaulted(template) == {
        "apiVersion": "v1",
        "kind": "PodTemplate",
        "metadata": {"name": "t"},
        "template": {
            "metadata": {"labels": {"a": "b"}},
            "spec": {
                "containers": [{"name": "c", "image": "x:1", "imagePullPolicy": "IfNotPresent", **CONTAINER_DEFAULTS}],
                **POD_SPEC_DEFAULTS,
            },
        },
    }


def test_replication_controller_selector_labels_and_replicas_from_template():
    # TestSetDefaultReplicationController: selector and labels come from the template's labels.
    rc = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "rc"},
        "spec": {
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            }
        },
    }
    assert defaulted(rc) == {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "rc", "labels": {"app": "web"}},
        "spec": {
            "selector": {"app": "web"},
            "replicas": 1,
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [{"name": "c", "image": "nginx", "imagePullPolicy": "Always", **CONTAINER_DEFAULTS}],
                    **POD_SPEC_DEFAULTS,
                },
            },
        },
    }


def test_replication_controller_keeps_its_own_selector_labels_and_replicas():
    rc = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "rc", "labels": {"own": "x"}},
        "spec": {
            "replicas": 0,
            "selector": {"app": "web"},
            "template": {"metadata": {"labels": {"app": "web", "v": "2"}}},
        },
    }
    out = defaulted(rc)
    assert out["metadata"]["labels"] == {"own": "x"}
    assert out["spec"]["selector"] == {"app": "web"}
    assert out["spec"]["replicas"] == 0
    # no template: nothing below it is defaulted (the template is a pointer in ReplicationControllerSpec)
    bare = defaulted({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"}, "spec": {}})
    assert bare == {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "rc"},
        "spec": {"replicas": 1},
    }


@pytest.mark.parametrize(
    "spec",
    [
        {"containers": "not-a-list"},
        {"containers": [None, 3, "x", {"name": "c", "image": 7, "ports": "p", "env": [None], "livenessProbe": []}]},
        {"volumes": [{"name": "v", "secret": "s"}], "hostNetwork": "yes"},
        {"containers": [{"resources": {"limits": {"cpu": "nonsense"}, "requests": []}}]},
    ],
)
def test_odd_shapes_do_not_raise(spec):
    defaulted({"apiVersion": "v1", "kind": "Pod", "spec": spec})
    defaulted({"apiVersion": "v1", "kind": "Pod", "spec": "string"})
    defaulted({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": {"spec": spec}}})
