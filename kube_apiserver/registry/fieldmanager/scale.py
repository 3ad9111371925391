"""Managed fields through the scale subresource (managedfields.ScaleHandler).

A Scale is a view of its parent's spec.replicas: the parent's entries that own it are shown to the
Scale's field manager as owning the Scale's spec.replicas (in autoscaling/v1), and what the Scale's
field manager decides is carried back: a manager that no longer owns the Scale's replicas loses the
parent's, a new one gets an entry on the parent with subresource "scale". As upstream, the carried
back entry keeps the parent's time for that manager, which a new manager does not have.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kube_apiserver.registry.fieldmanager import fieldpath as fp
from kube_apiserver.registry.fieldmanager.managedfields import (
    DecodeError,
    Managed,
    VersionedSet,
    decode_managed_fields,
    encode_managed_fields,
)

SCALE_API_VERSION = "autoscaling/v1"
_REPLICAS_IN_SCALE: fp.Path = ("f:spec", "f:replicas")
# the Scale's own field manager (its type and subresource), shared by every scale subresource
SCALE_FIELD_MANAGER = (SCALE_API_VERSION, "Scale", "scale")


class ScaleHandler:
    def __init__(self, parent_entries: Any, parent_api_version: str, replicas_path: fp.Path = _REPLICAS_IN_SCALE):
        self.parent_entries = parent_entries
        self.parent_api_version = parent_api_version
        # ResourcePathMappings: the parent's versions and where each keeps its replicas
        self.mappings: dict[str, fp.Path] = {parent_api_version: replicas_path}

    def to_subresource(self) -> list[dict[str, Any]] | None:
        """The parent's managers of replicas, as the Scale's managers of spec.replicas."""
        try:
            parent = decode_managed_fields(self.parent_entries)
        except DecodeError:
            return None
        out = Managed()
        for manager, vs in parent.fields.items():
            path = self.mappings.get(vs.api_version)
            if path is not None and fp.has(vs.set, path):
                out.fields[manager] = VersionedSet(fp.from_paths([_REPLICAS_IN_SCALE]), SCALE_API_VERSION, vs.applied)
                out.times[manager] = parent.times.get(manager)
        return encode_managed_fields(out)

    def to_parent(self, scale_entries: Any) -> list[dict[str, Any]] | None:
        """The parent's entries after the Scale's field manager ran."""
        try:
            parent = decode_managed_fields(self.parent_entries)
            scale = decode_managed_fields(scale_entries)
        except DecodeError:
            return self.parent_entries if isinstance(self.parent_entries, list) else None
        scale_fields = dict(scale.fields)
        out = Managed(wire=parent.wire)
        for manager, vs in parent.fields.items():
            path = self.mappings.get(vs.api_version)
            if path is None:
                continue  # a version the parent no longer serves
            if not fp.has(vs.set, path):
                out.fields[manager] = vs
                out.times[manager] = parent.times.get(manager)
                continue
            if manager not in scale_fields:
                rest = fp.difference(vs.set, fp.from_paths([path]))  # the Scale took replicas away
                if rest:
                    out.fields[manager] = VersionedSet(rest, vs.api_version, vs.applied)
                    out.times[manager] = parent.times.get(manager)
            else:
                out.fields[manager] = vs
                out.times[manager] = parent.times.get(manager)
                del scale_fields[manager]
        for manager, vs in scale_fields.items():
            if not fp.has(vs.set, _REPLICAS_IN_SCALE):
                continue
            out.fields[manager] = VersionedSet(
                fp.from_paths([self.mappings[self.parent_api_version]]), self.parent_api_version, vs.applied
            )
            out.times[manager] = parent.times.get(manager)
        return encode_managed_fields(out)


def replicas_path(spec_replicas_path: str) -> fp.Path:
    """A custom resource's specReplicasPath (".spec.replicas") as a field path."""
    return tuple(f"f:{part}" for part in spec_replicas_path.lstrip(".").split("."))


def through_scale(
    parent: dict[str, Any],
    parent_api_version: str,
    scale: dict[str, Any],
    change: Callable[[dict[str, Any]], dict[str, Any]],
    path: fp.Path = _REPLICAS_IN_SCALE,
) -> dict[str, Any]:
    """change(scale), the Scale made from parent, with the parent's managedFields carried through the
    Scale's field manager: the parent's owners of the replicas at path are shown as the Scale's owners of
    spec.replicas, and the entries change leaves on the Scale go back to the parent's metadata."""
    meta = parent.setdefault("metadata", {})
    handler = ScaleHandler(meta.get("managedFields"), parent_api_version, path)
    entries = handler.to_subresource()
    if entries:
        scale.setdefault("metadata", {})["managedFields"] = entries
    new = change(scale)
    parent_entries = handler.to_parent((new.get("metadata") or {}).get("managedFields"))
    if parent_entries:
        meta["managedFields"] = parent_entries
    else:
        meta.pop("managedFields", None)
    return new
