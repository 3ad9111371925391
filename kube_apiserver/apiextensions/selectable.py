"""Selectable fields of custom resources (CRD spec.versions[*].selectableFields, GA in 1.32): the JSON
paths a field selector may name besides metadata.name and metadata.namespace, resolved against the
version's schema as kube's cel.ValidFieldPath does (no array notation), and the field set of an object.
"""

from __future__ import annotations

import re
from typing import Any

# the delimiters, a single-quoted name (dots and brackets inside it are the name's), or plain text
_TOKEN = re.compile(r"[.\[\]]|'(?:[^'\\]|\\.)*'|[^.\[\]']+|'")


def resolve_field_path(json_path: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None, str]:
    """(the field.Path it names, the schema it reaches, "" or kube's error text)."""
    tokens = _TOKEN.findall(json_path)
    path = ""
    node: Any = schema
    i = 0

    def step(name: str) -> str:
        nonlocal path, node
        if isinstance(node.get("properties"), dict):
            path = f"{path}.{name}" if path else name
            if name not in node["properties"]:
                return "does not refer to a valid field"
            node = node["properties"][name]
        elif isinstance(node.get("additionalProperties"), dict):
            path = f"{path}[{name}]"
            node = node["additionalProperties"]
        else:
            return "does not refer to a valid field"
        return ""

    while i < len(tokens):
        tok = tokens[i]
        if not isinstance(node, dict):
            return path, None, "does not refer to a valid field"
        if tok == ".":
            if i + 1 >= len(tokens):
                return path, None, "unexpected end of JSON path"
            err = step(tokens[i + 1])
            i += 2
        elif tok == "[":
            if i + 1 >= len(tokens):
                return path, None, "unexpected end of JSON path"
            quoted = tokens[i + 1]
            if len(quoted) < 2 or quoted[0] != "'" or quoted[-1] != "'":
                return path, None, f"expected single quoted string but got {quoted}"
            err = step(quoted[1:-1].replace("\\'", "'").replace("\\\\", "\\"))
            if i + 2 >= len(tokens):
                return path, None, "unexpected end of JSON path"
            if tokens[i + 2] != "]":
                return path, None, f"expected ] but got {tokens[i + 2]}"
            i += 3
        else:
            return path, None, f"expected [ or . but got: {tok}"
        if err:
            return path, None, err
    return path, node if isinstance(node, dict) else None, ""


def selectable_fields(version: dict[str, Any]) -> dict[str, str]:
    """Field selector name → dotted path into the object, for a served version's selectableFields."""
    out: dict[str, str] = {}
    for sf in version.get("selectableFields") or []:
        json_path = sf.get("jsonPath") if isinstance(sf, dict) else None
        if isinstance(json_path, str) and json_path.startswith("."):
            out[json_path[1:]] = json_path[1:]
    return out
