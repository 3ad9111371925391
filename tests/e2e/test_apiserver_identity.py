"""The kube-apiserver identity Lease (APIServerIdentity): one Lease in kube-system named after the server's
identity, renewed by the server, and expired identity leases garbage collected."""

from __future__ import annotations

import base64
import hashlib
import socket
import struct

from e2e_helpers import wait_until

SELECTOR = "apiserver.kubernetes.io/identity=kube-apiserver"


def _expected_name(hostname: str) -> str:
    # as upstream's integration test computes it: cryptobyte length-prefixed host name and component
    data = struct.pack(">H", len(hostname)) + hostname.encode() + struct.pack(">H", 14) + b"kube-apiserver"
    return "apiserver-" + base64.b32encode(hashlib.sha256(data).digest()[:16]).decode().rstrip("=").lower()


def _lease(name: str, namespace: str, renewed: str, labelled: bool = True) -> dict:
    meta: dict = {"name": name, "namespace": namespace}
    if labelled:
        meta["labels"] = {"apiserver.kubernetes.io/identity": "kube-apiserver"}
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": meta,
        "spec": {"holderIdentity": name, "leaseDurationSeconds": 3600, "renewTime": renewed},
    }


def _identity_leases(server) -> list:
    path = f"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector={SELECTOR}"
    return server.request("GET", path).json()["items"]


def test_identity_lease(server):
    hostname = socket.gethostname()
    wait_until(lambda: _identity_leases(server), timeout=10)  # written once kube-system exists
    [lease] = _identity_leases(server)
    assert lease["metadata"]["name"] == _expected_name(hostname)
    assert lease["metadata"]["labels"] == {
        "apiserver.kubernetes.io/identity": "kube-apiserver",
        "kubernetes.io/hostname": hostname,
    }
    spec = lease["spec"]
    assert spec["holderIdentity"].startswith(lease["metadata"]["name"] + "_")
    assert spec["leaseDurationSeconds"] == 3600 and spec["renewTime"].endswith("Z")
    out = server.kubectl("get", "--raw", "/readyz?verbose").stdout
    assert "[+]poststarthook/start-kube-apiserver-identity-lease-controller ok" in out
    assert "[+]poststarthook/start-kube-apiserver-identity-lease-garbage-collector ok" in out


def test_expired_identity_leases_are_collected(server_factory, tmp_path):
    data_dir = str(tmp_path / "data")
    srv = server_factory(data_dir=data_dir)
    base = "/apis/coordination.k8s.io/v1/namespaces/{}/leases"
    old, recent = "2020-01-01T00:00:00.000000Z", None
    srv.create_namespace("lease-user")
    wait_until(lambda: _identity_leases(srv), timeout=10)
    recent = _identity_leases(srv)[0]["spec"]["renewTime"]
    for lease in (
        _lease("gone-apiserver", "kube-system", old),
        _lease("live-apiserver", "kube-system", recent),
        _lease("not-identity", "kube-system", old, labelled=False),
        _lease("elsewhere", "lease-user", old),
    ):
        r = srv.request("POST", base.format(lease["metadata"]["namespace"]), json=lease)
        assert r.status_code == 201, r.text
    srv.stop()
    srv = server_factory(data_dir=data_dir)  # the collector runs at start
    names = {i["metadata"]["name"] for i in srv.request("GET", base.format("kube-system")).json()["items"]}
    assert "gone-apiserver" not in names
    assert {"live-apiserver", "not-identity", _expected_name(socket.gethostname())} <= names
    assert srv.request("GET", base.format("lease-user") + "/elsewhere").status_code == 200
