"""ObjectMeta validation on create and the change rules on update (apimachinery's objectmeta.go)."""

from __future__ import annotations

from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.errors import new_invalid
from kube_apiserver.runtime.validation.objectmeta import validate_object_meta, validate_object_meta_update

SUBDOMAIN_ERR = metautil.DNS1123_SUBDOMAIN_ERR


def texts(causes):
    return [(c.field, c.message) for c in causes]


def check(meta, namespaced=True, fn=metautil.is_dns1123_subdomain):
    return texts(validate_object_meta(meta, namespaced, fn))


def test_valid_meta():
    meta = {
        "name": "web",
        "namespace": "default",
        "labels": {"app": "web"},
        "annotations": {"a": "b"},
        "finalizers": ["kubernetes", "example.com/cleanup"],
        "ownerReferences": [
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u", "controller": True}
        ],
    }
    assert check(meta) == []


def test_name_required_and_invalid():
    assert check({"namespace": "default"}) == [("metadata.name", "Required value: name or generateName is required")]
    assert check({"name": "Bad_Name", "namespace": "default"}) == [
        ("metadata.name", f'Invalid value: "Bad_Name": {SUBDOMAIN_ERR}')
    ]


def test_generate_name():
    assert check({"name": "web-x7k2p", "generateName": "web-", "namespace": "d"}) == []
    assert check({"name": "x", "generateName": "Web-", "namespace": "d"}) == [
        ("metadata.generateName", f'Invalid value: "Web-": {SUBDOMAIN_ERR}')
    ]


def test_namespace_rules():
    assert check({"name": "a"}) == [("metadata.namespace", "Required value")]
    assert check({"name": "a", "namespace": "x"}, namespaced=False) == [
        ("metadata.namespace", "Forbidden: not allowed on this type")
    ]
    assert check({"name": "a", "namespace": "Bad"})[0][0] == "metadata.namespace"


def test_generation_nonnegative():
    assert check({"name": "a", "namespace": "d", "generation": -1}) == [
        ("metadata.generation", "Invalid value: -1: must be greater than or equal to 0")
    ]


def test_finalizers():
    assert check({"name": "a", "namespace": "d", "finalizers": ["foo"]}) == [
        (
            "metadata.finalizers[0]",
            'Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified',
        )
    ]
    assert check({"name": "a", "namespace": "d", "finalizers": ["orphan", "foregroundDeletion"]}) == [
        (
            "metadata.finalizers",
            'Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
        )
    ]
    bad = check({"name": "a", "namespace": "d", "finalizers": ["a/b/c"]})
    assert bad[0][0] == "metadata.finalizers" and bad[0][1].startswith('Invalid value: "a/b/c": a qualified name must')


def test_owner_references():
    refs = [{"apiVersion": "", "kind": "", "name": "", "uid": ""}]
    assert check({"name": "a", "namespace": "d", "ownerReferences": refs}) == [
        ("metadata.ownerReferences.apiVersion", 'Invalid value: "": version must not be empty'),
        ("metadata.ownerReferences.kind", 'Invalid value: "": kind must not be empty'),
        ("metadata.ownerReferences.name", 'Invalid value: "": name must not be empty'),
        ("metadata.ownerReferences.uid", 'Invalid value: "": uid must not be empty'),
    ]
    two = [
        {"apiVersion": "v1", "kind": "Pod", "name": "a", "uid": "1", "controller": True},
        {"apiVersion": "v1", "kind": "Pod", "name": "b", "uid": "2", "controller": True},
    ]
    ((field, message),) = check({"name": "a", "namespace": "d", "ownerReferences": two})
    assert field == "metadata.ownerReferences"
    assert message.endswith(
        'Only one reference can have Controller set to true. Found "true" in references for Pod/a and Pod/b'
    )
    event = [{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "1"}]
    ((field, message),) = check({"name": "a", "namespace": "d", "ownerReferences": event})
    assert message.endswith(": /v1, Kind=Event is disallowed from being an owner")


def test_labels_and_annotations_are_checked():
    result = check({"name": "a", "namespace": "d", "labels": {"app": "a b"}, "annotations": {"bad key": "v"}})
    assert [f for f, _ in result] == ["metadata.labels", "metadata.annotations"]


def test_invalid_message_like_kube():
    causes = validate_object_meta({"namespace": "d", "labels": {"-x": "y"}}, True, metautil.is_dns1123_subdomain)
    err = new_invalid("", "Pod", "", causes)
    assert err.message.startswith(
        'Pod "" is invalid: [metadata.name: Required value: name or generateName is required, '
    )


def test_update_rules():
    old = {"name": "a", "namespace": "d", "uid": "1", "resourceVersion": "5", "generation": 3}
    assert validate_object_meta_update(dict(old), old) == []
    new = dict(old, name="b", uid="2", generation=2, resourceVersion="")
    assert texts(validate_object_meta_update(new, old)) == [
        ("metadata.resourceVersion", 'Invalid value: "": must be specified for an update'),
        ("metadata.generation", "Invalid value: 2: must not be decremented"),
        ("metadata.name", 'Invalid value: "b": field is immutable'),
        ("metadata.uid", 'Invalid value: "2": field is immutable'),
    ]
    old_ts = dict(old, creationTimestamp="2024-01-02T03:04:05Z")
    new_ts = dict(old_ts, creationTimestamp="2024-01-02T03:04:06Z")
    assert texts(validate_object_meta_update(new_ts, old_ts)) == [
        ("metadata.creationTimestamp", "Invalid value: 2024-01-02 03:04:06 +0000 UTC: field is immutable")
    ]


def test_no_new_finalizers_while_deleting():
    old = {"name": "a", "resourceVersion": "5", "deletionTimestamp": "2024-01-01T00:00:00Z", "finalizers": ["x/a"]}
    new = dict(old, finalizers=["x/a", "x/b"])
    assert texts(validate_object_meta_update(new, old)) == [
        (
            "metadata.finalizers",
            'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"x/b"}',
        )
    ]
