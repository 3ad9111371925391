"""Pod, PodTemplate and ReplicationController defaults, and the pod template defaulting every workload
group shares (pkg/apis/core/v1/defaults.go SetDefaults_Pod, SetDefaults_PodSpec, and what the
generated SetObjectDefaults_* of each kind with a PodTemplateSpec do below it).

A pod template gets SetDefaults_PodSpec and the container/volume defaults; a Pod additionally gets
SetDefaults_Pod (enableServiceLinks, host-network ports, requests from limits), which kube keeps to
Pods so that new defaults never change the templates of existing workloads.
"""

from __future__ import annotations

import copy
from typing import Any

from kube_apiserver.apis.core.defaults.containers import (
    default_host_network_ports,
    default_requests_from_limits,
    set_defaults_container,
)
from kube_apiserver.apis.core.defaults.fields import child, default, spec_of
from kube_apiserver.apis.core.defaults.resources import set_defaults_resource_list
from kube_apiserver.apis.core.defaults.volumes import set_defaults_volume

DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30
DEFAULT_SCHEDULER_NAME = "default-scheduler"


def set_defaults_pod_spec(spec: dict[str, Any]) -> None:
    """SetDefaults_PodSpec and the covering defaults of its volumes and containers."""
    # (fields.default / default_zero spelled out, in SetDefaults_PodSpec's order, which is the order
    # the keys are added in: this runs for every pod and template written)
    get = spec.get
    value = get("dnsPolicy")
    if value is None or value == "" or (value == 0 and not isinstance(value, bool)):
        spec["dnsPolicy"] = "ClusterFirst"
    value = get("restartPolicy")
    if value is None or value == "" or (value == 0 and not isinstance(value, bool)):
        spec["restartPolicy"] = "Always"
    if get("securityContext") is None:
        spec["securityContext"] = {}
    if get("terminationGracePeriodSeconds") is None:
        spec["terminationGracePeriodSeconds"] = DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS
    value = get("schedulerName")
    if value is None or value == "" or (value == 0 and not isinstance(value, bool)):
        spec["schedulerName"] = DEFAULT_SCHEDULER_NAME
    _convert_service_account(spec)
    # (fields.items spelled out: these loops run for every pod and template written)
    volumes = spec.get("volumes")
    if isinstance(volumes, list):
        for volume in volumes:
            if isinstance(volume, dict):
                set_defaults_volume(volume)
    for key in ("initContainers", "containers", "ephemeralContainers"):
        containers = spec.get(key)
        if isinstance(containers, list):
            for container in containers:
                if isinstance(container, dict):
                    set_defaults_container(container)
    overhead = spec.get("overhead")
    if overhead is not None:
        set_defaults_resource_list(overhead)


def _convert_service_account(spec: dict[str, Any]) -> None:
    """Not a default but the v1 conversion kube applies on the way in and out: serviceAccount is the
    deprecated alias of serviceAccountName (used when the latter is empty) and is always written back
    as a copy of it."""
    alias = spec.get("serviceAccount")
    if not spec.get("serviceAccountName") and isinstance(alias, str) and alias:
        spec["serviceAccountName"] = alias
    name = spec.get("serviceAccountName")
    if isinstance(name, str) and name:
        spec["serviceAccount"] = name
    elif isinstance(alias, str) or alias is None:
        spec.pop("serviceAccount", None)


def set_defaults_pod_template_spec(template: Any) -> None:
    """The defaults of a PodTemplateSpec field (spec.template of a workload); its spec is a struct in
    Go, so it is defaulted even when missing."""
    spec = spec_of(template)
    if spec is not None:
        set_defaults_pod_spec(spec)


def set_defaults_pod(pod: dict[str, Any]) -> None:
    """SetDefaults_Pod: the defaults only Pods get."""
    spec = spec_of(pod)
    if spec is None:
        return
    default_requests_from_limits(spec.get("containers"))
    default_requests_from_limits(spec.get("initContainers"))
    default(spec, "enableServiceLinks", True)
    if spec.get("hostNetwork") is True:
        default_host_network_ports(spec.get("containers"))
        default_host_network_ports(spec.get("initContainers"))


def _convert_ips(status: dict[str, Any], single: str, plural: str) -> None:
    """Not a default but the v1 conversion of PodStatus kube applies on the way in and out (podIP and
    podIPs, hostIP and hostIPs): the list is the truth, the single field its first address; a single
    field that differs from the list's first (an older kubelet's) wins and becomes the whole list."""
    one, many = status.get(single), status.get(plural)
    first = many[0].get("ip") if isinstance(many, list) and many and isinstance(many[0], dict) else None
    if isinstance(one, str) and one:
        if first != one:
            status[plural] = [{"ip": one}]
    elif isinstance(first, str):
        status[single] = first


def set_object_defaults_pod(pod: dict[str, Any]) -> None:
    set_defaults_pod(pod)
    spec = spec_of(pod)
    if spec is not None:
        set_defaults_pod_spec(spec)
    status = child(pod, "status")
    if status is not None:
        _convert_ips(status, "podIP", "podIPs")
        _convert_ips(status, "hostIP", "hostIPs")


def set_object_defaults_pod_template(obj: dict[str, Any]) -> None:
    # PodTemplate.template is a struct: defaulted even when missing.
    set_defaults_pod_template_spec(child(obj, "template", create=True))


def set_object_defaults_replication_controller(obj: dict[str, Any]) -> None:
    spec = spec_of(obj)
    if spec is None:
        return
    template = child(spec, "template")  # a pointer in ReplicationControllerSpec
    labels = child(template, "metadata") or {}
    template_labels = labels.get("labels")
    if isinstance(template_labels, dict) and template_labels:
        if not spec.get("selector"):
            spec["selector"] = copy.deepcopy(template_labels)
        meta = child(obj, "metadata", create=True)
        if meta is not None and not meta.get("labels"):
            meta["labels"] = copy.deepcopy(template_labels)
    default(spec, "replicas", 1)
    if template is not None:
        set_defaults_pod_template_spec(template)


def no_status_defaults(obj: dict[str, Any]) -> None:
    """The defaults of the status of a Pod or ReplicationController (a PodTemplate has none): kube's
    SetObjectDefaults_* have none there, so Scheme.default_status has nothing to redo after prepare."""


DEFAULTERS = {
    ("v1", "Pod"): set_object_defaults_pod,
    ("v1", "PodTemplate"): set_object_defaults_pod_template,
    ("v1", "ReplicationController"): set_object_defaults_replication_controller,
}
STATUS_DEFAULTERS = {
    ("v1", "Pod"): no_status_defaults,
    ("v1", "PodTemplate"): no_status_defaults,
    ("v1", "ReplicationController"): no_status_defaults,
}
