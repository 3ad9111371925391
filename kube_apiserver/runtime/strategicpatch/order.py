"""Element order of merged lists (strategicpatch's normalizeElementOrder and friends).

A merged list is the patch's items in the patch's (or $setElementOrder's) order, interleaved with
the items only the server has, which keep their live order: a server-only item goes before a patch
item only when both are in the live list and it comes first there. Items are matched by their merge
key value (maps) or by value (primitives), with Go's interface equality: same type and same value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kube_apiserver.runtime.strategicpatch.errors import MAP_TYPE, PatchError, err_bad_arg_type, err_no_merge_key

DIRECTIVE = "$patch"


_SCALARS = frozenset({str, int, float, bool, type(None)})


def hkey(value: Any) -> Any:
    """A dict key equal for two values exactly when Go's == on interfaces holds (1 != 1.0 != True)."""
    t = type(value)
    if t in _SCALARS:
        return (t, value)
    try:
        hash(value)
    except TypeError:
        return ("unhashable", id(value))
    return (t, value)


def merge_value(item: Any, merge_key: str, is_map: bool) -> Any:
    if not is_map:
        return item
    return item.get(merge_key) if isinstance(item, dict) else None


def first_indices(items: list[Any], merge_key: str, is_map: bool) -> dict[Any, int]:
    out: dict[Any, int] = {}
    for i, item in enumerate(items):
        if is_map:
            item = item.get(merge_key) if isinstance(item, dict) else None
        t = type(item)
        key = (t, item) if t in _SCALARS else hkey(item)
        if key not in out:
            out[key] = i
    return out


def validate_merge_key_in_lists(merge_key: str, *lists: list[Any]) -> None:
    for items in lists:
        for item in items:
            if not isinstance(item, dict):
                raise err_bad_arg_type(MAP_TYPE, item)
            if merge_key not in item:
                raise err_no_merge_key(item, merge_key)


def extract_to_delete_items(items: list[Any]) -> tuple[list[Any], list[Any]]:
    keep: list[Any] = []
    delete: list[Any] = []
    for item in items:
        if not isinstance(item, dict):
            raise err_bad_arg_type(MAP_TYPE, item)
        if item.get(DIRECTIVE) == "delete" and isinstance(item.get(DIRECTIVE), str):
            delete.append(item)
        else:
            keep.append(item)
    return keep, delete


def normalize_slice_order(to_sort: list[Any], order: list[Any], merge_key: str, is_map: bool) -> list[Any]:
    """to_sort sorted (stably) by the position of each item in order; $patch: delete items last."""
    to_delete: list[Any] = []
    if is_map:
        validate_merge_key_in_lists(merge_key, to_sort, order)
        to_sort, to_delete = extract_to_delete_items(to_sort)
    positions = first_indices(order, merge_key, is_map)
    keys = [positions.get(hkey(merge_value(item, merge_key, is_map)), -1) for item in to_sort]
    if all(k >= 0 for k in keys):
        ranked = sorted(range(len(to_sort)), key=keys.__getitem__)
        out = [to_sort[i] for i in ranked]
    else:
        # An item the order does not know makes upstream's comparison inconsistent; the result then
        # depends on the sorting algorithm, so run Go's.
        out = _go_stable_sort(list(to_sort), keys)
    return out + to_delete


def merge_sorted_slice(
    left: list[Any], right: list[Any], server_order: list[Any], merge_key: str, is_map: bool
) -> list[Any]:
    """Interleave left (server-only items) into right (patch items) by the live order."""
    if not left:
        return right
    if not right:
        return left
    positions = first_indices(server_order, merge_key, is_map)
    out: list[Any] = []
    i = j = 0
    while i < len(left) and j < len(right):
        li = positions.get(hkey(merge_value(left[i], merge_key, is_map)), -1)
        ri = positions.get(hkey(merge_value(right[j], merge_key, is_map)), -1)
        if li >= 0 and ri >= 0 and li < ri:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    out.extend(left[i:])
    out.extend(right[j:])
    return out


def normalize_element_order(
    patch: list[Any],
    server_only: list[Any],
    patch_order: list[Any],
    server_order: list[Any],
    merge_key: str,
    is_map: bool,
) -> list[Any]:
    patch = normalize_slice_order(patch, patch_order, merge_key, is_map)
    server_only = normalize_slice_order(server_only, server_order, merge_key, is_map)
    return merge_sorted_slice(server_only, patch, server_order, merge_key, is_map)


def partition_primitives(items: list[Any], partition_by: list[Any]) -> tuple[list[Any], list[Any]]:
    present = {hkey(v) for v in partition_by}
    inside: list[Any] = []
    outside: list[Any] = []
    for v in items:
        (inside if hkey(v) in present else outside).append(v)
    return inside, outside


def partition_maps(items: list[Any], partition_by: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    # findMapInSliceBasedOnKeyValue searches partition_by from the start and fails at the first
    # element that is not a map, so only the entries before it can match.
    present: set[Any] = set()
    bad_index = -1
    for k, v in enumerate(partition_by):
        if not isinstance(v, dict):
            bad_index = k
            break
        if merge_key in v:
            present.add(hkey(v[merge_key]))
    inside: list[Any] = []
    outside: list[Any] = []
    for v in items:
        if not isinstance(v, dict):
            raise err_bad_arg_type(MAP_TYPE, v)
        if merge_key not in v:
            raise err_no_merge_key(v, merge_key)
        if hkey(v[merge_key]) in present:
            inside.append(v)
        elif bad_index >= 0:
            raise PatchError(f"value for key {bad_index} is not a map.")
        else:
            outside.append(v)
    return inside, outside


# --- Go's sort.SliceStable (insertion sort on blocks of 20, then SymMerge), for inconsistent orders


def _go_stable_sort(items: list[Any], keys: list[int]) -> list[Any]:
    data = list(zip(keys, items, strict=True))
    n = len(data)

    def less(i: int, j: int) -> bool:
        ki, kj = data[i][0], data[j][0]
        if ki >= 0 and kj >= 0:
            return ki < kj
        return True

    def swap(i: int, j: int) -> None:
        data[i], data[j] = data[j], data[i]

    _stable(less, swap, n)
    return [item for _, item in data]


def _insertion_sort(less: Callable[[int, int], bool], swap: Callable[[int, int], None], a: int, b: int) -> None:
    for i in range(a + 1, b):
        j = i
        while j > a and less(j, j - 1):
            swap(j, j - 1)
            j -= 1


def _stable(less: Callable[[int, int], bool], swap: Callable[[int, int], None], n: int) -> None:
    block = 20
    a, b = 0, block
    while b <= n:
        _insertion_sort(less, swap, a, b)
        a = b
        b += block
    _insertion_sort(less, swap, a, n)
    while block < n:
        a, b = 0, 2 * block
        while b <= n:
            _sym_merge(less, swap, a, a + block, b)
            a = b
            b += 2 * block
        m = a + block
        if m < n:
            _sym_merge(less, swap, a, m, n)
        block *= 2


def _sym_merge(less: Callable[[int, int], bool], swap: Callable[[int, int], None], a: int, m: int, b: int) -> None:
    if m - a == 1:
        i, j = m, b
        while i < j:
            h = (i + j) >> 1
            if less(h, a):
                i = h + 1
            else:
                j = h
        for k in range(a, i - 1):
            swap(k, k + 1)
        return
    if b - m == 1:
        i, j = a, m
        while i < j:
            h = (i + j) >> 1
            if not less(m, h):
                i = h + 1
            else:
                j = h
        for k in range(m, i, -1):
            swap(k, k - 1)
        return
    mid = (a + b) >> 1
    n = mid + m
    if m > mid:
        start, r = n - b, mid
    else:
        start, r = a, m
    p = n - 1
    while start < r:
        c = (start + r) >> 1
        if not less(p - c, c):
            start = c + 1
        else:
            r = c
    end = n - start
    if start < m < end:
        _rotate(swap, start, m, end)
    if a < start < mid:
        _sym_merge(less, swap, a, start, mid)
    if mid < end < b:
        _sym_merge(less, swap, mid, end, b)


def _rotate(swap: Callable[[int, int], None], a: int, m: int, b: int) -> None:
    i, j = m - a, b - m
    while i != j:
        if i > j:
            _swap_range(swap, m - i, m, j)
            i -= j
        else:
            _swap_range(swap, m - i, m + j - i, i)
            j -= i
    _swap_range(swap, m - i, m, i)


def _swap_range(swap: Callable[[int, int], None], a: int, b: int, n: int) -> None:
    for i in range(n):
        swap(a + i, b + i)
