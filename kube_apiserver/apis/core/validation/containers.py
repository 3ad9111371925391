"""Containers (pkg/apis/core/validation: validateContainers, validateInitContainers,
validateEphemeralContainers, validateContainerCommon and what it calls: ports, env, mounts,
probes, lifecycle handlers, resources, security context).

Fields kube defaults (terminationMessagePolicy, imagePullPolicy, a port's protocol, a probe's
thresholds) are checked only when present: by validation time defaulting has filled them, and an
explicit empty value is defaulted too, so "Required value" for them cannot happen in kube either.
"""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.validation.common import as_dict, as_list, as_str, is_int
from kube_apiserver.apis.core.validation.resources import validate_resource_requirements
from kube_apiserver.apis.core.validation.security import validate_container_security_context
from kube_apiserver.apis.core.validation.volumes import (
    ENV_DOWNWARD_API_PATHS,
    validate_container_resource_field_selector,
    validate_local_descending_path,
    validate_object_field_selector,
    validate_path_no_backsteps,
)
from kube_apiserver.runtime.errors import (
    GoRepr,
    StatusCause,
    field_duplicate,
    field_forbidden,
    field_invalid,
    field_not_found,
    field_not_supported,
    field_required,
)
from kube_apiserver.runtime.validation.names import (
    is_config_map_key,
    is_dns1123_label,
    is_http_header_name,
    is_relaxed_env_var_name,
    is_valid_port_name,
    is_valid_port_num,
    mask_trailing_dash,
    name_is_dns_subdomain,
)

PROTOCOLS = ["SCTP", "TCP", "UDP"]
PULL_POLICIES = ["Always", "IfNotPresent", "Never"]
TERMINATION_MESSAGE_POLICIES = ["File", "FallbackToLogsOnError"]
NOT_FOR_INIT = "may not be set for init containers without restartPolicy=Always"
_PROBES = (("livenessProbe", "liveness"), ("readinessProbe", "readiness"), ("startupProbe", "startup"))
# allowedEphemeralContainerFields: the fields an ephemeral container may not set (JSON names).
_EPHEMERAL_FORBIDDEN = ("ports", "resources", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle")


def validate_container_ports(ports: Any, path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    names: set[str] = set()
    for i, port in enumerate(as_list(ports)):
        if type(port) is not dict:
            port = {}
        name = port.get("name")
        if type(name) is not str:
            name = ""
        if name:
            msgs = is_valid_port_name(name)
            if msgs:
                causes += [field_invalid(f"{path}[{i}].name", name, m) for m in msgs]
            elif name in names:
                causes.append(field_duplicate(f"{path}[{i}].name", name))
            else:
                names.add(name)
        container_port = port.get("containerPort", 0)
        if not container_port:
            causes.append(field_required(f"{path}[{i}].containerPort"))
        elif type(container_port) is int and not 1 <= container_port <= 65535:
            msgs = is_valid_port_num(container_port)
            causes += [field_invalid(f"{path}[{i}].containerPort", container_port, m) for m in msgs]
        host_port = port.get("hostPort", 0)
        if type(host_port) is int and host_port:
            causes += [field_invalid(f"{path}[{i}].hostPort", host_port, m) for m in is_valid_port_num(host_port)]
        protocol = port.get("protocol")
        if protocol and protocol not in PROTOCOLS:
            causes.append(field_not_supported(f"{path}[{i}].protocol", protocol, PROTOCOLS))
    return causes


def _name_errors(name: str, path: str) -> list[StatusCause]:
    return [field_invalid(path, name, m) for m in name_is_dns_subdomain(name)]


def _key_selector(ref: dict[str, Any], path: str) -> list[StatusCause]:
    causes = _name_errors(as_str(ref.get("name")), f"{path}.name")
    key = as_str(ref.get("key"))
    if not key:
        causes.append(field_required(f"{path}.key"))
    else:
        causes += [field_invalid(f"{path}.key", key, m) for m in is_config_map_key(key)]
    return causes


def validate_env(env: Any, path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    env = as_list(env)
    # Most variables are a printable ASCII name without '=' and a plain value: when all are, there
    # is nothing to report (the loop below would skip each of them the same way).
    for var in env:
        if type(var) is not dict or "valueFrom" in var:
            break
        name = var.get("name")
        if not (type(name) is str and name and name.isascii() and name.isprintable() and "=" not in name):
            break
    else:
        return causes
    for i, var in enumerate(env):
        if type(var) is dict:
            name = var.get("name")
            # The common case inline: a printable ASCII name without '=' and a plain value.
            if type(name) is str and name and name.isascii() and name.isprintable() and "=" not in name:
                if "valueFrom" not in var:
                    continue
            else:
                name = as_str(name)
        else:
            var, name = {}, ""
        if not name:
            causes.append(field_required(f"{path}[{i}].name"))
        else:
            msgs = is_relaxed_env_var_name(name)
            if msgs:
                causes += [field_invalid(f"{path}[{i}].name", name, m) for m in msgs]
        source = var.get("valueFrom")
        if not isinstance(source, dict):
            continue
        src_path, count = f"{path}[{i}].valueFrom", 0
        if isinstance(source.get("fieldRef"), dict):
            count += 1
            causes += validate_object_field_selector(source["fieldRef"], ENV_DOWNWARD_API_PATHS, f"{src_path}.fieldRef")
        if isinstance(source.get("resourceFieldRef"), dict):
            count += 1
            causes += validate_container_resource_field_selector(
                source["resourceFieldRef"], f"{src_path}.resourceFieldRef", False
            )
        for key in ("configMapKeyRef", "secretKeyRef"):
            if isinstance(source.get(key), dict):
                count += 1
                causes += _key_selector(source[key], f"{src_path}.{key}")
        if count == 0:
            detail = "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"
            causes.append(field_invalid(src_path, "", detail))
        elif var.get("value"):
            causes.append(field_invalid(src_path, "", "may not be specified when `value` is not empty"))
        elif count > 1:
            causes.append(field_invalid(src_path, "", "may not have more than one field specified at a time"))
    return causes


def validate_env_from(env_from: Any, path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    for i, source in enumerate(as_list(env_from)):
        source, idx = as_dict(source), f"{path}[{i}]"
        prefix = as_str(source.get("prefix"))
        if prefix:
            causes += [field_invalid(f"{idx}.prefix", prefix, m) for m in is_relaxed_env_var_name(prefix)]
        count = 0
        for key in ("configMapRef", "secretRef"):
            if isinstance(source.get(key), dict):
                count += 1
                name = as_str(source[key].get("name"))
                if not name:
                    causes.append(field_required(f"{idx}.{key}.name"))
                else:
                    msgs = name_is_dns_subdomain(mask_trailing_dash(name))
                    causes += [field_invalid(f"{idx}.{key}.name", name, m) for m in msgs]
        if count == 0:
            causes.append(field_invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"))
        elif count > 1:
            causes.append(field_invalid(path, "", "may not have more than one field specified at a time"))
    return causes


_PLAIN_MOUNT_FIELDS = frozenset({"name", "mountPath", "readOnly"})


def validate_volume_mounts(
    container: dict[str, Any], volumes: dict[str, dict[str, Any]], path: str
) -> list[StatusCause]:
    causes: list[StatusCause] = []
    mounts = as_list(container.get("volumeMounts"))
    if not mounts:
        return causes
    devices = (
        {
            as_str(d.get("name")): as_str(d.get("devicePath"))
            for d in map(as_dict, as_list(container.get("volumeDevices")))
        }
        if container.get("volumeDevices")
        else {}
    )
    mount_points: set[str] = set()
    for i, mount in enumerate(mounts):
        if not devices and type(mount) is dict and mount.keys() <= _PLAIN_MOUNT_FIELDS:
            # The common mount inline: a known volume at a new, non-empty path, no subPath nor propagation.
            name, mount_path = mount.get("name"), mount.get("mountPath")
            if (
                type(name) is str
                and name
                and name in volumes
                and type(mount_path) is str
                and mount_path
                and mount_path not in mount_points
            ):
                mount_points.add(mount_path)
                continue
        mount = as_dict(mount)
        name, mount_path = as_str(mount.get("name")), as_str(mount.get("mountPath"))
        if not name:
            causes.append(field_required(f"{path}[{i}].name"))
        if name not in volumes:
            causes.append(field_not_found(f"{path}[{i}].name", name))
        if not mount_path:
            causes.append(field_required(f"{path}[{i}].mountPath"))
        if mount_path in mount_points:
            causes.append(field_invalid(f"{path}[{i}].mountPath", mount_path, "must be unique"))
        mount_points.add(mount_path)
        if name in devices:
            causes.append(field_invalid(f"{path}[{i}].name", name, "must not already exist in volumeDevices"))
        if mount_path in devices.values():
            causes.append(
                field_invalid(f"{path}[{i}].mountPath", mount_path, "must not already exist as a path in volumeDevices")
            )
        sub_path, sub_expr = as_str(mount.get("subPath")), as_str(mount.get("subPathExpr"))
        if sub_path:
            causes += validate_local_descending_path(sub_path, f"{path}.subPath")
        if sub_expr:
            if sub_path:
                causes.append(
                    field_invalid(
                        f"{path}[{i}].subPathExpr", sub_expr, "subPathExpr and subPath are mutually exclusive"
                    )
                )
            causes += validate_local_descending_path(sub_expr, f"{path}.subPathExpr")
        propagation = mount.get("mountPropagation")
        if propagation is not None:
            supported = ["Bidirectional", "HostToContainer", "None"]
            if propagation not in supported:
                causes.append(field_not_supported(f"{path}.mountPropagation", propagation, supported))
            privileged = as_dict(container.get("securityContext")).get("privileged") is True
            if propagation == "Bidirectional" and not privileged:
                detail = "Bidirectional mount propagation is available only to privileged containers"
                causes.append(field_forbidden(f"{path}.mountPropagation", detail))
        if mount.get("recursiveReadOnly") is not None:
            causes += _recursive_read_only(mount, f"{path}.recursiveReadOnly")
    return causes


def _recursive_read_only(mount: dict[str, Any], path: str) -> list[StatusCause]:
    rro = mount.get("recursiveReadOnly")
    if rro is None or rro == "Disabled":
        return []
    if rro in ("Enabled", "IfPossible"):
        causes = []
        if not mount.get("readOnly"):
            causes.append(field_forbidden(path, "may only be specified when readOnly is true"))
        if mount.get("mountPropagation") not in (None, "None"):
            causes.append(field_forbidden(path, "may only be specified when mountPropagation is None or not specified"))
        return causes
    return [field_not_supported(path, rro, ["Disabled", "Enabled", "IfPossible"])]


def validate_volume_devices(
    container: dict[str, Any], volumes: dict[str, dict[str, Any]], path: str
) -> list[StatusCause]:
    causes: list[StatusCause] = []
    devices = as_list(container.get("volumeDevices"))
    if not devices:
        return causes
    mounts = {
        as_str(m.get("name")): as_str(m.get("mountPath")) for m in map(as_dict, as_list(container.get("volumeMounts")))
    }
    paths: set[str] = set()
    names: set[str] = set()
    for i, dev in enumerate(devices):
        dev, idx = as_dict(dev), f"{path}[{i}]"
        name, dev_path = as_str(dev.get("name")), as_str(dev.get("devicePath"))
        volume = volumes.get(name)
        is_pvc = volume is not None and (
            isinstance(volume.get("persistentVolumeClaim"), dict) or isinstance(volume.get("ephemeral"), dict)
        )
        if not name:
            causes.append(field_required(f"{idx}.name"))
        if name in names:
            causes.append(field_invalid(f"{idx}.name", name, "must be unique"))
        if volume is not None and not is_pvc:
            detail = "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode"
            causes.append(field_invalid(f"{idx}.name", name, detail))
        if volume is None:
            causes.append(field_not_found(f"{idx}.name", name))
        if not dev_path:
            causes.append(field_required(f"{idx}.devicePath"))
        if dev_path in paths:
            causes.append(field_invalid(f"{idx}.devicePath", dev_path, "must be unique"))
        if dev_path and validate_path_no_backsteps(dev_path, ""):
            causes.append(field_invalid(f"{idx}.devicePath", dev_path, "can not contain backsteps ('..')"))
        else:
            paths.add(dev_path)
        if name in mounts:
            causes.append(field_invalid(f"{idx}.name", name, "must not already exist in volumeMounts"))
        if dev_path in mounts.values():
            causes.append(
                field_invalid(f"{idx}.devicePath", dev_path, "must not already exist as a path in volumeMounts")
            )
        if name:
            names.add(name)
    return causes


# --- probes and lifecycle -----------------------------------------------------------------------------------------


def _port_num_or_name(port: Any, path: str) -> list[StatusCause]:
    if type(port) is int:
        if 1 <= port <= 65535:
            return []
        return [field_invalid(path, port, m) for m in is_valid_port_num(port)]
    if isinstance(port, str):
        return [field_invalid(path, port, m) for m in is_valid_port_name(port)]
    return []


def validate_handler(handler: dict[str, Any], grace: Any, path: str, probe: bool) -> list[StatusCause]:
    causes: list[StatusCause] = []
    count = 0
    kinds = ("exec", "httpGet", "tcpSocket", "grpc") if probe else ("exec", "httpGet", "tcpSocket", "sleep")
    for kind in kinds:
        if kind not in handler:
            continue
        action = handler[kind]
        if not isinstance(action, dict):
            continue
        if count:
            causes.append(field_forbidden(f"{path}.{kind}", "may not specify more than 1 handler type"))
            continue
        count += 1
        causes += _action(kind, action, grace, path)
    if not count:
        causes.append(field_required(path, "must specify a handler type"))
    return causes


def _action(kind: str, action: dict[str, Any], grace: Any, handler_path: str) -> list[StatusCause]:
    """The checks of one handler action; its path (handler_path.kind) is spelled only for an error."""
    if kind == "exec":
        return [] if as_list(action.get("command")) else [field_required(f"{handler_path}.exec.command")]
    if kind == "httpGet":
        causes = [] if action.get("path") else [field_required(f"{handler_path}.httpGet.path")]
        port = action.get("port")
        if type(port) is not int or not 1 <= port <= 65535:
            causes += _port_num_or_name(port, f"{handler_path}.httpGet.port")
        scheme = action.get("scheme")
        if scheme is not None and scheme not in ("HTTP", "HTTPS"):
            causes.append(field_not_supported(f"{handler_path}.httpGet.scheme", scheme, ["HTTP", "HTTPS"]))
        if action.get("httpHeaders"):
            path = f"{handler_path}.httpGet.httpHeaders"
            for header in map(as_dict, as_list(action["httpHeaders"])):
                name = as_str(header.get("name"))
                causes += [field_invalid(path, name, m) for m in is_http_header_name(name)]
        return causes
    if kind in ("tcpSocket", "grpc"):
        return _port_num_or_name(action.get("port"), f"{handler_path}.{kind}.port")
    seconds = action.get("seconds", 0)
    if is_int(seconds) and is_int(grace) and (seconds <= 0 or seconds > grace):
        detail = f"must be greater than 0 and less than terminationGracePeriodSeconds ({grace})"
        return [field_invalid(f"{handler_path}.{kind}", seconds, detail)]
    return []


_PROBE_COUNTS = ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold")


def validate_probe(probe: Any, grace: Any, path: str, kind: str) -> list[StatusCause]:
    if not isinstance(probe, dict):
        return []
    causes = validate_handler(probe, grace, path, probe=True)
    get = probe.get
    for key in _PROBE_COUNTS:
        value = get(key)
        # JSON integers are exactly int (bool is not): no subclass to allow for
        if type(value) is int and value < 0:
            causes.append(field_invalid(f"{path}.{key}", value, "must be greater than or equal to 0"))
    tgps = get("terminationGracePeriodSeconds")
    if tgps is not None and is_int(tgps) and tgps <= 0:
        causes.append(field_invalid(f"{path}.terminationGracePeriodSeconds", tgps, "must be greater than 0"))
    if kind != "readiness":
        success = get("successThreshold")
        if kind in ("liveness", "startup") and is_int(success) and success != 1:
            causes.append(field_invalid(f"{path}.successThreshold", success, "must be 1"))
    elif tgps is not None:
        detail = "must not be set for readinessProbes"
        causes.append(field_invalid(f"{path}.terminationGracePeriodSeconds", tgps, detail))
    return causes


def validate_lifecycle(lifecycle: dict[str, Any], grace: Any, path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    for hook in ("postStart", "preStop"):
        if isinstance(lifecycle.get(hook), dict):
            causes += validate_handler(lifecycle[hook], grace, f"{path}.{hook}", probe=False)
    return causes


def _probes_and_lifecycle(ctr: dict[str, Any], grace: Any, path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    lifecycle = ctr.get("lifecycle")
    if isinstance(lifecycle, dict):
        causes += validate_lifecycle(lifecycle, grace, f"{path}.lifecycle")
    for key, kind in _PROBES:
        probe = ctr.get(key)
        if isinstance(probe, dict):
            causes += validate_probe(probe, grace, f"{path}.{key}", kind)
    return causes


# --- security context and resize ----------------------------------------------------------------------------------


def _validate_resize_policy(policies: Any, path: str, restart_policy: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    seen: set[str] = set()
    for i, policy in enumerate(as_list(policies)):
        policy = as_dict(policy)
        resource, restart = as_str(policy.get("resourceName")), as_str(policy.get("restartPolicy"))
        if resource in seen:
            causes.append(field_duplicate(f"{path}[{i}]", resource))
        seen.add(resource)
        if not resource:
            causes.append(field_required(path))
        elif resource not in ("cpu", "memory"):
            causes.append(field_not_supported(path, resource, ["cpu", "memory"]))
        if not restart:
            causes.append(field_required(path))
        elif restart not in ("NotRequired", "RestartContainer"):
            causes.append(field_not_supported(path, restart, ["NotRequired", "RestartContainer"]))
        if restart_policy == "Never" and restart != "NotRequired":
            causes.append(field_invalid(path, restart, "must be 'NotRequired' when `restartPolicy` is 'Never'"))
    return causes


def validate_container_common(
    ctr: dict[str, Any],
    volumes: dict[str, dict[str, Any]],
    claims: set[str],
    path: str,
    restart_policy: str,
    host_users: bool,
) -> list[StatusCause]:
    causes: list[StatusCause] = []
    get = ctr.get
    name = get("name")
    if not name or not isinstance(name, str):
        causes.append(field_required(f"{path}.name"))
    else:
        msgs = is_dns1123_label(name)
        if msgs:  # the path is spelled only for an error
            causes += [field_invalid(f"{path}.name", name, m) for m in msgs]
    if not get("image"):
        causes.append(field_required(f"{path}.image"))
    policy = get("terminationMessagePolicy")
    if policy and policy not in TERMINATION_MESSAGE_POLICIES:
        causes.append(field_not_supported(f"{path}.terminationMessagePolicy", policy, TERMINATION_MESSAGE_POLICIES))
    # A field the container does not have (or has empty) has nothing to check: no call, no path for it.
    ports = get("ports")
    if ports:
        causes += validate_container_ports(ports, f"{path}.ports")
    env = get("env")
    if env:
        causes += validate_env(env, f"{path}.env")
    if get("envFrom"):
        causes += validate_env_from(ctr["envFrom"], f"{path}.envFrom")
    if get("volumeMounts"):
        causes += validate_volume_mounts(ctr, volumes, f"{path}.volumeMounts")
    if get("volumeDevices"):
        causes += validate_volume_devices(ctr, volumes, f"{path}.volumeDevices")
    pull = get("imagePullPolicy")
    if pull and pull not in PULL_POLICIES:
        causes.append(field_not_supported(f"{path}.imagePullPolicy", pull, PULL_POLICIES))
    resources = get("resources")
    if resources:
        causes += validate_resource_requirements(resources, f"{path}.resources", claims)
    if get("resizePolicy"):
        causes += _validate_resize_policy(ctr["resizePolicy"], f"{path}.resizePolicy", restart_policy)
    security_context = get("securityContext")
    if isinstance(security_context, dict):
        causes += validate_container_security_context(security_context, f"{path}.securityContext", host_users)
    return causes


def _host_port_conflicts(containers: list[dict[str, Any]], path: str, seen: set[str]) -> list[StatusCause]:
    causes: list[StatusCause] = []
    for ci, ctr in enumerate(containers):
        ports = ctr.get("ports")
        if not ports or not isinstance(ports, list):
            continue
        for pi, port in enumerate(ports):
            if not isinstance(port, dict):
                continue
            host_port = port.get("hostPort", 0)
            if type(host_port) is not int or not host_port:
                continue
            key = f"{as_str(port.get('protocol'))}/{as_str(port.get('hostIP'))}/{host_port}"
            if key in seen:
                causes.append(field_duplicate(f"{path}[{ci}].ports[{pi}].hostPort", key))
            seen.add(key)
    return causes


def validate_containers(
    spec: dict[str, Any], volumes: dict[str, dict[str, Any]], claims: set[str], path: str, host_users: bool
) -> list[StatusCause]:
    containers = spec.get("containers")
    if not containers or not isinstance(containers, list):
        return [field_required(f"{path}.containers")]
    for c in containers:
        if type(c) is not dict:  # (an element that is not an object is checked as an empty one)
            containers = [as_dict(c) for c in containers]
            break
    grace, restart = spec.get("terminationGracePeriodSeconds"), as_str(spec.get("restartPolicy"))
    causes: list[StatusCause] = []
    names: set[str] = set()
    host_ports = False
    for i, ctr in enumerate(containers):
        idx = f"{path}.containers[{i}]"
        causes += validate_container_common(ctr, volumes, claims, idx, restart, host_users)
        name = ctr.get("name")
        if not isinstance(name, str):
            name = ""
        if name in names:
            causes.append(field_duplicate(f"{idx}.name", name))
        names.add(name)
        if "lifecycle" in ctr or "livenessProbe" in ctr or "readinessProbe" in ctr or "startupProbe" in ctr:
            causes += _probes_and_lifecycle(ctr, grace, idx)
        if ctr.get("restartPolicy") is not None:
            causes.append(field_forbidden(f"{idx}.restartPolicy", "may not be set for non-init containers"))
        if not host_ports and ctr.get("ports"):
            host_ports = True
    if host_ports:
        causes += _host_port_conflicts(containers, f"{path}.containers", set())
    return causes


def validate_init_containers(
    spec: dict[str, Any], volumes: dict[str, dict[str, Any]], claims: set[str], path: str, host_users: bool
) -> list[StatusCause]:
    grace, restart = spec.get("terminationGracePeriodSeconds"), as_str(spec.get("restartPolicy"))
    causes: list[StatusCause] = []
    names = {as_str(as_dict(c).get("name")) for c in as_list(spec.get("containers"))}
    for i, ctr in enumerate(map(as_dict, as_list(spec.get("initContainers")))):
        idx = f"{path}.initContainers[{i}]"
        causes += validate_container_common(ctr, volumes, claims, idx, restart, host_users)
        container_restart = ctr.get("restartPolicy")
        if container_restart is not None and container_restart != "Always":
            causes.append(field_not_supported(f"{idx}.restartPolicy", container_restart, ["Always"]))
        name = as_str(ctr.get("name"))
        if name in names:
            causes.append(field_duplicate(f"{idx}.name", name))
        elif name:
            names.add(name)
        causes += _host_port_conflicts([ctr], f"{path}.initContainers", set())
        if container_restart == "Always":
            causes += _probes_and_lifecycle(ctr, grace, idx)
        else:
            for key in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe"):
                if ctr.get(key) is not None:
                    causes.append(field_forbidden(f"{idx}.{key}", NOT_FOR_INIT))
        if as_list(ctr.get("resizePolicy")):
            shown = GoRepr("[]core.ContainerResizePolicy{...}")
            causes.append(field_invalid(f"{idx}.resizePolicy", shown, "must not be set for init containers"))
    return causes


def validate_ephemeral_containers(
    spec: dict[str, Any], volumes: dict[str, dict[str, Any]], claims: set[str], path: str, host_users: bool
) -> list[StatusCause]:
    ephemeral = [as_dict(c) for c in as_list(spec.get("ephemeralContainers"))]
    if not ephemeral:
        return []
    restart = as_str(spec.get("restartPolicy"))
    others = {
        as_str(as_dict(c).get("name")) for key in ("containers", "initContainers") for c in as_list(spec.get(key))
    }
    names = set(others)
    causes: list[StatusCause] = []
    for i, ctr in enumerate(ephemeral):
        idx = f"{path}.ephemeralContainers[{i}]"
        causes += validate_container_common(ctr, volumes, claims, idx, restart, host_users)
        causes += validate_container_only_for_pod(ctr, idx)
        name = as_str(ctr.get("name"))
        if name in names:
            causes.append(field_duplicate(f"{idx}.name", name))
        else:
            names.add(name)
        target = as_str(ctr.get("targetContainerName"))
        if target and target not in others:
            causes.append(field_not_found(f"{idx}.targetContainerName", target))
        for key in _EPHEMERAL_FORBIDDEN:
            if ctr.get(key) not in (None, [], {}):
                causes.append(field_forbidden(f"{idx}.{key}", "cannot be set for an Ephemeral Container"))
        for j, mount in enumerate(map(as_dict, as_list(ctr.get("volumeMounts")))):
            for key in ("subPath", "subPathExpr"):
                if mount.get(key):
                    causes.append(
                        field_forbidden(f"{idx}.volumeMounts[{j}].{key}", "cannot be set for an Ephemeral Container")
                    )
    return causes


def validate_container_only_for_pod(ctr: dict[str, Any], path: str) -> list[StatusCause]:
    image = as_str(ctr.get("image"))
    if image != image.strip():
        return [field_invalid(f"{path}.image", image, "must not have leading or trailing whitespace")]
    return []
