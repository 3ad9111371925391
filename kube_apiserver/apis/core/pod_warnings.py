"""Warnings about pods and pod templates (pkg/api/pod/warnings.go GetWarningsForPod and
GetWarningsForPodTemplate): deprecated node labels, annotations and volume plugins, duplicated
entries that apply would drop, fractional byte quantities, ambiguous ports."""

from __future__ import annotations

from typing import Any

from kube_apiserver.runtime.quantity import QuantityError, quantity_value

# pkg/api/node GetNodeLabelDeprecatedMessage
_DEPRECATED_NODE_LABELS = {
    "beta.kubernetes.io/arch": 'deprecated since v1.14; use "kubernetes.io/arch" instead',
    "beta.kubernetes.io/os": 'deprecated since v1.14; use "kubernetes.io/os" instead',
    "failure-domain.beta.kubernetes.io/region": 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
    "failure-domain.beta.kubernetes.io/zone": 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
    "beta.kubernetes.io/instance-type": 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
}
_DEPRECATED_ANNOTATIONS = {
    "scheduler.alpha.kubernetes.io/critical-pod": 'non-functional in v1.16+; use the "priorityClassName" field instead',
    "security.alpha.kubernetes.io/sysctls": 'non-functional in v1.11+; use the "sysctls" field instead',
    "security.alpha.kubernetes.io/unsafe-sysctls": 'non-functional in v1.11+; use the "sysctls" field instead',
}
_DEPRECATED_VOLUMES = (
    ("photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"),
    ("gitRepo", "deprecated in v1.11"),
    ("scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
    ("flocker", "deprecated in v1.22, non-functional in v1.25+"),
    ("storageos", "deprecated in v1.22, non-functional in v1.25+"),
    ("quobyte", "deprecated in v1.22, non-functional in v1.25+"),
    ("glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
    ("cephfs", "deprecated in v1.28, non-functional in v1.31+"),
    ("rbd", "deprecated in v1.28, non-functional in v1.31+"),
)
_DEPRECATED_VOLUME_PLUGINS = frozenset(plugin for plugin, _ in _DEPRECATED_VOLUMES)
# The resources counted in bytes, which must be whole numbers.
_BYTE_RESOURCES = ("memory", "ephemeral-storage")
_BINARY_SUFFIXES = frozenset({"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"})
_SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def warnings_for_pod_spec_and_meta(spec: Any, meta: Any, prefix: str = "") -> list[str]:
    """prefix is "" for a pod, "spec.template." for a workload's template, and so on."""
    spec, meta = _dict(spec), _dict(meta)
    annotations = _dict(meta.get("annotations"))
    out: list[str] = []
    for key in _dict(spec.get("nodeSelector")):
        if key in _DEPRECATED_NODE_LABELS:
            out.append(f"{prefix}spec.nodeSelector[{key}]: {_DEPRECATED_NODE_LABELS[key]}")
    for i, t in enumerate(_dicts(spec.get("topologySpreadConstraints"))):
        key = t.get("topologyKey")
        if key in _DEPRECATED_NODE_LABELS:
            out.append(
                f"{prefix}spec.topologySpreadConstraints[{i}].topologyKey: {key} is {_DEPRECATED_NODE_LABELS[key]}"
            )
        if t.get("labelSelector") is None:
            out.append(
                f"{prefix}spec.topologySpreadConstraints[{i}].labelSelector: a null labelSelector results in matching no pod"
            )
    for key, message in _DEPRECATED_ANNOTATIONS.items():
        if key in annotations:
            out.append(f"{prefix}metadata.annotations[{key}]: {message}")
    for i, volume in enumerate(_dicts(spec.get("volumes"))):
        if volume.keys().isdisjoint(_DEPRECATED_VOLUME_PLUGINS):
            continue
        for plugin, message in _DEPRECATED_VOLUMES:
            if volume.get(plugin) is not None:
                out.append(f"{prefix}spec.volumes[{i}].{plugin}: {message}")
    out.extend(_duplicates(spec.get("hostAliases"), "ip", f"{prefix}spec.hostAliases", "duplicate ip"))
    out.extend(_duplicates(spec.get("imagePullSecrets"), "name", f"{prefix}spec.imagePullSecrets", "duplicate name"))
    for i, secret in enumerate(_dicts(spec.get("imagePullSecrets"))):
        if not secret.get("name"):
            out.append(f'{prefix}spec.imagePullSecrets[{i}].name: invalid empty name ""')
    overhead = _dict(spec.get("overhead"))
    for resource in _BYTE_RESOURCES:
        if overhead.get(resource) is not None:
            out.extend(_fractional(overhead, resource, f"{prefix}spec.overhead"))
    security = _dict(spec.get("securityContext"))
    if not security.get("seccompProfile") and _SECCOMP_POD_ANNOTATION in annotations:
        out.append(
            f"{prefix}metadata.annotations[{_SECCOMP_POD_ANNOTATION}]: "
            'non-functional in v1.27+; use the "seccompProfile" field instead'
        )
    containers = _containers_with_paths(spec, f"{prefix}spec")
    for container, path in containers:
        name = container.get("name", "")
        key = _SECCOMP_CONTAINER_PREFIX + str(name)
        if key in annotations and not _dict(container.get("securityContext")).get("seccompProfile"):
            out.append(
                f'{prefix}metadata.annotations[{key}]: non-functional in v1.27+; use the "seccompProfile" field instead'
            )
        resources = _dict(container.get("resources"))
        for kind in ("limits", "requests"):
            table = _dict(resources.get(kind))
            for resource in _BYTE_RESOURCES:
                if table.get(resource) is not None:
                    out.extend(_fractional(table, resource, f"{path}.resources.{kind}"))
        if len(_as_list(container.get("env"))) > 1:  # one variable cannot hide another
            out.extend(_hidden_env(container["env"], f"{path}.env"))
    out.extend(_port_warnings(containers))
    grace = spec.get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and not isinstance(grace, bool) and grace < 0:
        out.append(
            f"{prefix}spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1"
        )
    affinity = _dict(spec.get("affinity"))
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = _dict(affinity.get(kind))
        base = f"{prefix}spec.affinity.{kind}"
        for i, t in enumerate(_dicts(terms.get("requiredDuringSchedulingIgnoredDuringExecution"))):
            if t.get("labelSelector") is None:
                out.append(
                    f"{base}.requiredDuringSchedulingIgnoredDuringExecution[{i}].labelSelector: "
                    "a null labelSelector results in matching no pod"
                )
        for i, t in enumerate(_dicts(terms.get("preferredDuringSchedulingIgnoredDuringExecution"))):
            if _dict(t.get("podAffinityTerm")).get("labelSelector") is None:
                out.append(
                    f"{base}.preferredDuringSchedulingIgnoredDuringExecution[{i}].podAffinityTerm.labelSelector: "
                    "a null labelSelector results in matching no pod"
                )
    return out


def _containers_with_paths(spec: dict[str, Any], path: str) -> list[tuple[dict[str, Any], str]]:
    # pods.VisitContainersWithPath: init containers, then containers, then ephemeral containers
    out = []
    for field in ("initContainers", "containers", "ephemeralContainers"):
        for i, c in enumerate(_dicts(spec.get(field))):
            out.append((c, f"{path}.{field}[{i}]"))
    return out


def _duplicates(items: Any, key: str, path: str, what: str) -> list[str]:
    seen: set[Any] = set()
    out = []
    for i, item in enumerate(_dicts(items)):
        value = item.get(key, "")
        if value in seen:
            out.append(f'{path}[{i}].{key}: {what} "{value}"')
        seen.add(value)
    return out


def _fractional(resources: dict[str, Any], resource: str, path: str) -> list[str]:
    value = resources.get(resource)
    if value is None:
        return []
    if type(value) is str and value.isascii():
        # Whole numbers of bytes, with or without a binary suffix, need no parsing: the common case.
        digits = value[:-2] if value[-2:] in _BINARY_SUFFIXES else value
        if digits.isdigit():
            return []
    try:
        exact = quantity_value(value)
    except QuantityError:
        return []
    if exact.denominator != 1:
        return [f'{path}[{resource}]: fractional byte value "{value}" is invalid, must be an integer']
    return []


def _hidden_env(env: Any, path: str) -> list[str]:
    items = _dicts(env)
    if len({str(item.get("name", "")) for item in items}) == len(items):
        return []  # no name repeats: nothing hides another
    seen: set[str] = set()
    out = []
    for i, item in enumerate(items):
        name = str(item.get("name", ""))
        if name in seen:
            ref = f"$({name})"
            value = str(item.get("value", ""))
            if item.get("valueFrom") is not None or value == ref or ref not in value:
                out.append(f'{path}[{i}]: hides previous definition of "{name}", which may be dropped when using apply')
        else:
            seen.add(name)
    return out


def _port_text(port: dict[str, Any]) -> str:
    # Go's %+v of a ContainerPort
    return (
        f"{{Name:{port.get('name', '')} HostPort:{port.get('hostPort', 0)} ContainerPort:{port.get('containerPort', 0)} "
        f"Protocol:{port.get('protocol', '')} HostIP:{port.get('hostIP', '')}}}"
    )


def _port_warnings(containers: list[tuple[dict[str, Any], str]]) -> list[str]:
    out: list[str] = []
    seen: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for container, path in containers:
        for i, port in enumerate(_dicts(container.get("ports"))):
            here = f"{path}.ports[{i}]"
            host_ip, host_port = port.get("hostIP", ""), port.get("hostPort", 0)
            if host_ip and not host_port:
                out.append(f"{here}: hostIP set without hostPort: {_port_text(port)}")
            key = f"{port.get('containerPort', 0)}/{port.get('protocol', '')}"
            for other_path, other in seen.get(key, []):
                o_ip, o_port = other.get("hostIP", ""), other.get("hostPort", 0)
                if host_ip == o_ip and host_port == o_port:
                    out.append(f"{here}: duplicate port definition with {other_path}")
                elif not host_port or not o_port:
                    out.append(f"{here}: overlapping port definition with {other_path}")
                elif host_port == o_port and (not host_ip) != (not o_ip):
                    out.append(f"{here}: dangerously ambiguous port definition with {other_path}")
            seen.setdefault(key, []).append((here, port))
    return out


def warnings_for_template(template: Any, prefix: str) -> list[str]:
    template = _dict(template)
    return warnings_for_pod_spec_and_meta(template.get("spec"), template.get("metadata"), prefix)
