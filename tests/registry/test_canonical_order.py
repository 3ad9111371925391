"""canonical_order: objects in the key order kube-apiserver writes them."""

from __future__ import annotations

from kube_apiserver.registry.resource_spec import ResourceSpec, canonical_order
from kube_apiserver.runtime.meta import object_meta_ordered

CONFIGMAPS = ResourceSpec("", "v1", "configmaps", "ConfigMap", True)
WIDGETS = ResourceSpec("example.com", "v1", "widgets", "Widget", True, custom=True)


def test_a_built_in_object_starts_with_kind_then_api_version_then_object_meta():
    obj = {"data": {"a": "b"}, "metadata": {"labels": {}, "name": "x"}, "apiVersion": "v1", "kind": "ConfigMap"}
    out = canonical_order(obj, CONFIGMAPS)
    assert list(out) == ["kind", "apiVersion", "metadata", "data"]
    assert list(out["metadata"]) == ["name", "labels"]
    assert canonical_order(out, CONFIGMAPS) is out  # already in order: not copied


def test_a_custom_resource_starts_with_api_version_then_kind():
    obj = {"kind": "Widget", "apiVersion": "example.com/v1", "metadata": {"name": "w"}, "spec": {}}
    out = canonical_order(obj, WIDGETS)
    assert list(out) == ["apiVersion", "kind", "metadata", "spec"]
    assert canonical_order(out, WIDGETS) is out


def test_missing_type_meta_is_filled_from_the_resource():
    out = canonical_order({"metadata": {"name": "x"}}, CONFIGMAPS)
    assert out == {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "x"}}


def test_object_meta_order_puts_unknown_keys_last_and_keeps_an_ordered_dict():
    meta = {"zzz": 1, "managedFields": [], "uid": "u", "name": "n", "resourceVersion": "3"}
    assert list(object_meta_ordered(meta)) == ["name", "uid", "resourceVersion", "managedFields", "zzz"]
    ordered = {"name": "n", "namespace": "d", "generation": 1}
    assert object_meta_ordered(ordered) is ordered
    # the order of a key sequence is remembered: the same keys again, with other values, come out the same
    again = {"zzz": 2, "managedFields": [1], "uid": "v", "name": "m", "resourceVersion": "4"}
    assert object_meta_ordered(again) == again
    assert list(object_meta_ordered(again)) == ["name", "uid", "resourceVersion", "managedFields", "zzz"]
    fresh = {"name": "m", "namespace": "e", "generation": 2}
    assert object_meta_ordered(fresh) is fresh
