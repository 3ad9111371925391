"""What one REST resource is: the facts that discovery, the installer, the Store and the printers share.

Upstream spreads these over APIResource (discovery), the Store's fields (NewFunc, NewListFunc,
DefaultQualifiedResource, SingularQualifiedResource), the strategy's NamespaceScoped() and the
printers' TableConvertor. Here they are one frozen value per resource so a group's table of
resources reads like `kubectl api-resources -o wide`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kube_apiserver.runtime import meta as metautil

# Verbs of a normal persisted resource, in the order discovery lists them.
STANDARD_VERBS: tuple[str, ...] = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")


@dataclass(frozen=True)
class TableColumn:
    """One column of a meta.k8s.io/v1 Table (TableColumnDefinition)."""

    name: str
    type: str = "string"  # string, integer, number, boolean, date
    format: str = ""  # name, date, ...
    description: str = ""
    priority: int = 0  # 0 shown by default, 1 only with -o wide


# A row function takes the object and the current time (seconds since the epoch) and returns
# the cells, one per column, already in the form kubectl prints (strings, ints, ...).
RowFunc = Callable[[dict[str, Any], float], list[Any]]


@dataclass(frozen=True)
class TablePrinter:
    columns: tuple[TableColumn, ...]
    row: RowFunc
    # The order of a list's rows when the printer has its own (printFlowSchemaList sorts), else None:
    # the list's order
    sort_key: Callable[[dict[str, Any]], Any] | None = None
    # The row's conditions (TableRow.conditions: printPod marks a Succeeded or Failed pod Completed), or None
    # when the printer sets none
    conditions: Callable[[dict[str, Any]], list[dict[str, str]] | None] | None = None


@dataclass(frozen=True)
class SubresourceSpec:
    """A subresource as discovery shows it (pods/status, deployments/scale, ...)."""

    name: str  # "status", "scale", "log", ...
    kind: str  # kind of the object the subresource reads/writes
    verbs: tuple[str, ...]
    group: str = ""  # group/version of that kind when it is not the parent's (scale → autoscaling/v1)
    version: str = ""


NOT_STORED = "-"


@dataclass(frozen=True)
class ResourceSpec:
    group: str  # "" for the core (legacy) group
    version: str
    resource: str  # plural, lowercase: "deployments"
    kind: str
    namespaced: bool
    singular: str = ""  # defaults to kind.lower()
    verbs: tuple[str, ...] = STANDARD_VERBS
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: tuple[SubresourceSpec, ...] = ()
    # Field selectors beyond metadata.name and metadata.namespace: selector field → dotted path
    # into the object (usually the same string). Booleans compare as "true"/"false".
    selectable_fields: dict[str, str] = field(default_factory=dict)
    # kube-apiserver's own Table columns; None means the default NAME / AGE.
    printer: TablePrinter | None = None
    # The resource whose storage this one shares (e.g. events.k8s.io/v1 events share core events);
    # empty: its own.
    storage_key: str = ""
    # A custom resource (served from a CRD): its objects are maps, not Go structs, so kube-apiserver writes
    # their keys sorted (apiVersion before kind).
    custom: bool = False
    # A deprecated API (prerelease-lifecycle-gen's APILifecycleDeprecated/Replacement): the release that
    # deprecated it ("1.33") and what replaces it ("discovery.k8s.io/v1 EndpointSlice"); every request to
    # it gets deprecation_warning() as a Warning header.
    deprecated_in: str = ""
    replacement: str = ""
    # The group/version its objects are stored in, when not its own (autoscaling/v1 HPAs in autoscaling/v2,
    # events.k8s.io/v1 events as core v1, a CRD's other versions in its storage version): discovery's
    # storageVersionHash names it. NOT_STORED for a resource with no storage (componentstatuses).
    storage_version: str = ""

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def singular_name(self) -> str:
        return self.singular or self.kind.lower()

    @property
    def list_kind(self) -> str:
        return self.kind + "List"

    @property
    def storage_group_version_kind(self) -> tuple[str, str, str] | None:
        """The group, version and kind of the stored objects (None: not stored)."""
        if self.storage_version == NOT_STORED or not self.persisted:
            return None
        gv = self.storage_version or self.group_version
        group, _, version = gv.rpartition("/")
        return group, version, self.kind

    @property
    def persisted(self) -> bool:
        """Virtual resources (reviews, bindings) only take create and store nothing."""
        return "get" in self.verbs or "list" in self.verbs

    def deprecation_warning(self) -> str:
        """deprecation.WarningMessage: '<group/version> <Kind> is deprecated in v<release>+[; use <replacement>]'."""
        text = f"{self.group_version} {self.kind} is deprecated in v{self.deprecated_in}+"
        return f"{text}; use {self.replacement}" if self.replacement else text

    def subresource(self, name: str) -> SubresourceSpec | None:
        for sub in self.subresources:
            if sub.name == name:
                return sub
        return None


def _type_meta_keys(spec: ResourceSpec) -> tuple[str, str]:
    return ("apiVersion", "kind") if spec.custom else ("kind", "apiVersion")


def _is_canonical(obj: dict[str, Any], spec: ResourceSpec) -> bool:
    keys = iter(obj)
    first, second = _type_meta_keys(spec)
    if next(keys, None) != first or next(keys, None) != second:
        return False
    if obj["apiVersion"] != spec.group_version or obj["kind"] != spec.kind:
        return False
    meta = obj.get("metadata")
    if meta is None:
        return True
    return next(keys, None) == "metadata" and isinstance(meta, dict) and metautil.in_object_meta_order(meta)


def canonical_order(obj: dict[str, Any], spec: ResourceSpec) -> dict[str, Any]:
    """TypeMeta, metadata (in ObjectMeta order), then the rest, as kube-apiserver writes objects: kind before
    apiVersion for built-in kinds (Go struct order), apiVersion before kind for custom resources (their
    objects are maps, written with sorted keys). A decoded body is usually in that order already: it is
    then returned as it is, not copied."""
    if _is_canonical(obj, spec):
        return obj
    first, second = _type_meta_keys(spec)
    # Keys given first keep their place when the object's own are merged in (one step in C, not a loop).
    out = {first: None, second: None, "metadata": None, **obj}
    out["apiVersion"], out["kind"] = spec.group_version, spec.kind
    meta = out["metadata"]
    if isinstance(meta, dict):
        out["metadata"] = metautil.object_meta_ordered(meta)
    elif "metadata" not in obj:
        del out["metadata"]
    return out
