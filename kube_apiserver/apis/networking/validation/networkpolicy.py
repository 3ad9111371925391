"""NetworkPolicy validation (ValidateNetworkPolicySpec, ValidateNetworkPolicyPort/Peer, ValidateIPBlock)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.net import is_valid_cidr_for_legacy_field, parse_cidr_sloppy
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.validation.metav1 import validate_label_selector
from kube_apiserver.runtime.validation.names import is_valid_port_name, is_valid_port_num

PROTOCOLS = ["TCP", "UDP", "SCTP"]
POLICY_TYPES = ["Ingress", "Egress"]


def validate_network_policy(obj: dict[str, Any]) -> list[StatusCause]:
    return validate_network_policy_spec(field.spec_of(obj), "spec")


def validate_network_policy_spec(spec: dict[str, Any], path: str) -> list[StatusCause]:
    errs = validate_label_selector(spec.get("podSelector") or {}, field.child(path, "podSelector"))
    for direction, peers_name in (("ingress", "from"), ("egress", "to")):
        for i, rule in enumerate(field.as_list(spec.get(direction))):
            rule = field.as_dict(rule)
            rule_path = field.index(field.child(path, direction), i)
            for j, port in enumerate(field.as_list(rule.get("ports"))):
                errs.extend(
                    validate_network_policy_port(field.as_dict(port), field.index(field.child(rule_path, "ports"), j))
                )
            for j, peer in enumerate(field.as_list(rule.get(peers_name))):
                errs.extend(
                    validate_network_policy_peer(
                        field.as_dict(peer), field.index(field.child(rule_path, peers_name), j)
                    )
                )
    types = field.as_list(spec.get("policyTypes"))
    types_path = field.child(path, "policyTypes")
    if len(types) > len(POLICY_TYPES):
        errs.append(
            field.invalid(
                types_path,
                gorepr.string_slice(types, "[]networking.PolicyType"),
                "may not specify more than two policyTypes",
            )
        )
        return errs
    for i, kind in enumerate(types):
        if kind not in POLICY_TYPES:
            errs.append(field.not_supported(field.index(types_path, i), kind, POLICY_TYPES))
    return errs


def validate_network_policy_port(port: dict[str, Any], path: str) -> list[StatusCause]:
    errs = []
    protocol = port.get("protocol")
    if protocol is not None and protocol not in PROTOCOLS:
        errs.append(field.not_supported(field.child(path, "protocol"), protocol, PROTOCOLS))
    value = port.get("port")
    end = port.get("endPort")
    end_path = field.child(path, "endPort")
    if value is None:
        if end is not None:
            errs.append(field.invalid(end_path, end, "may not be specified when `port` is not specified"))
    elif field.is_int(value):
        errs.extend(field.invalid(field.child(path, "port"), value, msg) for msg in is_valid_port_num(value))
        if field.is_int(end):
            if end < value:
                errs.append(field.invalid(end_path, value, "must be greater than or equal to `port`"))
            errs.extend(field.invalid(end_path, end, msg) for msg in is_valid_port_num(end))
    elif isinstance(value, str):
        if end is not None:
            errs.append(field.invalid(end_path, end, "may not be specified when `port` is non-numeric"))
        errs.extend(field.invalid(field.child(path, "port"), value, msg) for msg in is_valid_port_name(value))
    return errs


def validate_network_policy_peer(peer: dict[str, Any], path: str) -> list[StatusCause]:
    errs = []
    count = 0
    for name in ("podSelector", "namespaceSelector"):
        if peer.get(name) is not None:
            count += 1
            errs.extend(validate_label_selector(peer[name], field.child(path, name)))
    ip_block = peer.get("ipBlock")
    if ip_block is not None:
        count += 1
        errs.extend(validate_ip_block(field.as_dict(ip_block), field.child(path, "ipBlock")))
    if count == 0:
        errs.append(field.required(path, "must specify a peer"))
    elif count > 1 and ip_block is not None:
        errs.append(field.forbidden(path, "may not specify both ipBlock and another peer"))
    return errs


def validate_ip_block(block: dict[str, Any], path: str) -> list[StatusCause]:
    cidr = field.as_str(block.get("cidr"))
    cidr_path = field.child(path, "cidr")
    if not cidr:
        return [field.required(cidr_path, "")]
    errs = is_valid_cidr_for_legacy_field(cidr_path, cidr)
    parsed = parse_cidr_sloppy(cidr)
    if parsed is None:
        return errs
    network = parsed[1]
    for i, except_value in enumerate(field.as_list(block.get("except"))):
        except_value = field.as_str(except_value)
        except_path = field.index(field.child(path, "except"), i)
        errs.extend(is_valid_cidr_for_legacy_field(except_path, except_value))
        excepted = parse_cidr_sloppy(except_value)
        if excepted is None:
            continue
        except_network = excepted[1]
        contained = (
            except_network.version == network.version and except_network.network_address in network  # type: ignore[operator]
        )
        if not contained or network.prefixlen >= except_network.prefixlen:
            errs.append(field.invalid(except_path, except_value, "must be a strict subset of `cidr`"))
    return errs


VALIDATORS = {("v1", "NetworkPolicy"): validate_network_policy}
