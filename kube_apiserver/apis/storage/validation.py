"""storage.k8s.io/v1 validation (pkg/apis/storage/validation): StorageClass, CSIDriver, CSINode,
VolumeAttachment and CSIStorageCapacity, with the fields an update may not change."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.names import is_dns1123_subdomain, validate_qualified_name
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.validation.metav1 import validate_label_selector

MAX_PROVISIONER_PARAMETER_SIZE = 256 * 1024
MAX_PROVISIONER_PARAMETER_LEN = 512
CSI_NODE_ID_MAX_LENGTH = 192
RECLAIM_POLICIES = ["Delete", "Retain"]
VOLUME_BINDING_MODES = ["Immediate", "WaitForFirstConsumer"]
FS_GROUP_POLICIES = ["File", "None", "ReadWriteOnceWithFSType"]
VOLUME_LIFECYCLE_MODES = ["Persistent", "Ephemeral"]


def validate_storage_class(obj: dict[str, Any]) -> list[StatusCause]:
    errs = _validate_provisioner(obj.get("provisioner"), "provisioner")
    errs.extend(_validate_parameters(obj.get("parameters"), "parameters"))
    policy = obj.get("reclaimPolicy")
    if policy and policy not in RECLAIM_POLICIES:
        errs.append(field.not_supported("reclaimPolicy", policy, RECLAIM_POLICIES))
    mode = obj.get("volumeBindingMode")
    if mode is None:
        errs.append(field.required("volumeBindingMode", ""))
    elif mode not in VOLUME_BINDING_MODES:
        errs.append(field.not_supported("volumeBindingMode", mode, VOLUME_BINDING_MODES))
    errs.extend(_validate_allowed_topologies(field.as_list(obj.get("allowedTopologies")), "allowedTopologies"))
    return errs


def _validate_provisioner(value: Any, path: str) -> list[StatusCause]:
    provisioner = field.as_str(value)
    if not provisioner:
        return [field.required(path, "")]
    return validate_qualified_name(provisioner.lower(), path)


def _validate_parameters(value: Any, path: str) -> list[StatusCause]:
    params = field.as_dict(value)
    if len(params) > MAX_PROVISIONER_PARAMETER_LEN:
        return [field.too_long(path, "", MAX_PROVISIONER_PARAMETER_LEN)]
    errs = []
    total = 0
    for k, v in params.items():
        if not k:
            errs.append(field.invalid(path, k, "field can not be empty."))
        total += len(str(k).encode()) + len(str(v).encode())
    if total > MAX_PROVISIONER_PARAMETER_SIZE:
        errs.append(field.too_long(path, "", MAX_PROVISIONER_PARAMETER_SIZE))
    return errs


def _validate_allowed_topologies(terms: list[Any], path: str) -> list[StatusCause]:
    errs = []
    seen: list[dict[str, frozenset[str]]] = []
    for i, term in enumerate(terms):
        term_path = field.index(path, i)
        exprs_path = field.child(term_path, "matchLabelExpressions")
        expr_map: dict[str, frozenset[str]] = {}
        for j, req in enumerate(field.as_list(field.as_dict(term).get("matchLabelExpressions"))):
            req = field.as_dict(req)
            req_path = field.index(exprs_path, j)
            values = [v for v in field.as_list(req.get("values")) if isinstance(v, str)]
            values_path = field.child(req_path, "values")
            if not values:
                errs.append(field.required(values_path, ""))
            for k, v in enumerate(values):
                if v in values[:k]:
                    errs.append(field.duplicate(field.index(values_path, k), v))
            key = field.as_str(req.get("key"))
            errs.extend(validate_qualified_name(key, field.child(req_path, "key")))
            if key in expr_map:
                errs.append(field.duplicate(field.child(req_path, "key"), key))
            expr_map[key] = frozenset(values)
        if expr_map in seen:
            errs.append(field.duplicate(exprs_path, ""))
        seen.append(expr_map)
    return errs


def validate_storage_class_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    errs = []
    if new.get("parameters") != old.get("parameters"):
        errs.append(field.forbidden("parameters", "updates to parameters are forbidden."))
    if new.get("provisioner") != old.get("provisioner"):
        errs.append(field.forbidden("provisioner", "updates to provisioner are forbidden."))
    if new.get("reclaimPolicy") != old.get("reclaimPolicy"):
        errs.append(field.forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."))
    mode = new.get("volumeBindingMode")
    errs.extend(field.validate_immutable_field(mode, old.get("volumeBindingMode"), "volumeBindingMode"))
    return errs


def validate_csi_driver(obj: dict[str, Any]) -> list[StatusCause]:
    spec = field.spec_of(obj)
    errs = []
    # attachRequired is reported as attachedRequired, as upstream does
    for name, path in (
        ("attachRequired", "spec.attachedRequired"),
        ("podInfoOnMount", "spec.podInfoOnMount"),
        ("storageCapacity", "spec.storageCapacity"),
        ("seLinuxMount", "spec.seLinuxMount"),
    ):
        if spec.get(name) is None:
            errs.append(field.required(path, ""))
    policy = spec.get("fsGroupPolicy")
    if policy is not None and policy not in FS_GROUP_POLICIES:
        errs.append(field.not_supported("spec.fsGroupPolicy", policy, FS_GROUP_POLICIES))
    audiences: set[str] = set()
    for i, request in enumerate(field.as_list(spec.get("tokenRequests"))):
        request = field.as_dict(request)
        request_path = field.index("spec.tokenRequests", i)
        audience = field.as_str(request.get("audience"))
        if audience in audiences:
            errs.append(field.duplicate(field.child(request_path, "audience"), audience))
            continue
        audiences.add(audience)
        seconds = request.get("expirationSeconds")
        if field.is_int(seconds):
            if seconds < 600:
                errs.append(
                    field.invalid(
                        field.child(request_path, "expirationSeconds"),
                        seconds,
                        "may not specify a duration less than 10 minutes",
                    )
                )
            if seconds > 1 << 32:
                errs.append(
                    field.invalid(
                        field.child(request_path, "expirationSeconds"),
                        seconds,
                        "may not specify a duration larger than 2^32 seconds",
                    )
                )
    for mode in field.as_list(spec.get("volumeLifecycleModes")):
        if mode not in VOLUME_LIFECYCLE_MODES:
            errs.append(field.not_supported("spec.volumeLifecycleModes", mode, VOLUME_LIFECYCLE_MODES))
    return errs


def validate_csi_driver_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    spec, old_spec = field.spec_of(new), field.spec_of(old)
    errs = field.validate_immutable_field(
        spec.get("attachRequired"), old_spec.get("attachRequired"), "spec.attachedRequired"
    )
    modes = spec.get("volumeLifecycleModes")
    errs.extend(
        field.validate_immutable_field(
            modes,
            old_spec.get("volumeLifecycleModes"),
            "spec.volumeLifecycleModes",
            gorepr.string_slice(modes, "[]storage.VolumeLifecycleMode"),
        )
    )
    return errs


def validate_csi_node(obj: dict[str, Any]) -> list[StatusCause]:
    errs = []
    names: set[str] = set()
    for i, driver in enumerate(field.as_list(field.spec_of(obj).get("drivers"))):
        driver = field.as_dict(driver)
        path = field.index("spec.drivers", i)
        name = field.as_str(driver.get("name"))
        errs.extend(_validate_csi_driver_name(name, field.child(path, "name")))
        node_id = field.as_str(driver.get("nodeID"))
        if not node_id:
            errs.append(field.required(field.child(path, "nodeID"), ""))
        if len(node_id.encode()) > CSI_NODE_ID_MAX_LENGTH:
            errs.append(
                field.invalid(
                    field.child(path, "nodeID"), node_id, f"must be {CSI_NODE_ID_MAX_LENGTH} characters or less"
                )
            )
        count = field.as_dict(driver.get("allocatable")).get("count")
        errs.extend(field.validate_nonnegative_field(count, field.child(path, "allocatable", "count")))
        if name in names:
            errs.append(field.duplicate(field.child(path, "name"), name))
        names.add(name)
        keys: set[str] = set()
        for key in field.as_list(driver.get("topologyKeys")):
            key = field.as_str(key)
            if not key:
                errs.append(field.required(path, ""))
            if key in keys:
                errs.append(field.duplicate(path, key))
            keys.add(key)
            errs.extend(validate_qualified_name(key, path))
    return errs


def _validate_csi_driver_name(name: str, path: str) -> list[StatusCause]:
    """ValidateCSIDriverName: required, at most 63 characters, a DNS subdomain."""
    errs = [field.required(path, "")] if not name else []
    if len(name.encode()) > 63:
        errs.append(field.too_long(path, name, 63))
    errs.extend(field.invalid(path, name, msg) for msg in is_dns1123_subdomain(name.lower()))
    return errs


def validate_csi_node_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    errs = []
    new_drivers = [field.as_dict(d) for d in field.as_list(field.spec_of(new).get("drivers"))]
    for old_driver in field.as_list(field.spec_of(old).get("drivers")):
        old_driver = field.as_dict(old_driver)
        for driver in new_drivers:
            if driver.get("name") == old_driver.get("name") and not field.semantic_equal(driver, old_driver):
                errs.append(
                    field.invalid("spec.drivers", gorepr.approx("storage.CSINodeDriver", driver), "field is immutable")
                )
    return errs


def validate_volume_attachment(obj: dict[str, Any]) -> list[StatusCause]:
    spec = field.spec_of(obj)
    attacher = field.as_str(spec.get("attacher"))
    errs = [field.required("spec.attacher", "")] if not attacher else []
    source = field.as_dict(spec.get("source"))
    inline, pv_name = source.get("inlineVolumeSpec"), source.get("persistentVolumeName")
    if inline is None and pv_name is None:
        errs.append(
            field.required("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName")
        )
    elif inline is not None and pv_name is not None:
        errs.append(
            field.forbidden("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName")
        )
    elif pv_name is not None and not pv_name:
        errs.append(field.required("spec.source.persistentVolumeName", "must specify non empty persistentVolumeName"))
    node_name = field.as_str(spec.get("nodeName"))
    errs.extend(field.invalid("spec.nodeName", node_name, msg) for msg in is_dns1123_subdomain(node_name))
    # ValidateVolumeAttachmentV1: the attacher is a CSI driver name, the PV name a subdomain
    if attacher:
        errs.extend(_validate_csi_driver_name(attacher, "spec.attacher"))
    if isinstance(pv_name, str) and pv_name:
        errs.extend(
            field.invalid("spec.source.persistentVolumeName", pv_name, msg) for msg in is_dns1123_subdomain(pv_name)
        )
    return errs


def validate_volume_attachment_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    spec = field.spec_of(new)
    if field.semantic_equal(spec, field.spec_of(old)):
        return []
    return [field.invalid("spec", gorepr.approx("storage.VolumeAttachmentSpec", spec), "field is immutable")]


def validate_csi_storage_capacity(obj: dict[str, Any]) -> list[StatusCause]:
    errs = []
    topology = obj.get("nodeTopology")
    if topology is not None:
        errs.extend(validate_label_selector(topology, "nodeTopology"))
    class_name = field.as_str(obj.get("storageClassName"))
    errs.extend(field.invalid("storageClassName", class_name, msg) for msg in is_dns1123_subdomain(class_name))
    return errs


def validate_csi_storage_capacity_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    errs = []
    topology = new.get("nodeTopology")
    if not field.semantic_equal(topology, old.get("nodeTopology")):
        errs.append(field.invalid("nodeTopology", gorepr.label_selector(topology), "field is immutable"))
    if new.get("storageClassName") != old.get("storageClassName"):
        errs.append(field.invalid("storageClassName", field.as_str(new.get("storageClassName")), "field is immutable"))
    return errs


VALIDATORS = {
    ("v1", "StorageClass"): validate_storage_class,
    ("v1", "CSIDriver"): validate_csi_driver,
    ("v1", "CSINode"): validate_csi_node,
    ("v1", "VolumeAttachment"): validate_volume_attachment,
    ("v1", "CSIStorageCapacity"): validate_csi_storage_capacity,
}
UPDATE_VALIDATORS = {
    ("v1", "StorageClass"): validate_storage_class_update,
    ("v1", "CSIDriver"): validate_csi_driver_update,
    ("v1", "CSINode"): validate_csi_node_update,
    ("v1", "VolumeAttachment"): validate_volume_attachment_update,
    ("v1", "CSIStorageCapacity"): validate_csi_storage_capacity_update,
}
