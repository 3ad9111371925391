"""Services as kubectl users see them: ClusterIPs and NodePorts allocated from the flags' ranges,
conflicts refused with kube-apiserver's messages, releases on delete and type change, allocations kept
across a restart, and the IPAddress / ServiceCIDR objects of 1.33's allocator."""

from __future__ import annotations

import ipaddress
import json

import yaml


def _svc(server, ns: str, name: str) -> dict:
    return json.loads(server.kubectl("-n", ns, "get", "svc", name, "-o", "json").stdout)


def _create(server, ns: str, manifest: dict, check: bool = True):
    return server.kubectl("-n", ns, "create", "-f", "-", input=yaml.safe_dump(manifest), check=check)


def _manifest(name: str, **spec) -> dict:
    spec.setdefault("ports", [{"port": 80}])
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec}


def test_clusterip_service_gets_an_ip_in_range(server, ns):
    res = server.kubectl("-n", ns, "create", "service", "clusterip", "web", "--tcp=80:8080")
    assert res.stdout.strip() == "service/web created"
    spec = _svc(server, ns, "web")["spec"]
    ip = ipaddress.ip_address(spec["clusterIP"])
    # The default --service-cluster-ip-range, and not the kubernetes Service's 10.0.0.1.
    assert ip in ipaddress.ip_network("10.0.0.0/24") and str(ip) not in ("10.0.0.0", "10.0.0.1", "10.0.0.255")
    assert spec["clusterIPs"] == [spec["clusterIP"]]
    assert spec["ipFamilies"] == ["IPv4"] and spec["ipFamilyPolicy"] == "SingleStack"
    assert spec["type"] == "ClusterIP" and spec["sessionAffinity"] == "None"
    assert spec["internalTrafficPolicy"] == "Cluster"
    assert spec["ports"] == [{"name": "80-8080", "protocol": "TCP", "port": 80, "targetPort": 8080}]
    # Its IPAddress object, as the 1.33 allocator records it.
    ipa = json.loads(server.kubectl("get", "ipaddress", spec["clusterIP"], "-o", "json").stdout)
    assert ipa["spec"]["parentRef"] == {"resource": "services", "namespace": ns, "name": "web"}
    assert ipa["metadata"]["labels"] == {
        "ipaddress.kubernetes.io/ip-family": "IPv4",
        "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io",
    }


def test_nodeport_service_gets_a_port_in_range(server, ns):
    res = server.kubectl("-n", ns, "create", "service", "nodeport", "np", "--tcp=80:8080")
    assert res.stdout.strip() == "service/np created"
    spec = _svc(server, ns, "np")["spec"]
    assert 30000 <= spec["ports"][0]["nodePort"] <= 32767
    assert spec["externalTrafficPolicy"] == "Cluster"
    out = server.kubectl("-n", ns, "get", "svc", "np").stdout
    assert f"80:{spec['ports'][0]['nodePort']}/TCP" in out


def test_same_node_port_is_refused_and_freed_by_delete(server, ns):
    server.kubectl("-n", ns, "create", "service", "nodeport", "a", "--tcp=80:8080", "--node-port=30080")
    assert _svc(server, ns, "a")["spec"]["ports"][0]["nodePort"] == 30080
    res = server.kubectl(
        "-n", ns, "create", "service", "nodeport", "b", "--tcp=81:8080", "--node-port=30080", check=False
    )
    assert res.returncode == 1
    # kubectl create service words the error its own way around the server's message.
    assert res.stderr.strip() == (
        'error: failed to create NodePort service: Service "b" is invalid: '
        "spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated"
    )
    res = server.kubectl("-n", ns, "create", "service", "nodeport", "c", "--tcp=81:8080", "--node-port=80", check=False)
    assert res.stderr.strip() == (
        'error: failed to create NodePort service: Service "c" is invalid: spec.ports[0].nodePort: Invalid value: 80: '
        "provided port is not in the valid range. The range of valid ports is 30000-32767"
    )
    server.kubectl("-n", ns, "delete", "svc", "a")
    server.kubectl("-n", ns, "create", "service", "nodeport", "b", "--tcp=81:8080", "--node-port=30080")
    assert _svc(server, ns, "b")["spec"]["ports"][0]["nodePort"] == 30080


def test_same_cluster_ip_is_refused_and_freed_by_delete(server, ns):
    _create(server, ns, _manifest("first", clusterIP="10.0.0.10"))
    res = _create(server, ns, _manifest("second", clusterIP="10.0.0.10"), check=False)
    assert res.returncode == 1
    assert res.stderr.strip() == (
        'The Service "second" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.10"}: '
        "failed to allocate IP 10.0.0.10: provided IP is already allocated"
    )
    # The kubernetes Service holds the first IP of the range.
    res = _create(server, ns, _manifest("third", clusterIP="10.0.0.1"), check=False)
    assert "failed to allocate IP 10.0.0.1: provided IP is already allocated" in res.stderr
    res = _create(server, ns, _manifest("fourth", clusterIP="192.168.1.1"), check=False)
    assert res.stderr.strip() == (
        'The Service "fourth" is invalid: spec.clusterIPs: Invalid value: []string{"192.168.1.1"}: '
        "failed to allocate IP 192.168.1.1: the provided network does not match the current range"
    )
    server.kubectl("-n", ns, "delete", "svc", "first")
    _create(server, ns, _manifest("second", clusterIP="10.0.0.10"))
    assert _svc(server, ns, "second")["spec"]["clusterIP"] == "10.0.0.10"


def test_changing_cluster_ip_is_refused(server, ns):
    _create(server, ns, _manifest("fixed", clusterIP="10.0.0.11"))
    res = server.kubectl("-n", ns, "patch", "svc", "fixed", "-p", '{"spec":{"clusterIP":"10.0.0.12"}}', check=False)
    assert res.returncode == 1
    assert res.stderr.strip() == (
        'The Service "fixed" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.0.0.12"}: '
        "may not change once set"
    )
    assert _svc(server, ns, "fixed")["spec"]["clusterIP"] == "10.0.0.11"
    # Re-sending the manifest without the allocated values keeps them (kubectl replace).
    server.kubectl("-n", ns, "replace", "-f", "-", input=yaml.safe_dump(_manifest("fixed")))
    assert _svc(server, ns, "fixed")["spec"]["clusterIPs"] == ["10.0.0.11"]


def test_type_change_allocates_and_releases_node_ports(server, ns):
    server.kubectl("-n", ns, "create", "service", "clusterip", "flip", "--tcp=80:8080")
    before = _svc(server, ns, "flip")["spec"]
    server.kubectl("-n", ns, "patch", "svc", "flip", "-p", '{"spec":{"type":"NodePort"}}')
    spec = _svc(server, ns, "flip")["spec"]
    port = spec["ports"][0]["nodePort"]
    assert 30000 <= port <= 32767 and spec["clusterIP"] == before["clusterIP"]
    server.kubectl("-n", ns, "patch", "svc", "flip", "-p", '{"spec":{"type":"ClusterIP"}}')
    spec = _svc(server, ns, "flip")["spec"]
    assert "nodePort" not in spec["ports"][0] and "externalTrafficPolicy" not in spec
    # The port went back to the pool: another Service may ask for it.
    server.kubectl("-n", ns, "create", "service", "nodeport", "taker", "--tcp=80:80", f"--node-port={port}")


def test_invalid_service_messages(server, ns):
    body = _manifest("bad", ports=[{"port": 70000}, {"port": 80, "protocol": "XTP"}])
    r = server.request("POST", f"/api/v1/namespaces/{ns}/services", json=body)
    assert r.status_code == 422
    status = r.json()
    assert status["reason"] == "Invalid"
    assert status["message"] == (
        'Service "bad" is invalid: [spec.ports[0].name: Required value, '
        "spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive, "
        "spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive, "
        "spec.ports[1].name: Required value, "
        'spec.ports[1].protocol: Unsupported value: "XTP": supported values: "SCTP", "TCP", "UDP"]'
    )
    assert status["details"]["causes"][0] == {
        "reason": "FieldValueRequired",
        "message": "Required value",
        "field": "spec.ports[0].name",
    }
    res = _create(
        server, ns, _manifest("dup", ports=[{"name": "a", "port": 80}, {"name": "b", "port": 80}]), check=False
    )
    assert res.stderr.strip() == (
        'The Service "dup" is invalid: spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", '
        'AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}'
    )
    res = _create(server, ns, _manifest("1st"), check=False)
    assert res.stderr.startswith('The Service "1st" is invalid: metadata.name: Invalid value: "1st": a DNS-1035 label')
    res = _create(server, ns, _manifest("ext", type="ExternalName"), check=False)
    assert res.stderr.strip() == 'The Service "ext" is invalid: spec.externalName: Required value'


def test_dry_run_allocates_nothing(server, ns):
    res = server.kubectl(
        "-n",
        ns,
        "create",
        "service",
        "nodeport",
        "dry",
        "--tcp=80:80",
        "--node-port=30099",
        "--dry-run=server",
        "-o",
        "json",
    )
    spec = json.loads(res.stdout)["spec"]
    assert spec["ports"][0]["nodePort"] == 30099 and spec["clusterIP"] == "10.0.0.0"
    # Nothing was reserved: the port is still free.
    server.kubectl("-n", ns, "create", "service", "nodeport", "real", "--tcp=80:80", "--node-port=30099")


def test_headless_and_external_name(server, ns):
    server.kubectl("-n", ns, "create", "service", "clusterip", "hl", "--clusterip=None", "--tcp=80:80")
    spec = _svc(server, ns, "hl")["spec"]
    assert spec["clusterIP"] == "None" and spec["clusterIPs"] == ["None"]
    server.kubectl("-n", ns, "create", "service", "externalname", "en", "--external-name=example.com")
    spec = _svc(server, ns, "en")["spec"]
    assert spec["type"] == "ExternalName" and "clusterIP" not in spec and "ipFamilies" not in spec


def test_default_service_cidr_and_kubernetes_ipaddress(server):
    cidr = json.loads(server.kubectl("get", "servicecidr", "kubernetes", "-o", "json").stdout)
    assert cidr["spec"]["cidrs"] == ["10.0.0.0/24"]
    ready = [c for c in cidr["status"]["conditions"] if c["type"] == "Ready"]
    assert ready and ready[0]["status"] == "True"
    ipa = json.loads(server.kubectl("get", "ipaddress", "10.0.0.1", "-o", "json").stdout)
    assert ipa["spec"]["parentRef"] == {"resource": "services", "namespace": "default", "name": "kubernetes"}


def test_restart_keeps_allocations(server_factory):
    srv = server_factory("--service-node-port-range=31000-31010", "--service-cluster-ip-range=10.96.0.0/28")
    srv.kubectl("create", "namespace", "apps")
    srv.kubectl("-n", "apps", "create", "service", "nodeport", "keep", "--tcp=80:80")
    spec = _svc(srv, "apps", "keep")["spec"]
    port, ip = spec["ports"][0]["nodePort"], spec["clusterIP"]
    assert 31000 <= port <= 31010 and ipaddress.ip_address(ip) in ipaddress.ip_network("10.96.0.0/28")
    assert _svc(srv, "default", "kubernetes")["spec"]["clusterIP"] == "10.96.0.1"
    srv.restart()
    res = srv.kubectl(
        "-n", "apps", "create", "service", "nodeport", "other", "--tcp=80:80", f"--node-port={port}", check=False
    )
    assert "provided port is already allocated" in res.stderr
    res = _create(srv, "apps", _manifest("other", clusterIP=ip), check=False)
    assert f"failed to allocate IP {ip}: provided IP is already allocated" in res.stderr
    assert srv.kubectl("get", "ipaddress", ip, "-o", "name").stdout.strip() == f"ipaddress.networking.k8s.io/{ip}"
    srv.kubectl("-n", "apps", "delete", "svc", "keep")
    assert srv.kubectl("get", "ipaddress", ip, check=False).returncode == 1
    srv.kubectl("-n", "apps", "create", "service", "nodeport", "other", "--tcp=80:80", f"--node-port={port}")


def test_non_standard_ip_warns(server, ns):
    res = _create(server, ns, _manifest("zeros", clusterIP="10.0.0.013"))
    assert res.stdout.strip() == "service/zeros created"
    assert (
        'Warning: spec.clusterIPs[0]: non-standard IP address "10.0.0.013" will be considered invalid in a future '
        'Kubernetes release: use "10.0.0.13"'
    ) in res.stderr
    # The IPAddress is named after the canonical form.
    ipa = json.loads(server.kubectl("get", "ipaddress", "10.0.0.13", "-o", "json").stdout)
    assert ipa["spec"]["parentRef"]["name"] == "zeros"


def test_put_status_of_a_missing_service_is_not_found(server, ns):
    # A Service is created by PUT (its strategy allows it), never through its status subresource.
    body = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ghost"}, "spec": {"ports": [{"port": 80}]}}
    for query in ("", "?dryRun=All"):
        r = server.request("PUT", f"/api/v1/namespaces/{ns}/services/ghost/status{query}", json=body)
        assert r.status_code == 404, r.text
        assert r.json()["message"] == 'services "ghost" not found'
    r = server.request("PUT", f"/api/v1/namespaces/{ns}/services/ghost", json=body)
    assert r.status_code == 201, r.text
    assert ipaddress.ip_address(r.json()["spec"]["clusterIP"])
