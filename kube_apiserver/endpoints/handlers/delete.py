"""DELETE of one object and of a collection (handlers/delete.go)."""

from __future__ import annotations

from typing import Any

import orjson

from kube_apiserver.endpoints import negotiation
from kube_apiserver.endpoints.handlers.list import list_items, selection, typed_list_items
from kube_apiserver.endpoints.handlers.scope import (
    RequestScope,
    negotiate_output,
    status_success,
    validate_dry_run,
    write_object,
    write_status,
)
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
    """DeleteOptions from the body or, when there is none, from the query (kube reads one or the other: the
    query of a request with a body is not looked at)."""
    req = scope.req
    body: dict[str, Any] = {}
    raw = await req.body()
    from_body = bool(raw.strip())
    if from_body:
        media = negotiation.request_media_type(req.header("content-type"))
        decoded = decode_body(raw, media)
        if not isinstance(decoded, dict):
            raise errors.new_bad_request("the body of a delete request must be a DeleteOptions object")
        kind = decoded.get("kind")
        for field in ("apiVersion", "kind"):
            if decoded.get(field) is not None and not isinstance(decoded[field], str):
                raise errors.new_bad_request(
                    "couldn't get version/kind; json parse error: json: cannot unmarshal "
                    f"{_json_type(decoded[field])} into Go struct field .{field} of type string"
                )
        if kind not in (None, "", "DeleteOptions"):
            # kube decodes the body as DeleteOptions: another kind is not one it can decode into (a 500 in
            # kube, whose decoder error is not a Status; a 400 here), and nothing is deleted
            raise errors.new_bad_request(
                f"no kind {orjson.dumps(kind).decode()} is registered for version "
                f"{orjson.dumps(decoded.get('apiVersion') or '').decode()}"
            )
        body = decoded

    def option(name: str) -> Any:
        if from_body:
            return body.get(name)
        return req.param(name) if name in req.query else None

    opts = DeleteOptions()
    grace = option("gracePeriodSeconds")
    if grace not in (None, ""):
        try:
            opts.grace_period_seconds = int(grace)
        except (TypeError, ValueError):
            raise errors.new_bad_request(f'invalid gracePeriodSeconds "{grace}"') from None
    policy = option("propagationPolicy")
    orphan = option("orphanDependents")
    causes = []  # ValidateDeleteOptions
    if policy and orphan is not None:
        causes.append(
            errors.field_invalid(
                "propagationPolicy", policy, "orphanDependents and deletionPropagation cannot be both set"
            )
        )
    if policy and policy not in _POLICIES:
        causes.append(errors.field_not_supported("propagationPolicy", policy, [*_POLICIES, "nil"]))
    if causes:
        raise errors.new_invalid("meta.k8s.io", "DeleteOptions", "", causes)
    if orphan is not None:
        opts.orphan_dependents = _orphan_dependents(orphan, from_body)
    if policy:
        opts.propagation_policy = policy
    elif orphan is None and (scope.spec.group, scope.spec.resource) == ("batch", "jobs"):
        req.add_warning(_JOB_DELETE_WARNING)
    pre = body.get("preconditions") or {}
    if isinstance(pre, dict) and (pre.get("uid") or pre.get("resourceVersion")):
        opts.preconditions = Preconditions(uid=pre.get("uid"), resource_version=pre.get("resourceVersion"))
    dry = (body.get("dryRun") if from_body else req.params("dryRun")) or []
    validate_dry_run([str(v) for v in dry] if isinstance(dry, list) else [str(dry)], "DeleteOptions")
    opts.dry_run = bool(dry)
    return opts


def _orphan_dependents(value: Any, from_body: bool) -> bool:
    """orphanDependents of the body (a JSON bool), or of the query as kube converts a query *bool: "0" or
    "false" in any case is false, anything else (even empty) true."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and not from_body:
        return not (value == "0" or value.lower() == "false")
    raise errors.new_bad_request(
        f"json: cannot unmarshal {_json_type(value)} into Go struct field DeleteOptions.orphanDependents of type bool"
    )


def _json_type(value: Any) -> str:
    """The JSON type encoding/json names in an UnmarshalTypeError."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return {dict: "object", list: "array"}.get(type(value), "string")


async def delete_resource(scope: RequestScope) -> None:
    negotiate_output(scope)
    opts = await delete_options(scope)
    result = await scope.store.delete(scope.namespace, scope.info.name, opts)
    if result.deleted and not scope.store.return_deleted_object:
        meta = result.obj.get("metadata") or {}
        await write_status(scope, 200, status_success(scope.spec, meta.get("name", ""), meta.get("uid", "")))
    else:
        # kube answers 202 to a delete left pending that asked for its dependents' deletion the old way
        # (orphanDependents=false); 200 otherwise, for compatibility
        pending_cascade = not result.deleted and opts.orphan_dependents is False
        await write_object(scope, 202 if pending_cascade else 200, result.obj)


async def delete_collection(scope: RequestScope) -> None:
    """DeleteCollection: the list the query selects (limit and continue included: with a limit, one page and
    its continue token), each item deleted (one gone meanwhile is skipped), and that list as the answer."""
    negotiate_output(scope)
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
