"""GET of one object (handlers/get.go)."""

from __future__ import annotations

from kube_apiserver.endpoints.handlers.list import parse_resource_version
from kube_apiserver.endpoints.handlers.scope import RequestScope, write_object
from kube_apiserver.runtime import errors


async def get_resource(scope: RequestScope) -> None:
    rv = scope.req.param("resourceVersion")
    revision = parse_resource_version(rv)
    if rv == "0":  # any version will do: no need to wait for the cache to catch up
        cached = scope.store.storage.get_cached(scope.store.key(scope.namespace, scope.info.name))
        if cached is None:
            raise errors.new_not_found(scope.spec.group, scope.spec.resource, scope.info.name)
        await write_object(scope, 200, cached.obj, cached.raw, cached)
        return
    if revision:
        await scope.store.wait_until(revision)
    stored = await scope.store.get(scope.namespace, scope.info.name)
    await write_object(scope, 200, stored.obj, stored.raw, stored)
