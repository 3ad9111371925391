"""PUT: update, also of the status subresource (handlers/update.go)."""

from __future__ import annotations

from kube_apiserver.endpoints.handlers.apply import field_manager_name
from kube_apiserver.endpoints.handlers.scope import (
    RequestScope,
    check_name,
    decode_object,
    dedup_owner_references,
    negotiate_output,
    write_object,
)
from kube_apiserver.registry import fieldmanager
from kube_apiserver.registry.resource_spec import canonical_order


async def update_resource(scope: RequestScope, subresource: str = "") -> None:
    negotiate_output(scope)
    manager = field_manager_name(scope, "UpdateOptions")
    dry_run = scope.dry_run
    obj = canonical_order(await decode_object(scope), scope.spec)
    check_name(scope, obj)
    dedup_owner_references(obj)
    uid = (obj.get("metadata") or {}).get("uid")
    with fieldmanager.managing(fieldmanager.hook_for(scope.store, scope.spec, subresource, manager)):
        stored, created = await scope.store.update(
            scope.namespace,
            scope.info.name,
            obj,
            dry_run=dry_run,
            subresource=subresource,
            uid_precondition=uid if isinstance(uid, str) else "",
        )
    await write_object(scope, 201 if created else 200, stored.obj, stored.raw)
