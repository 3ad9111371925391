"""The structural schema engine on the 1.33 definitions of built-in kinds and on CRD-style schemas."""

from __future__ import annotations

from kube_apiserver.runtime.schema.structural import compile_schema, decode_check, schema_for_kind, validate_schema


def _deployment(**spec):
    base = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {
            "selector": {"matchLabels": {"a": "b"}},
            "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
        },
    }
    base["spec"].update(spec)
    return base


def test_known_kinds_have_schemas():
    for gvk in [
        ("", "v1", "Pod"),
        ("apps", "v1", "Deployment"),
        ("batch", "v1", "CronJob"),
        ("autoscaling", "v2", "HorizontalPodAutoscaler"),
    ]:
        assert schema_for_kind(*gvk) is not None
    assert schema_for_kind("example.com", "v1", "Widget") is None


def test_unknown_fields_are_dropped_and_reported_with_kube_paths():
    obj = _deployment(foo=1)
    obj["spec"]["template"]["spec"]["containers"][0]["imagee"] = "x"
    obj["metadata"]["bogus"] = {"deep": 1}
    report = decode_check(obj, schema_for_kind("apps", "v1", "Deployment"))
    assert report.unknown == ["metadata.bogus", "spec.template.spec.containers[0].imagee", "spec.foo"]
    assert "foo" not in obj["spec"] and "bogus" not in obj["metadata"]
    assert report.type_error == ""


def test_nulls_are_dropped_like_gos_zero_values():
    obj = _deployment(replicas=None, strategy=None)
    obj["metadata"]["labels"] = {"a": None}
    decode_check(obj, schema_for_kind("apps", "v1", "Deployment"))
    # a null pointer is unset; a null struct is the struct's zero value, which Go writes
    assert "replicas" not in obj["spec"] and obj["spec"]["strategy"] == {}
    assert obj["metadata"]["labels"] == {"a": ""}


def test_empty_values_of_omitempty_fields_are_dropped_as_go_never_writes_them():
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "labels": {}, "annotations": {}, "finalizers": [], "generateName": ""},
        "spec": {
            "nodeSelector": {},
            "imagePullSecrets": [],
            "nodeName": "",
            "hostNetwork": False,
            "automountServiceAccountToken": False,  # a *bool: false is a value
            "securityContext": {},  # a struct: omitempty does not apply
            "containers": [
                {
                    "name": "c",
                    "image": "i",
                    "args": [],
                    "env": [{"name": "E", "value": ""}],  # "" of an omitempty string inside a list item
                    "ports": [{"containerPort": 80, "hostPort": 0, "hostIP": ""}],
                    "resources": {},
                }
            ],
        },
    }
    decode_check(pod, schema_for_kind("", "v1", "Pod"))
    assert pod["metadata"] == {"name": "p", "creationTimestamp": None}  # (a zero Time is written as null)
    spec = pod["spec"]
    assert spec == {
        "automountServiceAccountToken": False,
        "securityContext": {},
        "containers": [
            {"name": "c", "image": "i", "env": [{"name": "E"}], "ports": [{"containerPort": 80}], "resources": {}}
        ],
    }
    # A required field (no omitempty) keeps its empty value; so do map values and list items.
    role = {"kind": "Role", "metadata": {"name": "r", "labels": {"a": ""}}, "rules": []}
    decode_check(role, schema_for_kind("rbac.authorization.k8s.io", "v1", "Role"))
    assert role["rules"] == [] and role["metadata"]["labels"] == {"a": ""}
    cm = {"kind": "ConfigMap", "metadata": {"name": "c"}, "data": {}, "binaryData": {}}
    decode_check(cm, schema_for_kind("", "v1", "ConfigMap"))
    assert "data" not in cm and "binaryData" not in cm
    # A custom resource's schema has no Go fields: its object keeps what it was sent.
    node = compile_schema(
        {"type": "object", "properties": {"spec": {"type": "object", "properties": {"s": {"type": "string"}}}}}
    )
    cr = {"spec": {"s": ""}}
    decode_check(cr, node)
    assert cr == {"spec": {"s": ""}}


def test_fields_go_always_writes_are_filled_in_when_unset():
    # non-pointer structs (with their own such fields) and scalars without omitempty
    np = {"kind": "NetworkPolicy", "metadata": {"name": "n"}, "spec": {}}
    decode_check(np, schema_for_kind("networking.k8s.io", "v1", "NetworkPolicy"))
    assert np["spec"] == {"podSelector": {}}
    event = {"kind": "Event", "metadata": {"name": "e"}, "reason": "R"}
    decode_check(event, schema_for_kind("", "v1", "Event"))
    assert event["involvedObject"] == {} and event["source"] == {}
    assert event["reportingComponent"] == "" and event["reportingInstance"] == ""
    node = {"kind": "Node", "metadata": {"name": "n"}, "status": {}}
    decode_check(node, schema_for_kind("", "v1", "Node"))
    assert node["status"]["daemonEndpoints"] == {"kubeletEndpoint": {"Port": 0}}
    assert node["status"]["nodeInfo"]["kubeletVersion"] == ""
    # an unset template's metadata: ObjectMeta's zero, whose creationTimestamp is written as null
    cronjob = {"kind": "CronJob", "metadata": {"name": "c"}, "spec": {"schedule": "* * * * *", "jobTemplate": {}}}
    decode_check(cronjob, schema_for_kind("batch", "v1", "CronJob"))
    assert cronjob["spec"]["jobTemplate"] == {
        "metadata": {"creationTimestamp": None},
        "spec": {"template": {"metadata": {"creationTimestamp": None}, "spec": {}}},
    }
    # list items too: a container always has resources
    pod = {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
    decode_check(pod, schema_for_kind("", "v1", "Pod"))
    assert pod["spec"]["containers"] == [{"name": "c", "image": "i", "resources": {}}]
    assert pod["status"] == {}


def test_first_type_error_in_gos_words():
    report = decode_check(_deployment(replicas=1.5, paused="no"), schema_for_kind("apps", "v1", "Deployment"))
    assert report.type_error == (
        "json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32"
    )
    obj = _deployment()
    obj["spec"]["template"]["spec"]["containers"] = {"name": "c"}
    report = decode_check(obj, schema_for_kind("apps", "v1", "Deployment"))
    assert report.type_error == (
        "json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers "
        "of type []v1.Container"
    )


def test_formats():
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"k": "not base64!"}}
    assert decode_check(secret, schema_for_kind("", "v1", "Secret")).type_error == "illegal base64 data at input byte 3"
    svc = {"apiVersion": "v1", "kind": "Service", "spec": {"ports": [{"port": 80, "targetPort": "http"}]}}
    assert decode_check(svc, schema_for_kind("", "v1", "Service")).type_error == ""
    svc["spec"]["ports"][0]["targetPort"] = True
    assert "cannot unmarshal bool" in decode_check(svc, schema_for_kind("", "v1", "Service")).type_error
    ev = {"apiVersion": "v1", "kind": "Event", "firstTimestamp": "yesterday"}
    assert decode_check(ev, schema_for_kind("", "v1", "Event")).type_error == (
        'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'
    )


def test_free_form_fields_keep_everything():
    crd_like = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"managedFields": [{"fieldsV1": {"f:data": {"f:a": {}}}}]},
    }
    report = decode_check(crd_like, schema_for_kind("", "v1", "ConfigMap"))
    assert report.unknown == []
    assert crd_like["metadata"]["managedFields"][0]["fieldsV1"] == {"f:data": {"f:a": {}}}


def test_required_and_list_map_uniqueness_for_crd_schemas():
    node = compile_schema(
        {
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "required": ["size"],
                    "properties": {
                        "size": {"type": "integer"},
                        "ports": {
                            "type": "array",
                            "x-kubernetes-list-type": "map",
                            "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
                            "items": {
                                "type": "object",
                                "properties": {"containerPort": {"type": "integer"}, "protocol": {"type": "string"}},
                            },
                        },
                        "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                    },
                }
            },
        }
    )
    obj = {
        "spec": {
            "ports": [{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 80, "protocol": "TCP"}],
            "tags": ["a", "b", "a"],
        }
    }
    causes = validate_schema(obj, node)
    assert [(c.field, c.message) for c in causes] == [
        ("spec.size", "Required value"),
        ("spec.ports[1]", 'Duplicate value: map[string]interface {}{"containerPort":80, "protocol":"TCP"}'),
        ("spec.tags[2]", 'Duplicate value: "a"'),
    ]
