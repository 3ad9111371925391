"""GenericAPIServer and its director (k8s.io/apiserver/pkg/server/genericapiserver.go, handler.go).

Three of these are chained by delegation: aggregator → kube-apiserver → apiextensions → 404.
Each one's director tries its own API group/versions (the go-restful container), then its path mux
(the non-go-restful mux), and otherwise hands the request to its delegate.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from kube_apiserver.endpoints import discovery, negotiation
from kube_apiserver.endpoints.installer import APIGroupVersion
from kube_apiserver.endpoints.request import Request, send_bytes
from kube_apiserver.endpoints.request_info import RequestInfo
from kube_apiserver.runtime import errors

log = logging.getLogger(__name__)

PathHandler = Callable[[Request], Awaitable[None]]
PostStartHook = Callable[[], Awaitable[None]]


class PathMux:
    """Exact paths and path prefixes (k8s.io/apiserver/pkg/server/mux.PathRecorderMux)."""

    def __init__(self) -> None:
        self.exact: dict[str, PathHandler] = {}
        self.prefixes: list[tuple[str, PathHandler]] = []

    def handle(self, path: str, handler: PathHandler) -> None:
        self.exact[path] = handler

    def handle_prefix(self, prefix: str, handler: PathHandler) -> None:
        self.prefixes.append((prefix, handler))
        self.prefixes.sort(key=lambda p: -len(p[0]))

    def lookup(self, path: str) -> PathHandler | None:
        handler = self.exact.get(path)
        if handler is not None:
            return handler
        for prefix, h in self.prefixes:
            if path.startswith(prefix):
                return h
        return None

    def paths(self) -> list[str]:
        return sorted([*self.exact, *(p.rstrip("/") for p, _ in self.prefixes)])


class GenericAPIServer:
    def __init__(self, name: str, delegate: GenericAPIServer | None = None) -> None:
        self.name = name
        self.delegate = delegate
        self.mux = PathMux()
        self.group_versions: dict[tuple[str, str], APIGroupVersion] = {}
        self.groups: dict[str, discovery.GroupInfo] = {}  # in install order
        self.post_start_hooks: dict[str, PostStartHook] = {}
        self.pre_shutdown_hooks: dict[str, Callable[[], Awaitable[None]]] = {}
        self.post_start_done: dict[str, asyncio.Event] = {}
        self.shutdown = asyncio.Event()

    # --- installing APIs ---

    def install_api_group(self, group_versions: list[APIGroupVersion]) -> None:
        """InstallAPIGroup / InstallLegacyAPIGroup: versions in preference order."""
        for agv in group_versions:
            agv.shutdown = self.shutdown
            self.group_versions[(agv.group, agv.version)] = agv
            info = self.groups.setdefault(agv.group, discovery.GroupInfo(agv.group))
            if agv.version not in info.versions:
                info.versions.append(agv.version)
            info.resources[agv.version] = [r.spec for r in agv.resources.values()]
        for agv in group_versions:
            if agv.group:
                self.mux.handle(f"/apis/{agv.group}", self._serve_group(agv.group))
                self.mux.handle(f"/apis/{agv.group}/{agv.version}", self._serve_resource_list(agv))
            else:
                self.mux.handle(f"/api/{agv.version}", self._serve_resource_list(agv))

    def _serve_group(self, group: str) -> PathHandler:
        async def serve(req: Request) -> None:
            negotiation.negotiate(req.header("accept"), discovery=True)
            await send_bytes(req.send, 200, orjson.dumps(discovery.api_group(self.groups[group])))

        return serve

    def _serve_resource_list(self, agv: APIGroupVersion) -> PathHandler:
        async def serve(req: Request) -> None:
            negotiation.negotiate(req.header("accept"), discovery=True)
            specs = [r.spec for r in agv.resources.values()]
            body = discovery.api_resource_list(agv.group, agv.version, specs)
            await send_bytes(req.send, 200, orjson.dumps(body))

        return serve

    # --- the delegation chain ---

    def chain(self) -> list[GenericAPIServer]:
        out: list[GenericAPIServer] = []
        server: GenericAPIServer | None = self
        while server is not None:
            out.append(server)
            server = server.delegate
        return out

    def all_groups(self) -> list[discovery.GroupInfo]:
        """Every group of this server and its delegates (the aggregator's merged view)."""
        seen: dict[str, discovery.GroupInfo] = {}
        for server in self.chain():
            for name, info in server.groups.items():
                seen.setdefault(name, info)
        return list(seen.values())

    def add_post_start_hook(self, name: str, hook: PostStartHook) -> None:
        if name in self.post_start_hooks:
            raise ValueError(f"unable to add {name!r} because it was already registered")
        self.post_start_hooks[name] = hook
        self.post_start_done[name] = asyncio.Event()

    async def run_post_start_hooks(self) -> None:
        for server in self.chain():
            for name, hook in server.post_start_hooks.items():
                asyncio.create_task(server._run_hook(name, hook), name=f"poststarthook/{name}")

    async def _run_hook(self, name: str, hook: PostStartHook) -> None:
        try:
            await hook()
        except Exception:  # noqa: BLE001 - a failing hook keeps readyz failing, it does not crash the server
            log.exception("post-start hook %s failed", name)
            return
        self.post_start_done[name].set()

    # --- the director ---

    async def handle(self, req: Request, info: RequestInfo) -> None:
        if info.is_resource_request:
            agv = self.group_versions.get((info.api_group, info.api_version))
            if agv is not None and await agv.serve(req, info):
                return
        else:
            # the path as it is first (so /readyz/ reaches the per-check handler, and is a 404 there as in
            # kube), then without its trailing slash (/apis/, /version/)
            handler = self.mux.lookup(req.path) or self.mux.lookup(req.path.rstrip("/") or "/")
            if handler is not None:
                await handler(req)
                return
        if self.delegate is not None:
            await self.delegate.handle(req, info)
            return
        raise errors.new_not_found_path()

    def every_path(self) -> list[str]:
        paths: set[str] = set()
        for server in self.chain():
            paths.update(server.mux.paths())
        return sorted(paths)


def discovery_handlers(
    root: GenericAPIServer,
    server_address: Callable[[], str],
    group_order: Callable[[discovery.GroupInfo], Any] | None = None,
) -> dict[str, Any]:
    """/api and /apis, answered by the outermost server for the whole chain, legacy or aggregated;
    group_order: the sort key of the groups in /apis (the aggregator's APIService order)."""

    async def serve_api(req: Request) -> None:
        out = negotiation.negotiate(req.header("accept"), discovery=True)
        if out.form == "discovery":
            core = [g for g in root.all_groups() if g.name == ""]
            body = discovery.aggregated_discovery(core, out.version)
            await _send_with_etag(req, orjson.dumps(body), discovery.aggregated_content_type(out.version))
        else:
            await send_bytes(req.send, 200, orjson.dumps(discovery.api_versions(server_address())), extra_headers=_VARY)

    async def serve_apis(req: Request) -> None:
        out = negotiation.negotiate(req.header("accept"), discovery=True)
        groups = [g for g in root.all_groups() if g.name]
        if group_order is not None:
            groups.sort(key=group_order)
        if out.form == "discovery":
            body = discovery.aggregated_discovery(groups, out.version)
            await _send_with_etag(req, orjson.dumps(body), discovery.aggregated_content_type(out.version))
        else:
            await send_bytes(req.send, 200, orjson.dumps(discovery.api_group_list(groups)), extra_headers=_VARY)

    return {"/api": serve_api, "/apis": serve_apis}


_VARY = [(b"vary", b"Accept")]


async def _send_with_etag(req: Request, body: bytes, content_type: str) -> None:
    """ServeHTTPWithETag (aggregated discovery): the document's hash as a quoted ETag, cacheable by anyone
    (Cache-Control: public), and a 304 with no body when the client's If-None-Match already names it."""
    etag = b'"' + hashlib.sha512(body).hexdigest().upper().encode() + b'"'
    headers = [(b"etag", etag), *_VARY, (b"cache-control", b"public")]
    if req.header("if-none-match").encode() == etag:
        await req.send({"type": "http.response.start", "status": 304, "headers": headers})
        await req.send({"type": "http.response.body", "body": b""})
        return
    await send_bytes(req.send, 200, body, content_type, headers)
