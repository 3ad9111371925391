"""Pod volumes and their sources (pkg/apis/core/validation: ValidateVolumes, validateVolumeSource and
the per-source functions, validateProjectionSources, downward API selectors)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.validation.common import (
    as_dict,
    as_list,
    as_str,
    go_typed_slice,
    is_int,
    validate_qualified_name,
)
from kube_apiserver.apis.core.validation.resources import parse
from kube_apiserver.runtime.errors import (
    StatusCause,
    field_duplicate,
    field_forbidden,
    field_invalid,
    field_not_supported,
    field_required,
    field_too_long,
)
from kube_apiserver.runtime.labels import go_quote
from kube_apiserver.runtime.validation.metav1 import validate_annotations, validate_labels
from kube_apiserver.runtime.validation.names import is_dns1123_label, is_dns1123_subdomain, name_is_dns_subdomain

FILE_MODE_ERROR_MSG = "must be a number between 0 and 0777 (octal), both inclusive"
MORE_THAN_ONE = "may not specify more than 1 volume type"

_HOST_PATH_TYPES = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"]
VOLUME_DOWNWARD_API_PATHS = [
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
]
ENV_DOWNWARD_API_PATHS = [
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
]
# podshelper.ConvertDownwardAPIFieldLabel: what v1 accepts at all.
_DOWNWARD_API_LABELS = frozenset(
    {
        "metadata.annotations",
        "metadata.labels",
        "metadata.name",
        "metadata.namespace",
        "metadata.uid",
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.serviceAccountName",
        "spec.schedulerName",
        "status.phase",
        "status.hostIP",
        "status.hostIPs",
        "status.podIP",
        "status.podIPs",
    }
)
CONTAINER_RESOURCE_PATHS = [
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
]
_DIVISORS_CPU = frozenset({"1m", "1"})
_DIVISORS_BYTES = frozenset({"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"})


def validate_file_mode(mode: Any, path: str) -> list[StatusCause]:
    if is_int(mode) and not 0 <= mode <= 0o777:
        return [field_invalid(path, mode, FILE_MODE_ERROR_MSG)]
    return []


def validate_path_no_backsteps(target: str, path: str) -> list[StatusCause]:
    if ".." in target.replace("\\", "/").split("/"):
        return [field_invalid(path, target, "must not contain '..'")]
    return []


def validate_local_descending_path(target: str, path: str) -> list[StatusCause]:
    causes = [field_invalid(path, target, "must be a relative path")] if target.startswith("/") else []
    return causes + validate_path_no_backsteps(target, path)


def validate_local_non_reserved_path(target: str, path: str) -> list[StatusCause]:
    causes = validate_local_descending_path(target, path)
    if target.startswith("..") and not target.startswith("../"):
        causes.append(field_invalid(path, target, "must not start with '..'"))
    return causes


def validate_key_to_path(item: dict[str, Any], path: str) -> list[StatusCause]:
    causes = []
    if not item.get("key"):
        causes.append(field_required(f"{path}.key"))
    target = as_str(item.get("path"))
    if not target:
        causes.append(field_required(f"{path}.path"))
    causes += validate_local_non_reserved_path(target, f"{path}.path")
    return causes + validate_file_mode(item.get("mode"), f"{path}.mode")


def _items(source: dict[str, Any], path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    for i, item in enumerate(as_list(source.get("items"))):
        causes += validate_key_to_path(as_dict(item), f"{path}.items[{i}]")
    return causes


# --- downward API -------------------------------------------------------------------------------------------------


def validate_object_field_selector(selector: dict[str, Any], expressions: list[str], path: str) -> list[StatusCause]:
    api_version, field_path = as_str(selector.get("apiVersion")), as_str(selector.get("fieldPath"))
    if not api_version:
        return [field_required(f"{path}.apiVersion")]
    if not field_path:
        return [field_required(f"{path}.fieldPath")]
    base, subscript = field_path, None
    if field_path.endswith("']") and "['" in field_path:
        base, _, rest = field_path.partition("['")
        subscript = rest[:-2]
    if api_version != "v1":
        err = f"unsupported pod version: {api_version}"
    elif base not in _DOWNWARD_API_LABELS or (
        subscript is not None and base not in ("metadata.annotations", "metadata.labels")
    ):
        err = f"field label not supported: {base if subscript is None else field_path}"
    else:
        err = ""
    if err:
        return [field_invalid(f"{path}.fieldPath", field_path, f"error converting fieldPath: {err}")]
    if subscript is not None:
        return validate_qualified_name(subscript.lower() if base == "metadata.annotations" else subscript, path)
    if base not in expressions:
        return [field_not_supported(f"{path}.fieldPath", base, expressions)]
    return []


def validate_container_resource_field_selector(selector: dict[str, Any], path: str, volume: bool) -> list[StatusCause]:
    causes: list[StatusCause] = []
    resource = as_str(selector.get("resource"))
    if volume and not selector.get("containerName"):
        causes.append(field_required(f"{path}.containerName"))
    elif not resource:
        causes.append(field_required(f"{path}.resource"))
    elif resource not in CONTAINER_RESOURCE_PATHS and not resource.startswith(
        ("requests.hugepages-", "limits.hugepages-")
    ):
        causes.append(field_not_supported(f"{path}.resource", resource, CONTAINER_RESOURCE_PATHS))
    divisor = selector.get("divisor")
    if divisor is None or not parse(divisor):
        return causes
    shown = str(divisor)
    if resource in ("limits.cpu", "requests.cpu") and shown not in _DIVISORS_CPU:
        detail = "only divisor's values 1m and 1 are supported with the cpu resource"
        causes.append(field_invalid(f"{path}.divisor", resource, detail))
    kinds = {"limits.memory": "memory", "requests.memory": "memory"}
    kinds |= {
        "limits.ephemeral-storage": "local ephemeral storage",
        "requests.ephemeral-storage": "local ephemeral storage",
    }
    if resource.startswith(("requests.hugepages-", "limits.hugepages-")):
        kinds[resource] = "hugepages"
    if resource in kinds and shown not in _DIVISORS_BYTES:
        values = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei"
        detail = f"only divisor's values {values} are supported with the {kinds[resource]} resource"
        causes.append(field_invalid(f"{path}.divisor", resource, detail))
    return causes


def validate_downward_api_volume_file(item: dict[str, Any], path: str) -> list[StatusCause]:
    causes = []
    target = as_str(item.get("path"))
    if not target:
        causes.append(field_required(f"{path}.path"))
    causes += validate_local_non_reserved_path(target, f"{path}.path")
    if isinstance(item.get("fieldRef"), dict):
        causes += validate_object_field_selector(item["fieldRef"], VOLUME_DOWNWARD_API_PATHS, f"{path}.fieldRef")
        if item.get("resourceFieldRef") is not None:
            detail = "fieldRef and resourceFieldRef can not be specified simultaneously"
            causes.append(field_invalid(path, "resource", detail))
    elif isinstance(item.get("resourceFieldRef"), dict):
        causes += validate_container_resource_field_selector(item["resourceFieldRef"], f"{path}.resourceFieldRef", True)
    else:
        causes.append(field_required(path, "one of fieldRef and resourceFieldRef is required"))
    return causes + validate_file_mode(item.get("mode"), f"{path}.mode")


# --- sources ------------------------------------------------------------------------------------------------------


def _required(source: dict[str, Any], path: str, *fields: str) -> list[StatusCause]:
    return [field_required(f"{path}.{f}") for f in fields if not source.get(f)]


def _empty_dir(s: dict[str, Any], path: str, _: str) -> list[StatusCause]:
    limit = parse(s.get("sizeLimit")) if s.get("sizeLimit") is not None else None
    if limit is not None and limit < 0:
        return [field_forbidden(f"{path}.sizeLimit", "SizeLimit field must be a valid resource quantity")]
    return []


def _host_path(s: dict[str, Any], path: str, _: str) -> list[StatusCause]:
    target = as_str(s.get("path"))
    if not target:
        return [field_required(f"{path}.path")]
    causes = validate_path_no_backsteps(target, f"{path}.path")
    if "type" in s and s["type"] is not None and s["type"] not in _HOST_PATH_TYPES:
        causes.append(field_not_supported(f"{path}.type", s["type"], _HOST_PATH_TYPES))
    return causes


def _named_items_source(s: dict[str, Any], path: str, name_key: str) -> list[StatusCause]:
    """A secret or configMap source: its name, its defaultMode and its items. (_required,
    validate_file_mode and _items spelled out: most pods mount one of these.)"""
    causes = [] if s.get(name_key) else [field_required(f"{path}.{name_key}")]
    mode = s.get("defaultMode")
    if isinstance(mode, int) and not isinstance(mode, bool) and not 0 <= mode <= 0o777:
        causes.append(field_invalid(f"{path}.defaultMode", mode, FILE_MODE_ERROR_MSG))
    if s.get("items"):
        causes += _items(s, path)
    return causes


def _secret(s: dict[str, Any], path: str, _: str) -> list[StatusCause]:
    return _named_items_source(s, path, "secretName")


def _config_map(s: dict[str, Any], path: str, _: str) -> list[StatusCause]:
    return _named_items_source(s, path, "name")


def _nfs(s: dict[str, Any], path: str, _: str) -> list[StatusCause]:
    causes = _required(s, path, "server", "path")
    if not as_str(s.get("path")).startswith("/"):
        causes.append(field_invalid(f"{path}.path", as_str(s.get("path")), "must be an absolute path"))
    return causes


def _iscsi(s: dict[str, Any], path: str, vol_name: str) -> list[StatusCause]:
    causes = _required(s, path, "targetPortal", "iqn")
    lun = s.get("lun", 0)
    if is_int(lun) and not 0 <= lun <= 255:
        causes.append(field_invalid(f"{path}.lun", lun, "must be between 0 and 255, inclusive"))
    if (s.get("chapAuthDiscovery") or s.get("chapAuthSession")) and s.get("secretRef") is None:
        causes.append(field_required(f"{path}.secretRef"))
    return causes


def _gce(s: dict[str, Any], path: str, _: str) -> list[StatusCause]:
    causes = _required(s, path, "pdName")
    part = s.get("partition", 0)
    if is_int(part) and not 0 <= part <= 255:
        causes.append(field_invalid(f"{path}.partition", part, "must be between 1 and 255, inclusive"))
    return causes


def _aws(s: dict[str, Any], path: str, _: str) -> list[StatusCause]:
    causes = _required(s, path, "volumeID")
    part = s.get("partition", 0)
    if is_int(part) and not 0 <= part <= 255:
        causes.append(field_invalid(f"{path}.partition", part, "must be between 1 and 255, inclusive"))
    return causes


def _git_repo(s: dict[str, Any], path: str, _: str) -> list[StatusCause]:
    return _required(s, path, "repository") + validate_local_descending_path(
        as_str(s.get("directory")), f"{path}.directory"
    )


def _pvc(s: dict[str, Any], path: str, _: str) -> list[StatusCause]:
    return _required(s, path, "claimName")


def _downward_api(s: dict[str, Any], path: str, _: str) -> list[StatusCause]:
    causes = validate_file_mode(s.get("defaultMode"), f"{path}.defaultMode")
    for item in as_list(s.get("items")):
        # kube reports every item at the source's path, without an index.
        causes += validate_downward_api_volume_file(as_dict(item), path)
    return causes


def validate_csi_driver_name(driver: str, path: str) -> list[StatusCause]:
    causes = [field_required(path)] if not driver else []
    if len(driver) > 63:
        causes.append(field_too_long(path, driver, 63))
    return causes + [field_invalid(path, driver, msg) for msg in is_dns1123_subdomain(driver.lower())]


def _csi(s: dict[str, Any], path: str, _: str) -> list[StatusCause]:
    causes = validate_csi_driver_name(as_str(s.get("driver")), f"{path}.driver")
    ref = s.get("nodePublishSecretRef")
    if isinstance(ref, dict):
        name = as_str(ref.get("name"))
        if not name:
            causes.append(field_required(f"{path}.nodePublishSecretRef.name"))
        else:
            causes += [field_invalid(f"{path}.name", name, msg) for msg in name_is_dns_subdomain(name)]
    return causes


def _projected(s: dict[str, Any], path: str, _: str) -> list[StatusCause]:
    causes = validate_file_mode(s.get("defaultMode"), f"{path}.defaultMode")
    seen: set[str] = set()

    def claim(target: str, shown: str) -> None:
        if target in seen:
            causes.append(field_invalid(path, shown, "conflicting duplicate paths"))
        seen.add(target)

    for i, source in enumerate(as_list(s.get("sources"))):
        source = as_dict(source)
        src_path, count = f"{path}.sources[{i}]", 0
        for kind in ("secret", "configMap"):
            if isinstance(source.get(kind), dict):
                count += 1
                ref = source[kind]
                causes += _required(ref, f"{src_path}.{kind}", "name")
                for j, item in enumerate(as_list(ref.get("items"))):
                    item = as_dict(item)
                    causes += validate_key_to_path(item, f"{src_path}.{kind}.items[{j}]")
                    if item.get("path"):
                        claim(as_str(item["path"]), as_str(ref.get("name")))
        if isinstance(source.get("downwardAPI"), dict):
            count += 1
            for item in as_list(source["downwardAPI"].get("items")):
                item = as_dict(item)
                causes += validate_downward_api_volume_file(item, f"{src_path}.downwardAPI")
                if item.get("path"):
                    claim(as_str(item["path"]), as_str(item["path"]))
        token = source.get("serviceAccountToken")
        if isinstance(token, dict):
            count += 1
            causes += _service_account_token(token, f"{src_path}.serviceAccountToken", path)
        bundle = source.get("clusterTrustBundle")
        if isinstance(bundle, dict):
            count += 1
            causes += _cluster_trust_bundle(bundle, f"{src_path}.clusterTrustBundlePEM")
            claim(as_str(bundle.get("path")), as_str(bundle.get("path")))
        if count > 1:
            causes.append(field_forbidden(src_path, MORE_THAN_ONE))
    return causes


def _service_account_token(token: dict[str, Any], path: str, projected_path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    seconds = token.get("expirationSeconds")
    if is_int(seconds) and seconds < 600:
        causes.append(
            field_invalid(f"{path}.expirationSeconds", seconds, "may not specify a duration less than 10 minutes")
        )
    if is_int(seconds) and seconds > 1 << 32:
        causes.append(
            field_invalid(f"{path}.expirationSeconds", seconds, "may not specify a duration larger than 2^32 seconds")
        )
    target = as_str(token.get("path"))
    if not target:
        causes.append(field_required(f"{projected_path}.path"))
    else:
        causes += validate_local_non_reserved_path(target, f"{projected_path}.path")
    return causes


def _cluster_trust_bundle(bundle: dict[str, Any], path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    has_name, has_signer = bundle.get("name") is not None, bundle.get("signerName") is not None
    if has_name and has_signer:
        causes.append(field_invalid(path, "", "only one of name and signerName may be used"))
    elif has_name and not bundle.get("name"):
        causes.append(field_required(f"{path}.name", "must be a valid object name"))
    elif has_signer and not bundle.get("signerName"):
        causes.append(field_required(f"{path}.signerName", "must be a valid signer name"))
    elif not has_name and not has_signer:
        causes.append(field_required(path, "either name or signerName must be specified"))
    target = as_str(bundle.get("path"))
    if not target:
        causes.append(field_required(f"{path}.path"))
    return causes + validate_local_non_reserved_path(target, f"{path}.path")


def _simple(*fields: str) -> Any:
    def check(s: dict[str, Any], path: str, _: str) -> list[StatusCause]:
        return _required(s, path, *fields)

    return check


def _flex(s: dict[str, Any], path: str, _: str) -> list[StatusCause]:
    causes = _required(s, path, "driver")
    for key in as_dict(s.get("options")):
        namespace = key.split("/", 1)[0] if "/" in key else key
        normalized = "." + namespace.lower()
        if normalized.endswith((".kubernetes.io", ".k8s.io")):
            detail = "kubernetes.io and k8s.io namespaces are reserved"
            causes.append(field_invalid(f"{path}.options[{key}]", key, detail))
    return causes


def _fc(s: dict[str, Any], path: str, _: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    wwns, wwids = as_list(s.get("targetWWNs")), as_list(s.get("wwids"))
    if not wwns and not wwids:
        causes.append(field_required(f"{path}.targetWWNs", "must specify either targetWWNs or wwids, but not both"))
    if wwns and wwids:
        detail = "targetWWNs and wwids can not be specified simultaneously"
        causes.append(field_invalid(f"{path}.targetWWNs", go_typed_slice("string", wwns), detail))
    if wwns and s.get("lun") is None:
        causes.append(field_required(f"{path}.lun", "lun is required if targetWWNs is specified"))
    return causes


# (JSON key, path used in "more than 1" errors, path used for the source's own errors, checker), in kube's order.
_VOLUME_SOURCES: list[tuple[str, str, str, Any]] = [
    ("emptyDir", "emptyDir", "emptyDir", _empty_dir),
    ("hostPath", "hostPath", "hostPath", _host_path),
    ("gitRepo", "gitRepo", "gitRepo", _git_repo),
    ("gcePersistentDisk", "gcePersistentDisk", "persistentDisk", _gce),
    ("awsElasticBlockStore", "awsElasticBlockStore", "awsElasticBlockStore", _aws),
    ("secret", "secret", "secret", _secret),
    ("nfs", "nfs", "nfs", _nfs),
    ("iscsi", "iscsi", "iscsi", _iscsi),
    ("glusterfs", "glusterfs", "glusterfs", _simple("endpoints", "path")),
    ("flocker", "flocker", "flocker", lambda s, p, _: _flocker(s, p)),
    ("persistentVolumeClaim", "persistentVolumeClaim", "persistentVolumeClaim", _pvc),
    ("rbd", "rbd", "rbd", _simple("monitors", "image")),
    ("cinder", "cinder", "cinder", _simple("volumeID")),
    ("cephfs", "cephFS", "cephfs", _simple("monitors")),
    ("quobyte", "quobyte", "quobyte", _simple("volume")),
    ("downwardAPI", "downwarAPI", "downwardAPI", _downward_api),
    ("fc", "fc", "fc", _fc),
    ("flexVolume", "flexVolume", "flexVolume", _flex),
    ("configMap", "configMap", "configMap", _config_map),
    ("azureFile", "azureFile", "azureFile", _simple("secretName", "shareName")),
    ("vsphereVolume", "vsphereVolume", "vsphereVolume", _simple("volumePath")),
    ("photonPersistentDisk", "photonPersistentDisk", "photonPersistentDisk", _simple("pdID")),
    ("portworxVolume", "portworxVolume", "portworxVolume", _simple("volumeID")),
    ("azureDisk", "azureDisk", "azureDisk", _simple("diskName", "diskURI")),
    ("storageos", "storageos", "storageos", _simple("volumeName")),
    ("projected", "projected", "projected", _projected),
    ("scaleIO", "scaleIO", "scaleIO", _simple("gateway", "system", "volumeName")),
    ("csi", "csi", "csi", _csi),
    ("ephemeral", "ephemeral", "ephemeral", None),
]


_VOLUME_SOURCE_ORDER = {source[0]: i for i, source in enumerate(_VOLUME_SOURCES)}


def _flocker(s: dict[str, Any], path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    name, uuid = as_str(s.get("datasetName")), as_str(s.get("datasetUUID"))
    if not name and not uuid:
        causes.append(field_required(path, "one of datasetName and datasetUUID is required"))
    if name and uuid:
        causes.append(
            field_invalid(path, "resource", "datasetName and datasetUUID can not be specified simultaneously")
        )
    if "/" in name:
        causes.append(field_invalid(f"{path}.datasetName", name, "must not contain '/'"))
    return causes


def validate_volume_source(volume: dict[str, Any], path: str, pod_name: str) -> list[StatusCause]:
    # The sources the volume has, in the order kube checks them (a volume has a few keys, not 29).
    order = _VOLUME_SOURCE_ORDER
    present: list[int] = []
    for key, source in volume.items():
        if key in order and isinstance(source, dict):
            present.append(order[key])
    if not present:
        return [field_required(path, "must specify a volume type")]
    if len(present) > 1:
        present.sort()
    vol_name = volume.get("name")
    if not isinstance(vol_name, str):
        vol_name = ""
    # The first source is checked, every other one is one too many.
    key, _, own_path, check = _VOLUME_SOURCES[present[0]]
    causes: list[StatusCause] = []
    if check is not None:
        causes += check(volume[key], f"{path}.{own_path}", vol_name)
    else:
        causes += _ephemeral(volume[key], f"{path}.ephemeral", path, vol_name, pod_name)
    if len(present) > 1:
        for i in present[1:]:
            causes.append(field_forbidden(f"{path}.{_VOLUME_SOURCES[i][1]}", MORE_THAN_ONE))
    return causes


def _ephemeral(source: dict[str, Any], path: str, vol_path: str, vol_name: str, pod_name: str) -> list[StatusCause]:
    # storage.py builds on this module's sources (persistent volumes), hence the late import.
    from kube_apiserver.apis.core.validation.storage import validate_persistent_volume_claim_template

    template = source.get("volumeClaimTemplate")
    if not isinstance(template, dict):
        return [field_required(f"{path}.volumeClaimTemplate")]
    causes = validate_persistent_volume_claim_template(template, f"{path}.volumeClaimTemplate")
    if pod_name and vol_name:
        pvc_name = f"{pod_name}-{vol_name}"
        for msg in is_dns1123_subdomain(pvc_name):
            causes.append(field_invalid(f"{vol_path}.name", vol_name, f"PVC name {go_quote(pvc_name)}: {msg}"))
    return causes


def validate_volumes(
    volumes: Any, path: str, pod_name: str = ""
) -> tuple[dict[str, dict[str, Any]], list[StatusCause]]:
    """ValidateVolumes: the valid volumes by name (for the mounts) and the errors."""
    causes: list[StatusCause] = []
    by_name: dict[str, dict[str, Any]] = {}
    if not isinstance(volumes, list) or not volumes:
        return by_name, causes
    created_pvcs = set()
    if pod_name:
        for vol in volumes:
            if isinstance(vol, dict) and isinstance(vol.get("ephemeral"), dict):
                created_pvcs.add(f"{pod_name}-{vol.get('name', '')}")
    for i, vol in enumerate(volumes):
        if not isinstance(vol, dict):
            vol = {}
        idx_path = f"{path}[{i}]"
        name = vol.get("name")
        if not isinstance(name, str):
            name = ""
        errs = validate_volume_source(vol, idx_path, pod_name)
        if not name:
            errs.append(field_required(f"{idx_path}.name"))
        else:
            msgs = is_dns1123_label(name)
            if msgs:  # the path is spelled only for an error
                errs += [field_invalid(f"{idx_path}.name", name, m) for m in msgs]
        if name in by_name:
            errs.append(field_duplicate(f"{idx_path}.name", name))
        if not errs:
            by_name[name] = vol
        causes += errs
        pvc = vol.get("persistentVolumeClaim")
        claim = pvc.get("claimName") if isinstance(pvc, dict) else None
        if claim and claim in created_pvcs:
            detail = "must not reference a PVC that gets created for an ephemeral volume"
            causes.append(field_invalid(f"{idx_path}.persistentVolumeClaim.claimName", claim, detail))
    return by_name, causes


def validate_template_object_meta(meta: Any, path: str) -> list[StatusCause]:
    """ValidateTemplateObjectMeta: only labels and annotations may be set in an embedded template."""
    meta = as_dict(meta)
    causes = validate_annotations(meta.get("annotations"), f"{path}.annotations")
    causes += validate_labels(meta.get("labels"), f"{path}.labels")
    for key, value in meta.items():
        if key in ("labels", "annotations") or value in (None, "", [], {}, 0):
            continue
        go_lower = "uID" if key == "uid" else key
        causes.append(field_forbidden(f"{path}.{go_lower}", "cannot be set"))
    return causes
