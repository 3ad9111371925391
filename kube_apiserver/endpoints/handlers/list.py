"""LIST (handlers/get.go ListResource): selectors, resourceVersion semantics, limit/continue."""

from __future__ import annotations

import base64
import binascii
import posixpath
from operator import attrgetter
from typing import Any

import orjson

from kube_apiserver.endpoints import negotiation
from kube_apiserver.endpoints.handlers.scope import RequestScope, include_object, pom_mismatch, table_form
from kube_apiserver.endpoints.request import (
    LIST_PIECE_BYTES,
    Request,
    send_bytes,
    send_json_around,
    send_json_pieces,
)
from kube_apiserver.endpoints.table import partial_object_metadata, to_table
from kube_apiserver.registry.predicate import Predicate, make_predicate
from kube_apiserver.registry.resource_spec import ResourceSpec
from kube_apiserver.runtime import errors, features
from kube_apiserver.runtime.fields import SelectorParseError, escape_value, parse_field_selector
from kube_apiserver.runtime.labels import go_quote
from kube_apiserver.runtime.serializer import encode_yaml
from kube_apiserver.storage import errors as serrors
from kube_apiserver.storage.interface import ListOptions, ListResult

CONTINUE_EXPIRED = (
    "The provided continue parameter is too old to display a consistent list result. You can start a new list "
    "without the continue parameter, or use the continue token in this response to retrieve the remainder of the "
    "results. Continuing with the provided token results in an inconsistent list - objects that were created, "
    "modified, or deleted between the time the first chunk was returned and now may show up in the list."
)


def validate_list_options(req: Request, watch: bool) -> None:
    """ValidateListOptions, and validateWatchOptions for a watch: every violation, in one 422 on ListOptions.
    Before that the numbers are decoded, for a list and a watch alike: one that is no int64 is a 400."""
    req.int64("limit")
    req.int64("timeoutSeconds")
    rv = req.param("resourceVersion")
    match = req.param("resourceVersionMatch")
    cont = req.param("continue")
    initial = "sendInitialEvents" in req.query  # any value: upstream checks the pointer, not the bool
    forbidden = errors.field_forbidden
    causes = []
    if watch:
        if initial and match != "NotOlderThan":
            causes.append(
                forbidden(
                    "resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"
                )
            )
        if initial and not features.enabled(features.WATCH_LIST):
            causes.append(
                forbidden(
                    "sendInitialEvents",
                    "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
                )
            )
        if match:
            if not initial:
                causes.append(
                    forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                    )
                )
            if match != "NotOlderThan":
                causes.append(errors.field_not_supported("resourceVersionMatch", match, ["NotOlderThan"]))
            if cont:
                causes.append(
                    forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided")
                )
    else:
        if match:
            if not rv:
                causes.append(
                    forbidden(
                        "resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"
                    )
                )
            if cont:
                causes.append(
                    forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided")
                )
            if match not in ("Exact", "NotOlderThan"):
                causes.append(errors.field_not_supported("resourceVersionMatch", match, ["Exact", "NotOlderThan", ""]))
            if match == "Exact" and rv == "0":
                causes.append(
                    forbidden(
                        "resourceVersionMatch", 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'
                    )
                )
        if initial:
            causes.append(forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
    if causes:
        raise errors.new_invalid("meta.k8s.io", "ListOptions", "", causes)


_MAX_RESOURCE_VERSION = 2**64 - 1  # a uint64 in Go


def parse_resource_version(value: str, field: str = "resourceVersion") -> int:
    """APIObjectVersioner.ParseResourceVersion: a uint64 in ASCII digits ("²" is a digit to str.isdigit, not
    to strconv), refused as the storage layer's list options refuse it."""
    if value == "":
        return 0
    if value.isascii() and value.isdigit() and int(value) <= _MAX_RESOURCE_VERSION:
        return int(value)
    reason = "value out of range" if value.isascii() and value.isdigit() else "invalid syntax"
    cause = errors.field_invalid(field, value, f"strconv.ParseUint: parsing {go_quote(value)}: {reason}")
    raise errors.new_bad_request(f"invalid resource version: {field}: {cause.message}")


def encode_continue(revision: int, start_key_suffix: str) -> str:
    token = orjson.dumps({"v": "meta.k8s.io/v1", "rv": revision, "start": start_key_suffix})
    return base64.urlsafe_b64encode(token).decode().rstrip("=")


# storage.DecodeContinue's errors, which the list options' check answers as "invalid continue token: ..."
_INVALID_KEY = "continue key is not valid"
_INVALID_START_RV = f"{_INVALID_KEY}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"
_EMPTY_START_KEY = f"{_INVALID_KEY}: encoded start key empty (version meta.k8s.io/v1)"


def decode_continue(token: str) -> tuple[int, str]:
    """The revision and start key of a continue token, or the 400 kube answers for one it cannot use."""

    def invalid(reason: str) -> errors.StatusError:
        return errors.new_bad_request(f"invalid continue token: {reason}")

    try:
        data = orjson.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    except (ValueError, binascii.Error) as e:
        raise invalid(f"{_INVALID_KEY}: {e}") from None
    if not isinstance(data, dict):
        raise invalid(f"{_INVALID_KEY}: the token is not a JSON object")
    version, rv, start = data.get("v"), data.get("rv", 0), data.get("start", "")
    if version != "meta.k8s.io/v1":
        raise invalid(f"{_INVALID_KEY}: server does not recognize this encoded version {version or ''}".rstrip())
    if not isinstance(rv, int) or isinstance(rv, bool) or not isinstance(start, str):
        raise invalid(f"{_INVALID_KEY}: the token's fields are not of their types")
    if rv == 0:
        raise invalid(_INVALID_START_RV)
    if not start:
        raise invalid(_EMPTY_START_KEY)
    key = start if start.startswith("/") else "/" + start
    if "/" + posixpath.normpath(key).lstrip("/") != key:
        raise invalid(f"{_INVALID_KEY}: {start}")  # a key that path.Clean changes: "..", "//" and the like
    return rv, key[1:]


def selection(scope: RequestScope) -> Predicate | None:
    field_selector = scope.req.param("fieldSelector")
    if len(scope.info.parts) >= 2:
        # A watch of one object by its path (the legacy /watch/.../<name>): the name is a field selector
        # metadata.name=<name>, and a field selector given as well may only ask for the same name.
        name = scope.info.parts[1]
        if field_selector:
            try:
                selected = parse_field_selector(field_selector).requires_exact_match("metadata.name")
            except SelectorParseError as e:
                raise errors.new_bad_request(str(e)) from None
            if selected != name:
                raise errors.new_bad_request("fieldSelector metadata.name doesn't match requested name")
        else:
            field_selector = f"metadata.name={escape_value(name)}"
    return make_predicate(scope.spec, scope.req.param("labelSelector"), field_selector)


async def list_items(scope: RequestScope, predicate: Predicate | None) -> tuple[ListResult, str]:
    """The list the request asks for, and the continue token of the next page ("" for the last one)."""
    req = scope.req
    rv_text = req.param("resourceVersion")
    match = req.param("resourceVersionMatch")
    token = req.param("continue")
    limit = max(req.int64("limit") or 0, 0)
    validate_list_options(req, watch=False)
    if token and rv_text and rv_text != "0":  # the storage layer's check (ListReadConsistency): a 400
        raise errors.new_bad_request("specifying resource version is not allowed when using continue")
    rv = parse_resource_version(rv_text)
    store = scope.store
    cacher = store.storage
    prefix = store.list_prefix(scope.namespace)
    opts = ListOptions(limit=limit, predicate=predicate)
    try:
        if token:
            snapshot, start = decode_continue(token)
            opts.start_key = store.prefix + start
            if snapshot == cacher.revision or snapshot == -1:  # -1: the inconsistent continue of a 410
                result = cacher.list_cached(prefix, opts)
            else:
                opts.revision = snapshot
                try:
                    result = await cacher.storage.get_list(prefix, opts)
                except serrors.ExpiredError:
                    # handleCompactedErrorForPaging: the answer carries a token that goes on from the same
                    # key at the latest revision, for a client that accepts an inconsistent list
                    err = errors.new_resource_expired(CONTINUE_EXPIRED)
                    err.list_continue = encode_continue(-1, start)
                    raise err from None
        elif match == "Exact" or (not match and limit and rv):
            # a page of a list at a resourceVersion with no resourceVersionMatch is Exact too (the legacy
            # semantics of limit with resourceVersion), not NotOlderThan as the whole list would be
            opts.revision = rv
            result = await cacher.get_list(prefix, opts)
        else:
            if rv_text == "":
                await cacher.wait_fresh()
            elif rv:
                await cacher.wait_until(rv)
            result = cacher.list_cached(prefix, opts)
    except serrors.StorageError as e:
        if isinstance(e, serrors.ExpiredError):
            raise errors.new_resource_expired("The resourceVersion for the provided list is too old.") from None
        raise store._interpret(e, "") from None
    next_token = encode_continue(result.revision, result.next_key[len(store.prefix) :]) if result.more else ""
    return result, next_token


_RAW = attrgetter("raw")  # an item's serialized bytes, made once by the watch cache
_ITEM_TAIL = attrgetter("item_tail")  # the same without kind and apiVersion, and without the "{"


async def list_resource(scope: RequestScope) -> None:
    predicate = selection(scope)
    result, next_token = await list_items(scope, predicate)
    list_meta: dict[str, Any] = {"resourceVersion": str(result.revision)}
    if next_token:
        list_meta["continue"] = next_token
        if result.remaining:
            list_meta["remainingItemCount"] = result.remaining
    out = negotiation.negotiate(scope.req.header("accept"), table=True, pom=True)
    if out.as_kind == "PartialObjectMetadata":
        raise pom_mismatch(scope.spec, out.as_kind, is_list=True)
    send = scope.req.send
    spec = scope.spec
    if out.form == "json":
        # The items are already encoded: the list is written around their bytes, not re-encoded.
        head = orjson.dumps({"kind": spec.list_kind, "apiVersion": spec.group_version, "metadata": list_meta})
        head = head[:-1] + b',"items":['
        items = result.items
        if spec.custom or not items:  # custom resources' items keep their kind and apiVersion
            encoded, separator = _RAW, b","
        else:  # as a typed list: items without kind and apiVersion, each opened by the separator
            encoded, separator = _ITEM_TAIL, b",{"
        writer = scope.req.stream_writer()
        large = len(items) > 1 and len(items) * len(encoded(items[0])) > LIST_PIECE_BYTES
        if large and result.joined_runs is not None:  # written from runs of items joined by earlier lists
            pieces = result.joined_runs(encoded, separator).pieces(items)
            await send_json_pieces(send, head, pieces, b"]}", writer)
        else:
            await send_json_around(
                send, head + separator[1:], items, b"]}", separator=separator, encoded=encoded, writer=writer
            )
        return
    objects = [i.obj for i in result.items]
    if out.form == "table":
        printed = [table_form(scope, i) for i in result.items]
        include = include_object(scope)
        table = to_table(spec, printed, list_meta=list_meta, include=include, version=out.version, served=objects)
        await send_bytes(send, 200, negotiation.encode_transformed(out, table), out.content_type)
    elif out.form == "pom":
        pom = {
            "kind": "PartialObjectMetadataList",
            "apiVersion": f"meta.k8s.io/{out.version}",
            "metadata": list_meta,
            "items": [partial_object_metadata(o, out.version) for o in objects],
        }
        await send_bytes(send, 200, negotiation.encode_transformed(out, pom), out.content_type)
    else:
        items = typed_list_items(spec, objects)
        doc = {"apiVersion": spec.group_version, "items": items, "kind": spec.list_kind, "metadata": list_meta}
        await send_bytes(send, 200, encode_yaml(doc), negotiation.YAML)


def typed_list_items(spec: ResourceSpec, objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items as a list of the kind carries them: kube-apiserver writes a built-in kind's list items
    without kind and apiVersion (a custom resource's keep theirs)."""
    if spec.custom:
        return objects
    return [{k: v for k, v in o.items() if k != "kind" and k != "apiVersion"} for o in objects]
