"""OpenAPI v2 (/openapi/v2) and v3 (/openapi/v3, one document per group/version) built from the
installed resources: paths, operations with their query parameters and x-kubernetes-action /
x-kubernetes-group-version-kind, so clients such as kubectl find which operations take dryRun and
fieldValidation. Each document is built once and served from cache with an ETag.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import orjson

from kube_apiserver.registry.resource_spec import ResourceSpec

_Q = "query"


def _param(name: str, type_: str, description: str, v3: bool) -> dict[str, Any]:
    if v3:
        return {"name": name, "in": _Q, "description": description, "schema": {"type": type_, "uniqueItems": True}}
    return {"uniqueItems": True, "type": type_, "description": description, "name": name, "in": _Q}


_WRITE_PARAMS = (
    ("dryRun", "string", "When present, indicates that modifications should not be persisted."),
    (
        "fieldManager",
        "string",
        "fieldManager is a name associated with the actor or entity that is making these changes.",
    ),
    (
        "fieldValidation",
        "string",
        "fieldValidation instructs the server on how to handle objects in the request "
        "(POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: Ignore, Warn, Strict.",
    ),
)
_LIST_PARAMS = (
    ("allowWatchBookmarks", "boolean", 'allowWatchBookmarks requests watch events with type "BOOKMARK".'),
    ("continue", "string", "The continue option should be set when retrieving more results from the server."),
    ("fieldSelector", "string", "A selector to restrict the list of returned objects by their fields."),
    ("labelSelector", "string", "A selector to restrict the list of returned objects by their labels."),
    ("limit", "integer", "limit is a maximum number of responses to return for a list call."),
    (
        "resourceVersion",
        "string",
        "resourceVersion sets a constraint on what resource versions a request may be served from.",
    ),
    ("resourceVersionMatch", "string", "resourceVersionMatch determines how resourceVersion is applied to list calls."),
    ("sendInitialEvents", "boolean", "`sendInitialEvents=true` may be set together with `watch=true`."),
    ("timeoutSeconds", "integer", "Timeout for the list/watch call."),
    (
        "watch",
        "boolean",
        "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.",
    ),
)
_DELETE_PARAMS = (
    ("dryRun", "string", "When present, indicates that modifications should not be persisted."),
    ("gracePeriodSeconds", "integer", "The duration in seconds before the object should be deleted."),
    ("propagationPolicy", "string", "Whether and how garbage collection will be performed."),
)
_PATCH_TYPES = (
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
)


def definition_name(spec: ResourceSpec, kind: str | None = None) -> str:
    """io.k8s.api.apps.v1.Deployment, io.k8s.api.core.v1.Pod, ..."""
    group = spec.group or "core"
    short = group.split(".")[0] if group.endswith(".k8s.io") and group.count(".") == 2 else group.replace(".k8s.io", "")
    if group == "apiextensions.k8s.io":
        return f"io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.{spec.version}.{kind or spec.kind}"
    if group == "apiregistration.k8s.io":
        return f"io.k8s.kube-aggregator.pkg.apis.apiregistration.{spec.version}.{kind or spec.kind}"
    return f"io.k8s.api.{short}.{spec.version}.{kind or spec.kind}"


def _op_id(action: str, spec: ResourceSpec, namespaced_path: bool, suffix: str = "") -> str:
    gv = (spec.group.split(".")[0] if spec.group else "core").title().replace("-", "") + spec.version.title()
    scope = "Namespaced" if namespaced_path else ""
    return f"{action}{gv}{scope}{spec.kind}{suffix}"


def _operation(
    action: str,
    verb_name: str,
    spec: ResourceSpec,
    params: tuple[tuple[str, str, str], ...],
    v3: bool,
    namespaced_path: bool,
    kind: str | None = None,
    body: bool = False,
    patch: bool = False,
    suffix: str = "",
) -> dict[str, Any]:
    ref_kind = kind or spec.kind
    ref = definition_name(spec, ref_kind)
    op: dict[str, Any] = {
        "tags": [(spec.group.replace(".k8s.io", "").replace(".", "_") or "core") + "_" + spec.version],
        "description": f"{verb_name} {spec.kind}",
        "operationId": _op_id(action, spec, namespaced_path, suffix),
        "parameters": [_param(n, t, d, v3) for n, t, d in params],
    }
    schema = {"$ref": ("#/components/schemas/" if v3 else "#/definitions/") + ref}
    if v3:
        if body:
            types = _PATCH_TYPES if patch else ("*/*",)
            op["requestBody"] = {
                "content": {t: {"schema": {"type": "object"} if patch else schema} for t in types},
                "required": True,
            }
        op["responses"] = {
            "200": {"description": "OK", "content": {"application/json": {"schema": schema}}},
            "401": {"description": "Unauthorized"},
        }
    else:
        if body:
            op["consumes"] = list(_PATCH_TYPES) if patch else ["*/*"]
            op["parameters"].insert(
                0, {"name": "body", "in": "body", "required": True, "schema": {"type": "object"} if patch else schema}
            )
        op["produces"] = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"]
        op["schemes"] = ["https"]
        op["responses"] = {"200": {"description": "OK", "schema": schema}, "401": {"description": "Unauthorized"}}
    op["x-kubernetes-action"] = action
    gvk = {"group": spec.group, "version": spec.version, "kind": spec.kind}
    if kind and kind != spec.kind:
        sub = spec.subresource("scale") if kind == "Scale" else None
        gvk = {"group": sub.group if sub else spec.group, "version": sub.version if sub else spec.version, "kind": kind}
    op["x-kubernetes-group-version-kind"] = gvk
    return op


def _paths(spec: ResourceSpec, v3: bool) -> dict[str, dict[str, Any]]:
    root = f"/apis/{spec.group}/{spec.version}" if spec.group else f"/api/{spec.version}"
    base = f"{root}/namespaces/{{namespace}}/{spec.resource}" if spec.namespaced else f"{root}/{spec.resource}"
    paths: dict[str, dict[str, Any]] = {}
    verbs = set(spec.verbs)
    ns = spec.namespaced
    path_params = (
        [
            {
                "name": "namespace",
                "in": "path",
                "required": True,
                **({"schema": {"type": "string"}} if v3 else {"type": "string"}),
            }
        ]
        if ns
        else []
    )
    name_param = {
        "name": "name",
        "in": "path",
        "required": True,
        **({"schema": {"type": "string"}} if v3 else {"type": "string"}),
    }
    coll: dict[str, Any] = {}
    if "list" in verbs:
        coll["get"] = _operation(
            "list", "list or watch objects of kind", spec, _LIST_PARAMS, v3, ns, f"{spec.kind}List", suffix=""
        )
        coll["get"]["operationId"] = _op_id("list", spec, ns)
        coll["get"]["x-kubernetes-action"] = "list"
    if "create" in verbs:
        coll["post"] = _operation("post", "create a", spec, _WRITE_PARAMS, v3, ns, body=True)
        coll["post"]["operationId"] = _op_id("create", spec, ns)
    if "deletecollection" in verbs:
        coll["delete"] = _operation(
            "deletecollection", "delete collection of", spec, _DELETE_PARAMS + _LIST_PARAMS[:7], v3, ns
        )
        coll["delete"]["operationId"] = _op_id("deleteCollection", spec, ns)
    if coll:
        coll["parameters"] = path_params
        paths[base] = coll
    item: dict[str, Any] = {}
    if "get" in verbs:
        item["get"] = _operation("get", "read the specified", spec, (), v3, ns)
        item["get"]["operationId"] = _op_id("read", spec, ns)
    if "update" in verbs:
        item["put"] = _operation("put", "replace the specified", spec, _WRITE_PARAMS, v3, ns, body=True)
        item["put"]["operationId"] = _op_id("replace", spec, ns)
    if "patch" in verbs:
        force = ("force", "boolean", 'Force is going to "force" Apply requests.')
        item["patch"] = _operation(
            "patch", "partially update the specified", spec, (*_WRITE_PARAMS, force), v3, ns, body=True, patch=True
        )
        item["patch"]["operationId"] = _op_id("patch", spec, ns)
    if "delete" in verbs:
        item["delete"] = _operation("delete", "delete a", spec, _DELETE_PARAMS, v3, ns)
        item["delete"]["operationId"] = _op_id("delete", spec, ns)
    if item:
        item["parameters"] = [name_param, *path_params]
        paths[f"{base}/{{name}}"] = item
    for sub in spec.subresources:
        if sub.name not in ("status", "scale"):
            continue
        kind = sub.kind
        sp: dict[str, Any] = {"parameters": [name_param, *path_params]}
        sfx = "Status" if sub.name == "status" else "Scale"
        sp["get"] = _operation("get", f"read {sub.name} of the specified", spec, (), v3, ns, kind)
        sp["get"]["operationId"] = _op_id("read", spec, ns, sfx)
        sp["put"] = _operation(
            "put", f"replace {sub.name} of the specified", spec, _WRITE_PARAMS, v3, ns, kind, body=True
        )
        sp["put"]["operationId"] = _op_id("replace", spec, ns, sfx)
        sp["patch"] = _operation(
            "patch",
            f"partially update {sub.name} of the specified",
            spec,
            _WRITE_PARAMS,
            v3,
            ns,
            kind,
            body=True,
            patch=True,
        )
        sp["patch"]["operationId"] = _op_id("patch", spec, ns, sfx)
        paths[f"{base}/{{name}}/{sub.name}"] = sp
    return paths


def _schemas(specs: list[ResourceSpec]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for spec in specs:
        gvk = [{"group": spec.group, "version": spec.version, "kind": spec.kind}]
        out[definition_name(spec)] = {
            "description": f"{spec.kind} of {spec.group_version}",
            "type": "object",
            "x-kubernetes-group-version-kind": gvk,
        }
        out[definition_name(spec, spec.list_kind)] = {
            "description": f"{spec.list_kind} is a list of {spec.kind}",
            "type": "object",
            "x-kubernetes-group-version-kind": [{**gvk[0], "kind": spec.list_kind}],
        }
    return out


@dataclass
class CachedDocument:
    body: bytes
    etag: str


def _cached(doc: dict[str, Any]) -> CachedDocument:
    body = orjson.dumps(doc)
    return CachedDocument(body, hashlib.sha512(body).hexdigest()[:128].upper())


def build_v3(group_versions: dict[str, list[ResourceSpec]]) -> tuple[CachedDocument, dict[str, CachedDocument]]:
    """The index and one document per group/version (keyed "api/v1", "apis/apps/v1")."""
    docs: dict[str, CachedDocument] = {}
    for key, specs in group_versions.items():
        paths: dict[str, Any] = {}
        for spec in specs:
            if spec.persisted or "create" in spec.verbs:
                paths.update(_paths(spec, True))
        doc = {
            "openapi": "3.0.0",
            "info": {"title": "Kubernetes", "version": "v1.33.0"},
            "paths": paths,
            "components": {"schemas": _schemas(specs)},
        }
        docs[key] = _cached(doc)
    index = {"paths": {k: {"serverRelativeURL": f"/openapi/v3/{k}?hash={d.etag}"} for k, d in sorted(docs.items())}}
    return _cached(index), docs


def build_v2(all_specs: list[ResourceSpec]) -> CachedDocument:
    paths: dict[str, Any] = {}
    for spec in all_specs:
        paths.update(_paths(spec, False))
    doc = {
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": "v1.33.0"},
        "paths": paths,
        "definitions": _schemas(all_specs),
        "securityDefinitions": {
            "BearerToken": {
                "description": "Bearer Token authentication",
                "type": "apiKey",
                "name": "authorization",
                "in": "header",
            }
        },
        "security": [{"BearerToken": []}],
    }
    return _cached(doc)
