"""DELETE of one object and of a collection (handlers/delete.go)."""

from __future__ import annotations

from typing import Any

import orjson

from kube_apiserver.endpoints import negotiation
from kube_apiserver.endpoints.handlers.list import list_items, selection, typed_list_items
from kube_apiserver.endpoints.handlers.scope import RequestScope, status_success, validate_dry_run, write_object
from kube_apiserver.endpoints.request import send_bytes
from kube_apiserver.registry.store import DeleteOptions
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.serializer import decode_body, encode_yaml
from kube_apiserver.storage.interface import Preconditions

_POLICIES = ("Foreground", "Background", "Orphan")
# batch/v1 Jobs orphan their pods unless the delete says otherwise (the job strategy's
# DefaultGarbageCollectionPolicy), and Job's REST warns a client that left it unsaid (deleteOptionWarnings).
_JOB_DELETE_WARNING = (
    "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them "
    "or set propagationPolicy=Orphan to suppress this warning"
)


async def delete_options(scope: RequestScope) -> DeleteOptions:
    """DeleteOptions from the body (if any) and the query, as kube merges them."""
    req = scope.req
    body: dict[str, Any] = {}
    raw = await req.body()
    if raw.strip():
        media = negotiation.request_media_type(req.header("content-type"))
        decoded = decode_body(raw, media)
        if not isinstance(decoded, dict):
            raise errors.new_bad_request("the body of a delete request must be a DeleteOptions object")
        body = decoded
    opts = DeleteOptions()
    grace = req.param("gracePeriodSeconds") or body.get("gracePeriodSeconds")
    if grace not in (None, ""):
        try:
            opts.grace_period_seconds = int(grace)
        except (TypeError, ValueError):
            raise errors.new_bad_request(f'invalid gracePeriodSeconds "{grace}"') from None
    policy = req.param("propagationPolicy") or body.get("propagationPolicy")
    orphan = req.param("orphanDependents") or body.get("orphanDependents")
    causes = []  # ValidateDeleteOptions
    if policy and orphan not in (None, ""):
        causes.append(
            errors.field_invalid(
                "propagationPolicy", policy, "orphanDependents and deletionPropagation cannot be both set"
            )
        )
    if policy and policy not in _POLICIES:
        causes.append(errors.field_not_supported("propagationPolicy", policy, [*_POLICIES, "nil"]))
    if causes:
        raise errors.new_invalid("meta.k8s.io", "DeleteOptions", "", causes)
    if orphan not in (None, ""):
        opts.orphan_dependents = _parse_bool(orphan, "orphanDependents")
    if policy:
        opts.propagation_policy = policy
    elif orphan in (None, "") and (scope.spec.group, scope.spec.resource) == ("batch", "jobs"):
        req.add_warning(_JOB_DELETE_WARNING)
    pre = body.get("preconditions") or {}
    if isinstance(pre, dict) and (pre.get("uid") or pre.get("resourceVersion")):
        opts.preconditions = Preconditions(uid=pre.get("uid"), resource_version=pre.get("resourceVersion"))
    dry = req.params("dryRun") or body.get("dryRun") or []
    validate_dry_run([str(v) for v in dry] if isinstance(dry, list) else [str(dry)], "DeleteOptions")
    opts.dry_run = bool(dry)
    return opts


def _parse_bool(value: Any, name: str) -> bool:
    """A bool of the body, or of the query as Go's strconv.ParseBool reads it."""
    if isinstance(value, bool):
        return value
    text = str(value)
    if text in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if text in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    raise errors.new_bad_request(f'invalid {name} "{text}"')


async def delete_resource(scope: RequestScope) -> None:
    opts = await delete_options(scope)
    result = await scope.store.delete(scope.namespace, scope.info.name, opts)
    if result.deleted and not scope.store.return_deleted_object:
        meta = result.obj.get("metadata") or {}
        await write_object_status(scope, status_success(scope.spec, meta.get("name", ""), meta.get("uid", "")))
    else:
        # kube answers 202 to a delete left pending that asked for its dependents' deletion the old way
        # (orphanDependents=false); 200 otherwise, for compatibility
        pending_cascade = not result.deleted and opts.orphan_dependents is False
        await write_object(scope, 202 if pending_cascade else 200, result.obj)


async def write_object_status(scope: RequestScope, status: dict[str, Any]) -> None:
    out = negotiation.negotiate(scope.req.header("accept"), table=True, pom=True)
    if out.form == "yaml":
        await send_bytes(scope.req.send, 200, encode_yaml(status), negotiation.YAML)
    else:
        await send_bytes(scope.req.send, 200, orjson.dumps(status))


async def delete_collection(scope: RequestScope) -> None:
    """DeleteCollection: the list the query selects (limit and continue included: with a limit, one page and
    its continue token), each item deleted (one gone meanwhile is skipped), and that list as the answer."""
    opts = await delete_options(scope)
    result, next_token = await list_items(scope, selection(scope))
    await scope.store.delete_listed(result.items, opts)
    list_meta: dict[str, Any] = {"resourceVersion": str(result.revision)}
    if next_token:
        list_meta["continue"] = next_token
        if result.remaining:
            list_meta["remainingItemCount"] = result.remaining
    spec = scope.spec
    items = typed_list_items(spec, [i.obj for i in result.items])
    body = {"kind": spec.list_kind, "apiVersion": spec.group_version, "metadata": list_meta, "items": items}
    out = negotiation.negotiate(scope.req.header("accept"), table=True, pom=True)
    if out.form == "yaml":
        await send_bytes(scope.req.send, 200, encode_yaml(body), negotiation.YAML)
    else:
        await send_bytes(scope.req.send, 200, orjson.dumps(body))
