"""Warnings about pods and pod templates (pkg/api/pod/warnings.go GetWarningsForPod and
GetWarningsForPodTemplate): deprecated node labels, annotations and volume plugins, duplicated
entries that apply would drop, fractional byte quantities, ambiguous ports."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.validation import apparmor
from kube_apiserver.runtime.meta import is_dns1123_label
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


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def warnings_for_pod_spec_and_meta(spec: Any, meta: Any, prefix: str = "") -> list[str]:
    """prefix is "" for a pod, "spec.template." for a workload's template, and so on."""
    # Runs on every write of a pod or workload, which nearly always has nothing to warn about: each
    # check first looks for what could warn, and field paths are spelled only for a warning.
    if not isinstance(spec, dict):
        spec = {}
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    if not isinstance(annotations, dict):
        annotations = {}
    out: list[str] = []
    node_selector = spec.get("nodeSelector")
    if isinstance(node_selector, dict):
        for key in node_selector:
            if key in _DEPRECATED_NODE_LABELS:
                out.append(f"{prefix}spec.nodeSelector[{key}]: {_DEPRECATED_NODE_LABELS[key]}")
    constraints = spec.get("topologySpreadConstraints")
    if constraints:
        for i, t in enumerate(_dicts(constraints)):
            key = t.get("topologyKey")
            if key in _DEPRECATED_NODE_LABELS:
                out.append(
                    f"{prefix}spec.topologySpreadConstraints[{i}].topologyKey: {key} is {_DEPRECATED_NODE_LABELS[key]}"
                )
            if t.get("labelSelector") is None:
                out.append(
                    f"{prefix}spec.topologySpreadConstraints[{i}].labelSelector: a null labelSelector results in matching no pod"
                )
    if annotations:
        for key, message in _DEPRECATED_ANNOTATIONS.items():
            if key in annotations:
                out.append(f"{prefix}metadata.annotations[{key}]: {message}")
    volumes = spec.get("volumes")
    if isinstance(volumes, list):
        i = -1  # (indexes count the object elements only, here and below, as _dicts gives them)
        for volume in volumes:
            if not isinstance(volume, dict):
                continue
            i += 1
            if volume.keys().isdisjoint(_DEPRECATED_VOLUME_PLUGINS):
                continue
            for plugin, message in _DEPRECATED_VOLUMES:
                if volume.get(plugin) is not None:
                    out.append(f"{prefix}spec.volumes[{i}].{plugin}: {message}")
    host_aliases = spec.get("hostAliases")
    if host_aliases:
        out.extend(_duplicates(host_aliases, "ip", prefix, "hostAliases", "duplicate ip"))
    pull_secrets = spec.get("imagePullSecrets")
    if pull_secrets:
        out.extend(_duplicates(pull_secrets, "name", prefix, "imagePullSecrets", "duplicate name"))
        for i, secret in enumerate(_dicts(pull_secrets)):
            if not secret.get("name"):
                out.append(f'{prefix}spec.imagePullSecrets[{i}].name: invalid empty name ""')
    overhead = spec.get("overhead")
    if isinstance(overhead, dict) and overhead:
        for resource in _BYTE_RESOURCES:
            value = overhead.get(resource)
            if value is not None and is_fractional_bytes(value):
                out.append(fractional_bytes_warning(f"{prefix}spec.overhead", resource, value))
    if _SECCOMP_POD_ANNOTATION in annotations and not _dict(spec.get("securityContext")).get("seccompProfile"):
        out.append(
            f"{prefix}metadata.annotations[{_SECCOMP_POD_ANNOTATION}]: "
            'non-functional in v1.27+; use the "seccompProfile" field instead'
        )
    # pods.VisitContainersWithPath: init containers, then containers, then ephemeral containers. The
    # port warnings of all of them come after the others, in the same order.
    port_out: list[str] = []
    # "containerPort/protocol" -> the ports seen with it, as (container field, container index, port index, port)
    seen_ports: dict[str, list[tuple[str, int, int, dict[str, Any]]]] = {}
    # Whether any annotation could be a container's seccomp one (most pods have none).
    container_seccomp = False
    for key in annotations:
        if isinstance(key, str) and key.startswith(_SECCOMP_CONTAINER_PREFIX):
            container_seccomp = True
            break
    # A template's AppArmor annotation without a field (a pod's is warned of when create syncs the two).
    container_apparmor = bool(prefix) and apparmor.has_annotations(annotations) and apparmor.profile_of(spec) is None
    for field in _CONTAINER_FIELDS:
        containers = spec.get(field)
        if not containers or not isinstance(containers, list):
            continue
        i = -1
        for container in containers:
            if not isinstance(container, dict):
                continue
            i += 1
            get = container.get
            if container_seccomp:
                key = _SECCOMP_CONTAINER_PREFIX + str(get("name", ""))
                if key in annotations and not _dict(get("securityContext")).get("seccompProfile"):
                    out.append(
                        f"{prefix}metadata.annotations[{key}]: "
                        'non-functional in v1.27+; use the "seccompProfile" field instead'
                    )
            if container_apparmor and apparmor.profile_of(container) is None:
                key = apparmor.ANNOTATION_PREFIX + str(get("name", ""))
                if key in annotations:
                    out.append(apparmor.deprecation_warning(f"{prefix}metadata.annotations", key))
            resources = get("resources")
            if isinstance(resources, dict) and resources:
                for kind in ("limits", "requests"):
                    table = resources.get(kind)
                    if not isinstance(table, dict) or not table:
                        continue
                    for resource in _BYTE_RESOURCES:
                        value = table.get(resource)
                        if value is None or (
                            type(value) is str
                            and ((value[-2:] in _BINARY_SUFFIXES and value[:-2].isdigit()) or value.isdigit())
                        ):
                            # is_fractional_bytes's common case, whole bytes, without a call (digits that
                            # are not ASCII do not parse: not fractional either)
                            continue
                        if is_fractional_bytes(value):
                            path = f"{_container_path(prefix, field, i)}.resources.{kind}"
                            out.append(fractional_bytes_warning(path, resource, value))
            env = get("env")
            if isinstance(env, list) and len(env) > 1:  # one variable cannot hide another
                out.extend(_hidden_env(env, prefix, field, i))
            ports = get("ports")
            if ports:
                _port_warnings(ports, prefix, field, i, seen_ports, port_out)
    out.extend(port_out)
    grace = spec.get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and not isinstance(grace, bool) and grace < 0:
        out.append(
            f"{prefix}spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1"
        )
    affinity = spec.get("affinity")
    if isinstance(affinity, dict) and affinity:
        out.extend(_affinity_warnings(affinity, prefix))
    return out


_CONTAINER_FIELDS = ("initContainers", "containers", "ephemeralContainers")


def _container_path(prefix: str, field: str, i: int) -> str:
    return f"{prefix}spec.{field}[{i}]"


def _affinity_warnings(affinity: dict[str, Any], prefix: str) -> list[str]:
    out: list[str] = []
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


def _duplicates(items: Any, key: str, prefix: str, field: str, what: str) -> list[str]:
    seen: set[Any] = set()
    out = []
    for i, item in enumerate(_dicts(items)):
        value = item.get(key, "")
        if value in seen:
            out.append(f'{prefix}spec.{field}[{i}].{key}: {what} "{value}"')
        seen.add(value)
    return out


def is_fractional_bytes(value: Any) -> bool:
    """Whether a byte quantity is not a whole number of bytes (a value that does not parse is not)."""
    if type(value) is str and value.isascii():
        # Whole numbers of bytes, with or without a binary suffix, need no parsing: the common case.
        if value.isdigit() or (value[-2:] in _BINARY_SUFFIXES and value[:-2].isdigit()):
            return False
    try:
        exact = quantity_value(value)
    except QuantityError:
        return False
    return exact.denominator != 1


def fractional_bytes_warning(path: str, resource: str, value: Any) -> str:
    return f'{path}[{resource}]: fractional byte value "{value}" is invalid, must be an integer'


def _hidden_env(env: list[Any], prefix: str, field: str, ci: int) -> list[str]:
    try:
        # every item an object with a name, and no name repeats: nothing hides another
        if len({str(item["name"]) for item in env}) == len(env):
            return []
    except (KeyError, TypeError):  # an item that is not an object, or has no name: look closer
        pass
    items = _dicts(env)
    path = f"{_container_path(prefix, field, ci)}.env"
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


def _port_warnings(
    ports: Any,
    prefix: str,
    field: str,
    ci: int,
    seen: dict[str, list[tuple[str, int, int, dict[str, Any]]]],
    out: list[str],
) -> None:
    """The warnings about the ports of one container, given those of the containers before it."""
    if not isinstance(ports, list):
        return
    i = -1  # the index among the object elements, as _dicts would give it
    for port in ports:
        if not isinstance(port, dict):
            continue
        i += 1
        get = port.get
        host_ip, host_port = get("hostIP", ""), get("hostPort", 0)
        if host_ip and not host_port:
            here = f"{_container_path(prefix, field, ci)}.ports[{i}]"
            out.append(f"{here}: hostIP set without hostPort: {_port_text(port)}")
        key = f"{get('containerPort', 0)}/{get('protocol', '')}"
        others = seen.get(key)
        if others is None:
            seen[key] = [(field, ci, i, port)]
            continue
        for o_field, o_ci, o_i, other in others:
            o_ip, o_port = other.get("hostIP", ""), other.get("hostPort", 0)
            if host_ip == o_ip and host_port == o_port:
                what = "duplicate"
            elif not host_port or not o_port:
                what = "overlapping"
            elif host_port == o_port and (not host_ip) != (not o_ip):
                what = "dangerously ambiguous"
            else:
                continue
            here = f"{_container_path(prefix, field, ci)}.ports[{i}]"
            other_path = f"{_container_path(prefix, o_field, o_ci)}.ports[{o_i}]"
            out.append(f"{here}: {what} port definition with {other_path}")
        others.append((field, ci, i, port))


def warnings_for_template(template: Any, prefix: str) -> list[str]:
    template = _dict(template)
    return warnings_for_pod_spec_and_meta(template.get("spec"), template.get("metadata"), prefix)


def _name_warning(meta: Any, used_in: str) -> list[str]:
    """A name that is no DNS label, where it ends up in hostnames; IsDNS1123Label's complaints printed as
    fmt's %v of a []string (space-separated in brackets)."""
    msgs = is_dns1123_label(str((meta or {}).get("name", "")))
    if not msgs:
        return []
    return [
        f"metadata.name: this is used in {used_in}, which can result in surprising behavior; a DNS label is "
        f"recommended: [{' '.join(msgs)}]"
    ]


def pod_name_warnings(meta: Any) -> list[str]:
    """A new pod's name becomes its hostname (podStrategy.WarningsOnCreate)."""
    return _name_warning(meta, "the Pod's hostname")


def workload_name_warnings(meta: Any) -> list[str]:
    """A new workload's pods are named after it (the WarningsOnCreate of Deployment, ReplicaSet, DaemonSet,
    Job, CronJob and ReplicationController)."""
    return _name_warning(meta, "Pod names and hostnames")
