"""PersistentVolume and PersistentVolumeClaim (pkg/apis/core/validation: ValidatePersistentVolumeSpec,
ValidatePersistentVolumeClaimSpec and their update rules)."""

from __future__ import annotations

import copy
import posixpath
from typing import Any

from kube_apiserver.apis.core.validation import volumes as vol
from kube_apiserver.apis.core.validation.common import (
    as_dict,
    as_list,
    as_str,
    normalize,
    normalize_quantities,
    validate_dns1123_label,
    validate_dns1123_subdomain,
)
from kube_apiserver.apis.core.validation.diff import cmp_diff
from kube_apiserver.apis.core.validation.resources import (
    canonical,
    parse,
    validate_basic_resource,
    validate_positive_quantity_value,
    validate_resource_quantity_value,
)
from kube_apiserver.apis.core.validation.scheduling import validate_node_selector
from kube_apiserver.runtime.errors import (
    GoRepr,
    StatusCause,
    field_forbidden,
    field_invalid,
    field_not_supported,
    field_required,
)
from kube_apiserver.runtime.validation.metav1 import validate_label_selector
from kube_apiserver.runtime.validation.names import name_is_dns_label, name_is_dns_subdomain
from kube_apiserver.runtime.validation.objectmeta import validate_immutable_field

ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"]
RECLAIM_POLICIES = ["Delete", "Recycle", "Retain"]
VOLUME_MODES = ["Block", "Filesystem"]


def _validate_access_modes(modes: list[Any], path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    rwop = other = False
    for mode in modes:
        if mode not in ACCESS_MODES:
            causes.append(field_not_supported(path, mode, ACCESS_MODES))
        elif mode == "ReadWriteOncePod":
            rwop = True
        else:
            other = True
    if rwop and other:
        causes.append(field_forbidden(path, "may not use ReadWriteOncePod with other access modes"))
    return causes


def _go_resource_list(table: dict[str, Any]) -> GoRepr:
    if not table:
        return GoRepr("core.ResourceList(nil)")
    items = ", ".join(f'"{k}":"{canonical(v)}"' for k, v in sorted(table.items()))
    return GoRepr("core.ResourceList{" + items + "}")


# --- PersistentVolume ---------------------------------------------------------------------------------------------


def _pv_secret_reference(ref: dict[str, Any], path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    name, namespace = as_str(ref.get("name")), as_str(ref.get("namespace"))
    causes += [field_required(f"{path}.name")] if not name else validate_dns1123_subdomain(name, f"{path}.name")
    causes += (
        [field_required(f"{path}.namespace")]
        if not namespace
        else validate_dns1123_label(namespace, f"{path}.namespace")
    )
    return causes


def _pv_csi(s: dict[str, Any], path: str, _: str) -> list[StatusCause]:
    causes = vol.validate_csi_driver_name(as_str(s.get("driver")), f"{path}.driver")
    if not s.get("volumeHandle"):
        causes.append(field_required(f"{path}.volumeHandle"))
    for key in (
        "controllerPublishSecretRef",
        "controllerExpandSecretRef",
        "nodePublishSecretRef",
        "nodeExpandSecretRef",
    ):
        if isinstance(s.get(key), dict):
            causes += _pv_secret_reference(s[key], f"{path}.{key}")
    return causes


def _pv_local(s: dict[str, Any], path: str, _: str) -> list[StatusCause]:
    target = as_str(s.get("path"))
    if not target:
        return [field_required(f"{path}.path")]
    return vol.validate_path_no_backsteps(target, f"{path}.path")


# (JSON key, "more than 1" path, own path, checker) in kube's order for persistent volumes.
_PV_SOURCES: list[tuple[str, str, str, Any]] = [
    ("hostPath", "hostPath", "hostPath", vol._host_path),
    ("gcePersistentDisk", "gcePersistentDisk", "persistentDisk", vol._gce),
    ("awsElasticBlockStore", "awsElasticBlockStore", "awsElasticBlockStore", vol._aws),
    ("glusterfs", "glusterfs", "glusterfs", vol._simple("endpoints", "path")),
    ("flocker", "flocker", "flocker", lambda s, p, _: vol._flocker(s, p)),
    ("nfs", "nfs", "nfs", vol._nfs),
    ("rbd", "rbd", "rbd", vol._simple("monitors", "image")),
    ("quobyte", "quobyte", "quobyte", vol._simple("volume")),
    ("cephfs", "cephFS", "cephfs", vol._simple("monitors")),
    ("iscsi", "iscsi", "iscsi", vol._iscsi),
    ("cinder", "cinder", "cinder", vol._simple("volumeID")),
    ("fc", "fc", "fc", vol._fc),
    ("flexVolume", "", "flexVolume", vol._flex),
    ("azureFile", "azureFile", "azureFile", vol._simple("secretName", "shareName")),
    ("vsphereVolume", "vsphereVolume", "vsphereVolume", vol._simple("volumePath")),
    ("photonPersistentDisk", "photonPersistentDisk", "photonPersistentDisk", vol._simple("pdID")),
    ("portworxVolume", "portworxVolume", "portworxVolume", vol._simple("volumeID")),
    ("azureDisk", "azureDisk", "azureDisk", vol._simple("diskName", "diskURI")),
    ("scaleIO", "scaleIO", "scaleIO", vol._simple("gateway", "system", "volumeName")),
    ("local", "local", "local", _pv_local),
    ("storageos", "storageos", "storageos", vol._simple("volumeName")),
    ("csi", "csi", "csi", _pv_csi),
]
PV_SOURCE_KEYS = [key for key, *_ in _PV_SOURCES]


def validate_persistent_volume_spec(spec: dict[str, Any], pv_name: str, path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    modes = as_list(spec.get("accessModes"))
    if not modes:
        causes.append(field_required(f"{path}.accessModes"))
    causes += _validate_access_modes(modes, f"{path}.accessModes")
    capacity = as_dict(spec.get("capacity"))
    if not capacity:
        causes.append(field_required(f"{path}.capacity"))
    if "storage" not in capacity or len(capacity) > 1:
        causes.append(field_not_supported(f"{path}.capacity", _go_resource_list(capacity), ["storage"]))
    for name, quantity in capacity.items():
        causes += validate_basic_resource(quantity, f"{path}.capacity[{name}]")
        causes += validate_positive_quantity_value(quantity, f"{path}.capacity[{name}]")
    policy = spec.get("persistentVolumeReclaimPolicy")
    if policy and policy not in RECLAIM_POLICIES:
        causes.append(field_not_supported(f"{path}.persistentVolumeReclaimPolicy", policy, RECLAIM_POLICIES))
    has_affinity = False
    affinity = spec.get("nodeAffinity")
    if isinstance(affinity, dict):
        has_affinity = True
        if isinstance(affinity.get("required"), dict):
            causes += validate_node_selector(affinity["required"], f"{path}.nodeAffinity.required")
        else:
            causes.append(field_required(f"{path}.nodeAffinity.required", "must specify required node constraints"))
    count = 0
    for key, busy_path, own_path, check in _PV_SOURCES:
        source = spec.get(key)
        if not isinstance(source, dict):
            continue
        if count and busy_path:
            causes.append(field_forbidden(f"{path}.{busy_path}", vol.MORE_THAN_ONE))
            continue
        count += 1
        causes += check(source, f"{path}.{own_path}", pv_name)
        if key == "local" and not has_affinity:
            causes.append(field_required(f"{path}.nodeAffinity", "Local volume requires node affinity"))
    if not count:
        causes.append(field_required(path, "must specify a volume type"))
    host = as_dict(spec.get("hostPath"))
    if host and posixpath.normpath(as_str(host.get("path")) or ".") == "/" and policy == "Recycle":
        detail = "may not be 'recycle' for a hostPath mount of '/'"
        causes.append(field_forbidden(f"{path}.persistentVolumeReclaimPolicy", detail))
    class_name = as_str(spec.get("storageClassName"))
    if class_name:
        causes += [field_invalid(f"{path}.storageClassName", class_name, m) for m in name_is_dns_subdomain(class_name)]
    mode = spec.get("volumeMode")
    if mode is not None and mode not in VOLUME_MODES:
        causes.append(field_not_supported(f"{path}.volumeMode", mode, VOLUME_MODES))
    return causes


def validate_persistent_volume(obj: dict[str, Any]) -> list[StatusCause]:
    name = as_str(as_dict(obj.get("metadata")).get("name"))
    return validate_persistent_volume_spec(as_dict(obj.get("spec")), name, "spec")


def validate_persistent_volume_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    causes: list[StatusCause] = []
    new_spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
    new_source = {k: new_spec.get(k) for k in PV_SOURCE_KEYS}
    old_source = {k: old_spec.get(k) for k in PV_SOURCE_KEYS}
    # A controllerExpandSecretRef may be added to a CSI volume that had none.
    if isinstance(new_source.get("csi"), dict) and isinstance(old_source.get("csi"), dict):
        if old_source["csi"].get("controllerExpandSecretRef") is None:
            new_source["csi"] = {k: v for k, v in new_source["csi"].items() if k != "controllerExpandSecretRef"}
    if normalize(new_source) != normalize(old_source):
        diff = cmp_diff("core.PersistentVolumeSource", old_source, new_source)
        detail = f"spec.persistentvolumesource is immutable after creation\n{diff}"
        causes.append(field_forbidden("spec.persistentvolumesource", detail))
    causes += validate_immutable_field(new_spec.get("volumeMode"), old_spec.get("volumeMode"), "volumeMode")
    if old_spec.get("nodeAffinity") is not None and normalize(new_spec.get("nodeAffinity")) != normalize(
        old_spec.get("nodeAffinity")
    ):
        detail = "field is immutable, except for updating from beta label to GA"
        causes.append(field_invalid("nodeAffinity", GoRepr("&core.VolumeNodeAffinity{...}"), detail))
    return causes


# --- PersistentVolumeClaim ----------------------------------------------------------------------------------------


def _validate_data_source(ref: dict[str, Any], path: str, typed: bool) -> list[StatusCause]:
    causes = [field_required(f"{path}.{k}") for k in ("name", "kind") if not ref.get(k)]
    group = as_str(ref.get("apiGroup"))
    kind = as_str(ref.get("kind"))
    if not group and kind != "PersistentVolumeClaim":
        causes.append(
            field_invalid(path, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup")
        )
    if group:
        causes += validate_dns1123_subdomain(group, f"{path}.apiGroup")
    namespace = as_str(ref.get("namespace")) if typed else ""
    if namespace:
        causes += [field_invalid(f"{path}.namespace", namespace, m) for m in name_is_dns_label(namespace)]
    return causes


def validate_persistent_volume_claim_spec(spec: dict[str, Any], path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    modes = as_list(spec.get("accessModes"))
    if not modes:
        causes.append(field_required(f"{path}.accessModes", "at least 1 access mode is required"))
    if isinstance(spec.get("selector"), dict):
        causes += validate_label_selector(spec["selector"], f"{path}.selector")
    causes += _validate_access_modes(modes, f"{path}.accessModes")
    requests = as_dict(as_dict(spec.get("resources")).get("requests"))
    storage_path = f"{path}.resources[storage]"
    if "storage" not in requests:
        causes.append(field_required(storage_path))
    else:
        positive = validate_positive_quantity_value(requests["storage"], storage_path)
        causes += positive or validate_resource_quantity_value("storage", requests["storage"], storage_path)
    class_name = as_str(spec.get("storageClassName"))
    if class_name:
        causes += [field_invalid(f"{path}.storageClassName", class_name, m) for m in name_is_dns_subdomain(class_name)]
    mode = spec.get("volumeMode")
    if mode is not None and mode not in VOLUME_MODES:
        causes.append(field_not_supported(f"{path}.volumeMode", mode, VOLUME_MODES))
    source, source_ref = spec.get("dataSource"), spec.get("dataSourceRef")
    if isinstance(source, dict):
        causes += _validate_data_source(source, f"{path}.dataSource", False)
    if isinstance(source_ref, dict):
        causes += _validate_data_source(source_ref, f"{path}.dataSourceRef", True)
        if source_ref.get("namespace"):
            if isinstance(source, dict):
                detail = "may not be specified when dataSourceRef.namespace is specified"
                causes.append(field_invalid(path, GoRepr(f"{path}.dataSource"), detail))
        elif isinstance(source, dict) and any(source.get(k) != source_ref.get(k) for k in ("apiGroup", "kind", "name")):
            causes.append(field_invalid(path, GoRepr(f"{path}.dataSource"), "must match dataSourceRef"))
    return causes


def validate_persistent_volume_claim_template(template: dict[str, Any], path: str) -> list[StatusCause]:
    causes = vol.validate_template_object_meta(template.get("metadata"), f"{path}.metadata")
    return causes + validate_persistent_volume_claim_spec(as_dict(template.get("spec")), f"{path}.spec")


def validate_persistent_volume_claim(obj: dict[str, Any]) -> list[StatusCause]:
    return validate_persistent_volume_claim_spec(as_dict(obj.get("spec")), "spec")


_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"


def _quantities_by_value(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with its resource quantities as values: "1Gi" and "1024Mi" are the same request."""
    out = copy.deepcopy(spec)
    resources = as_dict(out.get("resources"))
    for key in ("requests", "limits"):
        if key in resources:
            resources[key] = normalize_quantities(resources[key])
    return out


def validate_persistent_volume_claim_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    causes: list[StatusCause] = []
    new_spec, old_spec = copy.deepcopy(as_dict(new.get("spec"))), copy.deepcopy(as_dict(old.get("spec")))
    new_ann = as_dict(as_dict(new.get("metadata")).get("annotations"))
    old_ann = as_dict(as_dict(old.get("metadata")).get("annotations"))
    if not old_spec.get("volumeName"):
        old_spec["volumeName"] = new_spec.get("volumeName")  # bound once by the controller
    new_class, old_class = new_spec.get("storageClassName"), old_spec.get("storageClassName")
    if (
        _BETA_STORAGE_CLASS in old_ann
        and old_class is None
        and new_class == old_ann[_BETA_STORAGE_CLASS]
        and (_BETA_STORAGE_CLASS not in new_ann or new_ann[_BETA_STORAGE_CLASS] == old_ann[_BETA_STORAGE_CLASS])
    ):
        new_spec.pop("storageClassName", None)
    else:
        new_beta, old_beta = as_str(new_ann.get(_BETA_STORAGE_CLASS)), as_str(old_ann.get(_BETA_STORAGE_CLASS))
        if new_beta != old_beta:
            path = f"metadata.annotations.{_BETA_STORAGE_CLASS}"
            causes.append(field_invalid(path, new_beta, "field is immutable"))
        if (
            new_class is not None
            and old_class is None
            and (_BETA_STORAGE_CLASS not in old_ann or new_class == old_ann[_BETA_STORAGE_CLASS])
        ):
            new_spec["storageClassName"] = old_class
    bound = as_dict(new.get("status")).get("phase") == "Bound"
    new_requests = as_dict(as_dict(new_spec.get("resources")).get("requests"))
    old_requests = as_dict(as_dict(as_dict(old.get("spec")).get("resources")).get("requests"))
    if bound and new_requests:
        new_requests["storage"] = old_requests.get("storage")
    new_spec["volumeAttributesClassName"] = old_spec.get("volumeAttributesClassName")
    if normalize(_quantities_by_value(new_spec)) != normalize(_quantities_by_value(old_spec)):
        diff = cmp_diff("core.PersistentVolumeClaimSpec", old_spec, new_spec)
        detail = f"spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n{diff}"
        causes.append(field_forbidden("spec", detail))
    new_size = parse(as_dict(as_dict(as_dict(new.get("spec")).get("resources")).get("requests")).get("storage") or 0)
    old_size = parse(old_requests.get("storage") or 0)
    status_size = parse(as_dict(as_dict(old.get("status")).get("capacity")).get("storage") or 0)
    if new_size is not None and old_size is not None and status_size is not None and new_size < old_size:
        if new_size <= status_size:
            path = "spec.resources.requests.storage"
            causes.append(field_forbidden(path, "field can not be less than status.capacity"))
    causes += validate_immutable_field(
        as_dict(new.get("spec")).get("volumeMode"), as_dict(old.get("spec")).get("volumeMode"), "volumeMode"
    )
    if as_dict(new.get("spec")).get("volumeAttributesClassName") != as_dict(old.get("spec")).get(
        "volumeAttributesClassName"
    ):
        detail = "update is forbidden when the VolumeAttributesClass feature gate is disabled"
        causes.append(field_forbidden("spec.volumeAttributesClassName", detail))
    return causes


VALIDATORS = {
    ("v1", "PersistentVolume"): validate_persistent_volume,
    ("v1", "PersistentVolumeClaim"): validate_persistent_volume_claim,
}
UPDATE_VALIDATORS = {
    ("v1", "PersistentVolume"): validate_persistent_volume_update,
    ("v1", "PersistentVolumeClaim"): validate_persistent_volume_claim_update,
}
