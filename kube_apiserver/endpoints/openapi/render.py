"""Rendering the operations of routes.py as OpenAPI v2 (swagger) and v3 path items.

Both follow kube-openapi's builders: the parameters every operation of a path has (matched by name
and location; never a body) move up to the path item, the rest stay on the operations, each list
sorted by name; the v2 document refers to its shared parameters through "#/parameters/<name>".
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable
from typing import Any

import orjson

from kube_apiserver.endpoints.openapi.params import AUTO, Param
from kube_apiserver.endpoints.openapi.routes import STRING, Operation, PathItem
from kube_apiserver.runtime.schema.definitions import V2_REF_PREFIX, V3_REF_PREFIX

UNAUTHORIZED = {"description": "Unauthorized"}


def split_params(item: PathItem) -> tuple[list[Param], list[list[Param]]]:
    """(path-level parameters, each operation's own), as kube-openapi's findCommonParameters does."""
    ops = item.operations
    keys = [{(p.name, p.location) for p in op.params} for op in ops]
    common = set.intersection(*keys) if keys else set()
    common = {k for k in common if k[1] != "body"}
    shared: dict[tuple[str, str], Param] = {}
    rest: list[list[Param]] = []
    for op in ops:
        own = []
        for p in op.params:
            if (p.name, p.location) in common:
                shared.setdefault((p.name, p.location), p)
            else:
                own.append(p)
        rest.append(sorted(own, key=Param.sort_key))
    return sorted(shared.values(), key=Param.sort_key), rest


def _gvk(gvk: tuple[str, str, str]) -> dict[str, str]:
    return {"group": gvk[0], "kind": gvk[2], "version": gvk[1]}


def _schema(ref: str | None, prefix: str) -> dict[str, Any]:
    return {"type": "string"} if ref == STRING else {"$ref": prefix + str(ref)}


# --- v2 ----------------------------------------------------------------------------------------------


def param_v2(p: Param) -> dict[str, Any]:
    if p.location == "body":
        out: dict[str, Any] = {"in": "body", "name": p.name}
        if p.required:
            out["required"] = True
        out["schema"] = {"$ref": V2_REF_PREFIX + p.type}
        return out
    out = {"description": p.description, "in": p.location, "name": p.name}
    if p.required:
        out["required"] = True
    out.update({"type": p.type, "uniqueItems": True})
    return out


def shared_name(p: Param) -> str:
    if p.shared != AUTO:
        return p.shared
    digest = hashlib.sha224(orjson.dumps(param_v2(p), option=orjson.OPT_SORT_KEYS)).digest()[:6]
    return f"{p.name}-{base64.urlsafe_b64encode(digest).decode()}"


class V2Params:
    """Collects the shared parameters a v2 document refers to."""

    def __init__(self) -> None:
        self.shared: dict[str, dict[str, Any]] = {}

    def render(self, params: Iterable[Param]) -> list[dict[str, Any]]:
        out = []
        for p in params:
            if not p.shared:
                out.append(param_v2(p))
                continue
            name = shared_name(p)
            self.shared.setdefault(name, param_v2(p))
            out.append({"$ref": "#/parameters/" + name})
        return out


def operation_v2(op: Operation, own: list[Param], params: V2Params) -> dict[str, Any]:
    out: dict[str, Any] = {"consumes": list(op.consumes), "description": op.description, "operationId": op.operation_id}
    if own:
        out["parameters"] = params.render(own)
    out["produces"] = list(op.produces)
    responses: dict[str, Any] = {}
    for code, desc, ref in op.responses:
        responses[code] = {"description": desc, "schema": _schema(ref, V2_REF_PREFIX)}
    if op.authenticated:
        responses["401"] = UNAUTHORIZED
    out["responses"] = responses
    out["schemes"] = ["https"]
    out["tags"] = [op.tag]
    if op.action:
        out["x-kubernetes-action"] = op.action
    if op.gvk:
        out["x-kubernetes-group-version-kind"] = _gvk(op.gvk)
    return out


def path_item_v2(item: PathItem, params: V2Params) -> dict[str, Any]:
    common, own = split_params(item)
    out: dict[str, Any] = {}
    for op, op_params in zip(item.operations, own, strict=True):
        out[op.method] = operation_v2(op, op_params, params)
    if common:
        out["parameters"] = params.render(common)
    return out


# --- v3 ----------------------------------------------------------------------------------------------


def param_v3(p: Param) -> dict[str, Any]:
    out: dict[str, Any] = {"description": p.description, "in": p.location, "name": p.name}
    if p.required:
        out["required"] = True
    out["schema"] = {"type": p.type, "uniqueItems": True}
    return out


def operation_v3(op: Operation, own: list[Param]) -> dict[str, Any]:
    out: dict[str, Any] = {"description": op.description, "operationId": op.operation_id}
    plain = [p for p in own if p.location != "body"]
    if plain:
        out["parameters"] = [param_v3(p) for p in plain]
    for body in (p for p in own if p.location == "body"):
        ref = {"schema": {"$ref": V3_REF_PREFIX + body.type}}
        request: dict[str, Any] = {"content": {ct: ref for ct in op.consumes}}
        if body.required:
            request["required"] = True
        out["requestBody"] = request
    responses: dict[str, Any] = {}
    for code, desc, ref_name in op.responses:
        schema = {"schema": _schema(ref_name, V3_REF_PREFIX)}
        responses[code] = {"content": {mt: schema for mt in op.produces}, "description": desc}
    if op.authenticated:
        responses["401"] = UNAUTHORIZED
    out["responses"] = responses
    out["tags"] = [op.tag]
    if op.action:
        out["x-kubernetes-action"] = op.action
    if op.gvk:
        out["x-kubernetes-group-version-kind"] = _gvk(op.gvk)
    return out


def path_item_v3(item: PathItem) -> dict[str, Any]:
    common, own = split_params(item)
    out: dict[str, Any] = {}
    for op, op_params in zip(item.operations, own, strict=True):
        out[op.method] = operation_v3(op, op_params)
    if common:
        out["parameters"] = [param_v3(p) for p in common]
    return out


def referenced(node: Any, prefix: str, out: set[str]) -> None:
    """The definition names a document (or a schema) refers to, directly."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str) and v.startswith(prefix):
                out.add(v[len(prefix) :])
            else:
                referenced(v, prefix, out)
    elif isinstance(node, list):
        for v in node:
            referenced(v, prefix, out)


def closure(roots: set[str], definitions: dict[str, Any], prefix: str) -> dict[str, Any]:
    """Every definition reachable from roots, in name order."""
    seen: set[str] = set()
    todo = [r for r in roots if r in definitions]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        refs: set[str] = set()
        referenced(definitions[name], prefix, refs)
        todo.extend(r for r in refs if r in definitions and r not in seen)
    return {name: definitions[name] for name in sorted(seen)}
