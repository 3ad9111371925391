"""The JSONPath subset of additionalPrinterColumns (k8s.io/client-go/util/jsonpath as CRD columns use
it): `.spec.replicas`, `.status.conditions[0].type`, `.items[*].name`,
`.status.conditions[?(@.type=="Ready")].status`."""

from __future__ import annotations

import re
from typing import Any

_STEP = re.compile(r"\.([^.\[]+)|\[(\d+|\*)\]|\[\?\(@\.([\w.-]+)\s*==\s*[\"']([^\"']*)[\"']\)\]")


def evaluate(path: str, obj: Any) -> list[Any]:
    """Every value path selects in obj (empty when nothing matches)."""
    text = path.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1]
    if text.startswith("$"):
        text = text[1:]
    values = [obj]
    pos = 0
    while pos < len(text):
        m = _STEP.match(text, pos)
        if m is None:
            return []
        pos = m.end()
        key, index, fkey, fval = m.groups()
        out: list[Any] = []
        for v in values:
            if key is not None:
                if isinstance(v, dict) and key in v:
                    out.append(v[key])
            elif index is not None:
                if isinstance(v, list):
                    if index == "*":
                        out.extend(v)
                    elif int(index) < len(v):
                        out.append(v[int(index)])
            elif isinstance(v, list):
                out.extend(i for i in v if isinstance(i, dict) and str(_lookup(i, fkey)) == fval)
        values = out
    return values


def _lookup(obj: dict[str, Any], dotted: str) -> Any:
    cur: Any = obj
    for part in dotted.split("."):
        if not isinstance(cur, dict):
            return None
        cur = cur.get(part)
    return cur
