"""Service defaults and validation through the Scheme (SetDefaults_Service, ValidateService,
ValidateServiceUpdate): the objects and the exact messages kube-apiserver 1.33 gives."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kube_apiserver.apis.scheme import build_scheme
from kube_apiserver.runtime.errors import StatusCause


def errors(causes: list[StatusCause]) -> list[str]:
    return [f"{c.field}: {c.message}" if c.field else c.message for c in causes]


def defaulted(spec: dict[str, Any], status: dict[str, Any] | None = None) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "s"},
        "spec": copy.deepcopy(spec),
    }
    if status is not None:
        obj["status"] = status
    build_scheme().default(obj)
    return obj


def allocated(**spec: Any) -> dict[str, Any]:
    """A defaulted ClusterIP Service as the allocator leaves it."""
    base = {"ports": [{"port": 80}], "clusterIP": "10.0.0.5", "clusterIPs": ["10.0.0.5"]}
    base.update(spec)
    obj = defaulted(base)
    s = obj["spec"]
    if s["type"] != "ExternalName":
        s.setdefault("ipFamilies", ["IPv4"])
        s.setdefault("ipFamilyPolicy", "SingleStack")
    return obj


def validate(obj: dict[str, Any]) -> list[str]:
    return errors(build_scheme().validate(obj))


def validate_update(new: dict[str, Any], old: dict[str, Any]) -> list[str]:
    return errors(build_scheme().validate_update(new, old))


# --- defaults ---


def test_defaults_of_a_minimal_service():
    spec = defaulted({"ports": [{"port": 80}, {"port": 53, "protocol": "UDP", "targetPort": "dns"}]})["spec"]
    assert spec == {
        "ports": [
            {"port": 80, "protocol": "TCP", "targetPort": 80},
            {"port": 53, "protocol": "UDP", "targetPort": "dns"},
        ],
        "sessionAffinity": "None",
        "type": "ClusterIP",
        "internalTrafficPolicy": "Cluster",
    }


@pytest.mark.parametrize("target", [0, "", None])
def test_empty_target_port_is_the_port(target):
    port = {"port": 8080} if target is None else {"port": 8080, "targetPort": target}
    assert defaulted({"ports": [port]})["spec"]["ports"][0]["targetPort"] == 8080


def test_externally_accessible_services_default_the_external_policy():
    assert defaulted({"type": "NodePort"})["spec"]["externalTrafficPolicy"] == "Cluster"
    lb = defaulted({"type": "LoadBalancer"}, {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}, {"hostname": "h"}]}})
    assert lb["spec"]["externalTrafficPolicy"] == "Cluster"
    assert lb["spec"]["allocateLoadBalancerNodePorts"] is True
    assert lb["status"]["loadBalancer"]["ingress"] == [{"ip": "1.2.3.4", "ipMode": "VIP"}, {"hostname": "h"}]
    assert defaulted({"externalIPs": ["1.2.3.4"]})["spec"]["externalTrafficPolicy"] == "Cluster"
    plain = defaulted({})["spec"]
    assert "externalTrafficPolicy" not in plain and "allocateLoadBalancerNodePorts" not in plain


def test_external_name_gets_no_internal_traffic_policy():
    assert "internalTrafficPolicy" not in defaulted({"type": "ExternalName", "externalName": "x.io"})["spec"]


def test_session_affinity_config_defaults():
    spec = defaulted({"sessionAffinity": "ClientIP"})["spec"]
    assert spec["sessionAffinityConfig"] == {"clientIP": {"timeoutSeconds": 10800}}
    kept = defaulted({"sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 60}}})
    assert kept["spec"]["sessionAffinityConfig"] == {"clientIP": {"timeoutSeconds": 60}}
    dropped = defaulted({"sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 60}}})["spec"]
    assert "sessionAffinityConfig" not in dropped


# --- validation ---


def test_valid_services():
    assert validate(allocated()) == []
    assert validate(allocated(type="NodePort", ports=[{"port": 80, "nodePort": 30080}])) == []
    headless = allocated(clusterIP="None", clusterIPs=["None"], ports=[])
    assert validate(headless) == []
    name = defaulted({"type": "ExternalName", "externalName": "db.example.com.", "ports": []})
    assert validate(name) == []


def test_port_rules():
    obj = allocated(
        ports=[
            {"port": 80, "name": "http"},
            {"port": 0, "name": "http", "protocol": "ICMP", "targetPort": "Bad_Name"},
            {"port": 81, "name": "Web", "appProtocol": "-bad"},
        ]
    )
    assert validate(obj) == [
        'spec.ports[1].name: Duplicate value: "http"',
        "spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive",
        'spec.ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
        'spec.ports[1].targetPort: Invalid value: "Bad_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
        'spec.ports[2].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric '
        "characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
        "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        "spec.ports[2].appProtocol: Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', "
        "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
        "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]


def test_ports_required_and_names_required_with_several():
    assert validate(allocated(ports=[])) == ["spec.ports: Required value"]
    assert validate(allocated(ports=[{"port": 80}, {"port": 81}])) == [
        "spec.ports[0].name: Required value",
        "spec.ports[1].name: Required value",
    ]


def test_duplicate_ports_and_node_ports():
    obj = allocated(
        type="NodePort",
        ports=[
            {"name": "a", "port": 80, "nodePort": 30080},
            {"name": "b", "port": 80, "nodePort": 30080},
            {"name": "c", "port": 80, "protocol": "UDP", "nodePort": 30080},
        ],
    )
    assert validate(obj) == [
        "spec.ports[1].nodePort: Duplicate value: 30080",
        'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), '
        'Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
    ]


def test_type_rules():
    assert validate(allocated(type="Bogus")) == [
        'spec.type: Unsupported value: "Bogus": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"'
    ]
    assert validate(allocated(ports=[{"port": 80, "nodePort": 30080}])) == [
        "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"
    ]
    assert validate(allocated(type="NodePort", clusterIP="None", clusterIPs=["None"])) == [
        "spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for NodePort services"
    ]
    ext = defaulted({"type": "ExternalName", "externalName": "Not_A_Host", "clusterIPs": ["10.0.0.1"]})
    ext["spec"]["ipFamilyPolicy"] = "SingleStack"
    assert validate(ext) == [
        "spec.clusterIPs: Forbidden: may not be set for ExternalName services",
        "spec.ipFamilyPolicy: Forbidden: may not be set for ExternalName services",
        'spec.externalName: Invalid value: "Not_A_Host": a lowercase RFC 1123 subdomain must consist of lower case '
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]


def test_cluster_ips_related_fields():
    assert validate(allocated(clusterIPs=["10.0.0.6"])) == [
        'spec.clusterIPs: Invalid value: []string{"10.0.0.6"}: first value must match `clusterIP`'
    ]
    no_ip = allocated()
    del no_ip["spec"]["clusterIP"]
    assert validate(no_ip) == [
        'spec.clusterIPs: Invalid value: []string{"10.0.0.5"}: must be empty when `clusterIP` is not specified'
    ]
    assert validate(allocated(clusterIP="10.0.0.300", clusterIPs=["10.0.0.300"])) == [
        'spec.clusterIPs[0]: Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'
    ]
    assert validate(allocated(clusterIPs=["10.0.0.5", "10.0.0.6"], ipFamilies=["IPv4", "IPv4"])) == [
        'spec.ipFamilies[1]: Duplicate value: "IPv4"',
        'spec.clusterIPs: Invalid value: []string{"10.0.0.5", "10.0.0.6"}: may specify no more than one IP for each IP family',
    ]
    assert validate(allocated(ipFamilies=["IPv6"], ipFamilyPolicy="Any")) == [
        'spec.ipFamilyPolicy: Unsupported value: "Any": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"',
        'spec.clusterIPs[0]: Invalid value: "10.0.0.5": expected an IPv6 value as indicated by `ipFamilies[0]`',
    ]


def test_session_affinity_rules():
    obj = allocated(sessionAffinity="ClientIP", sessionAffinityConfig={"clientIP": {"timeoutSeconds": 86401}})
    assert validate(obj) == [
        "spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 86401: must be greater than 0 and less than 86400"
    ]
    obj = allocated()
    obj["spec"]["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": 10}}
    assert validate(obj) == ["spec.sessionAffinityConfig: Forbidden: must not be set when session affinity is None"]
    obj = allocated()
    obj["spec"]["sessionAffinity"] = "Sticky"
    assert validate(obj) == ['spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"']


def test_traffic_policies_and_load_balancer_fields():
    obj = allocated(externalTrafficPolicy="Local", internalTrafficPolicy="Nearby", healthCheckNodePort=30001)
    assert validate(obj) == [
        'spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services',
        "spec.healthCheckNodePort: Invalid value: 30001: may only be set when `type` is 'LoadBalancer' and "
        "`externalTrafficPolicy` is 'Local'",
        'spec.internalTrafficPolicy: Unsupported value: "Nearby": supported values: "Cluster", "Local"',
    ]
    lb = allocated(type="LoadBalancer", externalTrafficPolicy="Local", loadBalancerSourceRanges=["10.0.0.0/33"])
    assert validate(lb) == [
        'spec.LoadBalancerSourceRanges[0]: Invalid value: "10.0.0.0/33": must be a valid CIDR value, '
        "(e.g. 10.9.8.0/24 or 2001:db8::/64)",
        "spec.healthCheckNodePort: Required value",
    ]
    obj = allocated(allocateLoadBalancerNodePorts=False, loadBalancerClass="example.com/lb")
    assert validate(obj) == [
        "spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when `type` is 'LoadBalancer'",
        "spec.loadBalancerClass: Forbidden: may only be used when `type` is 'LoadBalancer'",
    ]
    assert validate(allocated(externalIPs=["127.0.0.1"])) == [
        'spec.externalIPs[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)'
    ]


def test_update_rules():
    old = allocated()
    new = allocated(clusterIP="10.0.0.6", clusterIPs=["10.0.0.6"])
    assert validate_update(new, old) == [
        'spec.clusterIPs[0]: Invalid value: []string{"10.0.0.6"}: may not change once set'
    ]
    lb_old = allocated(type="LoadBalancer", loadBalancerClass="a.io/x")
    lb_new = allocated(type="LoadBalancer", loadBalancerClass="a.io/y")
    assert validate_update(lb_new, lb_old) == [
        'spec.loadBalancerClass: Invalid value: "a.io/y": may not change once set'
    ]
    # Changing to or from ExternalName releases the IPs: no rule about them.
    ext = defaulted({"type": "ExternalName", "externalName": "x.io"})
    assert validate_update(ext, old) == [] and validate_update(old, ext) == []


def test_load_balancer_status_on_status_update():
    old = allocated()
    new = allocated()
    new["status"] = {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}
    assert validate_update(new, old) == [
        "status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'"
    ]
    old, new = allocated(type="LoadBalancer"), allocated(type="LoadBalancer")
    new["status"] = {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}, {"hostname": "1.2.3.4", "ipMode": "VIP"}]}}
    assert validate_update(new, old) == [
        "status.loadBalancer.ingress[0].ipMode: Required value: must be specified when `ip` is set",
        "status.loadBalancer.ingress[1].ipMode: Forbidden: may not be specified when `ip` is not set",
        'status.loadBalancer.ingress[1].hostname: Invalid value: "1.2.3.4": must be a DNS name, not an IP address',
    ]


def test_odd_types_do_not_raise():
    for spec in ({"ports": "x"}, {"ports": [5, None]}, {"type": 3}, {"clusterIPs": "x"}, {"selector": []}):
        obj = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": spec}
        build_scheme().default(obj)
        validate(obj)
        validate_update(obj, obj)


# --- warnings (GetWarningsForService) ---


@pytest.mark.parametrize(
    ("cidr", "want"),
    [
        ("192.12.2.0/24", []),
        (
            "192.12.2.0/024",
            [
                'non-standard CIDR value "192.12.2.0/024" will be considered invalid in a future Kubernetes release: use "192.12.2.0/24"'
            ],
        ),
        (
            "::ffff:192.12.2.0/120",
            [
                'non-standard CIDR value "::ffff:192.12.2.0/120" will be considered invalid in a future Kubernetes release: use "192.12.2.0/24"'
            ],
        ),
        (
            "192.12.2.8/24",
            ['CIDR value "192.12.2.8/24" is ambiguous in this context (should be "192.12.2.0/24" or "192.12.2.8/32"?)'],
        ),
        (
            "192.012.2.8/24",
            [
                'CIDR value "192.012.2.8/24" is ambiguous in this context (should be "192.12.2.0/24" or "192.12.2.8/32"?)',
                'non-standard CIDR value "192.012.2.8/24" will be considered invalid in a future Kubernetes release: use "192.12.2.0/24"',
            ],
        ),
        (
            "2001:db8:0:0::/64",
            ['IPv6 CIDR value "2001:db8:0:0::/64" should be in RFC 5952 canonical format ("2001:db8::/64")'],
        ),
    ],
)
def test_cidr_warnings(cidr, want):
    from kube_apiserver.apis.core.validation.service_fields import get_warnings_for_cidr

    path = "spec.loadBalancerSourceRanges[0]"
    assert get_warnings_for_cidr(path, cidr) == [f"{path}: {w}" for w in want]


def test_service_warnings():
    from kube_apiserver.apis.core.validation.service_fields import get_warnings_for_service

    obj = allocated(
        clusterIP="10.0.0.05", clusterIPs=["10.0.0.05"], externalIPs=["::ffff:1.2.3.4"], externalName="x.io"
    )
    obj["metadata"]["annotations"] = {"service.kubernetes.io/topology-aware-hints": "auto"}
    assert get_warnings_for_service(obj) == [
        "annotation service.kubernetes.io/topology-aware-hints is deprecated, please use service.kubernetes.io/topology-mode instead",
        'spec.clusterIPs[0]: non-standard IP address "10.0.0.05" will be considered invalid in a future Kubernetes release: use "10.0.0.5"',
        'spec.externalIPs[0]: non-standard IP address "::ffff:1.2.3.4" will be considered invalid in a future Kubernetes release: use "1.2.3.4"',
        'spec.externalName is ignored when spec.type is not "ExternalName"',
    ]
    headless = allocated(
        clusterIP="None", clusterIPs=["None"], sessionAffinity="ClientIP", loadBalancerIP="2001:db8:0:0::2"
    )
    assert get_warnings_for_service(headless) == [
        "spec.loadBalancerIP is ignored for headless services",
        "spec.SessionAffinity is ignored for headless services",
        'spec.loadBalancerIP: IPv6 address "2001:db8:0:0::2" should be in RFC 5952 canonical format ("2001:db8::2")',
    ]
    assert get_warnings_for_service(allocated()) == []
