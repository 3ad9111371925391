"""storage.k8s.io/v1 as kube-apiserver 1.33's discovery lists it (VolumeAttributesClass is still beta in 1.33)."""

from __future__ import annotations

from kube_apiserver.apis.common import status
from kube_apiserver.apis.storage.printers import (
    CSI_DRIVER_PRINTER,
    CSI_NODE_PRINTER,
    CSI_STORAGE_CAPACITY_PRINTER,
    STORAGE_CLASS_PRINTER,
    VOLUME_ATTACHMENT_PRINTER,
)
from kube_apiserver.registry.resource_spec import ResourceSpec

GROUP = "storage.k8s.io"
VERSION = "v1"

RESOURCES: list[ResourceSpec] = [
    ResourceSpec(GROUP, VERSION, "csidrivers", "CSIDriver", False, printer=CSI_DRIVER_PRINTER),
    ResourceSpec(GROUP, VERSION, "csinodes", "CSINode", False, printer=CSI_NODE_PRINTER),
    ResourceSpec(
        GROUP, VERSION, "csistoragecapacities", "CSIStorageCapacity", True, printer=CSI_STORAGE_CAPACITY_PRINTER
    ),
    ResourceSpec(
        GROUP, VERSION, "storageclasses", "StorageClass", False, short_names=("sc",), printer=STORAGE_CLASS_PRINTER
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "volumeattachments",
        "VolumeAttachment",
        False,
        subresources=(status("VolumeAttachment"),),
        printer=VOLUME_ATTACHMENT_PRINTER,
    ),
]
