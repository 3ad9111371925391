"""metadata.managedFields to and from the field manager's form (managedfields/internal/managedfields.go).

Managers are keyed by an identifier: the JSON of the entry's manager, operation, apiVersion (Update
entries only: an applier keeps one entry whatever version it applies with) and subresource. The
entries are written back sorted by operation (Apply first), time, manager, apiVersion, subresource.
"""

from __future__ import annotations

import calendar
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson

from kube_apiserver.registry.fieldmanager import fieldpath as fp
from kube_apiserver.runtime import meta

APPLY, UPDATE = "Apply", "Update"
FIELDS_V1 = "FieldsV1"


@dataclass(frozen=True)
class VersionedSet:
    set: fp.FieldSet
    api_version: str
    applied: bool


class Managed:
    """fieldpath.ManagedFields with the time of each manager's last change."""

    __slots__ = ("fields", "times", "wire")

    def __init__(
        self,
        fields: dict[str, VersionedSet] | None = None,
        times: dict[str, str | None] | None = None,
        wire: dict[str, fp.FieldSet] | None = None,
    ):
        self.fields: dict[str, VersionedSet] = fields if fields is not None else {}
        self.times: dict[str, str | None] = times if times is not None else {}
        # decoded sets that are their FieldsV1 value as written: encoded again as they are
        self.wire: dict[str, fp.FieldSet] = wire if wire is not None else {}

    def copy(self) -> Managed:
        return Managed(dict(self.fields), dict(self.times), self.wire)


class DecodeError(ValueError):
    pass


def build_manager_identifier(manager: str, operation: str, api_version: str, subresource: str) -> str:
    """BuildManagerIdentifier: the entry without fieldsType, fields and time, and without the
    apiVersion of an Apply, as JSON (empty fields omitted, in the Go struct's order)."""
    entry: dict[str, str] = {}
    if manager:
        entry["manager"] = manager
    if operation:
        entry["operation"] = operation
    if api_version and operation != APPLY:
        entry["apiVersion"] = api_version
    if subresource:
        entry["subresource"] = subresource
    return orjson.dumps(entry).decode()


@lru_cache(maxsize=4096)
def parse_identifier(identifier: str) -> dict[str, Any]:
    try:
        value = orjson.loads(identifier)
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def now_rfc3339() -> str:
    return meta.now_rfc3339()  # formatted once per second there


@lru_cache(maxsize=4096)
def unix_seconds(stamp: str | None) -> int:
    if not stamp:
        return 0
    try:
        return calendar.timegm(time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return 0


def decode_managed_fields(entries: Any, trusted: bool = False) -> Managed:
    """DecodeManagedFields; DecodeError for what kube refuses to decode. trusted: entries this
    server wrote (the stored object's), whose fields need no checking."""
    managed = Managed()
    if entries is None:
        return managed
    if not isinstance(entries, list):
        raise DecodeError("managedFields must be a list")
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise DecodeError(f"managed fields entry {i} is not an object")
        operation = entry.get("operation")
        if operation not in (APPLY, UPDATE):
            raise DecodeError("operation must be `Apply` or `Update`")
        api_version = entry.get("apiVersion")
        if not api_version or not isinstance(api_version, str):
            raise DecodeError("apiVersion must not be empty")
        fields_type = entry.get("fieldsType")
        if not fields_type:
            raise DecodeError(f"missing fieldsType in managed fields entry {i}")
        if fields_type != FIELDS_V1:
            raise DecodeError(f"invalid fieldsType {fields_type!r} in managed fields entry {i}")
        manager, subresource = entry.get("manager", ""), entry.get("subresource", "")
        if not isinstance(manager, str) or not isinstance(subresource, str):
            raise DecodeError(f"error decoding manager from entry {i}")
        identifier = build_manager_identifier(manager, operation, api_version, subresource)
        raw = entry.get("fieldsV1")
        try:
            if trusted and isinstance(raw, dict):
                fields, as_is = raw, True
            else:
                fields, as_is = fp.decode_fields_v1(raw if raw is not None else {})
        except fp.FieldsV1Error as e:
            raise DecodeError(f"error decoding versioned set from entry {i}: error decoding set: {e}") from None
        if fp.MEMBER in fields:  # the whole object: nobody owns it
            fields, as_is = {k: v for k, v in fields.items() if k != fp.MEMBER}, False
        if as_is:
            managed.wire[identifier] = fields
        managed.fields[identifier] = VersionedSet(fields, api_version, operation == APPLY)
        stamp = entry.get("time")
        managed.times[identifier] = stamp if isinstance(stamp, str) else None
    return managed


def encode_managed_fields(managed: Managed) -> list[dict[str, Any]] | None:
    """The entries of managed, sorted as kube sorts them; None when there are none."""
    if not managed.fields:
        return None
    out = []
    for identifier, vs in managed.fields.items():
        ident = parse_identifier(identifier)
        entry: dict[str, Any] = {}
        if ident.get("manager"):
            entry["manager"] = ident["manager"]
        operation = APPLY if vs.applied else ident.get("operation", "")
        if operation:
            entry["operation"] = operation
        if vs.api_version:
            entry["apiVersion"] = vs.api_version
        stamp = managed.times.get(identifier)
        if stamp:
            entry["time"] = stamp
        entry["fieldsType"] = FIELDS_V1
        entry["fieldsV1"] = vs.set if managed.wire.get(identifier) is vs.set else fp.to_fields_v1(vs.set)
        if ident.get("subresource"):
            entry["subresource"] = ident["subresource"]
        out.append(entry)
    out.sort(
        key=lambda e: (
            e.get("operation", ""),
            unix_seconds(e.get("time")),
            e.get("manager", ""),
            e.get("apiVersion", ""),
            e.get("subresource", ""),
        )
    )
    return out


def is_reset(entries: Any) -> bool:
    """A request's managedFields that mean "clear them": [] or a single empty entry."""
    if not isinstance(entries, list):
        return False
    if not entries:
        return True
    return len(entries) == 1 and isinstance(entries[0], dict) and not any(entries[0].values())
