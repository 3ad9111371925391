"""The storage interface (k8s.io/apiserver/pkg/storage.Interface), asyncio flavoured.

Objects are dicts; every backend keeps them encoded and hands back both forms, so a reader can
reuse the encoded bytes. Every write gets the next value of one global revision counter, which
the backend writes into metadata.resourceVersion of the stored bytes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

ADDED = "ADDED"
MODIFIED = "MODIFIED"
DELETED = "DELETED"


@dataclass(slots=True)
class StoredObject:
    obj: dict[str, Any]  # shared: never mutate; copy with orjson.loads(raw) first
    raw: bytes  # the object encoded as JSON, resourceVersion included
    revision: int  # the modification revision (= metadata.resourceVersion)
    key: str = ""


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
