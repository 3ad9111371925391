"""Strategic merge patch, JSON patch and merge patch (runtime/strategicpatch).

The golden cases are upstream's strategic patch test data (k8s.io/apimachinery/pkg/util/strategicpatch,
patch_test.go, against its MergeItem test type): each gives an original, a current object and the two-way and
three-way patches kubectl would compute; applying the two-way patch to the original gives the modified object
and the three-way patch to the current one the result. Upstream compares with merge lists sorted by merge key;
so do those cases, and the element order is pinned separately by cases worked through upstream's algorithm.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from kube_apiserver.runtime.strategicpatch import (
    PatchError,
    Registry,
    has_schema,
    strategic_merge_patch,
    strategic_merge_patch_with_schema,
)
from kube_apiserver.runtime.strategicpatch.goformat import go_float, go_s, go_type_name, go_v
from kube_apiserver.runtime.strategicpatch.gojson import GoJSONError, loads, syntax_error
from kube_apiserver.runtime.strategicpatch.jsonpatch import (
    MAX_COPY_BYTES,
    JSONPatchError,
    MergePatchError,
    PatchDecodeError,
    apply_json_patch,
    apply_merge_patch,
    decode_json_patch,
)
from kube_apiserver.runtime.strategicpatch.meta import GoType, schema_for_kind

# upstream's testdata/swagger-merge-item.json (the MergeItem test type)
_MERGE_ITEM = {
    "mergeItem": {
        "properties": {
            "name": {"type": "string"},
            "value": {"type": "string"},
            "other": {"type": "string"},
            "mergingList": {
                "type": "array",
                "items": {"$ref": "#/definitions/mergeItem"},
                "x-kubernetes-patch-merge-key": "name",
                "x-kubernetes-patch-strategy": "merge",
            },
            "nonMergingList": {"type": "array", "items": {"$ref": "#/definitions/mergeItem"}},
            "mergingIntList": {
                "type": "array",
                "items": {"type": "integer", "format": "int32"},
                "x-kubernetes-patch-strategy": "merge",
            },
            "nonMergingIntList": {"type": "array", "items": {"type": "integer", "format": "int32"}},
            "mergeItemPtr": {
                "$ref": "#/definitions/mergeItem",
                "x-kubernetes-patch-merge-key": "name",
                "x-kubernetes-patch-strategy": "merge",
            },
            "simpleMap": {"type": "object", "additionalProperties": {"type": "string"}},
            "replacingItem": {
                "$ref": "#/definitions/io.k8s.apimachinery.pkg.runtime.RawExtension",
                "x-kubernetes-patch-strategy": "replace",
            },
            "retainKeysMap": {"$ref": "#/definitions/retainKeysMergeItem", "x-kubernetes-patch-strategy": "retainKeys"},
            "retainKeysMergingList": {
                "type": "array",
                "items": {"$ref": "#/definitions/mergeItem"},
                "x-kubernetes-patch-merge-key": "name",
                "x-kubernetes-patch-strategy": "merge,retainKeys",
            },
        }
    },
    "retainKeysMergeItem": {
        "properties": {
            "name": {"type": "string"},
            "value": {"type": "string"},
            "other": {"type": "string"},
            "simpleMap": {"type": "object", "additionalProperties": {"type": "string"}},
            "mergingList": {
                "type": "array",
                "items": {"$ref": "#/definitions/mergeItem"},
                "x-kubernetes-patch-merge-key": "name",
                "x-kubernetes-patch-strategy": "merge",
            },
            "nonMergingList": {"type": "array", "items": {"$ref": "#/definitions/mergeItem"}},
            "mergingIntList": {
                "type": "array",
                "items": {"type": "integer", "format": "int32"},
                "x-kubernetes-patch-strategy": "merge",
            },
        }
    },
    "io.k8s.apimachinery.pkg.runtime.RawExtension": {
        "properties": {"Raw": {"type": "string", "format": "byte"}},
    },
}
MERGE_ITEM: GoType = Registry(_MERGE_ITEM).named("mergeItem")


def smp(original: Any, patch: Any, schema: GoType = MERGE_ITEM) -> Any:
    return strategic_merge_patch_with_schema(copy.deepcopy(original), copy.deepcopy(patch), schema)


def y(text: str) -> Any:
    return yaml.safe_load(text) or {}


def sort_merge_lists(value: Any, schema: GoType) -> Any:
    """upstream's sortMergeListsByName: merge lists sorted by merge key (primitives deduplicated and sorted),
    compared as fmt prints them."""
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for k, v in value.items():
        if k.startswith("$") or schema.kind != "struct":
            out[k] = v
            continue
        field = schema.lookup_struct(k)
        if isinstance(v, dict):
            v = sort_merge_lists(v, field.type)
        elif isinstance(v, list) and field.strategy == "merge" and field.type.elem is not None:
            elem = field.type.elem
            if v and isinstance(v[0], dict):
                v = sorted((sort_merge_lists(i, elem) for i in v), key=lambda i: go_v(i.get(field.merge_key)))
            else:
                v = sorted({go_v(i): i for i in v}.values(), key=go_v)
        out[k] = v
    return out


# --- golden cases: (description, original, current, modified, two-way, three-way, result) ---------------------

GOLDEN = [
    (
        "nested patch merge with empty list",
        "name: hi",
        "name: hi\nmergingList:\n- name: hello2",
        "name: hi\nmergingList:\n- name: hello",  # upstream's TwoWayResult: directives do not stay
        "mergingList:\n- name: hello\n- $patch: delete\n  name: doesntexist",
        "$setElementOrder/mergingList:\n- name: hello\n- name: doesntexist\nmergingList:\n- name: hello",
        "name: hi\nmergingList:\n- name: hello\n- name: hello2",
    ),
    (
        "delete items in lists of scalars",
        "mergingIntList: [1, 2, 3]",
        "mergingIntList: [1, 2, 3, 4]",
        "mergingIntList: [1, 2]",
        "$setElementOrder/mergingIntList: [1, 2]\n$deleteFromPrimitiveList/mergingIntList: [3]",
        "$setElementOrder/mergingIntList: [1, 2]\n$deleteFromPrimitiveList/mergingIntList: [3]",
        "mergingIntList: [1, 2, 4]",
    ),
    (
        "delete all duplicate items in lists of scalars",
        "mergingIntList: [1, 2, 3, 3]",
        "mergingIntList: [1, 2, 3, 3, 4]",
        "mergingIntList: [1, 2]",
        "$setElementOrder/mergingIntList: [1, 2]\n$deleteFromPrimitiveList/mergingIntList: [3]",
        "$setElementOrder/mergingIntList: [1, 2]\n$deleteFromPrimitiveList/mergingIntList: [3]",
        "mergingIntList: [1, 2, 4]",
    ),
    (
        "add and delete items in lists of scalars",
        "mergingIntList: [1, 2, 3]",
        "mergingIntList: [1, 2, 3, 4]",
        "mergingIntList: [1, 2, 4]",
        "$setElementOrder/mergingIntList: [1, 2, 4]\n$deleteFromPrimitiveList/mergingIntList: [3]\nmergingIntList: [4]",
        "$setElementOrder/mergingIntList: [1, 2, 4]\n$deleteFromPrimitiveList/mergingIntList: [3]",
        "mergingIntList: [1, 2, 4]",
    ),
    (
        "merge lists of maps",
        "mergingList:\n- name: 1\n- name: 2\n  value: 2",
        "mergingList:\n- name: 1\n  other: a\n- name: 2\n  value: 2\n  other: b",
        "mergingList:\n- name: 4\n  value: 4\n- name: 1\n- name: 2\n  value: 2\n- name: 3\n  value: 3",
        "$setElementOrder/mergingList:\n- name: 4\n- name: 1\n- name: 2\n- name: 3\n"
        "mergingList:\n- name: 4\n  value: 4\n- name: 3\n  value: 3",
        "$setElementOrder/mergingList:\n- name: 4\n- name: 1\n- name: 2\n- name: 3\n"
        "mergingList:\n- name: 4\n  value: 4\n- name: 3\n  value: 3",
        "mergingList:\n- name: 4\n  value: 4\n- name: 1\n  other: a\n- name: 2\n  value: 2\n  other: b\n"
        "- name: 3\n  value: 3",
    ),
    (
        "add field to map in merging list with conflict",
        "mergingList:\n- name: 1\n- name: 2\n  value: 2",
        "mergingList:\n- name: 1\n  other: a\n- name: 3\n  value: 2\n  other: b",
        "mergingList:\n- name: 1\n  value: 1\n- name: 2\n  value: 2",
        "$setElementOrder/mergingList:\n- name: 1\n- name: 2\nmergingList:\n- name: 1\n  value: 1",
        "$setElementOrder/mergingList:\n- name: 1\n- name: 2\n"
        "mergingList:\n- name: 1\n  value: 1\n- name: 2\n  value: 2",
        "mergingList:\n- name: 1\n  value: 1\n  other: a\n- name: 2\n  value: 2\n- name: 3\n  value: 2\n  other: b",
    ),
    (
        "replace map field value in merging list with conflict",
        "mergingList:\n- name: 1\n  value: 1\n- name: 2\n  value: 2",
        "mergingList:\n- name: 1\n  value: 3\n  other: a\n- name: 2\n  value: 2\n  other: b",
        "mergingList:\n- name: 1\n  value: a\n- name: 2\n  value: 2",
        "$setElementOrder/mergingList:\n- name: 1\n- name: 2\nmergingList:\n- name: 1\n  value: a",
        "$setElementOrder/mergingList:\n- name: 1\n- name: 2\nmergingList:\n- name: 1\n  value: a",
        "mergingList:\n- name: 1\n  value: a\n  other: a\n- name: 2\n  value: 2\n  other: b",
    ),
    (
        "delete map from merging list with conflict",
        "mergingList:\n- name: 1\n- name: 2",
        "mergingList:\n- name: 1\n  other: a\n- name: 2\n  other: b",
        "mergingList:\n- name: 2",
        "$setElementOrder/mergingList:\n- name: 2\nmergingList:\n- name: 1\n  $patch: delete",
        "$setElementOrder/mergingList:\n- name: 2\nmergingList:\n- name: 1\n  $patch: delete",
        "mergingList:\n- name: 2\n  other: b",
    ),
    (
        "delete missing map from merging list with conflict",
        "mergingList:\n- name: 1\n- name: 2",
        "mergingList:\n- name: 3\n  other: a",
        "mergingList:\n- name: 2",
        "$setElementOrder/mergingList:\n- name: 2\nmergingList:\n- name: 1\n  $patch: delete",
        "$setElementOrder/mergingList:\n- name: 2\nmergingList:\n- name: 2\n- name: 1\n  $patch: delete",
        "mergingList:\n- name: 2\n- name: 3\n  other: a",
    ),
    (
        "add map and delete map from merging list",
        "mergingList:\n- name: 1\n- name: 2",
        "mergingList:\n- name: 1\n- name: 2\n  other: b\n- name: 4\n  other: c",
        "mergingList:\n- name: 2\n- name: 3",
        "$setElementOrder/mergingList:\n- name: 2\n- name: 3\nmergingList:\n- name: 3\n- name: 1\n  $patch: delete",
        "$setElementOrder/mergingList:\n- name: 2\n- name: 3\nmergingList:\n- name: 3\n- name: 1\n  $patch: delete",
        "mergingList:\n- name: 2\n  other: b\n- name: 4\n  other: c\n- name: 3",
    ),
    (
        "retainKeys map changes a field in a nested map with conflict",
        "retainKeysMap:\n  name: foo\n  value: bar\n  simpleMap:\n    key1: old\n    key2: b",
        "retainKeysMap:\n  name: foo\n  value: bar\n  simpleMap:\n    key1: new\n    key2: b\n    key3: c",
        "retainKeysMap:\n  name: foo\n  value: bar\n  simpleMap:\n    key1: modified\n    key2: b",
        "retainKeysMap:\n  $retainKeys: [name, simpleMap, value]\n  simpleMap:\n    key1: modified",
        "retainKeysMap:\n  $retainKeys: [name, simpleMap, value]\n  simpleMap:\n    key1: modified",
        "retainKeysMap:\n  name: foo\n  value: bar\n  simpleMap:\n    key1: modified\n    key2: b\n    key3: c",
    ),
    (
        "retainKeys map replaces non-merging list",
        "retainKeysMap:\n  name: foo\n  value: bar\n  nonMergingList:\n  - name: a\n  - name: b",
        "retainKeysMap:\n  name: foo\n  value: bar\n  nonMergingList:\n  - name: a\n  - name: b",
        "retainKeysMap:\n  name: foo\n  value: bar\n  nonMergingList:\n  - name: a\n  - name: c\n  - name: b",
        "retainKeysMap:\n  $retainKeys: [name, nonMergingList, value]\n"
        "  nonMergingList:\n  - name: a\n  - name: c\n  - name: b",
        "retainKeysMap:\n  $retainKeys: [name, nonMergingList, value]\n"
        "  nonMergingList:\n  - name: a\n  - name: c\n  - name: b",
        "retainKeysMap:\n  name: foo\n  value: bar\n  nonMergingList:\n  - name: a\n  - name: c\n  - name: b",
    ),
    (
        "retainKeys map delete nested non-merging list with conflict",
        "retainKeysMap:\n  name: foo\n  nonMergingList:\n  - name: a\n  - name: b",
        "retainKeysMap:\n  name: foo\n  nonMergingList:\n  - name: a\n  - name: b\n  - name: c",
        "retainKeysMap:\n  name: foo\n  value: bar",
        "retainKeysMap:\n  $retainKeys: [name, value]\n  value: bar\n  nonMergingList: null",
        "retainKeysMap:\n  $retainKeys: [name, value]\n  value: bar\n  nonMergingList: null",
        "retainKeysMap:\n  name: foo\n  value: bar",
    ),
    (
        "retainKeys map nested merging int list with no change",
        "retainKeysMap:\n  name: foo\n  mergingIntList: [1, 2]",
        "retainKeysMap:\n  name: foo\n  mergingIntList: [1, 2, 3]",
        "retainKeysMap:\n  name: foo\n  value: bar\n  mergingIntList: [1, 2]",
        "retainKeysMap:\n  $retainKeys: [mergingIntList, name, value]\n  value: bar",
        "retainKeysMap:\n  $retainKeys: [mergingIntList, name, value]\n"
        "  $setElementOrder/mergingIntList: [1, 2]\n  value: bar",
        "retainKeysMap:\n  name: foo\n  value: bar\n  mergingIntList: [1, 2, 3]",
    ),
    (
        "retainKeys map adds an item and deletes an item in nested merging int list",
        "retainKeysMap:\n  name: foo\n  mergingIntList: [1, 2, 3]",
        "retainKeysMap:\n  name: foo\n  mergingIntList: [1, 2, 3, 4]",
        "retainKeysMap:\n  name: foo\n  mergingIntList: [1, 3, 5]",
        "retainKeysMap:\n  $retainKeys: [mergingIntList, name]\n  mergingIntList: [5]\n"
        "  $deleteFromPrimitiveList/mergingIntList: [2]\n  $setElementOrder/mergingIntList: [1, 3, 5]",
        "retainKeysMap:\n  $retainKeys: [mergingIntList, name]\n  mergingIntList: [5]\n"
        "  $deleteFromPrimitiveList/mergingIntList: [2]\n  $setElementOrder/mergingIntList: [1, 3, 5]",
        "retainKeysMap:\n  name: foo\n  mergingIntList: [1, 3, 5, 4]",
    ),
    (
        "retainKeys map deletes an item in nested merging list",
        "retainKeysMap:\n  name: foo\n  mergingList:\n  - name: a\n  - name: b",
        "retainKeysMap:\n  name: foo\n  mergingList:\n  - name: a\n  - name: b\n  - name: x",
        "retainKeysMap:\n  name: foo\n  mergingList:\n  - name: a",
        "retainKeysMap:\n  $retainKeys: [mergingList, name]\n  $setElementOrder/mergingList:\n  - name: a\n"
        "  mergingList:\n  - name: b\n    $patch: delete",
        "retainKeysMap:\n  $retainKeys: [mergingList, name]\n  $setElementOrder/mergingList:\n  - name: a\n"
        "  mergingList:\n  - name: b\n    $patch: delete",
        "retainKeysMap:\n  name: foo\n  mergingList:\n  - name: a\n  - name: x",
    ),
    (
        "retainKeys map deletes nested merging list",
        "retainKeysMap:\n  name: foo\n  mergingList:\n  - name: a\n  - name: b",
        "retainKeysMap:\n  name: foo\n  mergingList:\n  - name: a\n  - name: b",
        "retainKeysMap:\n  name: foo\n  value: bar",
        "retainKeysMap:\n  $retainKeys: [name, value]\n  value: bar\n  mergingList: null",
        "retainKeysMap:\n  $retainKeys: [name, value]\n  value: bar\n  mergingList: null",
        "retainKeysMap:\n  name: foo\n  value: bar",
    ),
]


@pytest.mark.parametrize("case", GOLDEN, ids=[c[0] for c in GOLDEN])
def test_golden_two_way_and_three_way(case: tuple[str, ...]) -> None:
    _, original, current, modified, two_way, three_way, result = (y(t) if i else t for i, t in enumerate(case))
    assert sort_merge_lists(smp(original, two_way), MERGE_ITEM) == sort_merge_lists(modified, MERGE_ITEM)
    assert sort_merge_lists(smp(current, three_way), MERGE_ITEM) == sort_merge_lists(result, MERGE_ITEM)


# --- element order, worked through upstream's normalizeElementOrder -----------------------------------------------

ORDER = [
    # $setElementOrder first, then the live order of the items only the server has
    (
        "mergingList:\n- name: 1\n- name: 2\n  other: b\n- name: 4\n  other: c",
        "$setElementOrder/mergingList:\n- name: 2\n- name: 3\nmergingList:\n- name: 3\n- name: 1\n  $patch: delete",
        ["2", "3", "4"],
    ),
    ("mergingList:\n- name: a\n- name: b", "mergingList:\n- name: c", ["c", "a", "b"]),  # new items go first
    ("mergingList:\n- name: a\n- name: b", "mergingList:\n- name: b\n  value: x\n- name: c", ["a", "b", "c"]),
    ("mergingList:\n- name: a\n- name: b", "mergingList:\n- name: b\n- name: a", ["b", "a"]),  # patch order wins
    (
        "mergingList:\n- name: a\n- name: b\n- name: c",
        "$setElementOrder/mergingList:\n- name: c\n- name: a\n- name: b",
        ["c", "a", "b"],
    ),
    ("mergingIntList: [1, 2, 3]", "mergingIntList: [9]", [9, 1, 2, 3]),
    ("mergingIntList: [1, 2, 3]", "mergingIntList: [3, 4]", [1, 2, 3, 4]),
    ("mergingIntList: [1, 2, 3]", "$setElementOrder/mergingIntList: [1, 2, 4, 3]\nmergingIntList: [4]", [1, 2, 4, 3]),
]


@pytest.mark.parametrize(("original", "patch", "names"), ORDER)
def test_merged_list_order(original: str, patch: str, names: list[Any]) -> None:
    out = smp(y(original), y(patch))
    items = out.get("mergingList") or out.get("mergingIntList")
    assert [i["name"] if isinstance(i, dict) else i for i in items] == [
        int(n) if isinstance(n, str) and n.isdigit() else n for n in names
    ]


# --- every directive and rule on its own ---------------------------------------------------------------------------


def test_null_deletes_a_key_and_unmatched_nulls_are_dropped() -> None:
    out = smp({"name": "a", "simpleMap": {"k": "v", "x": "y"}}, {"simpleMap": {"k": None, "z": None}, "value": None})
    assert out == {"name": "a", "simpleMap": {"x": "y"}}
    # a new value loses its nulls (not inside lists) and its $patch maps
    out = smp({}, {"mergeItemPtr": {"name": "n", "value": None, "mergingList": [{"name": "x", "other": None}]}})
    assert out == {"mergeItemPtr": {"name": "n", "mergingList": [{"name": "x"}]}}
    out = smp({}, {"mergingList": [{"name": "hello"}, {"name": "gone", "$patch": "delete"}]})
    assert out == {"mergingList": [{"name": "hello"}]}


def test_patch_replace_and_delete_in_maps() -> None:
    original = {"mergeItemPtr": {"name": "a", "value": "1", "other": "o"}}
    assert smp(original, {"mergeItemPtr": {"$patch": "replace", "name": "b"}}) == {"mergeItemPtr": {"name": "b"}}
    assert smp(original, {"mergeItemPtr": {"$patch": "delete", "name": "b"}}) == {"mergeItemPtr": {}}
    assert smp(original, {"$patch": "replace", "value": "v"}) == {"value": "v"}
    with pytest.raises(PatchError) as e:
        smp(original, {"mergeItemPtr": {"$patch": "merge"}})
    assert (e.value.code, e.value.message) == (400, "unknown patch type: merge in map: map[$patch:merge]")


def test_patch_replace_and_delete_in_lists() -> None:
    original = {"mergingList": [{"name": "a", "value": "1"}, {"name": "b"}, {"name": "a", "other": "dup"}]}
    out = smp(original, {"mergingList": [{"name": "c"}, {"$patch": "replace"}]})
    assert out == {"mergingList": [{"name": "c"}]}
    out = smp(original, {"mergingList": [{"name": "a", "$patch": "delete"}]})
    assert out == {"mergingList": [{"name": "b"}]}  # every item with that merge key goes
    with pytest.raises(PatchError) as e:
        smp(original, {"mergingList": [{"$patch": "delete"}]})
    assert e.value.message == "map: map[$patch:delete] does not contain declared merge key: name"
    with pytest.raises(PatchError) as e:
        smp(original, {"mergingList": [{"name": "a", "$patch": "merge"}]})
    assert e.value.message == "merging lists cannot yet be specified in the patch"
    with pytest.raises(PatchError) as e:
        smp(original, {"mergingList": [{"name": "a", "$patch": 1}]})
    assert e.value.message == "unknown patch type: %!s(int64=1) in map: map[$patch:1 name:a]"


def test_non_merging_lists_and_replace_strategy_are_replaced() -> None:
    original = {"nonMergingList": [{"name": "a"}], "nonMergingIntList": [1, 2], "replacingItem": {"a": 1, "b": 2}}
    patch = {"nonMergingList": [{"name": "b"}], "nonMergingIntList": [3], "replacingItem": {"c": None}}
    assert smp(original, patch) == {
        "nonMergingList": [{"name": "b"}],
        "nonMergingIntList": [3],
        "replacingItem": {"c": None},
    }


def test_primitive_merge_list_is_a_set() -> None:
    out = smp({"mergingIntList": [1, 2, 2]}, {"mergingIntList": [2, 3, 3]})
    assert out == {"mergingIntList": [1, 2, 3]}
    assert smp({"mergingIntList": [1, 2]}, {"$deleteFromPrimitiveList/mergingIntList": [1, 7]}) == {
        "mergingIntList": [2]
    }
    # deleting from an absent list adds nothing (deleteFromPrimitiveList is idempotent)
    assert smp({"name": "x"}, {"$deleteFromPrimitiveList/mergingIntList": [1]}) == {"name": "x"}
    # a deletion list deletes whatever the field's strategy
    assert smp({"nonMergingIntList": [1, 2]}, {"$deleteFromPrimitiveList/nonMergingIntList": [1]}) == {
        "nonMergingIntList": [2]
    }
    # values of another JSON type are other values (Go compares interfaces)
    with pytest.raises(PatchError) as e:
        smp({"mergingIntList": [1]}, {"mergingIntList": ["1"]})
    assert e.value.message == "list element types are not identical: [[1] [1]]"


def test_retain_keys_errors() -> None:
    original = {"retainKeysMap": {"name": "a", "value": "b"}}
    with pytest.raises(PatchError) as e:
        smp(original, {"retainKeysMap": {"$retainKeys": ["name"], "value": "c"}})
    assert (e.value.code, e.value.message) == (400, "invalid patch format of retainKeys")
    with pytest.raises(PatchError) as e:
        smp(original, {"retainKeysMap": {"$retainKeys": "name"}})
    assert (e.value.code, e.value.message) == (400, "invalid patch format of retainKeys")
    # nulls and parallel lists need not be retained
    out = smp(original, {"retainKeysMap": {"$retainKeys": ["name"], "value": None}})
    assert out == {"retainKeysMap": {"name": "a"}}


def test_directive_format_errors() -> None:
    with pytest.raises(PatchError) as e:
        smp({"mergingIntList": [1]}, {"$deleteFromPrimitiveListmergingIntList": [1]})
    assert (e.value.code, e.value.message) == (400, "invalid patch format of primitive list")
    with pytest.raises(PatchError) as e:
        smp({"mergingIntList": [1]}, {"$setElementOrder": [1]})
    assert (e.value.code, e.value.message) == (400, "invalid patch format of setElementOrder list")
    with pytest.raises(PatchError) as e:
        smp({"mergingIntList": [1]}, {"$setElementOrder/mergingIntList": 1})
    assert (e.value.code, e.value.message) == (400, "expected a []interface {}, but received a int64")
    with pytest.raises(PatchError) as e:
        smp(
            {"mergingList": [{"name": "a"}]},
            {"$setElementOrder/mergingList": [{"name": "b"}], "mergingList": [{"name": "a"}]},
        )
    assert e.value.message == (
        "The order in patch list:\n[map[name:a]]\n doesn't match $setElementOrder list:\n[map[name:b]]\n"
    )


def test_list_errors() -> None:
    with pytest.raises(PatchError) as e:
        smp({"mergingList": [{"name": "a"}]}, {"mergingList": [{"value": "x"}]})
    assert (e.value.code, e.value.message) == (400, "map: map[value:x] does not contain declared merge key: name")
    with pytest.raises(PatchError) as e:
        smp({"mergingIntList": []}, {"mergingIntList": [[1]]})
    assert (e.value.code, e.value.message) == (422, "lists of lists are not supported")
    with pytest.raises(PatchError) as e:
        smp({"nonMergingList": [{"name": "a"}]}, {"$deleteFromPrimitiveList/nonMergingList": [{"name": "a"}]})
    assert e.value.message == "cannot merge lists without merge key for struct"


def test_schema_lookup_errors() -> None:
    with pytest.raises(PatchError) as e:
        smp({"unknown": {"a": 1}}, {"unknown": {"b": 2}})
    assert e.value.message == 'unable to find api field in struct mergeItem for the json field "unknown"'
    # a key only the patch has is taken as it is (typed decoding reports unknown fields later)
    assert smp({}, {"unknown": {"b": 2}}) == {"unknown": {"b": 2}}
    # maps of maps cannot be merged by the struct lookup
    pdb = schema_for_kind("apiextensions.k8s.io", "v1", "CustomResourceDefinition")
    assert pdb is not None
    props = pdb.lookup_struct("spec").type.lookup_slice("versions")[0]
    schema = props.lookup_struct("schema").type.lookup_struct("openAPIV3Schema").type
    with pytest.raises(PatchError) as e:
        strategic_merge_patch_with_schema(
            {"properties": {"spec": {"type": "object"}}}, {"properties": {"spec": {"type": "string"}}}, schema
        )
    assert e.value.message == "merging an object in json but data type is not struct, instead is: map"


# --- the 1.33 definitions ------------------------------------------------------------------------------------------


def test_builtin_patch_metadata() -> None:
    pod = schema_for_kind("", "v1", "Pod")
    assert pod is not None and pod.name == "Pod"
    spec = pod.lookup_struct("spec").type
    container, field = spec.lookup_slice("containers")
    assert (field.strategy, field.merge_key, container.name) == ("merge", "name", "Container")
    assert container.lookup_slice("env")[1].merge_key == "name"
    assert container.lookup_slice("ports")[1].merge_key == "containerPort"
    assert container.lookup_slice("volumeMounts")[1].merge_key == "mountPath"
    volumes = spec.lookup_slice("volumes")[1]
    assert (volumes.strategies, volumes.strategy, volumes.merge_key) == (["merge", "retainKeys"], "merge", "name")
    assert spec.lookup_slice("tolerations")[1].strategy == ""
    meta = pod.lookup_struct("metadata").type
    assert meta.lookup_slice("finalizers")[1].strategy == "merge"
    assert meta.lookup_slice("ownerReferences")[1].merge_key == "uid"
    service = schema_for_kind("", "v1", "Service")
    assert service is not None
    assert service.lookup_struct("spec").type.lookup_slice("ports")[1].merge_key == "port"
    deployment = schema_for_kind("apps", "v1", "Deployment")
    assert deployment is not None
    strategy = deployment.lookup_struct("spec").type.lookup_struct("strategy")
    assert (strategy.strategies, strategy.strategy) == (["retainKeys"], "")
    pdb = schema_for_kind("policy", "v1", "PodDisruptionBudget")
    assert pdb is not None
    assert pdb.lookup_struct("spec").type.lookup_struct("selector").strategy == "replace"
    assert has_schema("", "v1", "ConfigMap")
    assert not has_schema("example.com", "v1", "Widget")


def test_builtin_service_ports_by_port() -> None:
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "spec": {"ports": [{"name": "a", "port": 80, "targetPort": 80}, {"name": "b", "port": 81, "targetPort": 81}]},
    }
    patch = {
        "spec": {"$setElementOrder/ports": [{"port": 80}, {"port": 81}], "ports": [{"port": 80, "targetPort": 8080}]}
    }
    out = strategic_merge_patch(copy.deepcopy(svc), patch, "", "v1", "Service")
    assert out["spec"]["ports"] == [
        {"name": "a", "port": 80, "targetPort": 8080},
        {"name": "b", "port": 81, "targetPort": 81},
    ]
    patch = {"spec": {"$setElementOrder/ports": [{"port": 80}], "ports": [{"$patch": "delete", "port": 81}]}}
    out = strategic_merge_patch(copy.deepcopy(svc), patch, "", "v1", "Service")
    assert out["spec"]["ports"] == [{"name": "a", "port": 80, "targetPort": 80}]


def test_builtin_volumes_retain_keys_and_tolerations_replaced() -> None:
    pod = {
        "spec": {
            "volumes": [{"name": "v", "emptyDir": {}}, {"name": "w", "secret": {"secretName": "s"}}],
            "tolerations": [{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "Exists"}],
        }
    }
    patch = {
        "spec": {
            "$setElementOrder/volumes": [{"name": "v"}, {"name": "w"}],
            "volumes": [{"$retainKeys": ["configMap", "name"], "configMap": {"name": "cm"}, "name": "v"}],
            "tolerations": [{"key": "c", "operator": "Exists"}],
        }
    }
    out = strategic_merge_patch(pod, patch, "", "v1", "Pod")
    assert out["spec"]["volumes"] == [
        {"name": "v", "configMap": {"name": "cm"}},
        {"name": "w", "secret": {"secretName": "s"}},
    ]
    assert out["spec"]["tolerations"] == [{"key": "c", "operator": "Exists"}]


def test_strategic_merge_patch_without_schema() -> None:
    with pytest.raises(PatchError) as e:
        strategic_merge_patch({}, {}, "example.com", "v1", "Widget")
    assert (e.value.code, e.value.message) == (400, "strategic merge patch format is not supported")


# --- JSON patch and merge patch (evanphx/json-patch v4) -----------------------------------------------------------


def test_json_patch_operations() -> None:
    doc = {"a": {"b": [1, 2, 3]}, "m~n": 1, "x/y": 2}
    ops = [
        {"op": "add", "path": "/a/b/-", "value": 4},
        {"op": "add", "path": "/a/b/0", "value": 0},
        {"op": "add", "path": "/a/b/-2", "value": 9},  # negative indices count from the end
        {"op": "remove", "path": "/m~0n"},
        {"op": "replace", "path": "/x~1y", "value": 3},
        {"op": "replace", "path": "/new", "value": 5},  # v4: replace of a missing key adds it
        {"op": "test", "path": "/a/b/-1", "value": 4},
        {"op": "move", "from": "/new", "path": "/moved"},
        {"op": "copy", "from": "/a", "path": "/c"},
        {"op": "test", "path": "/absent", "value": None},  # a missing member tests equal to null
        {"op": "add", "path": "/nothing"},  # no value: null
    ]
    out = apply_json_patch(doc, ops)
    assert out == {
        "a": {"b": [0, 1, 2, 3, 9, 4]},
        "x/y": 3,
        "moved": 5,
        "c": {"b": [0, 1, 2, 3, 9, 4]},
        "nothing": None,
    }
    assert out["c"]["b"] is not out["a"]["b"]


@pytest.mark.parametrize(
    "op",
    [
        {"op": "test", "path": "/a", "value": "1"},
        {"op": "test", "path": "/a", "value": 1.0},  # compared as JSON text: 1 is not 1.0
        {"op": "remove", "path": "/missing"},
        {"op": "remove", "path": "/l/5"},
        {"op": "add", "path": "/missing/x", "value": 1},
        {"op": "add", "path": "/l/3", "value": 1},
        {"op": "add", "path": "/l/01x", "value": 1},
        {"op": "replace", "path": "/l/2", "value": 1},
        {"op": "move", "from": "/missing", "path": "/b"},
        {"op": "copy", "path": "/b"},
        {"op": "bogus", "path": "/a"},
        {"path": "/a"},
        {"op": "add"},
        {"op": "remove", "path": ""},
    ],
)
def test_json_patch_failures(op: dict[str, Any]) -> None:
    with pytest.raises(JSONPatchError):
        apply_json_patch({"a": 1, "l": [1, 2]}, [op])


def test_json_patch_whole_document() -> None:
    assert apply_json_patch({"a": 1}, [{"op": "replace", "path": "", "value": {"b": 2}}]) == {"b": 2}
    assert apply_json_patch({"a": 1}, [{"op": "replace", "path": "", "value": 3}]) == {"a": 1}
    assert apply_json_patch({"a": 1}, [{"op": "test", "path": "", "value": {"a": 1}}]) == {"a": 1}
    # a path without a leading slash: its first segment is ignored
    assert apply_json_patch({"a": 1}, [{"op": "add", "path": "x/b", "value": 2}]) == {"a": 1, "b": 2}


def test_json_patch_decoding() -> None:
    ops, problems = decode_json_patch(b'[{"op":"add","path":"/a","value":1,"extra":1,"op":"add"}]', strict=True)
    assert ops == [{"op": "add", "path": "/a", "value": 1, "extra": 1}]
    assert problems == ['json patch unknown field "extra"', 'json patch duplicate field "op"']
    assert decode_json_patch(b"null", strict=True) == ([], [])
    cases = [
        (
            b"{}",
            True,
            "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp",
        ),
        (b"{}", False, "json: cannot unmarshal object into Go value of type jsonpatch.Patch"),
        (
            b'["x"]',
            True,
            "error decoding patch: json: cannot unmarshal string into Go value of type handlers.jsonPatchOp",
        ),
        (b'["x"]', False, "json: cannot unmarshal string into Go value of type jsonpatch.Operation"),
        (
            b'[{"op":true}]',
            True,
            "error decoding patch: json: cannot unmarshal bool into Go struct field jsonPatchOp.op of type string",
        ),
        (b"[{]", True, "error decoding patch: invalid character ']' looking for beginning of object key string"),
    ]
    for body, strict, message in cases:
        with pytest.raises(PatchDecodeError) as e:
            decode_json_patch(body, strict=strict)
        assert str(e.value) == message


def test_merge_patch() -> None:
    doc = {"a": {"b": 1, "c": 2}, "l": [1], "s": "x"}
    patch = {"a": {"b": None, "d": {"e": None, "f": 1}}, "l": {"x": None, "y": [None, {"z": None}]}, "s": {"k": None}}
    assert apply_merge_patch(doc, patch) == {"a": {"c": 2, "d": {"f": 1}}, "l": {"y": [None, {}]}, "s": {}}
    assert apply_merge_patch({"a": 1}, [{"b": None}, None]) == [{}, None]
    with pytest.raises(MergePatchError):
        apply_merge_patch({"a": 1}, "x")


# --- Go's words -----------------------------------------------------------------------------------------------------


def test_go_formatting() -> None:
    assert go_v({"b": [1, 2.5, None, True], "a": {"x": "y"}}) == "map[a:map[x:y] b:[1 2.5 <nil> true]]"
    assert [go_float(f) for f in (1.5, 1e6, 123456.0, 1e-5, 0.0001, 100.0)] == [
        "1.5",
        "1e+06",
        "123456",
        "1e-05",
        "0.0001",
        "100",
    ]
    assert go_s(1) == "%!s(int64=1)" and go_s(None) == "%!s(<nil>)" and go_s("merge") == "merge"
    assert [go_type_name(v) for v in ({}, [], "", 1, 1.5, True)] == [
        "map[string]interface {}",
        "[]interface {}",
        "string",
        "int64",
        "float64",
        "bool",
    ]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "unexpected end of JSON input"),
        (b'{"a":1,}', "invalid character '}' looking for beginning of object key string"),
        (b"[1 2]", "invalid character '2' after array element"),
        (b'{"a" 1}', "invalid character '1' after object key"),
        (b'{"a":1 "b":2}', "invalid character '\"' after object key:value pair"),
        (b"trux", "invalid character 'x' in literal true (expecting 'e')"),
        (b'{"a":1} x', "invalid character 'x' after top-level value"),
        (b"'", "invalid character '\\'' looking for beginning of value"),
        (b'"\\x"', "invalid character 'x' in string escape code"),
        (b"-a", "invalid character 'a' in numeric literal"),
    ],
)
def test_go_json_syntax_errors(body: bytes, message: str) -> None:
    assert syntax_error(body) == message
    with pytest.raises(GoJSONError) as e:
        loads(body)
    assert str(e.value) == message


def test_go_json_accepts_what_go_accepts() -> None:
    for body in (b"{}", b" [ 1 , -0.5e+3 ] ", b'"\\u00e9"', b"null"):
        assert syntax_error(body) is None
    assert loads(b'{"a": "\xff"}') == {"a": "\ufffd"}  # Go decodes invalid UTF-8 as U+FFFD


def test_json_patch_copies_are_limited_to_the_request_body_size():
    """Each copy may double a document: what copies add in one patch is capped at 3 MiB (kube's
    JSONPatchMaxCopyBytes), so 30 copies of a growing object fail at once instead of taking the server."""
    ops = [{"op": "copy", "from": "/metadata", "path": f"/metadata/x{i}"} for i in range(30)]
    with pytest.raises(JSONPatchError, match=f"exceeding the limit {MAX_COPY_BYTES}"):
        apply_json_patch({"metadata": {"name": "x" * 100}}, ops)
    # copies that stay under the limit apply
    doc = apply_json_patch({"a": {"b": 1}}, [{"op": "copy", "from": "/a", "path": "/c"}])
    assert doc == {"a": {"b": 1}, "c": {"b": 1}}
