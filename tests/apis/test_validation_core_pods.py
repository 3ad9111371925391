"""Pod, PodTemplate and ReplicationController validation with kube-apiserver 1.33's messages and paths."""

from __future__ import annotations

import copy

from kube_apiserver.apis.core.validation.pods import (
    validate_pod,
    validate_pod_spec,
    validate_pod_template_spec,
    validate_pod_update,
)
from kube_apiserver.apis.core.validation.replication import validate_pod_template, validate_replication_controller
from kube_apiserver.apis.scheme import build_scheme
from kube_apiserver.runtime.errors import new_invalid

LABEL_ERR = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


def pod(**spec):
    """A pod as it looks after defaulting."""
    base = {
        "containers": [
            {
                "name": "app",
                "image": "nginx:1.27",
                "imagePullPolicy": "IfNotPresent",
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "resources": {},
            }
        ],
        "restartPolicy": "Always",
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        "securityContext": {},
        "schedulerName": "default-scheduler",
    }
    base.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"}, "spec": base}


def texts(causes):
    return [(c.field, c.message) for c in causes]


def container(name="app", **fields):
    return {"name": name, "image": "busybox", **fields}


def test_valid_pod():
    assert validate_pod(pod()) == []


def test_pod_without_containers():
    obj = pod(containers=[])
    assert texts(validate_pod(obj)) == [("spec.containers", "Required value")]
    assert (
        new_invalid("", "Pod", "p", validate_pod(obj)).message == 'Pod "p" is invalid: spec.containers: Required value'
    )


def test_duplicate_container_names_across_init_and_regular():
    obj = pod(containers=[container(), container()], initContainers=[container()])
    assert texts(validate_pod(obj)) == [
        ("spec.containers[1].name", 'Duplicate value: "app"'),
        ("spec.initContainers[0].name", 'Duplicate value: "app"'),
    ]


def test_container_name_image_and_enums():
    obj = pod(
        containers=[{"name": "Bad_Name", "image": "", "imagePullPolicy": "Sometimes", "terminationMessagePolicy": "X"}]
    )
    assert texts(validate_pod(obj)) == [
        ("spec.containers[0].name", f'Invalid value: "Bad_Name": {LABEL_ERR}'),
        ("spec.containers[0].image", "Required value"),
        (
            "spec.containers[0].terminationMessagePolicy",
            'Unsupported value: "X": supported values: "File", "FallbackToLogsOnError"',
        ),
        (
            "spec.containers[0].imagePullPolicy",
            'Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
        ),
    ]


def test_image_whitespace_only_for_pods():
    obj = pod(containers=[container(image=" nginx")])
    assert texts(validate_pod(obj)) == [
        ("spec.containers[0].image", 'Invalid value: " nginx": must not have leading or trailing whitespace')
    ]
    assert validate_pod_spec(obj["spec"], "spec") == []


def test_requests_must_not_exceed_limits():
    res = {"requests": {"cpu": "2", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "512Mi"}}
    assert texts(validate_pod(pod(containers=[container(resources=res)]))) == [
        ("spec.containers[0].resources.requests", 'Invalid value: "2": must be less than or equal to cpu limit of 1'),
        (
            "spec.containers[0].resources.requests",
            'Invalid value: "1Gi": must be less than or equal to memory limit of 512Mi',
        ),
    ]
    msg = new_invalid(
        "",
        "Pod",
        "p",
        validate_pod(pod(containers=[container(resources={"requests": {"cpu": "2"}, "limits": {"cpu": "1"}})])),
    ).message
    assert (
        msg
        == 'Pod "p" is invalid: spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'
    )


def test_resource_names_and_quantities():
    res = {"limits": {"cpu": "-1", "foo": "1", "example.com/gpu": "500m"}}
    assert texts(validate_pod(pod(containers=[container(resources=res)]))) == [
        ("spec.containers[0].resources.limits[cpu]", 'Invalid value: "-1": must be greater than or equal to 0'),
        (
            "spec.containers[0].resources.limits[foo]",
            'Invalid value: "foo": must be a standard resource type or fully qualified',
        ),
        (
            "spec.containers[0].resources.limits[foo]",
            'Invalid value: "foo": must be a standard resource for containers',
        ),
        ("spec.containers[0].resources.limits[example.com/gpu]", "Invalid value: 500m: must be an integer"),
    ]
    ext = {"requests": {"example.com/gpu": "1"}}
    assert texts(validate_pod(pod(containers=[container(resources=ext)]))) == [
        ("spec.containers[0].resources.limits", "Required value: Limit must be set for non overcommitable resources")
    ]


def test_ports():
    ports = [
        {"containerPort": 0, "protocol": "TCP"},
        {"containerPort": 70000, "name": "HTTP", "protocol": "XTP"},
        {"containerPort": 80, "name": "web", "protocol": "TCP"},
        {"containerPort": 81, "name": "web", "protocol": "TCP"},
    ]
    assert texts(validate_pod(pod(containers=[container(ports=ports)]))) == [
        ("spec.containers[0].ports[0].containerPort", "Required value"),
        (
            "spec.containers[0].ports[1].name",
            'Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
        ),
        ("spec.containers[0].ports[1].name", 'Invalid value: "HTTP": must contain at least one letter (a-z)'),
        ("spec.containers[0].ports[1].containerPort", "Invalid value: 70000: must be between 1 and 65535, inclusive"),
        ("spec.containers[0].ports[1].protocol", 'Unsupported value: "XTP": supported values: "SCTP", "TCP", "UDP"'),
        ("spec.containers[0].ports[3].name", 'Duplicate value: "web"'),
    ]


def test_host_port_conflicts():
    a = container("a", ports=[{"containerPort": 80, "hostPort": 8080, "protocol": "TCP"}])
    b = container("b", ports=[{"containerPort": 81, "hostPort": 8080, "protocol": "TCP"}])
    assert texts(validate_pod(pod(containers=[a, b]))) == [
        ("spec.containers[1].ports[0].hostPort", 'Duplicate value: "TCP//8080"')
    ]


def test_env():
    env = [
        {"name": ""},
        {"name": "A=B", "value": "x"},
        {"name": "X", "valueFrom": {}},
        {"name": "Y", "value": "v", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
        {"name": "Z", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.restartPolicy"}}},
        {"name": "W", "valueFrom": {"secretKeyRef": {"name": "s", "key": ""}}},
    ]
    assert texts(validate_pod(pod(containers=[container(env=env)]))) == [
        ("spec.containers[0].env[0].name", "Required value"),
        (
            "spec.containers[0].env[1].name",
            "Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '='",
        ),
        (
            "spec.containers[0].env[2].valueFrom",
            'Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
        ),
        ("spec.containers[0].env[3].valueFrom", 'Invalid value: "": may not be specified when `value` is not empty'),
        (
            "spec.containers[0].env[4].valueFrom.fieldRef.fieldPath",
            'Unsupported value: "spec.restartPolicy": supported values: "metadata.name", "metadata.namespace", '
            '"metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", '
            '"status.podIP", "status.podIPs"',
        ),
        ("spec.containers[0].env[5].valueFrom.secretKeyRef.key", "Required value"),
    ]


def test_volumes_and_mounts():
    volumes = [
        {"name": "data", "emptyDir": {}},
        {"name": "data", "emptyDir": {}},
        {"name": "both", "emptyDir": {}, "hostPath": {"path": "/x"}},
        {"name": "none"},
        {"name": "cfg", "configMap": {"name": "c", "items": [{"key": "k", "path": "/abs"}]}},
    ]
    mounts = [
        {"name": "data", "mountPath": "/data"},
        {"name": "missing", "mountPath": "/data"},
    ]
    assert texts(validate_pod(pod(volumes=volumes, containers=[container(volumeMounts=mounts)]))) == [
        ("spec.volumes[1].name", 'Duplicate value: "data"'),
        ("spec.volumes[2].hostPath", "Forbidden: may not specify more than 1 volume type"),
        ("spec.volumes[3]", "Required value: must specify a volume type"),
        ("spec.volumes[4].configMap.items[0].path", 'Invalid value: "/abs": must be a relative path'),
        ("spec.containers[0].volumeMounts[1].name", 'Not found: "missing"'),
        ("spec.containers[0].volumeMounts[1].mountPath", 'Invalid value: "/data": must be unique'),
    ]


def test_probes_and_policies():
    probe = {
        "httpGet": {"path": "/", "port": 0, "scheme": "HTTP"},
        "exec": {"command": ["true"]},
        "successThreshold": 2,
    }
    obj = pod(containers=[container(livenessProbe=probe)], restartPolicy="Sometimes", dnsPolicy="Nope")
    assert texts(validate_pod(obj)) == [
        ("spec.containers[0].livenessProbe.httpGet", "Forbidden: may not specify more than 1 handler type"),
        ("spec.containers[0].livenessProbe.successThreshold", "Invalid value: 2: must be 1"),
        ("spec.restartPolicy", 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'),
        (
            "spec.dnsPolicy",
            'Unsupported value: "Nope": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
        ),
    ]


def test_init_container_rules():
    init = container("init", readinessProbe={"exec": {"command": ["x"]}}, restartPolicy="OnFailure")
    assert texts(validate_pod(pod(initContainers=[init]))) == [
        ("spec.initContainers[0].restartPolicy", 'Unsupported value: "OnFailure": supported values: "Always"'),
        (
            "spec.initContainers[0].readinessProbe",
            "Forbidden: may not be set for init containers without restartPolicy=Always",
        ),
    ]
    sidecar = container("side", restartPolicy="Always", readinessProbe={"exec": {"command": ["x"]}})
    assert validate_pod(pod(initContainers=[sidecar])) == []


def test_spec_names_and_ranges():
    obj = pod(nodeName="Node_1", serviceAccountName="SA", activeDeadlineSeconds=0, hostname="a.b")
    result = texts(validate_pod(obj))
    assert [f for f, _ in result] == [
        "spec.serviceAccountName",
        "spec.nodeName",
        "spec.activeDeadlineSeconds",
        "spec.hostname",
    ]
    assert result[2][1] == "Invalid value: 0: must be between 1 and 2147483647, inclusive"


def test_tolerations_and_security_context():
    tolerations = [
        {"operator": "Equal", "value": "x"},
        {"key": "k", "operator": "Exists", "tolerationSeconds": 5, "effect": "NoSchedule"},
    ]
    sc = {"runAsUser": -1, "seccompProfile": {"type": "Localhost"}}
    assert texts(validate_pod(pod(tolerations=tolerations, securityContext=sc))) == [
        ("spec.securityContext.runAsUser", "Invalid value: -1: must be between 0 and 2147483647, inclusive"),
        (
            "spec.securityContext.seccompProfile.localhostProfile",
            "Required value: must be set when seccomp type is Localhost",
        ),
        (
            "spec.tolerations[0].operator",
            'Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
        (
            "spec.tolerations[1].effect",
            "Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
        ),
    ]


def test_create_only_rules():
    obj = pod(ephemeralContainers=[container("debug")])
    assert ("spec.ephemeralContainers", "Forbidden: cannot be set on create") in texts(validate_pod(obj))
    obj["metadata"]["resourceVersion"] = "7"  # an update: the subresource added it
    assert validate_pod(obj) == []


def test_update_may_change_image_only():
    old = pod()
    old["metadata"]["resourceVersion"] = "1"
    new = copy.deepcopy(old)
    new["spec"]["containers"][0]["image"] = "nginx:1.28"
    new["spec"]["activeDeadlineSeconds"] = 30
    assert validate_pod_update(new, old) == []
    new["spec"]["containers"][0]["name"] = "renamed"
    (cause,) = validate_pod_update(new, old)
    assert cause.field == "spec"
    assert cause.message.startswith(
        "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
        "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to "
        "existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
        "previously negative)\n  core.PodSpec{\n"
    )


def test_update_rules():
    old = pod(
        activeDeadlineSeconds=10, tolerations=[{"key": "a", "operator": "Exists"}], schedulingGates=[{"name": "g"}]
    )
    new = copy.deepcopy(old)
    new["spec"]["containers"].append(container("more"))
    assert texts(validate_pod_update(new, old)) == [
        ("spec.containers", "Forbidden: pod updates may not add or remove containers")
    ]
    new = copy.deepcopy(old)
    new["spec"]["activeDeadlineSeconds"] = 20
    assert texts(validate_pod_update(new, old)) == [
        ("spec.activeDeadlineSeconds", "Invalid value: 20: must be less than or equal to previous value")
    ]
    new = copy.deepcopy(old)
    new["spec"]["tolerations"] = [{"key": "b", "operator": "Exists"}]
    new["spec"]["schedulingGates"] = [{"name": "h"}]
    assert texts(validate_pod_update(new, old)) == [
        ("spec.tolerations", "Forbidden: existing toleration can not be modified except its tolerationSeconds"),
        ("spec.schedulingGates[0].name", "Forbidden: only deletion is allowed, but found new scheduling gate 'h'"),
    ]
    new = copy.deepcopy(old)
    new["spec"]["tolerations"].append({"key": "c", "operator": "Exists"})
    new["spec"]["schedulingGates"] = []
    new["spec"]["activeDeadlineSeconds"] = 5
    assert validate_pod_update(new, old) == []


def test_template_spec_paths():
    template = {"metadata": {"labels": {"a": "-x"}}, "spec": pod(containers=[])["spec"]}
    fields = [c.field for c in validate_pod_template_spec(template, "spec.template")]
    assert fields == ["spec.template.labels", "spec.template.spec.containers"]
    assert [c.field for c in validate_pod_template({"template": template})] == [
        "template.labels",
        "template.spec.containers",
    ]


def test_replication_controller():
    template = {"metadata": {"labels": {"app": "a"}}, "spec": pod(restartPolicy="Never")["spec"]}
    rc = {"spec": {"replicas": -1, "selector": {"app": "b"}, "template": template}}
    assert texts(validate_replication_controller(rc)) == [
        ("spec.replicas", "Invalid value: -1: must be greater than or equal to 0"),
        (
            "spec.template.metadata.labels",
            'Invalid value: map[string]string{"app":"a"}: `selector` does not match template `labels`',
        ),
        ("spec.template.spec.restartPolicy", 'Unsupported value: "Never": supported values: "Always"'),
    ]
    assert texts(validate_replication_controller({"spec": {"replicas": 1}})) == [
        ("spec.selector", "Required value"),
        ("spec.template", "Required value"),
    ]


def test_registered_in_scheme():
    scheme = build_scheme()
    assert texts(scheme.validate(pod(containers=[]))) == [("spec.containers", "Required value")]


def test_odd_input_does_not_raise():
    for spec in (None, [], "x", {"containers": "x"}, {"containers": [None, 3]}, {"volumes": [{"name": 1}]}):
        obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}
        validate_pod(obj)
        validate_pod_update(obj, pod())
