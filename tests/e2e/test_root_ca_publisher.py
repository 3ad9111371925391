"""The kube-root-ca.crt ConfigMap of every namespace (kube-controller-manager's root-ca-cert-publisher), as
kubectl users of a cluster see it: there from the start, put back when changed or deleted."""

from __future__ import annotations

import base64
import json

from e2e_helpers import wait_until

DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as "
    "the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of "
    "Kubernetes clusters."
)


def _root_ca(server, ns: str) -> dict | None:
    r = server.kubectl("-n", ns, "get", "configmap", "kube-root-ca.crt", "-o", "json", check=False)
    return json.loads(r.stdout) if r.returncode == 0 else None


def test_every_namespace_has_the_cluster_ca(server, ns):
    cm = wait_until(lambda: _root_ca(server, ns), message="kube-root-ca.crt")
    # the CA of the admin kubeconfig: what verifies this server
    ca = server.kubectl("config", "view", "--raw", "-o", "jsonpath={.clusters[0].cluster.certificate-authority-data}")
    assert cm["data"] == {"ca.crt": base64.b64decode(ca.stdout).decode()}
    assert cm["metadata"]["annotations"] == {"kubernetes.io/description": DESCRIPTION}
    managers = json.loads(
        server.kubectl("-n", ns, "get", "configmap", "kube-root-ca.crt", "-o", "json", "--show-managed-fields").stdout
    )["metadata"]["managedFields"]
    assert [m["manager"] for m in managers] == ["kube-controller-manager"]
    for name in ("default", "kube-system", "kube-public", "kube-node-lease"):
        assert _root_ca(server, name) is not None

    # changed: put back; deleted: made again
    server.kubectl("-n", ns, "patch", "configmap", "kube-root-ca.crt", "--type=merge", "-p", '{"data":{"ca.crt":"x"}}')
    wait_until(lambda: (_root_ca(server, ns) or {}).get("data") == cm["data"], message="the data put back")
    patch = '{"metadata":{"annotations":{"kubernetes.io/description":null,"mine":"yes"}}}'
    server.kubectl("-n", ns, "patch", "configmap", "kube-root-ca.crt", "--type=merge", "-p", patch)
    wait_until(
        lambda: (
            (_root_ca(server, ns) or {"metadata": {}})["metadata"].get("annotations")
            == {"kubernetes.io/description": DESCRIPTION, "mine": "yes"}
        ),
        message="the description put back",
    )
    uid = _root_ca(server, ns)["metadata"]["uid"]
    server.kubectl("-n", ns, "delete", "configmap", "kube-root-ca.crt")
    wait_until(lambda: (_root_ca(server, ns) or {"metadata": {}})["metadata"].get("uid") not in (None, uid))
