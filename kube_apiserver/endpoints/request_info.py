"""RequestInfo (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go): what a URL asks for.

Resource requests look like
  /api/v1/namespaces/{namespace}/{resource}/{name}/{subresource}
  /apis/{group}/{version}/namespaces/{namespace}/{resource}/{name}/{subresource}
with the deprecated /watch/ form; everything else is a non-resource request (/healthz, /version, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kube_apiserver.endpoints.request import Request
from kube_apiserver.runtime.fields import SelectorParseError, parse_field_selector

_API_PREFIXES = ("api", "apis")
_NAMESPACE_SUBRESOURCES = {"status", "finalize"}
_VERBS = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


@dataclass(slots=True)
class RequestInfo:
    is_resource_request: bool = False
    path: str = ""
    verb: str = ""
    api_prefix: str = ""
    api_group: str = ""
    api_version: str = ""
    namespace: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)


# RequestInfos that the method and path alone decide (not lists and watches, which read the query), by
# (method, path): a create or an update comes to the same path again and again. They are shared: a
# RequestInfo is never changed once made.
_BY_METHOD_AND_PATH: dict[tuple[str, str], RequestInfo] = {}
_CACHE_SIZE = 4096


def new_request_info(req: Request) -> RequestInfo:
    key = (req.method, req.path)
    info = _BY_METHOD_AND_PATH.get(key)
    if info is None:
        info = _parse(req)
        if info.verb != "list" and info.verb != "watch":
            if len(_BY_METHOD_AND_PATH) >= _CACHE_SIZE:
                _BY_METHOD_AND_PATH.clear()
            _BY_METHOD_AND_PATH[key] = info
    return info


def _parse(req: Request) -> RequestInfo:
    info = RequestInfo(path=req.path, verb=req.method.lower())
    stripped = req.path.strip("/")
    parts = stripped.split("/") if stripped else []
    if len(parts) < 2 or parts[0] not in _API_PREFIXES:
        return info
    info.api_prefix = parts[0]
    rest = parts[1:]
    if info.api_prefix == "apis":
        if len(rest) < 2:  # /apis, /apis/{group}
            return info
        info.api_group, rest = rest[0], rest[1:]
    info.api_version, rest = rest[0], rest[1:]
    if not rest:  # /api/v1, /apis/g/v: discovery
        return info
    info.is_resource_request = True
    info.verb = _VERBS.get(req.method, req.method.lower())
    if rest[0] == "watch":
        info.verb = "watch"
        rest = rest[1:]
    if rest and rest[0] == "namespaces":
        if len(rest) > 1:
            info.namespace = rest[1]
            if len(rest) > 2 and rest[2] not in _NAMESPACE_SUBRESOURCES:
                rest = rest[2:]
    info.parts = rest
    if rest:
        info.resource = rest[0]
    if len(rest) >= 2:
        info.name = rest[1]
    if len(rest) >= 3:
        info.subresource = rest[2]  # for pods/proxy/<path>, what follows is the proxied path
    if not info.name:
        if info.verb == "get":
            info.verb = "watch" if req.flag("watch") else "list"
        elif info.verb == "delete":
            info.verb = "deletecollection"
    if info.verb in ("list", "watch"):
        sel = req.param("fieldSelector")
        if sel:
            try:
                name = parse_field_selector(sel).requires_exact_match("metadata.name")
            except SelectorParseError:
                name = None
            if name:
                info.name = name
    return info
