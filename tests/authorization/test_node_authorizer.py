"""The node authorizer: which objects a kubelet may reach through its pods, and kube's reasons otherwise."""

from __future__ import annotations

from typing import Any

import pytest

from kube_apiserver.authentication.user import UserInfo
from kube_apiserver.authorization.authorizer import ALLOW, NO_OPINION, Attributes
from kube_apiserver.authorization.node.authorizer import GraphPopulator, NodeAuthorizer
from kube_apiserver.authorization.node.graph import Graph

N1 = UserInfo("system:node:n1", "", ("system:nodes", "system:authenticated"))
NO_RELATION = "no relationship found between node 'n1' and this object"


def pod(name: str, node: str, ns: str = "team", **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": ns}, "spec": {"nodeName": node, **spec}}


def attrs(verb: str, resource: str, name: str = "", ns: str = "team", group: str = "", sub: str = "", fs: str = ""):
    return Attributes(N1, verb, True, "", ns, group, "v1", resource, sub, name, field_selector=fs)


@pytest.fixture
def node_authz() -> NodeAuthorizer:
    g = Graph()
    g.add_pod(
        pod(
            "web",
            "n1",
            serviceAccountName="web-sa",
            imagePullSecrets=[{"name": "pull"}],
            containers=[
                {
                    "name": "c",
                    "env": [
                        {"name": "A", "valueFrom": {"secretKeyRef": {"name": "env-secret", "key": "k"}}},
                        {"name": "B", "valueFrom": {"configMapKeyRef": {"name": "env-cm", "key": "k"}}},
                    ],
                    "envFrom": [{"configMapRef": {"name": "from-cm"}}],
                }
            ],
            volumes=[
                {"name": "s", "secret": {"secretName": "vol-secret"}},
                {"name": "p", "projected": {"sources": [{"configMap": {"name": "proj-cm"}}]}},
                {"name": "d", "persistentVolumeClaim": {"claimName": "data"}},
                {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {}}},
            ],
        )
    )
    g.add_pod(pod("other", "n2", volumes=[{"name": "s", "secret": {"secretName": "n2-secret"}}]))
    g.add_pod(pod("pending", "", volumes=[{"name": "s", "secret": {"secretName": "pending-secret"}}]))
    g.add_pod(
        {
            "metadata": {"name": "mirror", "namespace": "team", "annotations": {"kubernetes.io/config.mirror": "x"}},
            "spec": {"nodeName": "n1", "volumes": [{"name": "s", "secret": {"secretName": "mirror-secret"}}]},
        }
    )
    g.add_pv(
        {
            "metadata": {"name": "pv-1"},
            "spec": {
                "claimRef": {"namespace": "team", "name": "data"},
                "csi": {"driver": "d", "nodePublishSecretRef": {"name": "csi-secret", "namespace": "storage"}},
            },
        }
    )
    g.set_node_object("volumeattachment", "va-1", "n1")
    g.set_node_object("slice", "slice-n2", "n2")
    return NodeAuthorizer(g)


def test_reads_what_its_pods_reference(node_authz: NodeAuthorizer) -> None:
    allowed = [
        attrs("get", "secrets", "pull"),
        attrs("get", "secrets", "env-secret"),
        attrs("watch", "secrets", "vol-secret"),
        attrs("list", "configmaps", "env-cm"),
        attrs("get", "configmaps", "from-cm"),
        attrs("get", "configmaps", "proj-cm"),
        attrs("get", "persistentvolumeclaims", "data"),
        attrs("get", "persistentvolumeclaims", "web-scratch"),
        attrs("patch", "persistentvolumeclaims", "data", sub="status"),
        attrs("get", "persistentvolumes", "pv-1", ns=""),
        attrs("get", "secrets", "csi-secret", ns="storage"),
        attrs("create", "serviceaccounts", "web-sa", sub="token"),
        attrs("get", "volumeattachments", "va-1", ns="", group="storage.k8s.io"),
        attrs("get", "pods", "web"),
        attrs("list", "pods", ns="", fs="spec.nodeName=n1"),
    ]
    for a in allowed:
        assert node_authz.authorize(a) == (ALLOW, ""), a


@pytest.mark.parametrize(
    ("a", "reason"),
    [
        (attrs("get", "secrets", "n2-secret"), NO_RELATION),
        (attrs("get", "secrets", "pending-secret"), NO_RELATION),
        (attrs("get", "secrets", "mirror-secret"), NO_RELATION),
        (attrs("get", "secrets", "pull", ns="elsewhere"), NO_RELATION),
        (attrs("get", "pods", "other"), NO_RELATION),
        (attrs("get", "resourceslices", "slice-n2", ns="", group="resource.k8s.io"), NO_RELATION),
        (attrs("list", "secrets"), "No Object name found"),
        (attrs("update", "secrets", "pull"), "can only read resources of this type"),
        (attrs("list", "secrets", "pull", ns=""), "can only read namespaced object of this type"),
        (attrs("list", "persistentvolumeclaims", "data"), "can only get individual resources of this type"),
        (attrs("get", "persistentvolumeclaims", "data", sub="status"), "can only get/update/patch this type"),
        (attrs("create", "serviceaccounts", "other-sa", sub="token"), NO_RELATION),
        (attrs("get", "serviceaccounts", "web-sa"), "can only create tokens for individual service accounts"),
        (attrs("list", "pods", ns=""), "can only list/watch pods with spec.nodeName field selector"),
        (
            attrs("list", "pods", ns="", fs="spec.nodeName=n2"),
            "can only list/watch pods with spec.nodeName field selector",
        ),
        (attrs("get", "nodes", "n2", ns=""), "node 'n1' cannot read 'n2', only its own Node object"),
        (attrs("list", "nodes", ns=""), "node 'n1' cannot read all nodes, only its own Node object"),
        (
            attrs("update", "leases", "n1", ns="default", group="coordination.k8s.io"),
            'can only access leases in the "kube-node-lease" system namespace',
        ),
        (
            attrs("update", "leases", "n2", ns="kube-node-lease", group="coordination.k8s.io"),
            "can only access node lease with the same name as the requesting node",
        ),
        (attrs("delete", "deployments", "x", group="apps"), ""),
    ],
)
def test_refusals_and_reasons(node_authz: NodeAuthorizer, a: Attributes, reason: str) -> None:
    assert node_authz.authorize(a) == (NO_OPINION, reason)


def test_own_node_leases_static_rules_and_non_nodes(node_authz: NodeAuthorizer) -> None:
    for a in (
        attrs("get", "nodes", "n1", ns=""),
        attrs("patch", "nodes", "n1", ns="", sub="status"),
        attrs("create", "nodes", ns=""),
        attrs("update", "pods", "web", sub="status"),
        attrs("create", "pods", "mirror"),
        attrs("create", "pods", "web", sub="eviction"),
        attrs("update", "leases", "n1", ns="kube-node-lease", group="coordination.k8s.io"),
        attrs("create", "events"),
        attrs("list", "services", ns=""),
        attrs("create", "subjectaccessreviews", ns="", group="authorization.k8s.io"),
    ):
        assert node_authz.authorize(a) == (ALLOW, ""), a
    bob = Attributes(
        UserInfo("bob", "", ("system:nodes",)), "get", True, namespace="team", resource="secrets", name="pull"
    )
    assert node_authz.authorize(bob) == (NO_OPINION, "")
    not_in_group = Attributes(
        UserInfo("system:node:n1"), "get", True, namespace="team", resource="secrets", name="pull"
    )
    assert node_authz.authorize(not_in_group) == (NO_OPINION, "")
    nameless = Attributes(UserInfo("system:node:", "", ("system:nodes",)), "get", True, resource="nodes")
    assert node_authz.authorize(nameless) == (NO_OPINION, 'unknown node for user "system:node:"')


class _Stored:
    def __init__(self, obj: dict[str, Any]) -> None:
        self.obj = obj


class _Cache:
    def __init__(self) -> None:
        self.objects: dict[str, _Stored] = {}
        self.watchers: set[Any] = set()

    def emit(self, type_: str, obj: dict[str, Any], prev: dict[str, Any] | None = None) -> None:
        class Ev:
            pass

        ev = Ev()
        ev.type, ev.key = type_, obj["metadata"]["name"]
        ev.object, ev.prev = _Stored(obj), _Stored(prev) if prev else None
        if type_ == "DELETED":
            self.objects.pop(ev.key, None)
        else:
            self.objects[ev.key] = ev.object
        for w in tuple(self.watchers):
            w.offer(ev)


class _Store:
    def __init__(self) -> None:
        self.storage = _Cache()


def test_populator_follows_binding_and_deletion() -> None:
    stores = {("", "v1", "pods"): _Store(), ("", "v1", "persistentvolumes"): _Store()}
    pods = stores[("", "v1", "pods")].storage
    unbound = pod("p", "", volumes=[{"name": "s", "secret": {"secretName": "s1"}}])
    pods.emit("ADDED", unbound)
    graph = Graph()
    GraphPopulator(graph, stores).start()
    authz = NodeAuthorizer(graph)
    get_s1 = attrs("get", "secrets", "s1")
    assert authz.authorize(get_s1) == (NO_OPINION, NO_RELATION)
    bound = pod("p", "n1", volumes=[{"name": "s", "secret": {"secretName": "s1"}}])
    pods.emit("MODIFIED", bound, unbound)
    assert authz.authorize(get_s1) == (ALLOW, "")
    pods.emit("DELETED", bound, bound)
    assert authz.authorize(get_s1) == (NO_OPINION, NO_RELATION)
    assert graph.out == {} and graph.into == {}
