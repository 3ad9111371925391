"""The OpenAPI of one served version of a CRD (apiextensions-apiserver/pkg/controller/openapi/builder):
the kind's definition made from its structural schema (named by the reversed group, with apiVersion,
kind and an ObjectMeta reference, x-kubernetes-group-version-kind), its List kind, and the paths
kube's builder declares for a custom resource (list, create, deletecollection, read, replace, delete,
patch; status and scale when the version has those subresources), rendered as OpenAPI v2 (what
/openapi/v2 merges in) and as the v3 document of the group-version.

Operations, parameters and their rendering are the built-in ones' (endpoints/openapi); what differs
for custom resources is spelled out here: media types (JSON and YAML only), the option parameters
(GetOptions on read, every ListOptions field on list and deletecollection, no DeleteOptions on
deletecollection), the responses (patch answers 200 only) and no watch paths.
"""

from __future__ import annotations

from typing import Any

from kube_apiserver.apiextensions.openapi_schema import to_kube_openapi, wrap_refs
from kube_apiserver.endpoints.openapi import params as P
from kube_apiserver.endpoints.openapi.params import Param
from kube_apiserver.endpoints.openapi.render import V2Params, closure, path_item_v2, path_item_v3, referenced
from kube_apiserver.endpoints.openapi.routes import STATUS, Operation, PathItem, article, op_id, tag_for
from kube_apiserver.runtime.schema.definitions import V2_REF_PREFIX, V3_REF_PREFIX, openapi_definitions

CRD_INFO = {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"}
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
LIST_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
SCALE = "io.k8s.api.autoscaling.v1.Scale"
# The swagger docs of PartialObjectMetadata(List).metadata, which kube's builder reuses.
METADATA_DESCRIPTION = (
    "Standard object's metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)
LIST_METADATA_DESCRIPTION = (
    "Standard list metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)
EMBEDDED_API_VERSION = (
    "apiVersion defines the versioned schema of this representation of an object. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
)
EMBEDDED_KIND = (
    "kind is a string value representing the type of this object. In CamelCase. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)
_MEDIA = ("application/json", "application/yaml")
_PATCH_MEDIA = ("application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml")
# GetOptions has one field; its description is ListOptions' resourceVersion's.
_GET = tuple(p for p in P.LIST if p.name == "resourceVersion")


def definition_name(group: str, version: str, kind: str) -> str:
    """kube's friendlyName of "<group>/<version>.<kind>": the group's labels reversed."""
    return ".".join(reversed(group.split("."))) + f".{version}.{kind}"


def _names(crd: dict[str, Any]) -> dict[str, Any]:
    names = (crd.get("spec") or {}).get("names")
    return names if isinstance(names, dict) else {}


def _type_meta(prefix: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """TypeMeta's apiVersion and kind properties, as every built-in kind carries them."""
    props = openapi_definitions(prefix)["io.k8s.api.core.v1.ConfigMap"]["properties"]
    return dict(props["apiVersion"]), dict(props["kind"])


def _meta_ref(prefix: str, name: str, description: str) -> dict[str, Any]:
    return {"$ref": prefix + name, "description": description}


def build_kind_schema(crd: dict[str, Any], version: str, schema: dict[str, Any] | None, *, v2: bool) -> dict[str, Any]:
    """buildKubeNative: the kind's definition from the version's schema (None: not structural)."""
    spec = crd.get("spec") or {}
    gvk = [{"group": spec.get("group", ""), "kind": _names(crd).get("kind", ""), "version": version}]
    prefix = V2_REF_PREFIX if v2 else V3_REF_PREFIX
    if schema is None or (v2 and (schema.get("x-kubernetes-preserve-unknown-fields") is True)):
        # kubectl would take an object with properties as closed and reject every other field.
        return {"type": "object", "x-kubernetes-group-version-kind": gvk}
    out = to_kube_openapi(schema, v2=v2)
    props = out.setdefault("properties", {})
    props["metadata"] = _meta_ref(prefix, OBJECT_META, METADATA_DESCRIPTION)
    props["apiVersion"], props["kind"] = _type_meta(prefix)
    _add_embedded_properties(out, prefix, v2)
    out["x-kubernetes-group-version-kind"] = gvk
    return out


def _add_embedded_properties(s: dict[str, Any], prefix: str, v2: bool) -> None:
    """addEmbeddedProperties: an embedded resource gets TypeMeta and ObjectMeta, and requires both."""
    for sub in (s.get("properties") or {}).values():
        if isinstance(sub, dict):
            _add_embedded_properties(sub, prefix, v2)
    for key in ("items", "additionalProperties"):
        if isinstance(s.get(key), dict):
            _add_embedded_properties(s[key], prefix, v2)
    if v2 and s.get("x-kubernetes-preserve-unknown-fields") is True:
        return
    if s.get("x-kubernetes-embedded-resource") is True:
        api_version, kind = _type_meta(prefix)
        props = s.setdefault("properties", {})
        props["apiVersion"] = {**api_version, "description": EMBEDDED_API_VERSION}
        props["kind"] = {**kind, "description": EMBEDDED_KIND}
        props["metadata"] = _meta_ref(prefix, OBJECT_META, METADATA_DESCRIPTION)
        required = list(s.get("required") or [])
        for name in ("kind", "apiVersion"):
            if name not in required:
                required.append(name)
        s["required"] = required


def build_list_schema(crd: dict[str, Any], version: str, *, v2: bool) -> dict[str, Any]:
    spec = crd.get("spec") or {}
    names = _names(crd)
    group, kind, list_kind = spec.get("group", ""), names.get("kind", ""), names.get("listKind", "")
    prefix = V2_REF_PREFIX if v2 else V3_REF_PREFIX
    api_version, kind_prop = _type_meta(prefix)
    return {
        "description": f"{list_kind} is a list of {kind}",
        "properties": {
            "apiVersion": api_version,
            "items": {
                "description": f"List of {names.get('plural', '')}. More info: "
                "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md",
                "items": {"$ref": prefix + definition_name(group, version, kind)},
                "type": "array",
            },
            "kind": kind_prop,
            "metadata": _meta_ref(prefix, LIST_META, LIST_METADATA_DESCRIPTION),
        },
        "required": ["items"],
        "type": "object",
        "x-kubernetes-group-version-kind": [{"group": group, "kind": list_kind, "version": version}],
    }


class _Routes:
    """The routes generateBuilder declares for one version, in the project's operation model."""

    def __init__(self, crd: dict[str, Any], version: str, subresources: dict[str, Any]) -> None:
        spec = crd.get("spec") or {}
        names = _names(crd)
        self.group, self.version = spec.get("group", ""), version
        self.kind, self.plural = names.get("kind", ""), names.get("plural", "")
        self.namespaced = spec.get("scope") != "Cluster"
        self.obj = definition_name(self.group, version, self.kind)
        self.list = definition_name(self.group, version, names.get("listKind", ""))
        self.subresources = subresources
        self.paths: dict[str, PathItem] = {}

    def route(
        self,
        path: str,
        method: str,
        action: str,
        verb: str,
        sample: str,
        options: tuple[Param, ...],
        *,
        sub: str = "",
        name: str = "",
        body: Param | None = None,
    ) -> None:
        ns = "Namespaced" if self.namespaced else ""
        params: list[Param] = [P.PRETTY]
        if "{namespace}" in path:
            params.append(P.NAMESPACE)
        if "{name}" in path:
            params.append(P.name_param(self.kind))
        if body is not None:
            params.append(body)
        params.extend(options)
        responses = [("200", "OK", sample)]
        if action == "post":
            responses += [("201", "Created", sample), ("202", "Accepted", sample)]
        elif action == "put":
            responses.append(("201", "Created", sample))
        elif action == "delete":
            responses.append(("202", "Accepted", sample))
        rest = name or (ns + self.kind + sub.title())
        id_verb = verb
        if verb == "deletecollection":  # kube-openapi takes the shortest verb prefix: "delete" + "collection..."
            id_verb, rest = "delete", "collection" + rest
        op = Operation(
            method,
            op_id(id_verb, self.group, self.version, rest),
            self._description(verb, sub),
            tag_for(self.group, self.version),
            params,
            responses,
            produces=_MEDIA,
            consumes=_PATCH_MEDIA if method == "patch" else _MEDIA,
            action=action,
            gvk=(self.group, self.version, self.kind),
        )
        self.paths.setdefault(path, PathItem(path)).operations.append(op)

    def _description(self, verb: str, sub: str) -> str:
        of = f" {sub} of" if sub else ""
        if verb == "patch":
            return f"partially update{of} the specified {self.kind}"
        if verb == "deletecollection":
            return f"delete collection of{of + ' a' if sub else ''} {self.kind}"
        if verb == "list":
            return f"list{of} objects of kind {self.kind}"
        if verb in ("read", "replace"):
            return f"{verb}{of} the specified {self.kind}"
        return f"{verb}{of}{article(self.kind)}{self.kind}"

    def build(self) -> dict[str, PathItem]:
        root = f"/apis/{self.group}/{self.version}/{self.plural}"
        if self.namespaced:
            self.route(root, "get", "list", "list", self.list, P.LIST, name=f"{self.kind}ForAllNamespaces")
            root = f"/apis/{self.group}/{self.version}/namespaces/{{namespace}}/{self.plural}"
        obj, item = self.obj, f"{root}/{{name}}"
        self.route(root, "get", "list", "list", self.list, P.LIST)
        self.route(root, "post", "post", "create", obj, P.CREATE, body=P.body_param(obj))
        self.route(root, "delete", "deletecollection", "deletecollection", STATUS, P.LIST)
        self.route(item, "get", "get", "read", obj, _GET)
        self.route(item, "put", "put", "replace", obj, P.UPDATE, body=P.body_param(obj))
        self.route(item, "delete", "delete", "delete", STATUS, P.DELETE, body=P.DELETE_BODY)
        self.route(item, "patch", "patch", "patch", obj, P.PATCH, body=P.PATCH_BODY_PARAM)
        for sub, sample in (("status", obj), ("scale", SCALE)):
            if isinstance(self.subresources.get(sub), dict):
                path = f"{item}/{sub}"
                self.route(path, "get", "get", "read", sample, _GET, sub=sub)
                self.route(path, "put", "put", "replace", sample, P.UPDATE, sub=sub, body=P.body_param(sample))
                self.route(path, "patch", "patch", "patch", sample, P.PATCH, sub=sub, body=P.PATCH_BODY_PARAM)
        return self.paths


def _version(crd: dict[str, Any], version: str) -> dict[str, Any]:
    for v in (crd.get("spec") or {}).get("versions") or []:
        if isinstance(v, dict) and v.get("name") == version:
            return v
    return {}


def _definitions(crd: dict[str, Any], version: str, schema: dict[str, Any] | None, v2: bool) -> dict[str, Any]:
    spec = crd.get("spec") or {}
    names = _names(crd)
    group = spec.get("group", "")
    prefix = V2_REF_PREFIX if v2 else V3_REF_PREFIX
    defs = dict(openapi_definitions(prefix))
    if v2:
        # kube's v2 Quantity is a plain string (the "quantity" format is only the structural engine's).
        q = "io.k8s.apimachinery.pkg.api.resource.Quantity"
        defs[q] = {k: v for k, v in defs[q].items() if k != "format"}
    kind_schema = build_kind_schema(crd, version, schema, v2=v2)
    list_schema = build_list_schema(crd, version, v2=v2)
    if v2:
        kind_schema = prune_defaults(kind_schema)
    else:
        kind_schema, list_schema = wrap_refs(kind_schema), wrap_refs(list_schema)
    defs[definition_name(group, version, names.get("kind", ""))] = kind_schema
    defs[definition_name(group, version, names.get("listKind", ""))] = list_schema
    return defs


def build_openapi_v2(crd: dict[str, Any], version: str, schema: dict[str, Any] | None) -> dict[str, Any]:
    """The swagger of one version: paths, their shared parameters, every definition they reach."""
    subs = _version(crd, version).get("subresources")
    paths_model = _Routes(crd, version, subs if isinstance(subs, dict) else {}).build()
    params = V2Params()
    paths = {path: path_item_v2(item, params) for path, item in sorted(paths_model.items())}
    roots: set[str] = set()
    referenced(paths, V2_REF_PREFIX, roots)
    referenced(params.shared, V2_REF_PREFIX, roots)
    definitions = _definitions(crd, version, schema, v2=True)
    return {
        "definitions": closure(roots, definitions, V2_REF_PREFIX),
        "parameters": params.shared,
        "paths": paths,
    }


def build_openapi_v3(crd: dict[str, Any], version: str, schema: dict[str, Any] | None) -> dict[str, Any]:
    """The v3 document of one version, as the group-version's document holds it."""
    subs = _version(crd, version).get("subresources")
    paths_model = _Routes(crd, version, subs if isinstance(subs, dict) else {}).build()
    paths = {path: path_item_v3(item) for path, item in sorted(paths_model.items())}
    roots: set[str] = set()
    referenced(paths, V3_REF_PREFIX, roots)
    definitions = _definitions(crd, version, schema, v2=False)
    return {
        "components": {"schemas": closure(roots, definitions, V3_REF_PREFIX)},
        "info": CRD_INFO,
        "openapi": "3.0.0",
        "paths": paths,
    }


def prune_defaults(schema: Any) -> Any:
    """handler.PruneDefaults: the v2 document carries no defaults (the built-in ones have none either)."""
    if isinstance(schema, list):
        return [prune_defaults(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for k, v in schema.items():
        if k == "default":
            continue
        if k in ("properties", "patternProperties", "definitions"):
            out[k] = {n: prune_defaults(s) for n, s in v.items()} if isinstance(v, dict) else v
        elif k in ("items", "additionalProperties", "not", "allOf", "anyOf", "oneOf"):
            out[k] = prune_defaults(v)
        else:
            out[k] = v
    return out
