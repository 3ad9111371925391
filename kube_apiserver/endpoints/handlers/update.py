"""PUT: update, also of the status subresource (handlers/update.go)."""

from __future__ import annotations

from kube_apiserver.endpoints.handlers.scope import RequestScope, canonical_order, decode_object, write_object


async def update_resource(scope: RequestScope, subresource: str = "") -> None:
    dry_run = scope.dry_run
    obj = canonical_order(await decode_object(scope), scope.spec)
    stored, created = await scope.store.update(
        scope.namespace, scope.info.name, obj, dry_run=dry_run, subresource=subresource
    )
    await write_object(scope, 201 if created else 200, stored.obj, stored.raw)
