"""The storage interface (k8s.io/apiserver/pkg/storage.Interface), asyncio flavoured.

Objects are dicts; every backend keeps them encoded and hands back both forms, so a reader can
reuse the encoded bytes. Every write gets the next value of one global revision counter, which
the backend writes into metadata.resourceVersion of the stored bytes.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import orjson

if TYPE_CHECKING:
    from kube_apiserver.storage.cacher.joined_runs import JoinedRuns

ADDED = "ADDED"
MODIFIED = "MODIFIED"
DELETED = "DELETED"


@dataclass(slots=True)
class StoredObject:
    obj: dict[str, Any]  # shared: never mutate; copy with orjson.loads(raw) first
    raw: bytes  # the object encoded as JSON, resourceVersion included
    revision: int  # the modification revision (= metadata.resourceVersion)
    key: str = ""
    # The object as an item of a typed list, which kube-apiserver writes without the items' kind and
    # apiVersion: raw after its leading TypeMeta, from the first key on (the list writes the "{").
    # Made once, with the object, so that a list of many is joined in one step. A copy, not a
    # memoryview of raw: joining views cost a list of 10,000 a fifth more (a cache miss or two per view).
    item_tail: bytes = field(default=b"", repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.item_tail:
            self.item_tail = list_item_tail(self.raw, self.obj)


# The TypeMeta an object's JSON starts with: kind first in kube's order for built-in kinds, apiVersion
# first for custom resources and for objects stored before the server wrote kube's order.
_LEADING_TYPE_META = re.compile(rb'\{"(?:kind":"[^"\\]*","apiVersion|apiVersion":"[^"\\]*","kind)":"[^"\\]*"')


def list_item_tail(raw: bytes, obj: dict[str, Any]) -> bytes:
    """raw without its kind and apiVersion and without the opening brace."""
    m = _LEADING_TYPE_META.match(raw)
    if m is not None:
        end = m.end()
        return raw[end + 1 :] if raw[end : end + 1] == b"," else b"}"
    return orjson.dumps({k: v for k, v in obj.items() if k != "kind" and k != "apiVersion"})[1:]


@dataclass(slots=True)
class Event:
    type: str  # ADDED, MODIFIED, DELETED
    key: str
    object: StoredObject  # for DELETED: the last state, with the deletion revision
    revision: int


@dataclass(slots=True)
class WatchBatch:
    """What a storage watch yields: the events of one or more commits, or none (a progress notification)."""

    events: list[Event]
    revision: int  # the store's revision once these events are applied


@dataclass(slots=True)
class ListResult:
    items: list[StoredObject]
    revision: int  # the revision the list is consistent at
    more: bool = False  # stopped at limit with keys left
    next_key: str = ""  # the key to continue from (inclusive) when more is True
    remaining: int = 0  # how many keys were left (only when counted)
    # When items are consecutive objects of a watch cache, as it holds them: its joined runs for an
    # item encoding (encoded, separator), from which a large list body is written in pieces.
    joined_runs: Callable[[Callable[[StoredObject], bytes], bytes], JoinedRuns] | None = None


@dataclass(slots=True)
class Preconditions:
    uid: str | None = None
    resource_version: str | None = None

    def check(self, key: str, obj: dict[str, Any]) -> None:
        from kube_apiserver.storage.errors import InvalidObjError

        meta = obj.get("metadata") or {}
        if self.uid is not None and self.uid != meta.get("uid", ""):
            raise InvalidObjError(
                key,
                f"Precondition failed: UID in precondition: {self.uid}, UID in object meta: {meta.get('uid', '')}",
            )
        if self.resource_version is not None and self.resource_version != meta.get("resourceVersion", ""):
            raise InvalidObjError(
                key,
                "Precondition failed: ResourceVersion in precondition: "
                f"{self.resource_version}, ResourceVersion in object meta: {meta.get('resourceVersion', '')}",
            )


# try_update gets a private copy of the current object (None when absent and ignore_not_found) and
# returns the new object; it may raise to abort. Returning an object equal to the input writes nothing.
UpdateFunc = Callable[[dict[str, Any] | None], dict[str, Any]]
# validate_deletion sees the current object before it is deleted and may raise to abort.
ValidateDeletion = Callable[[dict[str, Any]], None]


@dataclass
class ListOptions:
    revision: int = 0  # 0: the latest; otherwise a snapshot at exactly this revision
    start_key: str = ""  # first key to return (inclusive), for continuation
    limit: int = 0  # 0: no limit
    predicate: Callable[[dict[str, Any]], bool] | None = field(default=None)


class Interface(Protocol):
    async def create(self, key: str, obj: dict[str, Any]) -> StoredObject:
        """Raises KeyExistsError."""
        ...

    async def get(self, key: str) -> StoredObject:
        """The latest state. Raises KeyNotFoundError."""
        ...

    async def get_list(self, prefix: str, opts: ListOptions) -> ListResult:
        """Keys under prefix in key order. Raises ExpiredError for a compacted revision."""
        ...

    async def guaranteed_update(
        self,
        key: str,
        try_update: UpdateFunc,
        *,
        ignore_not_found: bool = False,
        preconditions: Preconditions | None = None,
    ) -> StoredObject:
        """Read, apply try_update, compare-and-swap; retried until the swap holds.
        Raises KeyNotFoundError, InvalidObjError (preconditions), or what try_update raises."""
        ...

    async def delete(
        self,
        key: str,
        *,
        preconditions: Preconditions | None = None,
        validate_deletion: ValidateDeletion | None = None,
    ) -> StoredObject:
        """Returns the last state (with the deletion revision). Raises KeyNotFoundError, InvalidObjError."""
        ...

    def watch(self, prefix: str, revision: int) -> AsyncIterator[WatchBatch]:
        """Events strictly after revision under prefix. Raises ExpiredError (when iterated) if compacted."""
        ...

    async def count(self, prefix: str) -> int: ...

    async def current_revision(self) -> int: ...

    async def close(self) -> None: ...


def prefix_end(prefix: str) -> str:
    """The first key after every key that starts with prefix (etcd's clientv3.GetPrefixRangeEnd)."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)
