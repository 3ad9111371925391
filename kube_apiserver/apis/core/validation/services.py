"""Service validation (pkg/apis/core/validation: ValidateService, ValidateServiceUpdate,
ValidateServiceClusterIPsRelatedFields and their helpers).

Messages, field paths and the order of the errors follow upstream, including its quirks (the
`spec.LoadBalancerSourceRanges` path, the unprefixed `allocateLoadBalancerNodePorts` path). Values
that Go prints with %#v (string slices, the duplicate-port key) are rendered the way Go renders them.
Objects are versioned (v1) dicts; a value of the wrong JSON type counts as absent, the decoder having
reported it already.
"""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.defaults.services import externally_accessible
from kube_apiserver.apis.core.validation.service_fields import (
    as_dict,
    as_int,
    as_list,
    as_str,
    cluster_ips,
    ip_families,
    is_headless_service,
    spec_of,
    validate_load_balancer_status,
    validate_non_special_ip,
)
from kube_apiserver.apis.core.validation.service_ips import (
    validate_service_cluster_ips_related_fields,
    validate_upgrade_downgrade_cluster_ips,
    validate_upgrade_downgrade_ip_families,
)
from kube_apiserver.runtime.errors import (
    StatusCause,
    field_duplicate,
    field_forbidden,
    field_invalid,
    field_not_supported,
    field_required,
)
from kube_apiserver.runtime.labels import go_quote
from kube_apiserver.runtime.validation.metav1 import validate_labels
from kube_apiserver.runtime.validation.names import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_cidr,
    is_valid_ip,
    is_valid_port_name,
    is_valid_port_num,
)

SUPPORTED_SESSION_AFFINITY = ["ClientIP", "None"]
SUPPORTED_SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]
SUPPORTED_TRAFFIC_POLICIES = ["Cluster", "Local"]
SUPPORTED_PORT_PROTOCOLS = ["SCTP", "TCP", "UDP"]
MAX_CLIENT_IP_SERVICE_AFFINITY_SECONDS = 86400
ANNOTATION_TOPOLOGY_MODE = "service.kubernetes.io/topology-mode"
ANNOTATION_TOPOLOGY_AWARE_HINTS = "service.kubernetes.io/topology-aware-hints"
ANNOTATION_LB_SOURCE_RANGES = "service.beta.kubernetes.io/load-balancer-source-ranges"


def needs_health_check(spec: dict[str, Any]) -> bool:
    """pkg/api/v1/service NeedsHealthCheck: a LoadBalancer that keeps traffic node-local."""
    return spec.get("type") == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"


def validate_service(svc: dict[str, Any]) -> list[StatusCause]:
    """ValidateService, less the ObjectMeta checks (the strategy runs those, with DNS-1035 names)."""
    meta = as_dict(svc.get("metadata"))
    annotations = as_dict(meta.get("annotations"))
    spec = spec_of(svc)
    causes: list[StatusCause] = []
    if (
        ANNOTATION_TOPOLOGY_MODE in annotations
        and ANNOTATION_TOPOLOGY_AWARE_HINTS in annotations
        and annotations[ANNOTATION_TOPOLOGY_MODE] != annotations[ANNOTATION_TOPOLOGY_AWARE_HINTS]
    ):
        causes.append(
            field_invalid(
                f"metadata.annotations[{ANNOTATION_TOPOLOGY_MODE}]",
                annotations[ANNOTATION_TOPOLOGY_MODE],
                f"must match annotations[{ANNOTATION_TOPOLOGY_AWARE_HINTS}] when both are specified",
            )
        )
    svc_type = spec.get("type")
    ports = [as_dict(p) for p in as_list(spec.get("ports"))]
    headless = is_headless_service(spec)
    if not ports and not headless and svc_type != "ExternalName":
        causes.append(field_required("spec.ports"))
    causes += _validate_type_specific(spec, headless)
    names: set[str] = set()
    for i, port in enumerate(ports):
        causes += _validate_service_port(port, len(ports) > 1, names, f"spec.ports[{i}]")
    if spec.get("selector") is not None:
        causes += validate_labels(spec.get("selector"), "spec.selector")
    causes += _validate_session_affinity(spec)
    causes += validate_service_cluster_ips_related_fields(svc)
    for i, ip in enumerate(as_list(spec.get("externalIPs"))):
        path = f"spec.externalIPs[{i}]"
        errs = is_valid_ip(path, as_str(ip))
        causes += errs or validate_non_special_ip(as_str(ip), path)
    if not svc_type:
        causes.append(field_required("spec.type"))
    elif svc_type not in SUPPORTED_SERVICE_TYPES:
        causes.append(field_not_supported("spec.type", svc_type, SUPPORTED_SERVICE_TYPES))
    if svc_type == "ClusterIP":
        for i, port in enumerate(ports):
            if as_int(port.get("nodePort")):
                causes.append(
                    field_forbidden(f"spec.ports[{i}].nodePort", "may not be used when `type` is 'ClusterIP'")
                )
    causes += _validate_duplicate_ports(ports)
    causes += _validate_source_ranges(spec, annotations)
    if spec.get("allocateLoadBalancerNodePorts") is not None and svc_type != "LoadBalancer":
        causes.append(
            field_forbidden("spec.allocateLoadBalancerNodePorts", "may only be used when `type` is 'LoadBalancer'")
        )
    if svc_type == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is None:
        causes.append(field_required("allocateLoadBalancerNodePorts"))  # sic: upstream's path has no "spec."
    causes += _validate_load_balancer_class(None, spec)
    causes += _validate_external_traffic_policy(spec)
    causes += _validate_internal_traffic_policy(spec)
    traffic = spec.get("trafficDistribution")
    if traffic is not None and traffic != "PreferClose":
        causes.append(field_not_supported("spec.trafficDistribution", traffic, ["PreferClose"]))
    return causes


def _validate_type_specific(spec: dict[str, Any], headless: bool) -> list[StatusCause]:
    svc_type = spec.get("type")
    if svc_type in ("LoadBalancer", "NodePort") and headless:
        return [
            field_invalid("spec.clusterIPs[0]", "None", f"may not be set to 'None' for {svc_type} services"),
        ]
    if svc_type != "ExternalName":
        return []
    causes = []
    if cluster_ips(spec):
        causes.append(field_forbidden("spec.clusterIPs", "may not be set for ExternalName services"))
    if ip_families(spec):
        causes.append(field_forbidden("spec.ipFamilies", "may not be set for ExternalName services"))
    if spec.get("ipFamilyPolicy") is not None:
        causes.append(field_forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"))
    # A trailing dot marks the name fully qualified.
    cname = as_str(spec.get("externalName")).removesuffix(".")
    if cname:
        causes += [field_invalid("spec.externalName", cname, msg) for msg in is_dns1123_subdomain(cname)]
    else:
        causes.append(field_required("spec.externalName"))
    return causes


def _validate_service_port(port: dict[str, Any], require_name: bool, names: set[str], path: str) -> list[StatusCause]:
    causes: list[StatusCause] = []
    name = as_str(port.get("name"))
    if require_name and not name:
        causes.append(field_required(f"{path}.name"))
    elif name:
        causes += [field_invalid(f"{path}.name", name, msg) for msg in is_dns1123_label(name)]
        if name in names:
            causes.append(field_duplicate(f"{path}.name", name))
        else:
            names.add(name)
    number = as_int(port.get("port"))
    causes += [field_invalid(f"{path}.port", number, msg) for msg in is_valid_port_num(number)]
    protocol = port.get("protocol")
    if not protocol:
        causes.append(field_required(f"{path}.protocol"))
    elif protocol not in SUPPORTED_PORT_PROTOCOLS:
        causes.append(field_not_supported(f"{path}.protocol", protocol, SUPPORTED_PORT_PROTOCOLS))
    target = port.get("targetPort")
    if isinstance(target, str):
        causes += [field_invalid(f"{path}.targetPort", target, msg) for msg in is_valid_port_name(target)]
    else:
        target = as_int(target)
        causes += [field_invalid(f"{path}.targetPort", target, msg) for msg in is_valid_port_num(target)]
    app_protocol = port.get("appProtocol")
    if isinstance(app_protocol, str):
        causes += [field_invalid(f"{path}.appProtocol", app_protocol, m) for m in is_qualified_name(app_protocol)]
    return causes


def _validate_session_affinity(spec: dict[str, Any]) -> list[StatusCause]:
    affinity = spec.get("sessionAffinity")
    causes = []
    if not affinity:
        causes.append(field_required("spec.sessionAffinity"))
    elif affinity not in SUPPORTED_SESSION_AFFINITY:
        causes.append(field_not_supported("spec.sessionAffinity", affinity, SUPPORTED_SESSION_AFFINITY))
    path = "spec.sessionAffinityConfig"
    if affinity == "ClientIP":
        when = "when session affinity type is ClientIP"
        config = spec.get("sessionAffinityConfig")
        client_ip = as_dict(config).get("clientIP")
        if not isinstance(config, dict):
            causes.append(field_required(path, when))
        elif not isinstance(client_ip, dict):
            causes.append(field_required(f"{path}.clientIP", when))
        elif client_ip.get("timeoutSeconds") is None:
            causes.append(field_required(f"{path}.clientIP.timeoutSeconds", when))
        else:
            timeout = as_int(client_ip.get("timeoutSeconds"))
            if timeout <= 0 or timeout > MAX_CLIENT_IP_SERVICE_AFFINITY_SECONDS:
                causes.append(
                    field_invalid(
                        f"{path}.clientIP.timeoutSeconds",
                        timeout,
                        f"must be greater than 0 and less than {MAX_CLIENT_IP_SERVICE_AFFINITY_SECONDS}",
                    )
                )
    elif affinity == "None" and spec.get("sessionAffinityConfig") is not None:
        causes.append(field_forbidden(path, "must not be set when session affinity is None"))
    return causes


def _go_service_port_key(protocol: str, number: int) -> str:
    # core.ServicePort{Protocol, Port} printed with %#v: every field, zero values included.
    return (
        f'core.ServicePort{{Name:"", Protocol:{go_quote(protocol)}, AppProtocol:(*string)(nil), '
        f'Port:{number}, TargetPort:intstr.IntOrString{{Type:0, IntVal:0, StrVal:""}}, NodePort:0}}'
    )


def _validate_duplicate_ports(ports: list[dict[str, Any]]) -> list[StatusCause]:
    causes = []
    node_ports: set[tuple[str, int]] = set()
    for i, port in enumerate(ports):
        node_port = as_int(port.get("nodePort"))
        if not node_port:
            continue
        key = (as_str(port.get("protocol")), node_port)
        if key in node_ports:
            causes.append(field_duplicate(f"spec.ports[{i}].nodePort", node_port))
        node_ports.add(key)
    seen: set[tuple[str, int]] = set()
    for i, port in enumerate(ports):
        key = (as_str(port.get("protocol")), as_int(port.get("port")))
        if key in seen:
            value = _go_service_port_key(*key)
            causes.append(StatusCause("FieldValueDuplicate", f"Duplicate value: {value}", f"spec.ports[{i}]"))
        seen.add(key)
    return causes


def _validate_source_ranges(spec: dict[str, Any], annotations: dict[str, Any]) -> list[StatusCause]:
    causes = []
    ranges = as_list(spec.get("loadBalancerSourceRanges"))
    forbidden = "may only be used when `type` is 'LoadBalancer'"
    if ranges:
        path = "spec.LoadBalancerSourceRanges"  # sic: upstream's capital L
        if spec.get("type") != "LoadBalancer":
            causes.append(field_forbidden(path, forbidden))
        for i, value in enumerate(ranges):
            # Space padding is tolerated: the values once came from an annotation.
            causes += is_valid_cidr(f"{path}[{i}]", as_str(value).strip())
    elif ANNOTATION_LB_SOURCE_RANGES in annotations:
        path = f"metadata.annotations[{ANNOTATION_LB_SOURCE_RANGES}]"
        if spec.get("type") != "LoadBalancer":
            causes.append(field_forbidden(path, forbidden))
        value = as_str(annotations[ANNOTATION_LB_SOURCE_RANGES]).strip()
        if value:
            for cidr in value.split(","):
                causes += is_valid_cidr(path, cidr.strip())
    return causes


def _validate_load_balancer_class(old_spec: dict[str, Any] | None, spec: dict[str, Any]) -> list[StatusCause]:
    causes = []
    cls = spec.get("loadBalancerClass")
    path = "spec.loadBalancerClass"
    if old_spec is not None and old_spec.get("type") == "LoadBalancer" and spec.get("type") == "LoadBalancer":
        if old_spec.get("loadBalancerClass") != cls:
            causes.append(field_invalid(path, cls, "may not change once set"))
    if spec.get("type") == "LoadBalancer":
        if isinstance(cls, str):
            causes += [field_invalid(path, cls, msg) for msg in is_qualified_name(cls)]
    elif cls is not None:
        causes.append(field_forbidden(path, "may only be used when `type` is 'LoadBalancer'"))
    return causes


def _validate_external_traffic_policy(spec: dict[str, Any]) -> list[StatusCause]:
    causes = []
    policy = spec.get("externalTrafficPolicy")
    if not externally_accessible(spec):
        if policy:
            causes.append(
                field_invalid(
                    "spec.externalTrafficPolicy", policy, "may only be set for externally-accessible services"
                )
            )
    elif not policy:
        causes.append(field_required("spec.externalTrafficPolicy"))
    elif policy not in SUPPORTED_TRAFFIC_POLICIES:
        causes.append(field_not_supported("spec.externalTrafficPolicy", policy, SUPPORTED_TRAFFIC_POLICIES))
    hc = as_int(spec.get("healthCheckNodePort"))
    if not needs_health_check(spec):
        if hc:
            causes.append(
                field_invalid(
                    "spec.healthCheckNodePort",
                    hc,
                    "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
                )
            )
    elif not hc:
        causes.append(field_required("spec.healthCheckNodePort"))
    else:
        causes += [field_invalid("spec.healthCheckNodePort", hc, msg) for msg in is_valid_port_num(hc)]
    return causes


def _validate_internal_traffic_policy(spec: dict[str, Any]) -> list[StatusCause]:
    policy = spec.get("internalTrafficPolicy")
    if policy is None:
        # Not required of ExternalName: it went beta without that check, and stored objects must stay valid.
        if spec.get("type") in ("NodePort", "LoadBalancer", "ClusterIP"):
            return [field_required("spec.internalTrafficPolicy")]
        return []
    if policy not in SUPPORTED_TRAFFIC_POLICIES:
        return [field_not_supported("spec.internalTrafficPolicy", policy, SUPPORTED_TRAFFIC_POLICIES)]
    return []


def validate_service_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    """ValidateServiceUpdate's change rules (the new object also gets validate_service)."""
    new_spec, old_spec = spec_of(new), spec_of(old)
    causes = validate_upgrade_downgrade_cluster_ips(old_spec, new_spec)
    causes += validate_upgrade_downgrade_ip_families(old_spec, new_spec)
    causes += _validate_load_balancer_class(old_spec, new_spec)
    if needs_health_check(old_spec) and needs_health_check(new_spec):
        if new_spec.get("healthCheckNodePort") != old_spec.get("healthCheckNodePort"):
            causes.append(field_forbidden("spec.healthCheckNodePort", "field is immutable"))
    if new.get("status") != old.get("status"):
        # Only the status subresource changes status: ValidateServiceStatusUpdate.
        causes += validate_load_balancer_status(as_dict(new.get("status")).get("loadBalancer"), new_spec)
    return causes


VALIDATORS = {("v1", "Service"): validate_service}
UPDATE_VALIDATORS = {("v1", "Service"): validate_service_update}
