"""The REST storage of one served version of a CRD (apiextensions-apiserver/pkg/registry/customresource):
its strategy, its view of the watch cache, its Table columns and its scale subresource."""

from __future__ import annotations

import copy
import time
from typing import Any

import orjson

from kube_apiserver.apiextensions import jsonpath
from kube_apiserver.apiextensions.schema.cel.strategy import remember_old, rule_errors
from kube_apiserver.apiextensions.schema.cel.validation import new_validator
from kube_apiserver.apiextensions.schema.defaulting import default as apply_defaults
from kube_apiserver.apiextensions.schema.prune import prune
from kube_apiserver.apiextensions.schema.validation import validate as validate_schema
from kube_apiserver.apis.printing import age, parse_time, since
from kube_apiserver.registry.resource_spec import ResourceSpec, SubresourceSpec, TableColumn, TablePrinter
from kube_apiserver.registry.strategy import STATUS_METADATA, RESTStrategy
from kube_apiserver.registry.versioned import VersionedStorage
from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.scheme import Scheme
from kube_apiserver.runtime.validation.objectmeta import validate_object_meta, validate_object_meta_update
from kube_apiserver.storage.cacher.cacher import Cacher
from kube_apiserver.storage.interface import StoredObject

_NON_SPEC = ("metadata", "status", "apiVersion", "kind")


def version_schema(crd: dict[str, Any], version: str) -> dict[str, Any]:
    for v in (crd.get("spec") or {}).get("versions") or []:
        if v.get("name") == version:
            schema = (v.get("schema") or {}).get("openAPIV3Schema")
            return schema if isinstance(schema, dict) else {}
    return {}


def version_entry(crd: dict[str, Any], version: str) -> dict[str, Any]:
    for v in (crd.get("spec") or {}).get("versions") or []:
        if v.get("name") == version:
            return v
    return {}


def storage_version(crd: dict[str, Any]) -> str:
    for v in (crd.get("spec") or {}).get("versions") or []:
        if v.get("storage"):
            return v.get("name", "")
    return ""


class CustomResourceStrategy(RESTStrategy):
    """customResourceStrategy: metadata validation as for built-in kinds, then the version's schema."""

    def __init__(self, spec: ResourceSpec, schema: dict[str, Any], status: bool, scale: dict[str, Any] | None):
        super().__init__(spec, Scheme())
        self.schema = schema
        self.has_status = status
        self.scale = scale
        self.tracks_generation = True
        self.status_keeps_metadata = STATUS_METADATA  # a custom resource's /status changes the status alone
        self.cel = new_validator(schema)  # x-kubernetes-validations, compiled once per served version

    def default(self, obj: dict[str, Any]) -> None:
        apply_defaults(obj, self.schema)

    def default_status(self, obj: dict[str, Any]) -> None:
        apply_defaults(obj, self.schema)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        if self.has_status:
            obj.pop("status", None)
        metautil.metadata(obj)["generation"] = 1

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        if self.has_status:
            if "status" in old:
                new["status"] = copy.deepcopy(old["status"])
            else:
                new.pop("status", None)
            changed = _spec_of(new) != _spec_of(old)
        else:
            changed = {k: v for k, v in new.items() if k != "metadata"} != {
                k: v for k, v in old.items() if k != "metadata"
            }
        gen = (old.get("metadata") or {}).get("generation", 1)
        metautil.metadata(new)["generation"] = gen + 1 if changed else gen
        remember_old(new, old)

    def prepare_for_subresource_update(
        self, subresource: str, new: dict[str, Any], old: dict[str, Any]
    ) -> dict[str, Any]:
        out = super().prepare_for_subresource_update(subresource, new, old)
        remember_old(out, old)
        return out

    def validate(self, obj: dict[str, Any]) -> list[StatusCause]:
        # apimachinery's ObjectMeta validation: a finalizer without a path is only warned about (warnings())
        meta = obj.get("metadata") or {}
        causes = validate_object_meta(meta, self.namespaced, metautil.is_dns1123_subdomain, kube_finalizers=False)
        causes += validate_schema(obj, self.schema)
        return causes + rule_errors(self.cel, obj, causes)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
        return validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})

    def warnings(self, new: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
        """generateWarningsFromObj: each finalizer added without a path (/) gets kube's advice."""
        added = set((new.get("metadata") or {}).get("finalizers") or [])
        if old is not None:
            added -= set((old.get("metadata") or {}).get("finalizers") or [])
        return [
            f'metadata.finalizers: "{f}": prefer a domain-qualified finalizer name including a path (/) to avoid '
            "accidental conflicts with other finalizer writers"
            for f in sorted(x for x in added if isinstance(x, str))
            if "/" not in f
        ]


def _spec_of(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in _NON_SPEC}


class CustomResourceStorage(VersionedStorage):
    """The CRD's watch cache in one served version. Conversion strategy None: only apiVersion changes;
    the served version's defaults apply to everything read (defaulting on read from storage)."""

    def __init__(self, cacher: Cacher, served: str, stored: str, schemas: dict[str, dict[str, Any]]) -> None:
        super().__init__(cacher, served, stored, Scheme())
        served_schema = schemas.get(served.rpartition("/")[2], {})
        stored_schema = schemas.get(stored.rpartition("/")[2], {})

        # kube's schemaCoercingConverter: what a conversion gives is pruned to the target version's
        # schema (a field the other version does not declare is dropped), then defaulted on read.
        def to_served(obj: dict[str, Any]) -> dict[str, Any]:
            out = orjson.loads(orjson.dumps(obj))  # a deep copy of JSON data, ten times cheaper than deepcopy
            out["apiVersion"] = served
            prune(out, served_schema)
            apply_defaults(out, served_schema)
            return out

        def to_storage(obj: dict[str, Any]) -> dict[str, Any]:
            if obj.get("apiVersion") == stored:
                return obj
            out = copy.deepcopy(obj)
            out["apiVersion"] = stored
            prune(out, stored_schema)
            return out

        self._to_served = to_served
        self._to_storage = to_storage
        self._default = lambda obj: apply_defaults(obj, stored_schema)
        self._same_version = served == stored
        if self._same_version:
            self._default = lambda obj: None  # the strategy defaulted it with this very schema

    async def create(self, key: str, obj: dict[str, Any]) -> StoredObject:
        item = await self.cacher.create(key, self.storage_obj(obj))
        # In the storage version, what was just written (pruned and defaulted by this schema) is what
        # a read gives: no copy, no second encoding.
        return item if self._same_version else self.stored(item)


# --- Table ------------------------------------------------------------------------------------------

_NAME = TableColumn(
    "Name",
    "string",
    "name",
    "Name must be unique within a namespace. Is required when creating "
    "resources, although some resources may allow a client to request the generation of an "
    "appropriate name automatically. Name is primarily intended for creation idempotence and "
    "configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
)
_AGE = TableColumn(
    "Age",
    "date",
    "",
    "CreationTimestamp is a timestamp representing the server time when this "
    "object was created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\n"
    "Populated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
)


def table_printer(columns: list[dict[str, Any]]) -> TablePrinter:
    """Name, then the version's additionalPrinterColumns (Age alone when it declares none)."""
    if not columns:
        return TablePrinter(
            (_NAME, _AGE), lambda obj, now: [(obj.get("metadata") or {}).get("name", ""), age(obj, now)]
        )
    defs = tuple(
        TableColumn(
            str(c.get("name", "")),
            str(c.get("type", "string")),
            str(c.get("format", "")),
            str(c.get("description", "")),
            int(c.get("priority", 0) or 0),
        )
        for c in columns
    )
    paths = [str(c.get("jsonPath", "")) for c in columns]

    def row(obj: dict[str, Any], now: float) -> list[Any]:
        cells: list[Any] = [(obj.get("metadata") or {}).get("name", "")]
        for col, path in zip(defs, paths, strict=True):
            cells.append(_cell(col, jsonpath.evaluate(path, obj), now))
        return cells

    return TablePrinter((_NAME, *defs), row)


def _cell(col: TableColumn, values: list[Any], now: float) -> Any:
    if not values:
        return None
    value = values[0]
    if col.type == "date" and isinstance(value, str):
        return since(value, now) if parse_time(value) is not None else value
    if col.type == "integer" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if col.type == "number" and isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if col.type == "boolean" and isinstance(value, bool):
        return value
    if col.type in ("integer", "number", "boolean"):
        return None
    if isinstance(value, str):
        return value
    return orjson.dumps(value).decode() if isinstance(value, dict | list) else _go_text(value)


def _go_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# --- resource spec ----------------------------------------------------------------------------------


def resource_spec(crd: dict[str, Any], version: dict[str, Any]) -> ResourceSpec:
    spec = crd.get("spec") or {}
    names = (crd.get("status") or {}).get("acceptedNames") or spec.get("names") or {}
    group = spec.get("group", "")
    kind = names.get("kind", "")
    subs = version.get("subresources") or {}
    subresources = []
    if isinstance(subs.get("status"), dict):
        subresources.append(SubresourceSpec("status", kind, ("get", "patch", "update")))
    if isinstance(subs.get("scale"), dict):
        subresources.append(SubresourceSpec("scale", "Scale", ("get", "patch", "update"), "autoscaling", "v1"))
    return ResourceSpec(
        group,
        version.get("name", ""),
        names.get("plural", ""),
        kind,
        spec.get("scope") != "Cluster",
        singular=names.get("singular", "") or kind.lower(),
        short_names=tuple(names.get("shortNames") or ()),
        categories=tuple(names.get("categories") or ()),
        subresources=tuple(subresources),
        printer=table_printer(list(version.get("additionalPrinterColumns") or [])),
        custom=True,
        storage_version=_storage_version(crd, group, version.get("name", "")),
    )


def _storage_version(crd: dict[str, Any], group: str, served: str) -> str:
    """The group/version of the CRD's storage version when it is not served (its objects' storageVersionHash)."""
    for v in (crd.get("spec") or {}).get("versions") or []:
        if isinstance(v, dict) and v.get("storage") and v.get("name") != served:
            return f"{group}/{v.get('name', '')}"
    return ""


def now() -> float:
    return time.time()
