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
    # Runs for every container of every pod and template written: the tests of fields.py's
    # default_zero / child / items are spelled out inline (a call each costs more than the test).
    get = container.get
    if not get("imagePullPolicy"):
        container["imagePullPolicy"] = default_pull_policy(get("image"))
    value = get("terminationMessagePath")
    if value is None or value == "" or (value == 0 and not isinstance(value, bool)):
        container["terminationMessagePath"] = TERMINATION_MESSAGE_PATH_DEFAULT
    value = get("terminationMessagePolicy")
    if value is None or value == "" or (value == 0 and not isinstance(value, bool)):
        container["terminationMessagePolicy"] = TERMINATION_MESSAGE_READ_FILE
    ports = get("ports")
    if isinstance(ports, list):
        for port in ports:
            if isinstance(port, dict):
                value = port.get("protocol")
                if value is None or value == "" or (value == 0 and not isinstance(value, bool)):
                    port["protocol"] = PROTOCOL_TCP  # +default="TCP" on ContainerPort.Protocol
    env = get("env")
    if isinstance(env, list):
        for var in env:
            # most variables have a plain value: nothing to default
            if isinstance(var, dict) and "valueFrom" in var:
                value_from = var["valueFrom"]
                if isinstance(value_from, dict):
                    field_ref = value_from.get("fieldRef")
                    if isinstance(field_ref, dict):
                        set_defaults_object_field_selector(field_ref)
    # resources is a struct, not a pointer, in Go: kube always writes it, as {} when nothing is set.
    resources = get("resources")
    if resources is None:
        container["resources"] = {}
    elif isinstance(resources, dict) and resources:
        set_defaults_resource_requirements(resources)
    for name in _PROBES:
        probe = get(name)
        if isinstance(probe, dict):
            set_defaults_probe(probe)
    lifecycle = get("lifecycle")
    if isinstance(lifecycle, dict):
        for hook in ("postStart", "preStop"):
            http_get = child(lifecycle.get(hook), "httpGet")
            if http_get is not None:
                set_defaults_http_get_action(http_get)


def set_defaults_probe(probe: dict[str, Any]) -> None:
    get = probe.get
    for key, default_value in _PROBE_DEFAULTS:
        value = get(key)
        if value is None or value == "" or (value == 0 and not isinstance(value, bool)):
            probe[key] = default_value
    http_get = get("httpGet")
    if isinstance(http_get, dict):
        set_defaults_http_get_action(http_get)
    grpc = get("grpc")
    if isinstance(grpc, dict):
        default(grpc, "service", "")  # +default="" on GRPCAction.Service (a pointer)


_PROBE_DEFAULTS = (("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1), ("failureThreshold", 3))


def set_defaults_http_get_action(action: dict[str, Any]) -> None:
    # (fields.default_zero spelled out: most containers have a probe)
    value = action.get("path")
    if value is None or value == "" or (value == 0 and not isinstance(value, bool)):
        action["path"] = "/"
    value = action.get("scheme")
    if value is None or value == "" or (value == 0 and not isinstance(value, bool)):
        action["scheme"] = URI_SCHEME_HTTP


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
        resources = container.get("resources") if isinstance(container, dict) else None
        if not isinstance(resources, dict):
            continue
        limits = resources.get("limits")
        if not isinstance(limits, dict):
            continue
        requests = child(resources, "requests", create=True)
        if requests is None:
            continue
        for name, value in limits.items():
            requests.setdefault(name, value)
        if not requests:
            # an empty map is not written by kube (omitempty): do not add one.
            resources.pop("requests", None)
