"""Kubernetes' CEL function libraries (k8s.io/apiserver/pkg/cel/library), implemented in Python.

A function that fails raises CELError: cel-expr-python turns the exception into a CEL error value
carrying its message, as a Go library function returns types.NewErr.

Each library lists its overloads as Specs. The checker gets every overload (their types drive overload
resolution and the result type), but cel-cpp's runtime dispatches on value kinds only (every message is
a message, every list a list), so the runtime environment registers one implementation per runtime
signature: the first spec of that signature, whose implementation serves the others too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cel_expr_python import cel


class CELError(Exception):
    """An evaluation error raised by a library function; str() is the message CEL reports."""


@dataclass(frozen=True)
class Spec:
    oid: str
    result: cel.Type
    params: tuple[cel.Type, ...]
    impl: Callable[..., Any] | None
    member: bool


@dataclass(frozen=True)
class Decl:
    name: str
    overloads: tuple[Spec, ...]


def overload(
    oid: str, result: cel.Type, params: list[cel.Type], impl: Callable[..., Any] | None = None, member: bool = False
) -> Spec:
    return Spec(oid, result, tuple(params), impl, member)


def decl(name: str, overloads: list[Spec]) -> Decl:
    return Decl(name, tuple(overloads))


def _runtime_kind(t: cel.Type) -> str:
    if t.is_message():
        return "message"
    name = t.name()
    for prefix in ("list", "map", "optional"):
        if name.lower().startswith(prefix):
            return prefix
    return name


def all_decls() -> list[Decl]:
    from kube_apiserver.runtime.cel.library import formats, ip, lists, quantity, regex, sets, urls

    out: list[Decl] = []
    for module in (lists, regex, urls, quantity, ip, formats, sets):
        out.extend(module.decls())
    return out


def checker_extension() -> cel.CelExtension:
    """Every overload, for type checking (an environment built from it must not evaluate)."""
    return cel.CelExtension(
        "kubernetes",
        [
            cel.FunctionDecl(
                d.name, [cel.Overload(s.oid, s.result, list(s.params), is_member=s.member) for s in d.overloads]
            )
            for d in all_decls()
        ],
    )


def runtime_extension() -> cel.CelExtension:
    """One implemented overload per runtime signature, for evaluating checked expressions."""
    decls = []
    for d in all_decls():
        seen: set[tuple[bool, tuple[str, ...]]] = set()
        overloads = []
        for s in d.overloads:
            key = (s.member, tuple(_runtime_kind(p) for p in s.params))
            if key in seen or s.impl is None:
                continue
            seen.add(key)
            # dyn: the implementation may serve overloads of other result types (the checker typed them)
            overloads.append(cel.Overload(s.oid, cel.Type.DYN, list(s.params), is_member=s.member, impl=s.impl))
        decls.append(cel.FunctionDecl(d.name, overloads))
    return cel.CelExtension("kubernetes", decls)
