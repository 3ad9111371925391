"""The regex library (library.Regex): <string>.find(<regex>) <string> and
<string>.findAll(<regex>[, <limit>]) <list<string>>."""

from __future__ import annotations

import re
from functools import lru_cache

from cel_expr_python import cel

from kube_apiserver.runtime.cel.library import CELError, Decl, decl, overload

_S, _I = cel.Type.STRING, cel.Type.INT


@lru_cache(maxsize=256)
def compile_regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as e:
        raise CELError(f"error parsing regexp: {e}") from None


def _find(text: str, pattern: str) -> str:
    m = compile_regex(pattern).search(text)
    return m.group(0) if m else ""


def _find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    out = []
    for m in compile_regex(pattern).finditer(text):
        if 0 <= limit <= len(out):
            break
        out.append(m.group(0))
    return out


def decls() -> list[Decl]:
    out = [
        decl("find", [overload("string_find_string", _S, [_S, _S], _find, True)]),
        decl(
            "findAll",
            [
                overload("string_find_all_string", cel.Type.List(_S), [_S, _S], _find_all, True),
                overload("string_find_all_string_int", cel.Type.List(_S), [_S, _S, _I], _find_all, True),
            ],
        ),
    ]
    return out
