"""Defaults of the core kinds other than pods and services (pkg/apis/core/v1/defaults.go).

A namespace's kubernetes.io/metadata.name label is a default (SetDefaults_Namespace), so the writer's
managedFields own it; namespace_strategy.NamespaceStrategy sets it again where defaulting cannot (a
generated name, updates) and owns status.phase.
"""

from __future__ import annotations

import base64
import copy
from typing import Any

from kube_apiserver.apis.core.defaults.containers import PROTOCOL_TCP
from kube_apiserver.apis.core.defaults.fields import child, default, default_zero, items, spec_of
from kube_apiserver.apis.core.defaults.resources import set_defaults_resource_list
from kube_apiserver.apis.core.defaults.volumes import (
    set_defaults_persistent_volume_claim_spec,
    set_defaults_persistent_volume_spec,
)


def set_object_defaults_secret(obj: dict[str, Any]) -> None:
    default_zero(obj, "type", "Opaque")
    _merge_string_data(obj)


def _merge_string_data(obj: dict[str, Any]) -> None:
    """Convert_v1_Secret_To_core_Secret: stringData is write-only, its entries overwrite data's (as
    base64) and it is never stored. Done here because it happens, like defaulting, as the request is
    decoded."""
    string_data = obj.get("stringData")
    if not isinstance(string_data, dict):
        return
    if not all(isinstance(v, str) for v in string_data.values()):
        return  # a type error the schema layer reports; keep the object as sent
    data = obj.get("data")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return
    for key, value in string_data.items():
        data[key] = base64.b64encode(value.encode()).decode()
    if data:
        obj["data"] = data
    del obj["stringData"]


def set_object_defaults_persistent_volume(obj: dict[str, Any]) -> None:
    spec = spec_of(obj)
    status = child(obj, "status", create=True)
    if status is not None:
        default_zero(status, "phase", "Pending")
    if spec is None:
        return
    default_zero(spec, "persistentVolumeReclaimPolicy", "Retain")
    default(spec, "volumeMode", "Filesystem")
    set_defaults_persistent_volume_spec(spec)


def set_object_defaults_persistent_volume_claim(obj: dict[str, Any]) -> None:
    status = child(obj, "status", create=True)
    if status is not None:
        default_zero(status, "phase", "Pending")
        set_defaults_resource_list(status.get("capacity"))
        set_defaults_resource_list(status.get("allocatedResources"))
    spec = spec_of(obj)
    if spec is not None:
        set_defaults_persistent_volume_claim_spec(spec)


def set_object_defaults_endpoints(obj: dict[str, Any]) -> None:
    for subset in items(obj, "subsets"):
        for port in items(subset, "ports"):
            default_zero(port, "protocol", PROTOCOL_TCP)


def set_object_defaults_limit_range(obj: dict[str, Any]) -> None:
    for item in items(child(obj, "spec"), "limits"):
        set_defaults_limit_range_item(item)
        for key in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio"):
            set_defaults_resource_list(item.get(key))


def set_defaults_limit_range_item(item: dict[str, Any]) -> None:
    """For container limits: the default limit falls back to max, the default request to the default
    limit, then to min."""
    if item.get("type") != "Container":
        return
    limit_default = item.get("default")
    if limit_default is None:
        limit_default = {}
    request_default = item.get("defaultRequest")
    if request_default is None:
        request_default = {}
    if not isinstance(limit_default, dict) or not isinstance(request_default, dict):
        return
    for source, target in (("max", limit_default), ("default", request_default), ("min", request_default)):
        values = limit_default if source == "default" else item.get(source)
        if isinstance(values, dict):
            for name, value in values.items():
                target.setdefault(name, copy.deepcopy(value))
    # kube writes no empty maps (omitempty): only keep what has entries.
    for key, values in (("default", limit_default), ("defaultRequest", request_default)):
        if values:
            item[key] = values


def _convert_pod_cidrs(spec: dict[str, Any]) -> None:
    """Not a default but the v1 conversion of NodeSpec kube applies on the way in and out: podCIDRs is
    the truth, podCIDR its first entry; a podCIDR that differs from podCIDRs[0] (an older client's)
    wins and becomes the whole list."""
    single, many = spec.get("podCIDR"), spec.get("podCIDRs")
    if isinstance(single, str) and single:
        if not (isinstance(many, list) and many and many[0] == single):
            spec["podCIDRs"] = [single]
    elif isinstance(many, list) and many and isinstance(many[0], str):
        spec["podCIDR"] = many[0]


def set_object_defaults_node(obj: dict[str, Any]) -> None:
    spec = child(obj, "spec")
    if spec is not None:
        _convert_pod_cidrs(spec)
    status = child(obj, "status")
    if status is None:
        return
    capacity = status.get("capacity")
    if status.get("allocatable") is None and isinstance(capacity, dict):
        status["allocatable"] = copy.deepcopy(capacity)
    set_defaults_resource_list(status.get("capacity"))
    set_defaults_resource_list(status.get("allocatable"))


def set_object_defaults_resource_quota(obj: dict[str, Any]) -> None:
    set_defaults_resource_list(child(child(obj, "spec"), "hard"))
    status = child(obj, "status")
    set_defaults_resource_list(child(status, "hard"))
    set_defaults_resource_list(child(status, "used"))


def set_defaults_namespace(obj: dict[str, Any]) -> None:
    """SetDefaults_Namespace: a named namespace is labelled with its name (not one still to be generated)."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not meta["name"]:
        return
    labels = meta.get("labels")
    if not isinstance(labels, dict):
        labels = meta["labels"] = {}
    labels["kubernetes.io/metadata.name"] = meta["name"]


DEFAULTERS = {
    ("v1", "Namespace"): set_defaults_namespace,
    ("v1", "Secret"): set_object_defaults_secret,
    ("v1", "PersistentVolume"): set_object_defaults_persistent_volume,
    ("v1", "PersistentVolumeClaim"): set_object_defaults_persistent_volume_claim,
    ("v1", "Endpoints"): set_object_defaults_endpoints,
    ("v1", "LimitRange"): set_object_defaults_limit_range,
    ("v1", "Node"): set_object_defaults_node,
    ("v1", "ResourceQuota"): set_object_defaults_resource_quota,
}
