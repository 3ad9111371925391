"""The core (legacy) group, /api/v1, as kube-apiserver 1.33's discovery lists it."""

from __future__ import annotations

from kube_apiserver.apis.common import (
    ALL,
    CONNECT_GET,
    CREATE_ONLY,
    GET_PATCH_UPDATE,
    NAMESPACE_VERBS,
    PROXY_VERBS,
    scale,
    status,
)
from kube_apiserver.apis.core.printers_cluster import (
    COMPONENT_STATUS_PRINTER,
    EVENT_PRINTER,
    NAMESPACE_PRINTER,
    NODE_PRINTER,
)
from kube_apiserver.apis.core.printers_config import (
    CONFIG_MAP_PRINTER,
    PERSISTENT_VOLUME_CLAIM_PRINTER,
    PERSISTENT_VOLUME_PRINTER,
    RESOURCE_QUOTA_PRINTER,
    SECRET_PRINTER,
    SERVICE_ACCOUNT_PRINTER,
)
from kube_apiserver.apis.core.printers_network import ENDPOINTS_PRINTER, SERVICE_PRINTER
from kube_apiserver.apis.core.printers_pods import (
    POD_PRINTER,
    POD_TEMPLATE_PRINTER,
    REPLICATION_CONTROLLER_PRINTER,
)
from kube_apiserver.apis.printing import DEFAULT_TABLE_PRINTER
from kube_apiserver.registry.resource_spec import NOT_STORED, ResourceSpec, SubresourceSpec

GROUP = ""
VERSION = "v1"

# Field selectors: pkg/apis/core/v1/conversion.go (accepted labels) and the registry strategies'
# ToSelectableFields (values). A selector field maps to the dotted path its value is read from.
POD_FIELDS: dict[str, str] = {
    "spec.nodeName": "spec.nodeName",
    "spec.restartPolicy": "spec.restartPolicy",
    "spec.schedulerName": "spec.schedulerName",
    "spec.serviceAccountName": "spec.serviceAccountName",
    "spec.hostNetwork": "spec.hostNetwork",  # bool; upstream reads "false" when unset
    "status.phase": "status.phase",
    "status.podIP": "status.podIP",  # upstream: status.podIPs[0].ip, which v1 mirrors in status.podIP
    "status.nominatedNodeName": "status.nominatedNodeName",
    "spec.host": "spec.nodeName",  # legacy alias the v1 conversion rewrites to spec.nodeName
    # accepted by the conversion but never set by ToSelectableFields: always "" ("" here: no path)
    "status.podIPs": "",
}
EVENT_FIELDS: dict[str, str] = {
    "involvedObject.kind": "involvedObject.kind",
    "involvedObject.namespace": "involvedObject.namespace",
    "involvedObject.name": "involvedObject.name",
    "involvedObject.uid": "involvedObject.uid",
    "involvedObject.apiVersion": "involvedObject.apiVersion",
    "involvedObject.resourceVersion": "involvedObject.resourceVersion",
    "involvedObject.fieldPath": "involvedObject.fieldPath",
    "reason": "reason",
    "reportingComponent": "reportingComponent",
    "source": "source.component",  # upstream falls back to reportingComponent when empty
    "type": "type",
}

RESOURCES: list[ResourceSpec] = [
    ResourceSpec(GROUP, VERSION, "bindings", "Binding", True, verbs=CREATE_ONLY),
    ResourceSpec(
        GROUP,
        VERSION,
        "componentstatuses",
        "ComponentStatus",
        False,
        verbs=("get", "list"),
        short_names=("cs",),
        printer=COMPONENT_STATUS_PRINTER,
        deprecated_in="1.19",
        storage_version=NOT_STORED,  # probed, not stored
    ),
    ResourceSpec(GROUP, VERSION, "configmaps", "ConfigMap", True, short_names=("cm",), printer=CONFIG_MAP_PRINTER),
    ResourceSpec(
        GROUP,
        VERSION,
        "endpoints",
        "Endpoints",
        True,
        singular="endpoints",
        short_names=("ep",),
        printer=ENDPOINTS_PRINTER,
        deprecated_in="1.33",
        replacement="discovery.k8s.io/v1 EndpointSlice",
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "events",
        "Event",
        True,
        short_names=("ev",),
        selectable_fields=EVENT_FIELDS,
        printer=EVENT_PRINTER,
    ),
    # no printer upstream: the generic default NAME / CREATED AT table
    ResourceSpec(
        GROUP, VERSION, "limitranges", "LimitRange", True, short_names=("limits",), printer=DEFAULT_TABLE_PRINTER
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "namespaces",
        "Namespace",
        False,
        verbs=NAMESPACE_VERBS,
        short_names=("ns",),
        subresources=(
            SubresourceSpec("finalize", "Namespace", ("update",)),
            status("Namespace"),
        ),
        selectable_fields={"status.phase": "status.phase"},
        printer=NAMESPACE_PRINTER,
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "nodes",
        "Node",
        False,
        short_names=("no",),
        subresources=(
            SubresourceSpec("proxy", "NodeProxyOptions", PROXY_VERBS),
            status("Node"),
        ),
        selectable_fields={"spec.unschedulable": "spec.unschedulable"},  # bool; "false" when unset
        printer=NODE_PRINTER,
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "persistentvolumeclaims",
        "PersistentVolumeClaim",
        True,
        short_names=("pvc",),
        subresources=(status("PersistentVolumeClaim"),),
        printer=PERSISTENT_VOLUME_CLAIM_PRINTER,
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "persistentvolumes",
        "PersistentVolume",
        False,
        short_names=("pv",),
        subresources=(status("PersistentVolume"),),
        printer=PERSISTENT_VOLUME_PRINTER,
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "pods",
        "Pod",
        True,
        short_names=("po",),
        categories=ALL,
        subresources=(
            SubresourceSpec("attach", "PodAttachOptions", CONNECT_GET),
            SubresourceSpec("binding", "Binding", CREATE_ONLY),
            SubresourceSpec("ephemeralcontainers", "Pod", GET_PATCH_UPDATE),
            SubresourceSpec("eviction", "Eviction", CREATE_ONLY, group="policy", version="v1"),
            SubresourceSpec("exec", "PodExecOptions", CONNECT_GET),
            SubresourceSpec("log", "Pod", ("get",)),
            SubresourceSpec("portforward", "PodPortForwardOptions", CONNECT_GET),
            SubresourceSpec("proxy", "PodProxyOptions", PROXY_VERBS),
            SubresourceSpec("resize", "Pod", GET_PATCH_UPDATE),
            status("Pod"),
        ),
        selectable_fields=POD_FIELDS,
        printer=POD_PRINTER,
    ),
    ResourceSpec(GROUP, VERSION, "podtemplates", "PodTemplate", True, printer=POD_TEMPLATE_PRINTER),
    ResourceSpec(
        GROUP,
        VERSION,
        "replicationcontrollers",
        "ReplicationController",
        True,
        short_names=("rc",),
        categories=ALL,
        subresources=(scale(), status("ReplicationController")),
        selectable_fields={"status.replicas": "status.replicas"},  # int; "0" when unset
        printer=REPLICATION_CONTROLLER_PRINTER,
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "resourcequotas",
        "ResourceQuota",
        True,
        short_names=("quota",),
        subresources=(status("ResourceQuota"),),
        printer=RESOURCE_QUOTA_PRINTER,
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "secrets",
        "Secret",
        True,
        selectable_fields={"type": "type"},
        printer=SECRET_PRINTER,
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "serviceaccounts",
        "ServiceAccount",
        True,
        short_names=("sa",),
        subresources=(
            SubresourceSpec("token", "TokenRequest", CREATE_ONLY, group="authentication.k8s.io", version="v1"),
        ),
        printer=SERVICE_ACCOUNT_PRINTER,
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "services",
        "Service",
        True,
        short_names=("svc",),
        categories=ALL,
        subresources=(
            SubresourceSpec("proxy", "ServiceProxyOptions", PROXY_VERBS),
            status("Service"),
        ),
        selectable_fields={"spec.clusterIP": "spec.clusterIP", "spec.type": "spec.type"},
        printer=SERVICE_PRINTER,
    ),
]
