"""The lists library (library.Lists): isSorted, sum, min, max, indexOf and lastIndexOf on lists."""

from __future__ import annotations

from typing import Any

from cel_expr_python import cel

from kube_apiserver.runtime.cel.library import CELError, Decl, decl, overload
from kube_apiserver.runtime.cel.types import to_cel

_T = cel.Type


def _sum(items: list[Any]) -> Any:
    if not items:
        return 0
    total = items[0]
    for item in items[1:]:
        total = total + item
    return to_cel(total)


def _is_sorted(items: list[Any]) -> bool:
    return all(items[i] <= items[i + 1] for i in range(len(items) - 1))


def _min(items: list[Any]) -> Any:
    if not items:
        raise CELError("min(list) called on empty list")
    return to_cel(min(items))


def _max(items: list[Any]) -> Any:
    if not items:
        raise CELError("max(list) called on empty list")
    return to_cel(max(items))


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def _index_of(items: list[Any], value: Any) -> int:
    for i, item in enumerate(items):
        if _equal(item, value):
            return i
    return -1


def _last_index_of(items: list[Any], value: Any) -> int:
    for i in range(len(items) - 1, -1, -1):
        if _equal(items[i], value):
            return i
    return -1


_ELEMENTS = {
    "int": _T.INT,
    "uint": _T.UINT,
    "double": _T.DOUBLE,
    "bool": _T.BOOL,
    "string": _T.STRING,
    "bytes": _T.BYTES,
    "duration": _T.DURATION,
    "timestamp": _T.TIMESTAMP,
}
_SUMMABLE = ("int", "uint", "double", "duration")


def decls() -> list[Decl]:
    # Typed overloads give the checker the element type as result, as Go's type parameters do; at run
    # time they share one implementation (see Spec).
    sorted_, mins, maxs, sums = [], [], [], []
    for name, t in _ELEMENTS.items():
        lt = _T.List(t)
        sorted_.append(overload(f"list_{name}_is_sorted_bool", _T.BOOL, [lt], _is_sorted, True))
        mins.append(overload(f"list_{name}_min_{name}", t, [lt], _min, True))
        maxs.append(overload(f"list_{name}_max_{name}", t, [lt], _max, True))
        if name in _SUMMABLE:
            sums.append(overload(f"list_{name}_sum_{name}", t, [lt], _sum, True))
    dl, dyn = _T.List(_T.DYN), _T.DYN
    return [
        decl("isSorted", sorted_),
        decl("sum", sums),
        decl("min", mins),
        decl("max", maxs),
        decl("indexOf", [overload("list_a_index_of_int", _T.INT, [dl, dyn], _index_of, True)]),
        decl("lastIndexOf", [overload("list_a_last_index_of_int", _T.INT, [dl, dyn], _last_index_of, True)]),
    ]
