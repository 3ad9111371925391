"""Applying a strategic merge patch (strategicpatch.StrategicMergeMapPatch, server side).

A JSON merge patch whose lists follow the schema: a field tagged patchStrategy=merge merges its list
by the patchMergeKey of the items (or as a set, for primitives), every other list is replaced, and
directives in the patch steer the merge:

- `$patch: replace` in a map replaces the map; in a list item, the whole list.
- `$patch: delete` in a map empties it; in a list item, deletes the items with that merge key.
- `$retainKeys: [...]` drops every other key of the map.
- `$setElementOrder/<list>: [...]` orders the merged list.
- `$deleteFromPrimitiveList/<list>: [...]` removes values from a primitive list.
- `key: null` deletes a key.

Both documents are decoded JSON and are changed in place; the caller passes fresh copies. Errors
are PatchError, carrying the HTTP status kube-apiserver answers with.
"""

from __future__ import annotations

from typing import Any

from kube_apiserver.runtime.strategicpatch.errors import (
    MAP_TYPE,
    SLICE_TYPE,
    PatchError,
    err_bad_arg_type,
    err_bad_patch_format_for_primitive_list,
    err_bad_patch_format_for_retain_keys,
    err_bad_patch_format_for_set_element_order_list,
    err_bad_patch_type,
    err_nil_dereference,
    err_no_list_of_lists,
    err_no_merge_key,
)
from kube_apiserver.runtime.strategicpatch.goformat import go_quote, go_v
from kube_apiserver.runtime.strategicpatch.meta import GoType
from kube_apiserver.runtime.strategicpatch.order import (
    DIRECTIVE,
    extract_to_delete_items,
    hkey,
    normalize_element_order,
    partition_maps,
    partition_primitives,
)

_CONTAINERS = (dict, list)  # a tuple: `X | Y` in isinstance builds a union object on every call

DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList"
RETAIN_KEYS = "$retainKeys"
SET_ELEMENT_ORDER = "$setElementOrder"


def merge_map(original: dict[str, Any] | None, patch: dict[str, Any], schema: GoType) -> dict[str, Any]:
    if DIRECTIVE in patch:
        return _directive_in_map(patch[DIRECTIVE], patch)
    if original is None:
        original = {}
    if RETAIN_KEYS in patch:
        _apply_retain_keys(original, patch)
    for key in patch:
        if key.startswith(SET_ELEMENT_ORDER):
            _merge_ordered_lists(original, patch, schema)
            break
    for key, patch_v in list(patch.items()):
        is_delete_list = False
        if key[:1] == "$" and key.startswith(DELETE_FROM_PRIMITIVE_LIST):
            key = _extract_key(key, DELETE_FROM_PRIMITIVE_LIST)
            is_delete_list = True
        if patch_v is None:
            original.pop(key, None)  # a null deletes; unmatched nulls are dropped
            continue
        if key not in original:
            if not is_delete_list:
                _set_new_value(original, key, patch_v)
            continue
        orig_v = original[key]
        kind = type(orig_v)
        if kind is not type(patch_v):
            if not is_delete_list:
                _set_new_value(original, key, patch_v)
            continue
        if kind is dict:
            field = schema.lookup_struct(key)
            if field.strategy != "replace":
                original[key] = merge_map(orig_v, patch_v, field.type)
            else:
                original[key] = patch_v
        elif kind is list:
            elem, field = schema.lookup_slice(key)
            original[key] = _merge_slice_handler(orig_v, patch_v, elem, field.strategy, field.merge_key, is_delete_list)
        else:
            original[key] = patch_v
    return original


def _set_new_value(original: dict[str, Any], key: str, value: Any) -> None:
    """A patch value with nothing to merge into: taken without its nulls and $patch directives."""
    _discard_nulls(value)
    value, keep = _remove_directives(value)
    if keep:
        original[key] = value
    else:
        original.pop(key, None)


def _discard_nulls(value: Any) -> None:
    if isinstance(value, dict):
        for k in [k for k, v in value.items() if v is None]:
            del value[k]
        for v in value.values():
            if isinstance(v, _CONTAINERS):
                _discard_nulls(v)
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, _CONTAINERS):
                _discard_nulls(v)


def _remove_directives(value: Any) -> tuple[Any, bool]:
    """Drop the maps carrying $patch (and say whether value itself is one)."""
    if isinstance(value, dict):
        if DIRECTIVE in value:
            return None, False
        for k, v in list(value.items()):
            if isinstance(v, _CONTAINERS):
                nv, keep = _remove_directives(v)
                if keep:
                    value[k] = nv
                else:
                    del value[k]
        return value, True
    if isinstance(value, list):
        out = []
        for v in value:
            nv, keep = _remove_directives(v) if isinstance(v, _CONTAINERS) else (v, True)
            if keep:
                out.append(nv)
        return out, True
    return value, True


def _directive_in_map(directive: Any, patch: dict[str, Any]) -> dict[str, Any]:
    if directive == "replace" and isinstance(directive, str):
        del patch[DIRECTIVE]
        return patch
    if directive == "delete" and isinstance(directive, str):
        return {}
    raise err_bad_patch_type(directive, patch)


def _extract_key(key: str, prefix: str) -> str:
    head, sep, rest = key.partition("/")
    if not sep or head != prefix:
        if prefix == DELETE_FROM_PRIMITIVE_LIST:
            raise err_bad_patch_format_for_primitive_list()
        if prefix == SET_ELEMENT_ORDER:
            raise err_bad_patch_format_for_set_element_order_list()
        raise PatchError(f"fail to find unknown prefix {go_quote(prefix)} in {key}\n")
    return rest


def _apply_retain_keys(original: dict[str, Any], patch: dict[str, Any]) -> None:
    retain = patch.pop(RETAIN_KEYS)
    if not isinstance(retain, list):
        raise err_bad_patch_format_for_retain_keys()
    try:
        keys = {hkey(v) for v in retain if hash(v) is not None}
    except TypeError:
        raise PatchError(f"runtime error: hash of unhashable type {MAP_TYPE}") from None
    for k, v in patch.items():
        if v is None or k.startswith(DELETE_FROM_PRIMITIVE_LIST) or k.startswith(SET_ELEMENT_ORDER):
            continue
        if (str, k) not in keys:
            raise err_bad_patch_format_for_retain_keys()
    for k in [k for k in original if (str, k) not in keys]:
        del original[k]


def _merge_ordered_lists(original: dict[str, Any], patch: dict[str, Any], schema: GoType) -> None:
    """Merge each list named by a $setElementOrder directive and give it the directive's order."""
    for key in [k for k in patch if k.startswith(SET_ELEMENT_ORDER)]:
        order = patch.pop(key)
        if not isinstance(order, list):
            raise err_bad_arg_type(SLICE_TYPE, order)
        list_key = _extract_key(key, SET_ELEMENT_ORDER)
        found_original = list_key in original
        found_patch = list_key in patch
        original_list: list[Any] = []
        patch_list: list[Any] = []
        if found_original:
            original_list = original[list_key]
            if not isinstance(original_list, list):
                raise err_bad_arg_type(SLICE_TYPE, original_list)
        if found_patch:
            patch_list = patch[list_key]
            if not isinstance(patch_list, list):
                raise err_bad_arg_type(SLICE_TYPE, patch_list)
        elem, field = schema.lookup_slice(list_key)
        merge_key = field.merge_key
        _validate_patch_with_set_order_list(patch_list, order, merge_key)
        if found_original and not found_patch:
            merged = original_list
        elif found_patch and not found_original:
            merged = _remove_directives(patch_list)[0]
        elif found_original and found_patch:
            merged = _merge_slice_handler(original_list, patch_list, elem, field.strategy, merge_key, False)
        else:
            continue
        if merge_key:
            in_order, server_only = partition_maps(merged, order, merge_key)
        else:
            in_order, server_only = partition_primitives(merged, order)
        is_map = _slice_element_type(original_list, patch_list) is dict
        original[list_key] = normalize_element_order(in_order, server_only, order, original_list, merge_key, is_map)
        patch.pop(list_key, None)


def _validate_patch_with_set_order_list(patch_list: list[Any], order: list[Any], merge_key: str) -> None:
    """The patch's items must appear in the $setElementOrder list, in the same relative order."""
    if not order or not patch_list:
        return
    items = extract_to_delete_items(patch_list)[0] if merge_key else patch_list
    pi = oi = 0
    while pi < len(items) and oi < len(order):
        item = items[pi]
        if isinstance(item, dict) and DIRECTIVE in item:
            pi += 1
            continue
        if _merge_key_value_equal(item, order[oi], merge_key):
            pi += 1
        oi += 1
    if pi < len(items) and oi >= len(order):
        raise PatchError(
            f"The order in patch list:\n{go_v(patch_list)}\n doesn't match {SET_ELEMENT_ORDER} list:\n{go_v(order)}\n"
        )


def _merge_key_value_equal(left: Any, right: Any, merge_key: str) -> bool:
    if not merge_key:
        return hkey(left) == hkey(right)
    if not isinstance(left, dict):
        raise err_bad_arg_type(MAP_TYPE, left)
    if not isinstance(right, dict):
        raise err_bad_arg_type(MAP_TYPE, right)
    if merge_key not in left:
        raise err_no_merge_key(left, merge_key)
    if merge_key not in right:
        raise err_no_merge_key(right, merge_key)
    return hkey(left[merge_key]) == hkey(right[merge_key])


def _merge_slice_handler(
    original: Any, patch: Any, elem: GoType, strategy: str, merge_key: str, is_delete_list: bool
) -> list[Any]:
    if not isinstance(original, list):
        raise err_bad_arg_type(SLICE_TYPE, original)
    if not isinstance(patch, list):
        raise err_bad_arg_type(SLICE_TYPE, patch)
    # a deletion list deletes whatever the field's strategy
    if strategy == "merge" or is_delete_list:
        return _merge_slice(original, patch, elem, merge_key, is_delete_list)
    return patch


def _slice_element_type(*lists: list[Any]) -> type:
    """The one type of the lists' elements (not a list), as sliceElementType."""
    first: type | None = None
    for items in lists:
        for v in items:
            t = type(v)
            if first is None:
                if v is None:
                    raise err_nil_dereference()
                if t is list:
                    raise err_no_list_of_lists()
                first = t
            elif t is not first:
                raise PatchError(f"list element types are not identical: {go_v(list(lists))}")
    if first is None:
        raise PatchError("no elements in any of the given slices")
    return first


def _merge_slice(
    original: list[Any], patch: list[Any], elem: GoType, merge_key: str, is_delete_list: bool
) -> list[Any]:
    if not original and not patch:
        return original
    is_map = _slice_element_type(original, patch) is dict
    if not is_map:
        if is_delete_list:
            doomed = {hkey(v) for v in patch}
            return [v for v in original if hkey(v) not in doomed]
        # a set: duplicates collapse (the order is settled below)
        seen: set[Any] = set()
        merged = []
        for v in original + patch:
            k = hkey(v)
            if k not in seen:
                seen.add(k)
                merged.append(v)
    else:
        if not merge_key:
            raise PatchError(f"cannot merge lists without merge key for {elem.kind}")
        original, patch = _merge_special_elements(original, patch, merge_key)
        merged = _merge_by_key(original, patch, merge_key, elem)
    if merge_key:
        in_patch, server_only = partition_maps(merged, patch, merge_key)
    else:
        in_patch, server_only = partition_primitives(merged, patch)
    return normalize_element_order(in_patch, server_only, patch, original, merge_key, is_map)


def _merge_special_elements(original: list[Any], patch: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    """Apply the $patch items of a list: delete by merge key, or replace the whole list."""
    plain: list[Any] = []
    replace = False
    for item in patch:
        if DIRECTIVE not in item:
            plain.append(item)
            continue
        directive = item[DIRECTIVE]
        if directive == "delete" and isinstance(directive, str):
            if merge_key not in item:
                raise err_no_merge_key(item, merge_key)
            doomed = hkey(item[merge_key])
            original = [o for o in original if not (merge_key in o and hkey(o[merge_key]) == doomed)]
        elif directive == "replace" and isinstance(directive, str):
            replace = True
        elif directive == "merge" and isinstance(directive, str):
            raise PatchError("merging lists cannot yet be specified in the patch")
        else:
            raise err_bad_patch_type(directive, item)
    if replace:
        return plain, []
    return original, plain


def _merge_by_key(original: list[Any], patch: list[Any], merge_key: str, elem: GoType) -> list[Any]:
    merged = list(original)
    positions: dict[Any, int] = {}
    for i, item in enumerate(merged):
        if merge_key in item:
            positions.setdefault(hkey(item[merge_key]), i)
    for item in patch:
        if merge_key not in item:
            raise err_no_merge_key(item, merge_key)
        k = hkey(item[merge_key])
        i = positions.get(k)
        if i is None:
            positions[k] = len(merged)
            merged.append(item)
        else:
            merged[i] = merge_map(merged[i], item, elem)
    return merged
