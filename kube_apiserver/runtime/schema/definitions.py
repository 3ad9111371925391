"""The Kubernetes 1.33 OpenAPI definitions of the built-in types, read from the kubernetes-validate
package (kubernetes-json-schema/v1.33.0-local/_definitions.json) at first use.

That file is the swagger "definitions" in JSON Schema form: references are "#/$defs/<name>", and a
field that is not required is typed ["<type>", "null"]. openapi_definitions() turns it back into
OpenAPI form (single types, "#/definitions/<name>" references) with every x-kubernetes-* extension
kept, which both the OpenAPI documents and the structural schema engine start from.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import orjson

KUBERNETES_VERSION = "v1.33.0"
_REF_PREFIX = "#/$defs/"


@cache
def raw_definitions() -> dict[str, Any]:
    path = (
        resources.files("kubernetes_validate")
        / "kubernetes-json-schema"
        / f"{KUBERNETES_VERSION}-local"
        / "_definitions.json"
    )
    return orjson.loads(path.read_bytes())["$defs"]


def _to_openapi(node: Any, ref_prefix: str) -> Any:
    if isinstance(node, list):
        return [_to_openapi(v, ref_prefix) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k == "$ref" and isinstance(v, str) and v.startswith(_REF_PREFIX):
            out[k] = ref_prefix + v[len(_REF_PREFIX) :]
        elif k == "type" and isinstance(v, list):
            types = [t for t in v if t != "null"]
            if len(types) == 1:
                out[k] = types[0]
            elif types:
                out[k] = types
        elif k in ("properties", "patternProperties", "$defs"):
            out[k] = {name: _to_openapi(sub, ref_prefix) for name, sub in v.items()}
        else:
            out[k] = _to_openapi(v, ref_prefix)
    # int-or-string and quantity are written as oneOf [string, integer|number] in JSON Schema form;
    # OpenAPI has them as a string with a format.
    one_of = out.get("oneOf")
    if isinstance(one_of, list) and len(one_of) == 2 and not out.get("type"):
        types = {o.get("type") for o in one_of if isinstance(o, dict)}
        if types == {"string", "integer"}:
            out.pop("oneOf")
            out.update({"type": "string", "format": "int-or-string"})
        elif types == {"string", "number"}:
            out.pop("oneOf")
            out.update({"type": "string", "format": "quantity"})
    # "enum" on apiVersion/kind is this file's own addition, not kube's.
    return out


@cache
def openapi_definitions(ref_prefix: str = "#/definitions/") -> dict[str, dict[str, Any]]:
    """name → schema in OpenAPI v2 form ("#/components/schemas/" as ref_prefix gives v3 refs)."""
    out = {}
    for name, schema in raw_definitions().items():
        converted = _to_openapi(schema, ref_prefix)
        props = converted.get("properties") or {}
        if converted.get("x-kubernetes-group-version-kind"):
            for key in ("apiVersion", "kind"):
                if isinstance(props.get(key), dict):
                    props[key].pop("enum", None)
        out[name] = converted
    return out


@cache
def gvk_index() -> dict[tuple[str, str, str], str]:
    """(group, version, kind) → definition name, from x-kubernetes-group-version-kind."""
    index: dict[tuple[str, str, str], str] = {}
    for name, schema in raw_definitions().items():
        for gvk in schema.get("x-kubernetes-group-version-kind") or ():
            key = (gvk.get("group", ""), gvk.get("version", ""), gvk.get("kind", ""))
            # meta types (DeleteOptions, WatchEvent, ...) list every group; the first name wins.
            index.setdefault(key, name)
    return index


def definition_name(group: str, version: str, kind: str) -> str | None:
    return gvk_index().get((group, version, kind))
