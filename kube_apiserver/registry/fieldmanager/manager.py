"""The field manager of one resource (and subresource) in one version, as NewDefaultFieldManager
stacks it upstream: version check → last-applied updater → last-applied manager → skip
non-applied → cap managers → build manager info → managed fields updater → strip meta →
structured merge.

update() runs on every create, update and patch, after decoding and defaulting and before the
strategy prepares the object: the manager (the fieldManager parameter, else the user agent's
program) takes ownership of what it changed. apply() is server-side apply.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

import orjson

from kube_apiserver.registry.fieldmanager import fieldpath as fp
from kube_apiserver.registry.fieldmanager import merge, typed
from kube_apiserver.registry.fieldmanager.managedfields import (
    APPLY,
    FIELDS_V1,
    UPDATE,
    DecodeError,
    Managed,
    VersionedSet,
    build_manager_identifier,
    decode_managed_fields,
    encode_managed_fields,
    is_reset,
    now_rfc3339,
    parse_identifier,
    unix_seconds,
)
from kube_apiserver.registry.fieldmanager.typeconv import Atom, atom_for_kind
from kube_apiserver.registry.fieldmanager.updater import Conflicts, Convert, Updater
from kube_apiserver.registry.fieldmanager.zero import shared_zero_object, zero_object
from kube_apiserver.runtime import errors

log = logging.getLogger(__name__)

DEFAULT_MAX_UPDATE_MANAGERS = 10
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_CURRENT = "current-operation"
_BEFORE_FIRST_APPLY = "before-first-apply"
_ANCIENT = "ancient-changes"
_ANNOTATIONS_MAX = 256 * 1024

# Fields that are never anyone's (stripmeta.go).
_STRIP: fp.FieldSet = fp.from_paths(
    [
        ("f:apiVersion",),
        ("f:kind",),
        ("f:metadata",),
        *(
            ("f:metadata", "f:" + name)
            for name in (
                "name",
                "namespace",
                "creationTimestamp",
                "selfLink",
                "uid",
                "clusterName",
                "generation",
                "managedFields",
                "resourceVersion",
            )
        ),
    ]
)

_STRIPPED_META = frozenset(p[1] for p in fp.iterate(_STRIP) if len(p) == 2)


def _strip(owned: fp.FieldSet) -> fp.FieldSet:
    """fp.difference(owned, _STRIP) for a set built from one object, without the general walk."""
    out: fp.FieldSet = {}
    for pe, child in owned.items():
        if pe == "f:metadata":
            kept = {k: v for k, v in child.items() if k not in _STRIPPED_META and k != fp.MEMBER}
            if kept:
                out[pe] = kept
        elif pe not in ("f:apiVersion", "f:kind"):
            out[pe] = child
    return out


# What a write leaves to other writes (GetResetFields): the main resource does not own status, a
# status write owns nothing but status.
RESET_NONE, RESET_STATUS, RESET_ALL_BUT_STATUS = "", "status", "all-but-status"


def split_api_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def gvk_string(api_version: Any, kind: Any) -> str:
    """schema.GroupVersionKind.String(): "apps/v1, Kind=Deployment", "/v1, Kind=ConfigMap"."""
    group, version = split_api_version(api_version if isinstance(api_version, str) else "")
    return f"{group}/{version}, Kind={kind if isinstance(kind, str) else ''}"


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or "managedFields" not in meta:
        return obj
    return {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}


def _set_managed_fields(obj: dict[str, Any], managed: Managed) -> None:
    entries = encode_managed_fields(managed)
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        if entries is None:
            return
        meta = obj["metadata"] = {}
    if entries is None:
        meta.pop("managedFields", None)
    else:
        meta["managedFields"] = entries


def _print_manager(identifier: str) -> str:
    entry = parse_identifier(identifier)
    if not entry:
        return orjson.dumps(identifier).decode()
    text = orjson.dumps(entry.get("manager", "")).decode()
    if entry.get("subresource"):
        text += f" with subresource {orjson.dumps(entry['subresource']).decode()}"
    if entry.get("operation") == UPDATE:
        return f"{text} using {entry.get('apiVersion', '')}"
    return text


def _unknown_error(message: str) -> errors.StatusError:
    """A plain Go error reaching the handler: 500 with the error's text and no reason."""
    return errors.StatusError(500, "", message, details=False)


def conflict_error(conflicts: Conflicts) -> errors.StatusError:
    """409 Conflict naming each manager and field (internal/conflict.go NewConflictError)."""
    items = conflicts.conflicts
    causes = [
        errors.StatusCause("FieldManagerConflict", f"conflict with {_print_manager(m)}", fp.path_string(p))
        for m, p in items
    ]
    if len(items) == 1:
        manager, path = items[0]
        message = f"Apply failed with 1 conflict: conflict with {_print_manager(manager)}: {fp.path_string(path)}"
    else:
        by_manager: dict[str, list[fp.Path]] = {}
        for manager, path in items:
            by_manager.setdefault(manager, []).append(path)
        lines = []
        for manager in sorted(by_manager):
            lines.append(f"conflicts with {_print_manager(manager)}:")
            lines.extend(f"- {fp.path_string(p)}" for p in by_manager[manager])
        message = f"Apply failed with {len(items)} conflicts: " + "\n".join(lines)
    return errors.StatusError(409, "Conflict", message, causes=causes)


class FieldManager:
    """Managed fields of one kind in one served version, for the main resource or a subresource."""

    def __init__(
        self,
        api_version: str,
        kind: str,
        subresource: str = "",
        *,
        reset: str = RESET_NONE,
        convert: Convert | None = None,
    ) -> None:
        self.api_version = api_version
        self.kind = kind
        self.subresource = subresource
        self.reset = reset
        self.convert = convert
        self.atom: Atom | None = atom_for_kind(*split_api_version(api_version), kind)
        self._zero: dict[str, Any] | None = None  # shared_zero_object's, for this atom

    @property
    def enabled(self) -> bool:
        return self.atom is not None

    def _atom_for(self, api_version: str) -> Atom | None:
        return atom_for_kind(*split_api_version(api_version), self.kind)

    def zero(self) -> dict[str, Any]:
        fields = tuple(self.atom.map.fields) if self.atom is not None and self.atom.map is not None else ()
        return zero_object(self.api_version, self.kind, fields)

    def _shared_zero(self) -> dict[str, Any]:
        zero = self._zero
        if zero is None:  # the kind's top-level fields made into a key on every write cost a microsecond
            fields = tuple(self.atom.map.fields) if self.atom is not None and self.atom.map is not None else ()
            zero = self._zero = shared_zero_object(self.api_version, self.kind, fields)
        return zero

    def _ignored(self, live: dict[str, Any], new: dict[str, Any]) -> fp.FieldSet:
        """The fields this resource's writes never own (the status of the main resource, all but the
        status of the status subresource)."""
        if self.reset == RESET_STATUS:
            return {"f:status": {}}
        if self.reset == RESET_ALL_BUT_STATUS:
            return {"f:" + k: {} for k in (*live, *new) if k != "status"}
        return {}

    def _updater(self, live: dict[str, Any], new: dict[str, Any]) -> Updater:
        ignored = self._ignored(live, new)
        return Updater(self._atom_for, {self.api_version: ignored} if ignored else None, self.convert)

    # --- update (create, update, patch) ---

    def update(self, live: dict[str, Any] | None, new: dict[str, Any], manager: str) -> dict[str, Any]:
        """UpdateNoErrors: new with its managedFields brought up to date; live None for a create.
        On a failure the live object's managedFields are kept."""
        if self.atom is None:
            return new
        if live is None and not self.subresource and _meta(new).get("managedFields") is None:
            return self._create(new, manager)
        # update() only reads the live object (compares it, copies its managedFields), so a create
        # compares against the shared empty object instead of a fresh deep copy of it
        live_obj = live if live is not None else self._shared_zero()
        try:
            managed = self._decode_live_or_new(live_obj, new)
            meta = new.get("metadata")
            if isinstance(meta, dict):
                meta.pop("managedFields", None)
            managed = self._update_chain(_without_managed_fields(live_obj), new, managed, manager)
            _set_managed_fields(new, managed)
        except Exception:  # a defect here must not fail the write (upstream logs and carries on)
            log.exception("failed to update managedFields of %s %s", self.kind, _meta(new).get("name", ""))
            meta = new.get("metadata")
            if isinstance(meta, dict):
                previous = _meta(live_obj).get("managedFields")
                if previous is not None:
                    meta["managedFields"] = previous
                else:
                    meta.pop("managedFields", None)
        return new

    def _create(self, new: dict[str, Any], manager: str) -> dict[str, Any]:
        """update() of a create that brings no managedFields: what the general path computes with
        no managers to take fields from (the manager owns what differs from the empty object, less
        the ignored and stripped fields), without its set algebra over empty operands."""
        try:
            owned = merge.changed_fields(self._shared_zero(), new, self.atom)
            ignored = self._ignored({}, new)
            if ignored:
                owned = fp.recursive_difference(owned, ignored)
            owned = _strip(owned)
            entries = None
            if owned:  # the one entry encode_managed_fields would write, in its key order
                entries = [
                    {
                        "manager": manager or "unknown",
                        "operation": UPDATE,
                        "apiVersion": self.api_version,
                        "time": now_rfc3339(),
                        "fieldsType": FIELDS_V1,
                        "fieldsV1": fp.to_fields_v1(owned),
                    }
                ]
        except Exception:  # as in update(): a defect here must not fail the write
            log.exception("failed to update managedFields of %s %s", self.kind, _meta(new).get("name", ""))
            return new
        meta = new.get("metadata")
        if not isinstance(meta, dict):
            if entries is None:
                return new
            meta = new["metadata"] = {}
        if entries is None:
            meta.pop("managedFields", None)
        else:
            meta["managedFields"] = entries
        return new

    def _decode_live_or_new(self, live: dict[str, Any], new: dict[str, Any]) -> Managed:
        stored = _meta(live).get("managedFields")
        if not self.subresource:
            entries = _meta(new).get("managedFields")
            if is_reset(entries):
                return Managed()
            if entries != stored:  # the client sent managedFields of its own
                try:
                    managed = decode_managed_fields(entries)
                except DecodeError:
                    managed = Managed()
                if managed.fields:
                    return managed
        try:
            return decode_managed_fields(stored, trusted=_meta(live).get("uid") is not None)
        except DecodeError:
            return Managed()

    def _update_chain(self, live: dict[str, Any], new: dict[str, Any], managed: Managed, manager: str) -> Managed:
        if not managed.fields and _meta(live).get("uid"):
            return managed  # untracked object (its managedFields were cleared): stays untracked
        managed = self._tracked_update(live, new, managed, manager)
        return self._cap_update_managers(managed)

    def _tracked_update(self, live: dict[str, Any], new: dict[str, Any], managed: Managed, manager: str) -> Managed:
        identifier = build_manager_identifier(manager or "unknown", UPDATE, self.api_version, self.subresource)
        fields = self._updater(live, new).update(live, new, self.api_version, managed.fields, _CURRENT)
        times = dict(managed.times)
        current = fields.pop(_CURRENT, None)
        if current is not None:
            current = VersionedSet(fp.difference(current.set, _STRIP), current.api_version, current.applied)
        if current is not None and current.set:
            prev = fields.get(identifier)
            merged = fp.union(current.set, prev.set) if prev is not None else current.set
            fields[identifier] = VersionedSet(merged, current.api_version, current.applied)
            times[identifier] = now_rfc3339()
        return Managed(fields, times, managed.wire)

    def _cap_update_managers(self, managed: Managed) -> Managed:
        updaters = [m for m, vs in managed.fields.items() if not vs.applied]
        if len(updaters) <= DEFAULT_MAX_UPDATE_MANAGERS:
            return managed
        updaters.sort(key=lambda m: (unix_seconds(managed.times.get(m)), m))
        fields, times = dict(managed.fields), dict(managed.times)
        first_of_version: dict[str, str] = {}
        length = len(updaters)
        for manager in updaters:
            if length <= DEFAULT_MAX_UPDATE_MANAGERS:
                break
            vs = fields[manager]
            bucket = build_manager_identifier(_ANCIENT, UPDATE, vs.api_version, "")
            first = first_of_version.get(vs.api_version)
            if first is None:
                first_of_version[vs.api_version] = manager
                continue
            if bucket not in fields:
                fields[bucket] = fields.pop(first)
            fields[bucket] = VersionedSet(fp.union(vs.set, fields[bucket].set), vs.api_version, vs.applied)
            del fields[manager]
            times[bucket] = times.get(manager)
            length -= 1
        return Managed(fields, times, managed.wire)

    # --- server-side apply ---

    def apply(self, live: dict[str, Any] | None, patch: dict[str, Any], manager: str, force: bool) -> dict[str, Any]:
        """The object after applying patch for manager (live None: nothing exists yet), with its
        managedFields; StatusError for conflicts (409) and refused configurations."""
        if self.atom is None:
            raise _unknown_error(f"no schema to apply {gvk_string(self.api_version, self.kind)} with")
        live_obj = live if live is not None else self.zero()
        try:
            managed = decode_managed_fields(_meta(live_obj).get("managedFields"), trusted=live is not None)
        except DecodeError as e:
            raise _unknown_error(f"failed to decode managed fields: {e}") from None
        if patch.get("apiVersion") != self.api_version or patch.get("kind") != self.kind:
            raise errors.new_bad_request(
                f"invalid object type: {gvk_string(patch.get('apiVersion'), patch.get('kind'))}"
            )
        try:
            obj, managed = self._apply_with_last_applied(live_obj, patch, managed, manager, force)
        except Conflicts as c:
            raise conflict_error(c) from None
        _set_managed_fields(obj, managed)
        return obj

    def _apply_with_last_applied(
        self, live: dict[str, Any], patch: dict[str, Any], managed: Managed, manager: str, force: bool
    ) -> tuple[dict[str, Any], Managed]:
        try:
            obj, managed = self._apply_chain(live, patch, managed, manager, force)
        except Conflicts as c:
            # kubectl's first server-side apply over its client-side applies: what the
            # last-applied annotation says it set, and still has, is not a conflict.
            if manager != "kubectl":
                raise
            allowed = self._allowed_from_last_applied(live)
            if allowed is None:
                raise
            remaining = [(m, p) for m, p in c.conflicts if not fp.has(allowed, p)]
            if remaining:
                raise Conflicts(remaining) from None
            obj, managed = self._apply_chain(live, patch, managed, manager, True)
        if manager == "kubectl" and (_meta(obj).get("annotations") or {}).get(LAST_APPLIED):
            _set_last_applied(obj, patch)
        return obj, managed

    def _allowed_from_last_applied(self, live: dict[str, Any]) -> fp.FieldSet | None:
        text = (_meta(live).get("annotations") or {}).get(LAST_APPLIED)
        if not isinstance(text, str) or not text or self.atom is None:
            return None
        try:
            last = orjson.loads(text)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(last, dict) or last.get("apiVersion") != self.api_version:
            return None
        try:
            typed.validate(last, self.atom)
        except typed.TypedError:
            return None
        last_set = typed.to_field_set(last, self.atom)
        cmp = merge.compare(last, _without_managed_fields(live), self.atom)
        return fp.difference(fp.difference(fp.difference(last_set, cmp.modified), cmp.added), cmp.removed)

    def _apply_chain(
        self, live: dict[str, Any], patch: dict[str, Any], managed: Managed, manager: str, force: bool
    ) -> tuple[dict[str, Any], Managed]:
        assert self.atom is not None
        live = _without_managed_fields(live)
        if not managed.fields:
            # Fields set before anyone applied belong to "before-first-apply".
            managed = self._cap_update_managers(self._tracked_update(self.zero(), live, managed, _BEFORE_FIRST_APPLY))
        identifier = build_manager_identifier(manager, APPLY, self.api_version, self.subresource)
        if _meta(patch).get("managedFields") is not None:
            raise errors.new_bad_request("metadata.managedFields must be nil")
        try:
            typed.validate(patch, self.atom)
        except typed.TypedError as e:
            meta = _meta(patch)
            where = f"{meta.get('namespace', '')}/{meta.get('name', '')}; {gvk_string(patch.get('apiVersion'), patch.get('kind'))}"
            # A plain error upstream, so a 500 there (kubernetes/kubernetes#139253); the applied
            # configuration does not fit the kind's schema, the client's error: 400 with the same text.
            raise errors.new_bad_request(f"failed to create typed patch object ({where}): {e.text()}") from None
        try:
            new, fields = self._updater(live, patch).apply(
                live, patch, self.api_version, managed.fields, identifier, force
            )
        except typed.TypedError as e:
            raise _unknown_error(f"failed to merge config: {e.text()}") from None
        times = dict(managed.times)
        if new is not None:
            times[identifier] = now_rfc3339()
            obj: dict[str, Any] = new
        else:
            obj = copy.deepcopy(live)
        vs = fields.get(identifier)
        if vs is not None:
            stripped = fp.difference(vs.set, _STRIP)
            if stripped:
                fields[identifier] = VersionedSet(stripped, vs.api_version, vs.applied)
            else:
                del fields[identifier]
        return obj, Managed(fields, times, managed.wire)


def _set_last_applied(obj: dict[str, Any], patch: dict[str, Any]) -> None:
    """Keep kubectl's client-side apply annotation in step with its server-side applies."""
    applied = copy.deepcopy(patch)
    annotations = (applied.get("metadata") or {}).get("annotations")
    if isinstance(annotations, dict):
        annotations.pop(LAST_APPLIED, None)
    value = orjson.dumps(applied, option=orjson.OPT_SORT_KEYS).decode() + "\n"
    meta = obj.setdefault("metadata", {})
    current = dict(meta.get("annotations") or {})
    current[LAST_APPLIED] = value
    if sum(len(k) + len(v) for k, v in current.items() if isinstance(v, str)) > _ANNOTATIONS_MAX:
        current.pop(LAST_APPLIED, None)
    meta["annotations"] = current
