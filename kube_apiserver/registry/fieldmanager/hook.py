"""How a write handler hands its field manager to the registry Store.

The handler opens managing(hook) around its store call; the Store asks current(self) at the point
of the write where upstream runs the field manager (after decoding and defaulting, before the
strategy prepares the object; for updates inside the guaranteed update, against the live object)
and lets the hook finish the object once prepared. A context variable rather than an argument:
Store subclasses (ServiceREST) keep their signatures, and writes a Store makes to other stores in
the same request (IPAddress objects) are not mistaken for the request's own.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from kube_apiserver.registry.fieldmanager.manager import FieldManager

_current: ContextVar[WriteHook | None] = ContextVar("field_manager_hook", default=None)
_UNSET = object()


class WriteHook:
    """One write's field manager: update() for create/update/patch, nothing for apply (its managed
    fields come from the apply itself), and finish() for both."""

    def __init__(self, store: Any, field_manager: FieldManager | None, manager: str, *, applied: bool = False) -> None:
        self.store = store
        self.field_manager = field_manager
        self.manager = manager
        self.applied = applied  # the object comes from an apply, which made its managedFields
        self._entries: Any = _UNSET  # what update() computed (or the apply made), for finish()

    def update(self, live: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
        if self.field_manager is None:
            if self.applied:  # kept for finish(): a status strategy rebuilds the object from the old one
                self._entries = _entries(new)
            return new
        out = self.field_manager.update(live, new, self.manager)
        self._entries = _entries(out)
        return out

    def finish(self, new: dict[str, Any], old: dict[str, Any] | None) -> None:
        """After the strategy prepared the object: the managedFields update() computed (a status
        strategy builds the result from the old object), and no write for new times alone."""
        if self._entries is not _UNSET:
            meta = new.get("metadata")
            if isinstance(meta, dict):
                if self._entries is None:
                    meta.pop("managedFields", None)
                else:
                    meta["managedFields"] = self._entries
        ignore_managed_fields_timestamps(new, old)


class managing:  # noqa: N801 - used as a context manager function: `with managing(hook):`
    """The hook is the current one inside the block. A class rather than @contextmanager: it runs on
    every write, and a generator-based context manager costs a few microseconds more."""

    __slots__ = ("hook", "_token")

    def __init__(self, hook: WriteHook) -> None:
        self.hook = hook

    def __enter__(self) -> None:
        self._token = _current.set(self.hook)

    def __exit__(self, *exc: object) -> None:
        _current.reset(self._token)


def current(store: Any) -> WriteHook | None:
    """The hook of the write the request makes to store, if any."""
    hook = _current.get()
    return hook if hook is not None and hook.store is store else None


def _entries(obj: dict[str, Any] | None) -> Any:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return meta.get("managedFields") if isinstance(meta, dict) else None


def _without_times(entries: list[Any]) -> list[Any]:
    return [{k: v for k, v in e.items() if k != "time"} if isinstance(e, dict) else e for e in entries]


def ignore_managed_fields_timestamps(new: dict[str, Any], old: dict[str, Any] | None) -> None:
    """IgnoreManagedFieldsTimestampsTransformer: a write that changes nothing but managedFields
    times keeps the old times, so that it is no write at all (same resourceVersion)."""
    new_entries, old_entries = _entries(new), _entries(old)
    if not isinstance(new_entries, list) or not isinstance(old_entries, list) or not new_entries:
        return
    if len(new_entries) != len(old_entries):
        return
    times = [e.get("time") if isinstance(e, dict) else None for e in new_entries]
    old_times = [e.get("time") if isinstance(e, dict) else None for e in old_entries]
    if times == old_times:
        return
    if _without_times(new_entries) != _without_times(old_entries):
        return
    assert old is not None
    new_meta = {k: v for k, v in new["metadata"].items() if k != "managedFields"}
    old_meta = {k: v for k, v in (old.get("metadata") or {}).items() if k != "managedFields"}
    if new_meta != old_meta or {k: v for k, v in new.items() if k != "metadata"} != {
        k: v for k, v in old.items() if k != "metadata"
    }:
        return
    for entry, stamp in zip(new_entries, old_times, strict=True):
        if not isinstance(entry, dict):
            continue
        if stamp is None:
            entry.pop("time", None)
        else:
            entry["time"] = stamp
