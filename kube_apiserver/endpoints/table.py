"""Table conversion (meta.k8s.io/v1 Table), as kube-apiserver's TableConvertor gives kubectl get."""

from __future__ import annotations

import time
from typing import Any

from kube_apiserver.apis.autoscaling.printers import SCALE_PRINTER
from kube_apiserver.apis.printing import age
from kube_apiserver.registry.resource_spec import ResourceSpec, TableColumn, TablePrinter
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.labels import go_quote

_NAME_DESCRIPTION = (
    "Name must be unique within a namespace. Is required when creating resources, although some resources may "
    "allow a client to request the generation of an appropriate name automatically. Name is primarily intended "
    "for creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
_AGE_DESCRIPTION = (
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this value. "
    "It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. "
    "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)

DEFAULT_PRINTER = TablePrinter(
    columns=(
        TableColumn("Name", "string", "name", _NAME_DESCRIPTION),
        TableColumn("Age", "string", "", _AGE_DESCRIPTION),
    ),
    row=lambda obj, now: [(obj.get("metadata") or {}).get("name", ""), age(obj, now)],
)


# A built-in resource's TableConvertor is printers.go's table generator, which picks the handler by the
# object's type, not by the resource: what a subresource answers in a kind of its own (the Scale of
# deployments/scale, through ScaleREST.ConvertToTable) is printed with that kind's columns. A custom
# resource's convertor prints the CRD's columns whatever it is given (the CR scale subresource's scope keeps
# the resource's TableConvertor), so it is not consulted there.
_KIND_PRINTERS: dict[tuple[str, str], TablePrinter] = {("autoscaling/v1", "Scale"): SCALE_PRINTER}


def printer_for(spec: ResourceSpec, objects: list[dict[str, Any]] | None = None) -> TablePrinter:
    if objects and not spec.custom:
        first = objects[0]
        by_kind = _KIND_PRINTERS.get((str(first.get("apiVersion", "")), str(first.get("kind", ""))))
        if by_kind is not None:
            return by_kind
    return spec.printer or DEFAULT_PRINTER


# IncludeObjectPolicy values (metav1.IncludeNone, IncludeMetadata, IncludeObject); empty means Metadata.
_INCLUDE_OBJECT = ("None", "Metadata", "Object")


def include_object_option(value: str) -> str:
    """TableOptions.includeObject as ValidateTableOptions accepts it, with optionsForTransform's 400 for any
    other value."""
    if not value:
        return "Metadata"
    if value not in _INCLUDE_OBJECT:
        raise errors.new_bad_request(
            f"Unable to convert to Table as requested: includeObject: Invalid value: {go_quote(value)}: "
            "must be 'Metadata', 'Object', 'None', or empty"
        )
    return value


def column_definitions(printer: TablePrinter) -> list[dict[str, Any]]:
    return [
        {"name": c.name, "type": c.type, "format": c.format, "description": c.description, "priority": c.priority}
        for c in printer.columns
    ]


def partial_object_metadata(obj: dict[str, Any], version: str = "v1") -> dict[str, Any]:
    return {
        "kind": "PartialObjectMetadata",
        "apiVersion": f"meta.k8s.io/{version}",
        "metadata": obj.get("metadata") or {},
    }


def table_row(
    printer: TablePrinter,
    obj: dict[str, Any],
    include: str,
    now: float,
    served: dict[str, Any] | None = None,
    version: str = "v1",
) -> dict[str, Any]:
    """One row, printed from obj; served, when given, is the object in the request's version, which
    includeObject=Object embeds (asTable converts the row's object to the scope's kind's version)."""
    try:
        cells = printer.row(obj, now)
    except Exception:  # noqa: BLE001 - a printer must never turn a read into a 500
        cells = [(obj.get("metadata") or {}).get("name", "")] + ["<unknown>"] * (len(printer.columns) - 1)
    row: dict[str, Any] = {"cells": cells}
    if printer.conditions is not None:
        conditions = printer.conditions(obj)
        if conditions:  # TableRow.conditions is omitempty
            row["conditions"] = conditions
    embedded = served if served is not None else obj
    if include == "Object":
        row["object"] = embedded
    elif include == "None":
        # asTable leaves a nil object, which a RawExtension writes as null (the struct is never omitted)
        row["object"] = None
    else:
        row["object"] = partial_object_metadata(embedded, version)
    return row


def to_table(
    spec: ResourceSpec,
    objects: list[dict[str, Any]],
    *,
    list_meta: dict[str, Any] | None,
    include: str = "Metadata",
    version: str = "v1",
    headers: bool = True,
    served: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The Table of objects (each printed as given); served, when given, holds the same objects in the
    request's version, one per object, for the rows' embedded objects."""
    printer = printer_for(spec, objects)
    now = time.time()
    table: dict[str, Any] = {
        "kind": "Table",
        "apiVersion": f"meta.k8s.io/{version}",
        "metadata": list_meta or {},
    }
    table["columnDefinitions"] = column_definitions(printer) if headers else None
    pairs: list[tuple[dict[str, Any], dict[str, Any] | None]] = list(
        zip(objects, served if served is not None else [None] * len(objects), strict=True)
    )
    if printer.sort_key is not None:
        sort_key = printer.sort_key
        pairs.sort(key=lambda pair: sort_key(pair[0]))
    table["rows"] = [table_row(printer, o, include, now, s, version) for o, s in pairs]
    return table
