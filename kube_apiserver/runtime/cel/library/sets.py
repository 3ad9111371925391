"""cel-go's sets extension (ext.Sets, in Kubernetes' environment since 1.29): sets.contains,
sets.equivalent and sets.intersects over lists, with CEL's equality (1 == 1.0)."""

from __future__ import annotations

from typing import Any

from cel_expr_python import cel

from kube_apiserver.runtime.cel.library import Decl, decl, overload

_L = cel.Type.List(cel.Type.DYN)


def _eq(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def _contains(a: list[Any], b: list[Any]) -> bool:
    return all(any(_eq(x, y) for y in a) for x in b)


def decls() -> list[Decl]:
    out = [
        decl("sets.contains", [overload("list_sets_contains_list", cel.Type.BOOL, [_L, _L], _contains)]),
        decl(
            "sets.equivalent",
            [
                overload(
                    "list_sets_equivalent_list",
                    cel.Type.BOOL,
                    [_L, _L],
                    lambda a, b: _contains(a, b) and _contains(b, a),
                )
            ],
        ),
        decl(
            "sets.intersects",
            [
                overload(
                    "list_sets_intersects_list",
                    cel.Type.BOOL,
                    [_L, _L],
                    lambda a, b: any(_eq(x, y) for x in a for y in b),
                )
            ],
        ),
    ]
    return out
