"""Container defaults (pkg/apis/core/v1/defaults.go SetDefaults_Container, SetDefaults_Probe,
SetDefaults_HTTPGetAction, SetDefaults_ObjectFieldSelector and the declarative defaults of the
generated SetObjectDefaults_* for the fields under a container)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.defaults.fields import child, default, default_zero, items
from kube_apiserver.apis.core.defaults.images import default_pull_policy
from kube_apiserver.apis.core.defaults.resources import set_defaults_resource_requirements

TERMINATION_MESSAGE_PATH_DEFAULT = "/dev/termination-log"
TERMINATION_MESSAGE_READ_FILE = "File"
PROTOCOL_TCP = "TCP"
URI_SCHEME_HTTP = "HTTP"

_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")


def set_defaults_container(container: dict[str, Any]) -> None:
    """SetDefaults_Container and everything the generated code defaults below a container."""
    if not container.get("imagePullPolicy"):
        container["imagePullPolicy"] = default_pull_policy(container.get("image"))
    default_zero(container, "terminationMessagePath", TERMINATION_MESSAGE_PATH_DEFAULT)
    default_zero(container, "terminationMessagePolicy", TERMINATION_MESSAGE_READ_FILE)
    for port in items(container, "ports"):
        default_zero(port, "protocol", PROTOCOL_TCP)  # +default="TCP" on ContainerPort.Protocol
    for env in items(container, "env"):
        value_from = env.get("valueFrom")
        if value_from is not None:  # most variables have a plain value: nothing to default
            field_ref = child(value_from, "fieldRef")
            if field_ref is not None:
                set_defaults_object_field_selector(field_ref)
    # resources is a struct, not a pointer, in Go: kube always writes it, as {} when nothing is set.
    resources = child(container, "resources", create=True)
    if resources is not None:
        set_defaults_resource_requirements(resources)
    for name in _PROBES:
        probe = container.get(name)
        if isinstance(probe, dict):
            set_defaults_probe(probe)
    lifecycle = container.get("lifecycle")
    if isinstance(lifecycle, dict):
        for hook in ("postStart", "preStop"):
            http_get = child(lifecycle.get(hook), "httpGet")
            if http_get is not None:
                set_defaults_http_get_action(http_get)


def set_defaults_probe(probe: dict[str, Any]) -> None:
    default_zero(probe, "timeoutSeconds", 1)
    default_zero(probe, "periodSeconds", 10)
    default_zero(probe, "successThreshold", 1)
    default_zero(probe, "failureThreshold", 3)
    http_get = child(probe, "httpGet")
    if http_get is not None:
        set_defaults_http_get_action(http_get)
    grpc = child(probe, "grpc")
    if grpc is not None:
        default(grpc, "service", "")  # +default="" on GRPCAction.Service (a pointer)


def set_defaults_http_get_action(action: dict[str, Any]) -> None:
    default_zero(action, "path", "/")
    default_zero(action, "scheme", URI_SCHEME_HTTP)


def set_defaults_object_field_selector(selector: dict[str, Any]) -> None:
    default_zero(selector, "apiVersion", "v1")


def default_host_network_ports(containers: Any) -> None:
    """With host networking every container port is a host port (defaultHostNetworkPorts)."""
    if not isinstance(containers, list):
        return
    for container in containers:
        for port in items(container, "ports"):
            if not port.get("hostPort") and "containerPort" in port:
                port["hostPort"] = port["containerPort"]


def default_requests_from_limits(containers: Any) -> None:
    """SetDefaults_Pod: a resource with a limit but no request is requested at its limit (Pods only,
    not pod templates)."""
    if not isinstance(containers, list):
        return
    for container in containers:
        resources = child(container, "resources")
        limits = child(resources, "limits")
        if resources is None or limits is None:
            continue
        requests = child(resources, "requests", create=True)
        if requests is None:
            continue
        for name, value in limits.items():
            requests.setdefault(name, value)
        if not requests:
            # an empty map is not written by kube (omitempty): do not add one.
            resources.pop("requests", None)
