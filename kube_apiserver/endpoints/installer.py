"""The API installer (endpoints/installer.go): one APIGroupVersion's resources become routes.

A route here is (resource, subresource, verb) → handler. Which verbs a resource gets follows its
ResourceSpec.verbs (the capabilities of its storage, as discovery shows them).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from kube_apiserver.endpoints.handlers import create, delete, get, patch, update, watch
from kube_apiserver.endpoints.handlers import list as list_handler
from kube_apiserver.endpoints.handlers.scope import RequestScope
from kube_apiserver.endpoints.request import Request
from kube_apiserver.endpoints.request_info import RequestInfo
from kube_apiserver.registry import warning
from kube_apiserver.registry.resource_spec import ResourceSpec
from kube_apiserver.registry.store import Store
from kube_apiserver.runtime import errors

Handler = Callable[[RequestScope], Awaitable[None]]

# Verbs that only read: their handlers never need the request body.
_VERB_FROM_INFO = {"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}


@dataclass
class APIResource:
    spec: ResourceSpec
    store: Store | None  # None for virtual resources (reviews), which only have create
    # Handlers for subresources and for virtual creates, keyed by (subresource, verb).
    extra: dict[tuple[str, str], Handler] = field(default_factory=dict)


class APIGroupVersion:
    """The routes of one group/version (a go-restful WebService in kube-apiserver)."""

    def __init__(self, group: str, version: str, shutdown: asyncio.Event | None = None) -> None:
        self.group = group
        self.version = version
        self.resources: dict[str, APIResource] = {}
        self.shutdown = shutdown

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def add(self, resource: APIResource) -> None:
        self.resources[resource.spec.resource] = resource

    async def serve(self, req: Request, info: RequestInfo) -> bool:
        """Handle a resource request; False when this group/version has no such resource."""
        res = self.resources.get(info.resource)
        if res is None:
            return False
        warning.set_recorder(req.add_warning)
        spec = res.spec
        verb = info.verb
        if spec.deprecated_in and not info.subresource:
            req.add_warning(spec.deprecation_warning())
        if info.subresource:
            handler = res.extra.get((info.subresource, verb))
            if handler is None and info.subresource in _STORE_SUBRESOURCES and spec.subresource(info.subresource):
                handler = _STORE_SUBRESOURCES[info.subresource].get(verb) if res.store else None
            if handler is None:
                if spec.subresource(info.subresource) is None:
                    raise errors.new_not_found_path()
                raise errors.new_method_not_allowed()  # the subresource's route takes other methods
            await handler(RequestScope(req, info, spec, res.store))  # type: ignore[arg-type]
            return True
        if not spec.namespaced and info.namespace and info.resource != "namespaces":
            raise errors.new_not_found_path()
        if spec.namespaced and not info.namespace and len(info.parts) >= 2:
            # /api/v1/configmaps/<name>: no such route (a list across namespaces may name one by its
            # fieldSelector: info.name then comes from the selector, not the path)
            raise errors.new_not_found_path()
        if (
            (verb in ("update", "patch") and not info.name)
            or (verb == "create" and info.name)
            or (spec.namespaced and not info.namespace and verb in ("create", "deletecollection"))
        ):
            # The path is a route, but not for this method: a PUT or PATCH of a collection, a POST to an object,
            # a POST or DELETE across all namespaces (go-restful's 405, as kube's service error handler words it)
            raise errors.new_method_not_allowed()
        if verb not in spec.verbs:
            if verb == "watch" and "list" in spec.verbs:
                # the list route's handler refuses the watch itself (ListResource: NewMethodNotSupported)
                raise errors.new_method_not_supported(spec.group, spec.resource, verb)
            if info.name and not _OBJECT_VERBS.intersection(spec.verbs):
                raise errors.new_not_found_path()  # no route at an object's path (create-only reviews, ...)
            raise errors.new_method_not_allowed()  # the route takes other methods (go-restful's 405)
        scope = RequestScope(req, info, spec, res.store)  # type: ignore[arg-type]
        handler = res.extra.get(("", verb))
        if handler is not None:
            await handler(scope)
        elif res.store is None:
            raise errors.new_method_not_allowed()
        elif verb == "watch":  # the one handler that needs the server's shutdown signal
            await watch.watch_resource(scope, self.shutdown)
        else:
            await _HANDLERS[verb](scope)
        return True


# The verbs with a route at an object's path (GET, PUT, PATCH, DELETE of <collection>/<name>).
_OBJECT_VERBS = frozenset({"get", "update", "patch", "delete"})


async def _update_status(scope: RequestScope) -> None:
    await update.update_resource(scope, "status")


async def _patch_status(scope: RequestScope) -> None:
    await patch.patch_resource(scope, "status")


async def _update_approval(scope: RequestScope) -> None:
    await update.update_resource(scope, "approval")


async def _patch_approval(scope: RequestScope) -> None:
    await patch.patch_resource(scope, "approval")


# Subresources that are the object itself, written through the store with the strategy's rules for them.
_STORE_SUBRESOURCES: dict[str, dict[str, Handler]] = {
    "status": {"get": get.get_resource, "update": _update_status, "patch": _patch_status},
    "approval": {"get": get.get_resource, "update": _update_approval, "patch": _patch_approval},  # CSRs
}

_HANDLERS: dict[str, Handler] = {
    "get": get.get_resource,
    "list": list_handler.list_resource,
    "create": create.create_resource,
    "update": update.update_resource,
    "patch": patch.patch_resource,
    "delete": delete.delete_resource,
    "deletecollection": delete.delete_collection,
}
