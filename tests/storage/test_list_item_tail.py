"""StoredObject.item_tail: an object as a typed list's item, without kind and apiVersion."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from kube_apiserver.storage.interface import StoredObject


@pytest.mark.parametrize(
    ("obj", "item"),
    [
        # kube's order for built-in kinds, and apiVersion first (custom resources, objects stored earlier)
        (
            {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "a"}, "data": {"k": "v"}},
            {"metadata": {"name": "a"}, "data": {"k": "v"}},
        ),
        ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}, {"metadata": {"name": "a"}}),
        ({"kind": "ConfigMap", "apiVersion": "v1"}, {}),
        # TypeMeta not leading, or with escapes: decided from the object itself
        ({"metadata": {"name": "a"}, "kind": "ConfigMap", "apiVersion": "v1"}, {"metadata": {"name": "a"}}),
        ({"kind": 'Odd"Kind', "apiVersion": "v1", "spec": {"kind": "kept"}}, {"spec": {"kind": "kept"}}),
        ({"metadata": {"name": "a"}}, {"metadata": {"name": "a"}}),
    ],
)
def test_item_tail_is_the_object_without_type_meta(obj: dict[str, Any], item: dict[str, Any]) -> None:
    stored = StoredObject(obj, orjson.dumps(obj), 1)
    assert orjson.loads(b"{" + stored.item_tail) == item
