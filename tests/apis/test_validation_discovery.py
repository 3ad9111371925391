"""discovery.k8s.io/v1 EndpointSlice validation: kube-apiserver 1.33's messages and field paths."""

from __future__ import annotations

from validation_groups_helpers import errors, with_changes

from kube_apiserver.apis.discovery.validation import validate_endpoint_slice, validate_endpoint_slice_update

SLICE = {
    "apiVersion": "discovery.k8s.io/v1",
    "kind": "EndpointSlice",
    "metadata": {"name": "web-abc", "namespace": "default"},
    "addressType": "IPv4",
    "endpoints": [{"addresses": ["10.0.0.5"], "conditions": {"ready": True}, "nodeName": "node-1"}],
    "ports": [{"name": "http", "port": 80, "protocol": "TCP"}],
}


def test_valid() -> None:
    assert validate_endpoint_slice(SLICE) == []


def test_address_type_and_addresses() -> None:
    assert errors(validate_endpoint_slice(with_changes(SLICE, addressType="IPv5"))) == [
        'addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"'
    ]
    bad = with_changes(SLICE, endpoints=[{"addresses": []}, {"addresses": ["fd00::1", "127.0.0.1", "169.254.1.1"]}])
    assert errors(validate_endpoint_slice(bad)) == [
        "endpoints[0].addresses: Required value: must contain at least 1 address",
        'endpoints[1].addresses[0]: Invalid value: "fd00::1": must be a valid IPv4 address',
        'endpoints[1].addresses[1]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
        'endpoints[1].addresses[2]: Invalid value: "169.254.1.1": may not be in the link-local range '
        "(169.254.0.0/16, fe80::/10)",
    ]
    fqdn = with_changes(SLICE, addressType="FQDN", endpoints=[{"addresses": ["example.com", "localhost"]}])
    assert errors(validate_endpoint_slice(fqdn)) == [
        'endpoints[0].addresses[1]: Invalid value: "localhost": should be a domain with at least two segments separated by dots'
    ]


def test_ports() -> None:
    bad = with_changes(SLICE, ports=[{"name": "http", "protocol": "ICMP"}, {"name": "http"}])
    assert errors(validate_endpoint_slice(bad)) == [
        'ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
        'ports[1].name: Duplicate value: "http"',
        "ports[1].protocol: Required value",
    ]


def test_address_type_is_immutable() -> None:
    assert errors(validate_endpoint_slice_update(with_changes(SLICE, addressType="IPv6"), SLICE)) == [
        'addressType: Invalid value: "IPv6": field is immutable'
    ]
