"""The routes of one resource, as kube-apiserver's installer registers them (registerResourceHandlers):
the list/create/deletecollection collection path, the get/replace/patch/delete item path, the
deprecated watch paths, the all-namespaces list of a namespaced resource, and each subresource
(status, scale, log, exec, proxy, ...), with kube's operation ids, descriptions, tags, parameters,
responses and the x-kubernetes-action / x-kubernetes-group-version-kind of every operation.
"""

from __future__ import annotations

from typing import Any

from kube_apiserver.endpoints.openapi import params as P
from kube_apiserver.endpoints.openapi.params import Param
from kube_apiserver.endpoints.openapi.routes import (
    MEDIA_TYPES,
    PATCH_TYPES,
    STATUS,
    STRING,
    WATCH_EVENT,
    WATCH_MEDIA_TYPES,
    Operation,
    PathItem,
    article,
    gv_root,
    op_id,
    ref_for,
    tag_for,
)
from kube_apiserver.registry.resource_spec import ResourceSpec, SubresourceSpec
from kube_apiserver.registry.store import RETURN_DELETED_OBJECT

_PROXY_METHODS = ("get", "put", "post", "delete", "options", "head", "patch")
_CONNECT = {"exec": P.EXEC, "attach": P.ATTACH, "portforward": P.PORTFORWARD}
_CONNECT_OPTIONS = {"Pod": "PodProxyOptions", "Node": "NodeProxyOptions", "Service": "ServiceProxyOptions"}


class _Builder:
    """The routes of one resource (and its subresources)."""

    def __init__(self, spec: ResourceSpec) -> None:
        self.spec = spec
        self.g, self.v, self.kind = spec.group, spec.version, spec.kind
        self.tag = tag_for(self.g, self.v)
        self.ns = "Namespaced" if spec.namespaced else ""
        self.gvk = (self.g, self.v, self.kind)
        self.obj = ref_for(self.g, self.v, self.kind)
        self.paths: dict[str, PathItem] = {}

    def add(self, path: str, op: Operation) -> None:
        self.paths.setdefault(path, PathItem(path)).operations.append(op)

    def op(self, verb: str, method: str, rest: str, description: str, params: list[Param], **kw: Any) -> Operation:
        kw.setdefault("gvk", self.gvk)
        return Operation(method, op_id(verb, self.g, self.v, rest), description, self.tag, params, **kw)

    def build(self) -> dict[str, PathItem]:
        s = self.spec
        root = gv_root(self.g, self.v)
        scope = [P.NAMESPACE] if s.namespaced else []
        coll = f"{root}/namespaces/{{namespace}}/{s.resource}" if s.namespaced else f"{root}/{s.resource}"
        item = f"{coll}/{{name}}"
        verbs = set(s.verbs)
        name = P.name_param(self.kind)
        ns, kind, obj = self.ns, self.kind, self.obj
        list_ref = ref_for(self.g, self.v, s.list_kind)
        ok = [("200", "OK", obj)]
        if "list" in verbs:
            doc = ("list or watch objects of kind " if "watch" in verbs else "list objects of kind ") + kind
            lst = [("200", "OK", list_ref)]
            self.add(
                coll,
                self.op(
                    "list",
                    "get",
                    ns + kind,
                    doc,
                    [*scope, P.PRETTY, *P.LIST],
                    responses=lst,
                    produces=WATCH_MEDIA_TYPES,
                    action="list",
                ),
            )
            if s.namespaced:
                self.add(
                    f"{root}/{s.resource}",
                    self.op(
                        "list",
                        "get",
                        kind + "ForAllNamespaces",
                        doc,
                        [P.PRETTY, *P.LIST],
                        responses=lst,
                        produces=WATCH_MEDIA_TYPES,
                        action="list",
                    ),
                )
        if "create" in verbs:
            created = [*ok, ("201", "Created", obj), ("202", "Accepted", obj)]
            self.add(
                coll,
                self.op(
                    "create",
                    "post",
                    ns + kind,
                    f"create{article(kind)}{kind}",
                    [*scope, P.PRETTY, P.body_param(obj), *P.CREATE],
                    responses=created,
                    action="post",
                ),
            )
        if "deletecollection" in verbs:
            self.add(
                coll,
                self.op(
                    "delete",
                    "delete",
                    "collection" + ns + kind,
                    f"delete collection of {kind}",
                    [*scope, P.PRETTY, P.DELETE_BODY, *P.DELETE, *P.LIST_FOR_DELETE],
                    responses=[("200", "OK", STATUS)],
                    action="deletecollection",
                ),
            )
        if "get" in verbs:
            self.add(
                item,
                self.op(
                    "read",
                    "get",
                    ns + kind,
                    f"read the specified {kind}",
                    [name, *scope, P.PRETTY],
                    responses=ok,
                    action="get",
                ),
            )
        if "update" in verbs:
            self.add(
                item,
                self.op(
                    "replace",
                    "put",
                    ns + kind,
                    f"replace the specified {kind}",
                    [name, *scope, P.PRETTY, P.body_param(obj), *P.UPDATE],
                    responses=[*ok, ("201", "Created", obj)],
                    action="put",
                ),
            )
        if "patch" in verbs:
            self.add(
                item,
                self.op(
                    "patch",
                    "patch",
                    ns + kind,
                    f"partially update the specified {kind}",
                    [name, *scope, P.PRETTY, P.PATCH_BODY_PARAM, *P.PATCH],
                    responses=[*ok, ("201", "Created", obj)],
                    consumes=PATCH_TYPES,
                    action="patch",
                ),
            )
        if "delete" in verbs:
            deleted = obj if (self.g, s.resource) in RETURN_DELETED_OBJECT else STATUS
            self.add(
                item,
                self.op(
                    "delete",
                    "delete",
                    ns + kind,
                    f"delete{article(kind)}{kind}",
                    [name, *scope, P.PRETTY, P.DELETE_BODY, *P.DELETE],
                    responses=[("200", "OK", deleted), ("202", "Accepted", deleted)],
                    action="delete",
                ),
            )
        if "watch" in verbs:
            self._watch(root, scope, name)
        for sub in s.subresources:
            self._subresource(sub, item, scope)
        return self.paths

    def _watch(self, root: str, scope: list[Param], name: Param) -> None:
        s, kind, ns = self.spec, self.kind, self.ns
        events = [("200", "OK", WATCH_EVENT)]
        one = (
            f"watch changes to an object of kind {kind}. deprecated: use the 'watch' parameter with a list "
            "operation instead, filtered to a single item with the 'fieldSelector' parameter."
        )
        many = (
            f"watch individual changes to a list of {kind}. deprecated: use the 'watch' parameter with a list "
            "operation instead."
        )
        wroot = f"{root}/watch"
        coll = f"{wroot}/namespaces/{{namespace}}/{s.resource}" if s.namespaced else f"{wroot}/{s.resource}"
        common = {"responses": events, "produces": WATCH_MEDIA_TYPES}
        self.add(
            coll,
            self.op(
                "watch", "get", ns + kind + "List", many, [*scope, P.PRETTY, *P.LIST], action="watchlist", **common
            ),
        )
        self.add(
            f"{coll}/{{name}}",
            self.op("watch", "get", ns + kind, one, [name, *scope, P.PRETTY, *P.LIST], action="watch", **common),
        )
        if s.namespaced:
            self.add(
                f"{wroot}/{s.resource}",
                self.op(
                    "watch",
                    "get",
                    kind + "ListForAllNamespaces",
                    many,
                    [P.PRETTY, *P.LIST],
                    action="watchlist",
                    **common,
                ),
            )

    def _subresource(self, sub: SubresourceSpec, item: str, scope: list[Param]) -> None:
        kind, ns = self.kind, self.ns
        g, v = (sub.group, sub.version) if sub.group or sub.version else (self.g, self.v)
        verbs = set(sub.verbs)
        path = f"{item}/{sub.name}"
        title = sub.name.title()
        if sub.name == "log":
            self.add(
                path,
                self.op(
                    "read",
                    "get",
                    ns + kind + "Log",
                    f"read log of the specified {kind}",
                    [P.name_param(sub.kind), *scope, P.PRETTY, *P.LOG],
                    responses=[("200", "OK", STRING)],
                    produces=("text/plain", *MEDIA_TYPES),
                    action="get",
                    gvk=(g, v, sub.kind),
                ),
            )
            return
        if sub.name in _CONNECT or sub.name == "proxy":
            self._connect(sub, path, scope)
            return
        gvk = (g, v, sub.kind)
        obj = ref_for(g, v, sub.kind)
        name = P.name_param(sub.kind)
        ok = [("200", "OK", obj)]
        if "create" in verbs:
            created = [*ok, ("201", "Created", obj), ("202", "Accepted", obj)]
            self.add(
                path,
                self.op(
                    "create",
                    "post",
                    ns + kind + title,
                    f"create {sub.name} of{article(kind)}{kind}",
                    [name, *scope, P.PRETTY, P.body_param(obj), *P.CREATE],
                    responses=created,
                    action="post",
                    gvk=gvk,
                ),
            )
        if "get" in verbs:
            self.add(
                path,
                self.op(
                    "read",
                    "get",
                    ns + kind + title,
                    f"read {sub.name} of the specified {kind}",
                    [name, *scope, P.PRETTY],
                    responses=ok,
                    action="get",
                    gvk=gvk,
                ),
            )
        if "update" in verbs:
            self.add(
                path,
                self.op(
                    "replace",
                    "put",
                    ns + kind + title,
                    f"replace {sub.name} of the specified {kind}",
                    [name, *scope, P.PRETTY, P.body_param(obj), *P.UPDATE],
                    responses=[*ok, ("201", "Created", obj)],
                    action="put",
                    gvk=gvk,
                ),
            )
        if "patch" in verbs:
            self.add(
                path,
                self.op(
                    "patch",
                    "patch",
                    ns + kind + title,
                    f"partially update {sub.name} of the specified {kind}",
                    [name, *scope, P.PRETTY, P.PATCH_BODY_PARAM, *P.PATCH],
                    responses=[*ok, ("201", "Created", obj)],
                    consumes=PATCH_TYPES,
                    action="patch",
                    gvk=gvk,
                ),
            )

    def _connect(self, sub: SubresourceSpec, path: str, scope: list[Param]) -> None:
        kind, ns = self.kind, self.ns
        options_kind = _CONNECT_OPTIONS.get(kind, sub.kind) if sub.name == "proxy" else sub.kind
        gvk = (self.g, self.v, options_kind)
        name = P.name_param(options_kind)
        if sub.name == "proxy":
            methods = _PROXY_METHODS
            query = (P.PROXY_PATH.get(kind) or P.PROXY_PATH["Pod"],)
        else:
            methods = ("get", "post")
            query = _CONNECT[sub.name]
        title = sub.name.title()
        variants = [(path, "", [name, *scope, *query])]
        if sub.name == "proxy":
            variants.append((f"{path}/{{path}}", "WithPath", [name, *scope, P.PATH_PATH, *query]))
        for p, suffix, params in variants:
            for method in methods:
                upper = method.upper()
                self.add(
                    p,
                    self.op(
                        "connect",
                        method,
                        method.title() + ns + kind + title + suffix,
                        f"connect {upper} requests to {sub.name} of {kind}",
                        list(params),
                        responses=[("200", "OK", STRING)],
                        produces=("*/*",),
                        action="connect",
                        gvk=gvk,
                    ),
                )


def resource_paths(spec: ResourceSpec) -> dict[str, PathItem]:
    return _Builder(spec).build()
