"""POST: create (handlers/create.go)."""

from __future__ import annotations

from kube_apiserver.endpoints.handlers.apply import field_manager_name
from kube_apiserver.endpoints.handlers.scope import (
    RequestScope,
    decode_object,
    dedup_owner_references,
    negotiate_output,
    write_object,
)
from kube_apiserver.registry import fieldmanager
from kube_apiserver.runtime import errors


async def create_resource(scope: RequestScope) -> None:
    if scope.info.name:
        raise errors.new_method_not_supported(scope.spec.group, scope.spec.resource, "create")
    negotiate_output(scope)
    manager = field_manager_name(scope, "CreateOptions")
    dry_run = scope.dry_run
    obj = await decode_object(scope)  # Store.create puts it in kube's key order
    dedup_owner_references(obj)
    with fieldmanager.managing(fieldmanager.hook_for(scope.store, scope.spec, "", manager)):
        stored = await scope.store.create(scope.namespace, obj, dry_run=dry_run)
    await write_object(scope, 201, stored.obj, stored.raw)
