"""The node authorizer (plugin/pkg/auth/authorizer/node/node_authorizer.go) and the informers that fill its
graph (graph_populator.go), as kube 1.33 has them with AuthorizeNodeWithSelectors on.

It speaks only for kubelets: users named system:node:<nodeName> in the group system:nodes. A kubelet may read
the secrets, configmaps, PVCs, PVs, resource claims, attachments and service account tokens its pods need,
get, list and watch its own Node and the pods bound to it (listing with a spec.nodeName selector), manage its
lease and CSINode, and otherwise do what the system:node role lists. Everything else: no opinion, with
kube's reason."""

from __future__ import annotations

from typing import Any

from kube_apiserver.authorization.authorizer import ALLOW, NO_OPINION, Attributes
from kube_apiserver.authorization.informer import CacheInformer, cacher_of, current_objects
from kube_apiserver.authorization.node import graph as g
from kube_apiserver.authorization.rbac.bootstrap_policy import node_rules
from kube_apiserver.authorization.rbac.rules import compile_rule, normalize_rule
from kube_apiserver.runtime.fields import SelectorParseError, parse_field_selector

NODE_USER_PREFIX = "system:node:"
NODES_GROUP = "system:nodes"
NODE_LEASE_NAMESPACE = "kube-node-lease"

# (group, resource) -> the graph vertex type a request for it starts from
_READ_NAMESPACED = {("", "secrets"): g.SECRET, ("", "configmaps"): g.CONFIGMAP}
_GET_ONLY = {
    ("", "persistentvolumes"): g.PV,
    ("resource.k8s.io", "resourceclaims"): g.RESOURCE_CLAIM,
    ("storage.k8s.io", "volumeattachments"): g.VOLUME_ATTACHMENT,
}


def node_identity(user: Any) -> tuple[str, bool]:
    """nodeidentifier.NodeIdentity: (node name, is a node)."""
    name = user.name
    if not name.startswith(NODE_USER_PREFIX) or NODES_GROUP not in user.groups:
        return "", False
    return name[len(NODE_USER_PREFIX) :], True


def _selector_allows(raw: str, field: str, value: str) -> bool:
    """Whether a field selector has field=value (parse errors count as no selector, as kube's)."""
    if not raw:
        return False
    try:
        requirements = parse_field_selector(raw).requirements
    except SelectorParseError:
        return False
    return any(r.field == field and r.operator in ("=", "==") and r.value == value for r in requirements)


class NodeAuthorizer:
    def __init__(self, graph: g.Graph) -> None:
        self.graph = graph
        self.node_rules = tuple(compile_rule(normalize_rule(r)) for r in node_rules())

    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        node, is_node = node_identity(attrs.user)
        if not is_node:
            return NO_OPINION, ""
        if not node:
            return NO_OPINION, f'unknown node for user "{attrs.user.name}"'
        if attrs.is_resource_request:
            key = (attrs.api_group, attrs.resource)
            if key in _READ_NAMESPACED:
                return self._read_namespaced(node, _READ_NAMESPACED[key], attrs)
            if key == ("", "persistentvolumeclaims"):
                if attrs.subresource == "status":
                    return self._status_update(node, g.PVC, attrs)
                return self._get(node, g.PVC, attrs)
            if key in _GET_ONLY:
                return self._get(node, _GET_ONLY[key], attrs)
            if key == ("", "serviceaccounts"):
                return self._create_token(node, attrs)
            if key == ("coordination.k8s.io", "leases"):
                return self._named_own(node, attrs, "node lease", NODE_LEASE_NAMESPACE)
            if key == ("storage.k8s.io", "csinodes"):
                return self._named_own(node, attrs, "CSINode", None)
            if key == ("resource.k8s.io", "resourceslices"):
                return self._resource_slice(node, attrs)
            if key == ("", "nodes"):
                return self._node(node, attrs)
            if key == ("", "pods"):
                return self._pod(node, attrs)
            combined = f"{attrs.resource}/{attrs.subresource}" if attrs.subresource else attrs.resource
            for rule in self.node_rules:
                if rule.allows_resource(attrs.verb, attrs.api_group, combined, attrs.subresource, attrs.name):
                    return ALLOW, ""
            return NO_OPINION, ""
        for rule in self.node_rules:
            if rule.allows_path(attrs.verb, attrs.path):
                return ALLOW, ""
        return NO_OPINION, ""

    # --- the subdivided resources ---

    def _related(self, node: str, vertex_type: str, attrs: Attributes) -> tuple[str, str]:
        if not attrs.name:
            return NO_OPINION, "No Object name found"
        if self.graph.has_path((vertex_type, attrs.namespace, attrs.name), node):
            return ALLOW, ""
        return NO_OPINION, f"no relationship found between node '{node}' and this object"

    def _status_update(self, node: str, vertex_type: str, attrs: Attributes) -> tuple[str, str]:
        if attrs.verb not in ("update", "patch"):
            return NO_OPINION, "can only get/update/patch this type"
        if attrs.subresource != "status":
            return NO_OPINION, "can only update status subresource"
        return self._related(node, vertex_type, attrs)

    def _get(self, node: str, vertex_type: str, attrs: Attributes) -> tuple[str, str]:
        if attrs.verb != "get":
            return NO_OPINION, "can only get individual resources of this type"
        if attrs.subresource:
            return NO_OPINION, "cannot get subresource"
        return self._related(node, vertex_type, attrs)

    def _read_namespaced(self, node: str, vertex_type: str, attrs: Attributes) -> tuple[str, str]:
        if attrs.verb not in ("get", "list", "watch"):
            return NO_OPINION, "can only read resources of this type"
        if attrs.subresource:
            return NO_OPINION, "cannot read subresource"
        if not attrs.namespace:
            return NO_OPINION, "can only read namespaced object of this type"
        return self._related(node, vertex_type, attrs)

    def _create_token(self, node: str, attrs: Attributes) -> tuple[str, str]:
        if attrs.verb != "create" or not attrs.name:
            return NO_OPINION, "can only create tokens for individual service accounts"
        if attrs.subresource != "token":
            return NO_OPINION, "can only create token subresource of serviceaccount"
        if self.graph.has_path((g.SERVICE_ACCOUNT, attrs.namespace, attrs.name), node):
            return ALLOW, ""
        return NO_OPINION, f"no relationship found between node '{node}' and this object"

    def _named_own(self, node: str, attrs: Attributes, what: str, namespace: str | None) -> tuple[str, str]:
        """authorizeLease / authorizeCSINode: the object named like the node (create cannot be checked here)."""
        verb = attrs.verb
        if verb not in ("get", "create", "update", "patch", "delete"):
            return NO_OPINION, f"can only get, create, update, patch, or delete a {what}"
        if namespace is not None:
            if attrs.namespace != namespace:
                return NO_OPINION, f'can only access leases in the "{namespace}" system namespace'
        elif attrs.subresource:
            return NO_OPINION, "cannot authorize CSINode subresources"
        if verb != "create" and attrs.name != node:
            return NO_OPINION, f"can only access {what} with the same name as the requesting node"
        return ALLOW, ""

    def _resource_slice(self, node: str, attrs: Attributes) -> tuple[str, str]:
        if attrs.subresource:
            return NO_OPINION, "cannot authorize ResourceSlice subresources"
        verb = attrs.verb
        if verb == "create":
            return ALLOW, ""  # NodeRestriction checks spec.nodeName
        if verb in ("get", "update", "patch", "delete"):
            return self._related(node, g.RESOURCE_SLICE, attrs)
        if verb in ("watch", "list", "deletecollection"):
            if _selector_allows(attrs.field_selector, "spec.nodeName", node) or _selector_allows(
                attrs.field_selector, "nodeName", node
            ):
                return ALLOW, ""
            return NO_OPINION, "can only list/watch/deletecollection resourceslices with nodeName field selector"
        return (
            NO_OPINION,
            "only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection",
        )

    def _node(self, node: str, attrs: Attributes) -> tuple[str, str]:
        verb, sub = attrs.verb, attrs.subresource
        if sub == "":
            if verb in ("create", "update", "patch"):
                return ALLOW, ""  # NodeRestriction limits a node to its own Node object
            if verb in ("get", "list", "watch"):
                if attrs.name == node:
                    return ALLOW, ""
                if not attrs.name:
                    return NO_OPINION, f"node '{node}' cannot read all nodes, only its own Node object"
                return NO_OPINION, f"node '{node}' cannot read '{attrs.name}', only its own Node object"
        elif sub == "status" and verb in ("update", "patch"):
            return ALLOW, ""
        return NO_OPINION, ""

    def _pod(self, node: str, attrs: Attributes) -> tuple[str, str]:
        verb, sub = attrs.verb, attrs.subresource
        if sub == "":
            if verb == "get":
                return self._get(node, g.POD, attrs)
            if verb in ("list", "watch"):
                if _selector_allows(attrs.field_selector, "spec.nodeName", node):
                    return ALLOW, ""
                if attrs.name:
                    return self._related(node, g.POD, attrs)
                return NO_OPINION, "can only list/watch pods with spec.nodeName field selector"
            if verb in ("create", "delete"):
                return ALLOW, ""  # mirror pods; NodeRestriction limits them to the node's own
        elif sub == "status" and verb in ("update", "patch"):
            return ALLOW, ""
        elif sub == "eviction" and verb == "create":
            return ALLOW, ""
        return NO_OPINION, ""


class GraphPopulator:
    """AddGraphEventHandlers: pods (once bound), PVs, VolumeAttachments and ResourceSlices feed the graph."""

    def __init__(self, graph: g.Graph, stores: dict[tuple[str, str, str], Any]) -> None:
        self.graph = graph
        self.cachers: dict[str, Any] = {}
        for resource, keys in (
            ("pods", (("", "v1", "pods"),)),
            ("persistentvolumes", (("", "v1", "persistentvolumes"),)),
            ("volumeattachments", (("storage.k8s.io", "v1", "volumeattachments"),)),
            (
                "resourceslices",
                tuple(("resource.k8s.io", v, "resourceslices") for v in ("v1", "v1beta2", "v1beta1", "v1alpha3")),
            ),
        ):
            cacher = next((cacher_of(stores[k]) for k in keys if k in stores), None)
            if cacher is not None and hasattr(cacher, "watchers"):
                self.cachers[resource] = cacher
        self.informers: list[CacheInformer] = []

    def start(self) -> None:
        handlers = {
            "pods": self._pod_event,
            "persistentvolumes": self._pv_event,
            "volumeattachments": self._attachment_event,
            "resourceslices": self._slice_event,
        }
        for resource, cacher in self.cachers.items():
            self.informers.append(CacheInformer(cacher, handlers[resource], self.resync))
        self.resync()

    def resync(self) -> None:
        self.graph.clear()
        for pod in current_objects(self.cachers.get("pods")):
            self.graph.add_pod(pod)
        for pv in current_objects(self.cachers.get("persistentvolumes")):
            self.graph.add_pv(pv)
        for va in current_objects(self.cachers.get("volumeattachments")):
            self._attachment_event("ADDED", va, None)
        for rs in current_objects(self.cachers.get("resourceslices")):
            self._slice_event("ADDED", rs, None)

    @staticmethod
    def _name(obj: dict[str, Any]) -> tuple[str, str]:
        meta = g._d(obj.get("metadata"))
        return g._s(meta.get("namespace")), g._s(meta.get("name"))

    def _pod_event(self, type_: str, pod: dict[str, Any], prev: dict[str, Any] | None) -> None:
        ns, name = self._name(pod)
        if type_ == "DELETED":
            self.graph.delete_pod(ns, name)
            return
        node = g._s(g._d(pod.get("spec")).get("nodeName"))
        if not node:
            return  # not bound yet: nothing a node may see through it
        if prev is not None:
            old_node = g._s(g._d(prev.get("spec")).get("nodeName"))
            old_claims = g._d(prev.get("status")).get("resourceClaimStatuses")
            if old_node == node and old_claims == g._d(pod.get("status")).get("resourceClaimStatuses"):
                return  # a bound pod's references cannot change
        self.graph.add_pod(pod)

    def _pv_event(self, type_: str, pv: dict[str, Any], _prev: dict[str, Any] | None) -> None:
        if type_ == "DELETED":
            self.graph.delete_pv(self._name(pv)[1])
        else:
            self.graph.add_pv(pv)

    def _attachment_event(self, type_: str, va: dict[str, Any], _prev: dict[str, Any] | None) -> None:
        node = "" if type_ == "DELETED" else g._s(g._d(va.get("spec")).get("nodeName"))
        self.graph.set_node_object(g.VOLUME_ATTACHMENT, self._name(va)[1], node)

    def _slice_event(self, type_: str, rs: dict[str, Any], _prev: dict[str, Any] | None) -> None:
        node = "" if type_ == "DELETED" else g._s(g._d(rs.get("spec")).get("nodeName"))
        self.graph.set_node_object(g.RESOURCE_SLICE, self._name(rs)[1], node)


def new_node_authorizer(stores: dict[tuple[str, str, str], Any]) -> NodeAuthorizer:
    graph = g.Graph()
    populator = GraphPopulator(graph, stores)
    populator.start()
    authorizer = NodeAuthorizer(graph)
    authorizer.populator = populator  # type: ignore[attr-defined]  # kept alive with the authorizer
    return authorizer
