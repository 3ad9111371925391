"""Storage errors (k8s.io/apiserver/pkg/storage/errors.go). The registry turns them into Status errors."""

from __future__ import annotations


class StorageError(Exception):
    def __init__(self, key: str, message: str = "", revision: int = 0) -> None:
        super().__init__(message or key)
        self.key = key
        self.revision = revision


class KeyNotFoundError(StorageError):
    pass


class KeyExistsError(StorageError):
    pass


class ResourceVersionConflictError(StorageError):
    """The object changed since the caller read it (compare-and-swap on the modification revision failed)."""


class InvalidObjError(StorageError):
    """A precondition (uid, resourceVersion) did not hold; message says which."""


class ExpiredError(StorageError):
    """The requested revision has been compacted away (etcd's ErrCompacted → 410 Expired)."""


class TooLargeResourceVersionError(StorageError):
    """The requested revision is newer than anything the store has seen in time (→ 504 Timeout)."""


class UnavailableError(StorageError):
    """The backend cannot take the request now (closed, disk full)."""
