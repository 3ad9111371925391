"""networking.k8s.io/v1 validation: kube-apiserver 1.33's messages and field paths."""

from __future__ import annotations

from typing import Any

from validation_groups_helpers import errors, with_changes

from kube_apiserver.apis.networking.validation.ingress import (
    validate_ingress,
    validate_ingress_class,
    validate_ingress_class_update,
)
from kube_apiserver.apis.networking.validation.ipaddress import (
    validate_ip_address,
    validate_ip_address_update,
    validate_service_cidr,
    validate_service_cidr_update,
)
from kube_apiserver.apis.networking.validation.networkpolicy import validate_network_policy

BACKEND = {"service": {"name": "web", "port": {"number": 80}}}


def ingress(**changes: Any) -> dict[str, Any]:
    obj = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "rules": [
                {"host": "example.com", "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": BACKEND}]}}
            ],
            "tls": [{"hosts": ["example.com", "*.example.com"], "secretName": "tls"}],
        },
    }
    return with_changes(obj, **changes)


def paths(*items: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"host": "example.com", "http": {"paths": list(items)}}]


def test_valid_ingress() -> None:
    assert validate_ingress(ingress()) == []
    ok = paths(
        {"pathType": "ImplementationSpecific", "backend": BACKEND},
        {"path": "/a", "pathType": "Exact", "backend": BACKEND},
    )
    assert validate_ingress(ingress(spec__rules=ok)) == []


def test_prefix_path_must_be_absolute() -> None:
    obj = ingress(spec__rules=paths({"path": "api", "pathType": "Prefix", "backend": BACKEND}))
    assert errors(validate_ingress(obj)) == [
        'spec.rules[0].http.paths[0].path: Invalid value: "api": must be an absolute path'
    ]


def test_path_sequences_and_types() -> None:
    obj = ingress(
        spec__rules=paths(
            {"path": "/a/../b/..", "pathType": "Exact", "backend": BACKEND},
            {"path": "/x", "backend": BACKEND},
            {"path": "/x", "pathType": "Regex", "backend": BACKEND},
            {"path": "x", "pathType": "ImplementationSpecific", "backend": BACKEND},
        )
    )
    assert errors(validate_ingress(obj)) == [
        "spec.rules[0].http.paths[0].path: Invalid value: \"/a/../b/..\": must not contain '/../'",
        "spec.rules[0].http.paths[0].path: Invalid value: \"/a/../b/..\": cannot end with '/..'",
        "spec.rules[0].http.paths[1].pathType: Required value: pathType must be specified",
        'spec.rules[0].http.paths[2].pathType: Unsupported value: "Regex": supported values: "Exact", '
        '"ImplementationSpecific", "Prefix"',
        'spec.rules[0].http.paths[3].path: Invalid value: "x": must be an absolute path',
    ]


def test_backends() -> None:
    resource = {"apiGroup": "k8s.example.com", "kind": "StorageBucket", "name": "static"}
    obj = ingress(
        spec__rules=paths(
            {"path": "/a", "pathType": "Prefix", "backend": {"service": BACKEND["service"], "resource": resource}},
            {"path": "/b", "pathType": "Prefix", "backend": {}},
            {
                "path": "/c",
                "pathType": "Prefix",
                "backend": {"service": {"name": "Web", "port": {"name": "http", "number": 80}}},
            },
            {"path": "/d", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {}}}},
            {"path": "/e", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 70000}}}},
            {"path": "/f", "pathType": "Prefix", "backend": {"resource": {"kind": "", "name": "a/b"}}},
        )
    )
    base = "spec.rules[0].http.paths"
    assert errors(validate_ingress(obj)) == [
        f'{base}[0].backend: Invalid value: "": cannot set both resource and service backends',
        f'{base}[1].backend: Invalid value: "": resource or service backend is required',
        f'{base}[2].backend.service.name: Invalid value: "Web": a DNS-1035 label must consist of lower case alphanumeric '
        "characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',"
        "  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        f'{base}[2].backend: Invalid value: "": cannot set both port name & port number',
        f"{base}[3].backend: Required value: port name or number is required",
        f"{base}[4].backend.service.port.number: Invalid value: 70000: must be between 1 and 65535, inclusive",
        f"{base}[5].backend.resource.kind: Required value: kind is required",
        f"{base}[5].backend.resource.name: Invalid value: \"a/b\": may not contain '/'",
    ]


def test_hosts_and_tls() -> None:
    obj = ingress(
        spec__rules=[{"host": "10.0.0.1"}, {"host": "*.*.example.com"}],
        spec__tls=[{"hosts": ["Example.com"], "secretName": "Bad_Secret"}],
    )
    msgs = errors(validate_ingress(obj))
    assert msgs[0] == 'spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address'
    assert msgs[1].startswith(
        "spec.rules[1].host: Invalid value: \"*.*.example.com\": a wildcard DNS-1123 subdomain must start with '*.'"
    )
    assert msgs[2].startswith('spec.tls[0].hosts[0]: Invalid value: "Example.com": a lowercase RFC 1123 subdomain')
    assert msgs[3].startswith('spec.tls[0].secretName: Invalid value: "Bad_Secret": a lowercase RFC 1123 subdomain')


def test_rules_or_default_backend_required() -> None:
    assert errors(validate_ingress(ingress(spec={}))) == [
        "spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified"
    ]
    assert validate_ingress(ingress(spec={"defaultBackend": BACKEND})) == []


def test_ingress_class_annotation_must_match() -> None:
    obj = ingress(spec__ingressClassName="nginx", metadata__annotations={"kubernetes.io/ingress.class": "traefik"})
    assert errors(validate_ingress(obj)) == [
        'annotations.kubernetes.io/ingress.class: Invalid value: "traefik": must match `ingressClassName` when both are '
        "specified"
    ]


def test_ingress_class() -> None:
    ic = {"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": {"name": "nginx"}}
    assert validate_ingress_class(with_changes(ic, spec__controller="k8s.io/ingress-nginx")) == []
    assert errors(validate_ingress_class(with_changes(ic, spec__controller="nginx"))) == [
        'spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")'
    ]
    assert errors(validate_ingress_class(with_changes(ic, spec={}))) == ["spec.controller: Required value"]
    params = {"kind": "Params", "name": "p", "scope": "Namespace"}
    assert errors(validate_ingress_class(with_changes(ic, spec__controller="a.io/b", spec__parameters=params))) == [
        "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"
    ]
    old = with_changes(ic, spec__controller="a.io/b")
    assert errors(validate_ingress_class_update(with_changes(ic, spec__controller="a.io/c"), old)) == [
        'spec.controller: Invalid value: "a.io/c": field is immutable'
    ]


def network_policy(**changes: Any) -> dict[str, Any]:
    obj = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "np", "namespace": "default"},
        "spec": {
            "podSelector": {"matchLabels": {"app": "web"}},
            "ingress": [{"from": [{"podSelector": {}}], "ports": [{"protocol": "TCP", "port": 80}]}],
            "egress": [{"to": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16"]}}]}],
            "policyTypes": ["Ingress", "Egress"],
        },
    }
    return with_changes(obj, **changes)


def test_valid_network_policy() -> None:
    assert validate_network_policy(network_policy()) == []


def test_network_policy_rules() -> None:
    obj = network_policy(
        spec__ingress=[
            {
                "from": [{}, {"ipBlock": {"cidr": "10.0.0.0/8"}, "namespaceSelector": {}}],
                "ports": [
                    {"protocol": "ICMP", "port": 80, "endPort": 79},
                    {"port": "HTTP", "endPort": 90},
                    {"endPort": 5},
                ],
            }
        ],
        spec__egress=[
            {
                "to": [
                    {"ipBlock": {"cidr": "10.0.0.0/33", "except": []}},
                    {"ipBlock": {"cidr": "10.0.0.0/16", "except": ["10.0.0.0/8"]}},
                ]
            }
        ],
        spec__policyTypes=["Ingress", "Sideways"],
    )
    msgs = errors(validate_network_policy(obj))
    assert msgs == [
        'spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
        "spec.ingress[0].ports[0].endPort: Invalid value: 80: must be greater than or equal to `port`",
        "spec.ingress[0].ports[1].endPort: Invalid value: 90: may not be specified when `port` is non-numeric",
        'spec.ingress[0].ports[1].port: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), '
        "and hyphens (-)",
        'spec.ingress[0].ports[1].port: Invalid value: "HTTP": must contain at least one letter (a-z)',
        "spec.ingress[0].ports[2].endPort: Invalid value: 5: may not be specified when `port` is not specified",
        "spec.ingress[0].from[0]: Required value: must specify a peer",
        "spec.ingress[0].from[1]: Forbidden: may not specify both ipBlock and another peer",
        'spec.egress[0].to[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": must be a valid CIDR value, '
        "(e.g. 10.9.8.0/24 or 2001:db8::/64)",
        'spec.egress[0].to[1].ipBlock.except[0]: Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`',
        'spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"',
    ]
    too_many = network_policy(spec__policyTypes=["Ingress", "Egress", "Ingress"])
    assert errors(validate_network_policy(too_many)) == [
        'spec.policyTypes: Invalid value: []networking.PolicyType{"Ingress", "Egress", "Ingress"}: '
        "may not specify more than two policyTypes"
    ]


def test_ip_address() -> None:
    ip = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "IPAddress",
        "metadata": {"name": "10.96.0.1"},
        "spec": {"parentRef": {"group": "", "resource": "services", "namespace": "default", "name": "kubernetes"}},
    }
    assert validate_ip_address(ip) == []
    assert validate_ip_address(with_changes(ip, metadata__name="2001:db8::1")) == []
    assert errors(validate_ip_address(with_changes(ip, metadata__name="2001:DB8::1", spec={}))) == [
        'metadata.name: Invalid value: "2001:DB8::1": must be in canonical form ("2001:db8::1")',
        "spec.parentRef: Required value",
    ]
    assert errors(
        validate_ip_address(with_changes(ip, metadata__name="010.0.0.1", spec__parentRef={"resource": "services"}))
    ) == [
        'metadata.name: Invalid value: "010.0.0.1": must not have leading 0s',
        "spec.parentRef.name: Required value",
    ]
    changed = with_changes(ip, spec__parentRef__name="other")
    assert errors(validate_ip_address_update(changed, ip)) == [
        'spec.parentRef: Invalid value: networking.ParentReference{Group:"", Resource:"services", Namespace:"default", '
        'Name:"other"}: field is immutable'
    ]


def test_service_cidr() -> None:
    cidr = {"apiVersion": "networking.k8s.io/v1", "kind": "ServiceCIDR", "metadata": {"name": "extra"}}
    assert validate_service_cidr(with_changes(cidr, spec__cidrs=["10.100.0.0/16", "fd00::/108"])) == []
    assert errors(validate_service_cidr(with_changes(cidr, spec__cidrs=[]))) == [
        "spec.cidrs: Required value: at least one CIDR required"
    ]
    assert errors(validate_service_cidr(with_changes(cidr, spec__cidrs=["10.0.0.0/8", "11.0.0.0/8"]))) == [
        'spec.cidrs: Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{"10.0.0.0/8", "11.0.0.0/8"}}: may specify no '
        "more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64"
    ]
    assert errors(validate_service_cidr(with_changes(cidr, spec__cidrs=["10.0.0.1/8"]))) == [
        'spec.cidrs[0]: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length'
    ]
    assert errors(validate_service_cidr(with_changes(cidr, spec__cidrs=["fd00:0::/108"]))) == [
        'spec.cidrs[0]: Invalid value: "fd00:0::/108": must be in canonical form ("fd00::/108")'
    ]
    old = with_changes(cidr, spec__cidrs=["10.0.0.0/8"])
    assert errors(validate_service_cidr_update(with_changes(cidr, spec__cidrs=["10.0.0.0/9"]), old)) == [
        'spec.cidrs: Invalid value: []string{"10.0.0.0/9"}: field is immutable'
    ]
