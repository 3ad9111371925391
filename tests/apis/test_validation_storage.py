"""storage.k8s.io/v1 validation: kube-apiserver 1.33's messages and field paths."""

from __future__ import annotations

from validation_groups_helpers import errors, with_changes

from kube_apiserver.apis.storage.validation import (
    validate_csi_driver,
    validate_csi_driver_update,
    validate_csi_node,
    validate_storage_class,
    validate_storage_class_update,
    validate_volume_attachment,
    validate_volume_attachment_update,
)

SC = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "StorageClass",
    "metadata": {"name": "fast"},
    "provisioner": "ebs.csi.aws.com",
    "parameters": {"type": "gp3"},
    "reclaimPolicy": "Delete",
    "volumeBindingMode": "WaitForFirstConsumer",
}


def test_storage_class() -> None:
    assert validate_storage_class(SC) == []
    bad = with_changes(SC, provisioner=None, reclaimPolicy="Recycle", volumeBindingMode="Later")
    assert errors(validate_storage_class(bad)) == [
        "provisioner: Required value",
        'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"',
        'volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
    ]
    msgs = errors(validate_storage_class(with_changes(SC, provisioner="a/b/c")))
    assert msgs[0].startswith('provisioner: Invalid value: "a/b/c": a qualified name must consist of')
    topo = [{"matchLabelExpressions": [{"key": "zone", "values": []}, {"key": "zone", "values": ["a", "a"]}]}]
    assert errors(validate_storage_class(with_changes(SC, allowedTopologies=topo))) == [
        "allowedTopologies[0].matchLabelExpressions[0].values: Required value",
        'allowedTopologies[0].matchLabelExpressions[1].values[1]: Duplicate value: "a"',
        'allowedTopologies[0].matchLabelExpressions[1].key: Duplicate value: "zone"',
    ]


def test_storage_class_update() -> None:
    changed = with_changes(
        SC, provisioner="other.csi", parameters={"type": "io2"}, reclaimPolicy="Retain", volumeBindingMode="Immediate"
    )
    assert errors(validate_storage_class_update(changed, SC)) == [
        "parameters: Forbidden: updates to parameters are forbidden.",
        "provisioner: Forbidden: updates to provisioner are forbidden.",
        "reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.",
        'volumeBindingMode: Invalid value: "Immediate": field is immutable',
    ]
    assert validate_storage_class_update(with_changes(SC, allowVolumeExpansion=True), SC) == []


CSI_DRIVER = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "CSIDriver",
    "metadata": {"name": "ebs.csi.aws.com"},
    "spec": {
        "attachRequired": True,
        "podInfoOnMount": False,
        "storageCapacity": False,
        "seLinuxMount": False,
        "fsGroupPolicy": "ReadWriteOnceWithFSType",
        "volumeLifecycleModes": ["Persistent"],
    },
}


def test_csi_driver() -> None:
    assert validate_csi_driver(CSI_DRIVER) == []
    bad = with_changes(
        CSI_DRIVER, spec__attachRequired=None, spec__fsGroupPolicy="Some", spec__volumeLifecycleModes=["Forever"]
    )
    bad["spec"]["tokenRequests"] = [{"audience": "a", "expirationSeconds": 60}, {"audience": "a"}]
    assert errors(validate_csi_driver(bad)) == [
        "spec.attachedRequired: Required value",
        'spec.fsGroupPolicy: Unsupported value: "Some": supported values: "File", "None", "ReadWriteOnceWithFSType"',
        "spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes",
        'spec.tokenRequests[1].audience: Duplicate value: "a"',
        'spec.volumeLifecycleModes: Unsupported value: "Forever": supported values: "Persistent", "Ephemeral"',
    ]
    assert errors(validate_csi_driver_update(with_changes(CSI_DRIVER, spec__attachRequired=False), CSI_DRIVER)) == [
        "spec.attachedRequired: Invalid value: false: field is immutable"
    ]


def test_csi_node() -> None:
    node = {
        "spec": {
            "drivers": [{"name": "ebs.csi.aws.com", "nodeID": "i-1", "topologyKeys": ["topology.ebs.csi.aws.com/zone"]}]
        }
    }
    assert validate_csi_node(node) == []
    node["spec"]["drivers"].append({"name": "ebs.csi.aws.com", "nodeID": "", "allocatable": {"count": -1}})
    assert errors(validate_csi_node(node)) == [
        "spec.drivers[1].nodeID: Required value",
        "spec.drivers[1].allocatable.count: Invalid value: -1: must be greater than or equal to 0",
        'spec.drivers[1].name: Duplicate value: "ebs.csi.aws.com"',
    ]


def test_volume_attachment() -> None:
    va = {"spec": {"attacher": "ebs.csi.aws.com", "nodeName": "node-1", "source": {"persistentVolumeName": "pv-1"}}}
    assert validate_volume_attachment(va) == []
    assert errors(validate_volume_attachment({"spec": {"attacher": "a.b", "nodeName": "n", "source": {}}})) == [
        "spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName"
    ]
    changed = with_changes(va, spec__nodeName="node-2")
    msgs = errors(validate_volume_attachment_update(changed, va))
    assert msgs[0].startswith("spec: Invalid value: storage.VolumeAttachmentSpec{") and msgs[0].endswith(
        "field is immutable"
    )
