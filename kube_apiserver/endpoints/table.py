"""Table conversion (meta.k8s.io/v1 Table), as kube-apiserver's TableConvertor gives kubectl get."""

from __future__ import annotations

import time
from typing import Any

from kube_apiserver.apis.printing import age
from kube_apiserver.registry.resource_spec import ResourceSpec, TableColumn, TablePrinter

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


def printer_for(spec: ResourceSpec) -> TablePrinter:
    return spec.printer or DEFAULT_PRINTER


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


def table_row(printer: TablePrinter, obj: dict[str, Any], include: str, now: float) -> dict[str, Any]:
    try:
        cells = printer.row(obj, now)
    except Exception:  # noqa: BLE001 - a printer must never turn a read into a 500
        cells = [(obj.get("metadata") or {}).get("name", "")] + ["<unknown>"] * (len(printer.columns) - 1)
    row: dict[str, Any] = {"cells": cells}
    if include == "Object":
        row["object"] = obj
    elif include != "None":
        row["object"] = partial_object_metadata(obj)
    return row


def to_table(
    spec: ResourceSpec,
    objects: list[dict[str, Any]],
    *,
    list_meta: dict[str, Any] | None,
    include: str = "Metadata",
    version: str = "v1",
    headers: bool = True,
) -> dict[str, Any]:
    printer = printer_for(spec)
    now = time.time()
    table: dict[str, Any] = {
        "kind": "Table",
        "apiVersion": f"meta.k8s.io/{version}",
        "metadata": list_meta or {},
    }
    table["columnDefinitions"] = column_definitions(printer) if headers else None
    if printer.sort_key is not None:
        objects = sorted(objects, key=printer.sort_key)
    table["rows"] = [table_row(printer, o, include, now) for o in objects]
    return table
