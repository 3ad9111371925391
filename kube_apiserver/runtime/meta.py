"""Object metadata helpers: names, uids, timestamps, generateName (apimachinery's meta and validation)."""

from __future__ import annotations

import itertools
import os
import re
import secrets
import time
from datetime import UTC, datetime
from typing import Any

from kube_apiserver.runtime.errors import StatusCause, field_invalid, field_required, new_bad_request

DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*"
_LABEL_RE = re.compile("^" + DNS1123_LABEL_FMT + "$")
_SUBDOMAIN_RE = re.compile("^" + DNS1123_SUBDOMAIN_FMT + "$")

DNS1123_LABEL_ERR = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '"
    + DNS1123_LABEL_FMT
    + "')"
)
DNS1123_SUBDOMAIN_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '"
    + DNS1123_SUBDOMAIN_FMT
    + "')"
)


def is_dns1123_label(value: str) -> list[str]:
    errs = []
    if len(value) > 63:
        errs.append("must be no more than 63 characters")
    if not _LABEL_RE.match(value):
        # a valid subdomain that is no label (its length already checked) can only be wrong by its dots
        errs.append("must not contain dots" if _SUBDOMAIN_RE.match(value) else DNS1123_LABEL_ERR)
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    errs = []
    if len(value) > 253:
        errs.append("must be no more than 253 characters")
    if not _SUBDOMAIN_RE.match(value):
        errs.append(DNS1123_SUBDOMAIN_ERR)
    return errs


def is_path_segment_name(value: str) -> list[str]:
    """path.IsValidPathSegmentName: the rule for names that only have to be safe in a URL (RBAC roles, ...)."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    errs = []
    for ch in ("/", "%"):
        if ch in value:
            errs.append(f"may not contain '{ch}'")
    return errs


def validate_object_name(name: str, name_fn: Any, path: str = "metadata.name") -> list[StatusCause]:
    if not name:
        return [field_required(path, "name or generateName is required")]
    return [field_invalid(path, name, msg) for msg in name_fn(name)]


_last_stamp: tuple[int, str] = (0, "")


def now_rfc3339() -> str:
    """metav1.Time: second precision, UTC, 'Z' (formatted once per second: every write asks)."""
    global _last_stamp
    second = int(time.time())
    if _last_stamp[0] != second:
        _last_stamp = (second, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(second)))
    return _last_stamp[1]


def now_rfc3339_micro() -> str:
    """metav1.MicroTime (events, leases)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_rfc3339(value: str) -> float:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except (ValueError, AttributeError):
        return time.time()


class _RandomPool:
    """Kernel randomness fetched 4 KiB at a time, kept as hex. os.urandom releases the GIL around
    getrandom(2), and under load each release hands the GIL to the storage threads and costs the event
    loop a wait for it back (a mean of ~29 µs per call was measured, against 0.4 µs when idle); two calls
    per create (the Audit-ID and the uid) made that a tenth of the loop's time. Same randomness, one
    call per 256 UIDs. Not for secrets: a fork would share the pool.

    Threads share it without a lock: a block's pieces are handed out by its own counter, whose next()
    is one step under the GIL, so no two takers get the same piece; two threads finding a block used up
    may both fetch a new one, and one of them is dropped unused."""

    __slots__ = ("_block",)

    _SIZE = 4096

    def __init__(self) -> None:
        self._block: tuple[str, itertools.count[int]] = ("", itertools.count())

    def take32hex(self) -> str:
        """16 random bytes as 32 hex digits."""
        while True:
            hex_digits, taken = self._block
            pos = next(taken) * 32
            if pos < len(hex_digits):
                return hex_digits[pos : pos + 32]
            self._block = (os.urandom(self._SIZE).hex(), itertools.count())


_UID_RANDOM = _RandomPool()
# RFC 4122 variant bits (10xx) over the random nibble that holds them
_VARIANT = {f"{n:x}": f"{(n & 0x3) | 0x8:x}" for n in range(16)}


def new_uid() -> str:
    """A random (version 4) UUID, as str(uuid.uuid4()) without building a UUID object."""
    h = _UID_RANDOM.take32hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:]}"


# names.SimpleNameGenerator: 5 random characters from an alphabet without vowels or look-alikes.
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
_MAX_GENERATED_NAME_LENGTH = 63 - 5


def generate_name(base: str) -> str:
    if len(base) > _MAX_GENERATED_NAME_LENGTH:
        base = base[:_MAX_GENERATED_NAME_LENGTH]
    return base + "".join(secrets.choice(_ALPHANUMS) for _ in range(5))


# Metadata keys in the order the Go ObjectMeta struct serializes them: kube-apiserver writes every built-in
# object's metadata in this order, whatever order the client sent (server-set fields included).
OBJECT_META_ORDER = (
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
)


class _Ranks(dict[str, int]):
    """Each ObjectMeta key's place; keys ObjectMeta does not have go after its own."""

    def __missing__(self, key: str) -> int:
        return len(OBJECT_META_ORDER)


_META_RANK = _Ranks((k, i) for i, k in enumerate(OBJECT_META_ORDER))
_rank = _META_RANK.__getitem__


# The ObjectMeta order of each sequence of keys met (None: already in order). Metadata comes with few
# distinct key sequences (a create's: the client's keys, then uid, creationTimestamp, managedFields and
# resourceVersion), and a lookup by the keys costs a fraction of ranking and sorting them on every write.
_ORDER_OF_KEYS: dict[tuple[str, ...], tuple[str, ...] | None] = {}
_ORDER_CACHE_SIZE = 4096
_UNSEEN = ()


def _object_meta_order(keys: tuple[str, ...]) -> tuple[str, ...] | None:
    order = _ORDER_OF_KEYS.get(keys, _UNSEEN)
    if order is _UNSEEN:
        ranks = list(map(_rank, keys))
        order = None if ranks == sorted(ranks) else tuple(sorted(keys, key=_rank))
        if len(_ORDER_OF_KEYS) >= _ORDER_CACHE_SIZE:
            _ORDER_OF_KEYS.clear()
        _ORDER_OF_KEYS[keys] = order
    return order


def in_object_meta_order(meta: dict[str, Any]) -> bool:
    return _object_meta_order(tuple(meta)) is None


def object_meta_ordered(meta: dict[str, Any]) -> dict[str, Any]:
    """meta itself when its keys are in ObjectMeta order, else a copy in that order (unknown keys last, in
    their own order: the sort is stable)."""
    order = _object_meta_order(tuple(meta))
    if order is None:
        return meta
    return {k: meta[k] for k in order}


def metadata(obj: dict[str, Any]) -> dict[str, Any]:
    """The object's metadata dict, created if absent (or not a dict)."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        meta = {}
        obj["metadata"] = meta
    return meta


def check_name(obj: dict[str, Any], name: str, namespace: str) -> None:
    """checkName (endpoints/handlers/rest.go), of a PUT's body, an apply's configuration or a patch's result: the
    object names the object of the URL (an empty name is the namer's errEmptyName), and its namespace, when it
    has one, is the request's."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    obj_name = meta.get("name") if isinstance(meta.get("name"), str) else ""
    if not obj_name:
        raise new_bad_request(f"the name of the object ({name} based on URL) was undeterminable: name must be provided")
    if obj_name != name:
        raise new_bad_request(f"the name of the object ({obj_name}) does not match the name on the URL ({name})")
    obj_namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else ""
    if namespace and obj_namespace and obj_namespace != namespace:
        raise new_bad_request(
            f"the namespace of the object ({obj_namespace}) does not match the namespace on the request ({namespace})"
        )
