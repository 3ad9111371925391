"""The node authorizer's graph (plugin/pkg/auth/authorizer/node/graph.go): vertices are objects (pods, secrets,
configmaps, service accounts, PVCs, PVs, resource claims, volume attachments, resource slices, nodes), an edge
A -> B says "whoever may see B may see A". A node may read an object when a path leads from the object to the
node, without passing through another node.

Pod edges are immutable once a pod is bound, so a pod's vertex is rebuilt whole on each add; a vertex left
without edges is dropped, so the graph holds only what some bound pod, PV, attachment or slice needs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

Vertex = tuple[str, str, str]  # (type, namespace, name)

NODE, POD, SECRET, CONFIGMAP, SERVICE_ACCOUNT = "node", "pod", "secret", "configmap", "serviceAccount"
PVC, PV, RESOURCE_CLAIM, VOLUME_ATTACHMENT, RESOURCE_SLICE = "pvc", "pv", "resourceclaim", "volumeattachment", "slice"
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"

# Volume sources that name a secret in the pod's namespace, and where the name is (podutil.VisitPodSecretNames).
_SECRET_VOLUME_REFS = (
    ("azureFile", ("secretName",)),
    ("cephfs", ("secretRef", "name")),
    ("cinder", ("secretRef", "name")),
    ("flexVolume", ("secretRef", "name")),
    ("rbd", ("secretRef", "name")),
    ("secret", ("secretName",)),
    ("scaleIO", ("secretRef", "name")),
    ("iscsi", ("secretRef", "name")),
    ("storageos", ("secretRef", "name")),
    ("csi", ("nodePublishSecretRef", "name")),
)
# PV sources with the secrets a kubelet reads (pvutil.VisitPVSecretNames, kubeletVisible only).
_PV_SECRET_REFS = (
    ("azureFile", "secretName", "secretNamespace"),
    ("cephfs", "secretRef", None),
    ("cinder", "secretRef", None),
    ("flexVolume", "secretRef", None),
    ("rbd", "secretRef", None),
    ("scaleIO", "secretRef", None),
    ("iscsi", "secretRef", None),
    ("storageos", "secretRef", None),
    ("csi", "nodePublishSecretRef", None),
    ("csi", "nodeStageSecretRef", None),
    ("csi", "nodeExpandSecretRef", None),
)


def _d(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _l(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _s(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _dig(obj: dict[str, Any], path: tuple[str, ...]) -> str:
    cur: Any = obj
    for key in path:
        cur = _d(cur).get(key)
    return _s(cur)


def _containers(spec: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for c in _l(spec.get(key)):
            if isinstance(c, dict):
                yield c


def pod_secret_names(spec: dict[str, Any]) -> set[str]:
    names = {_s(_d(r).get("name")) for r in _l(spec.get("imagePullSecrets"))}
    for c in _containers(spec):
        for env in _l(c.get("env")):
            names.add(_dig(_d(env), ("valueFrom", "secretKeyRef", "name")))
        for src in _l(c.get("envFrom")):
            names.add(_dig(_d(src), ("secretRef", "name")))
    for v in _l(spec.get("volumes")):
        v = _d(v)
        for source, path in _SECRET_VOLUME_REFS:
            if source in v:
                names.add(_dig(_d(v[source]), path))
        for proj in _l(_d(v.get("projected")).get("sources")):
            names.add(_dig(_d(proj), ("secret", "name")))
    names.discard("")
    return names


def pod_configmap_names(spec: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    for c in _containers(spec):
        for env in _l(c.get("env")):
            names.add(_dig(_d(env), ("valueFrom", "configMapKeyRef", "name")))
        for src in _l(c.get("envFrom")):
            names.add(_dig(_d(src), ("configMapRef", "name")))
    for v in _l(spec.get("volumes")):
        v = _d(v)
        names.add(_dig(v, ("configMap", "name")))
        for proj in _l(_d(v.get("projected")).get("sources")):
            names.add(_dig(_d(proj), ("configMap", "name")))
    names.discard("")
    return names


def pod_claim_names(pod: dict[str, Any]) -> set[str]:
    """PVCs of the pod: persistentVolumeClaim volumes, and generic ephemeral volumes (<pod>-<volume>)."""
    spec = _d(pod.get("spec"))
    pod_name = _s(_d(pod.get("metadata")).get("name"))
    names: set[str] = set()
    for v in _l(spec.get("volumes")):
        v = _d(v)
        if "persistentVolumeClaim" in v:
            names.add(_dig(v, ("persistentVolumeClaim", "claimName")))
        elif "ephemeral" in v:
            names.add(f"{pod_name}-{_s(v.get('name'))}")
    names.discard("")
    return names


def pod_resource_claim_names(pod: dict[str, Any]) -> set[str]:
    """resourceclaim.Name: a claim named directly, or the one generated from a template (once the status says)."""
    spec, status = _d(pod.get("spec")), _d(pod.get("status"))
    generated = {
        _s(_d(s).get("name")): _s(_d(s).get("resourceClaimName")) for s in _l(status.get("resourceClaimStatuses"))
    }
    names: set[str] = set()
    for claim in _l(spec.get("resourceClaims")):
        claim = _d(claim)
        if _s(claim.get("resourceClaimName")):
            names.add(claim["resourceClaimName"])
        elif _s(claim.get("resourceClaimTemplateName")):
            names.add(generated.get(_s(claim.get("name")), ""))
    names.discard("")
    return names


def pv_secret_refs(pv: dict[str, Any]) -> set[tuple[str, str]]:
    spec = _d(pv.get("spec"))
    claim_ns = _s(_d(spec.get("claimRef")).get("namespace"))
    refs: set[tuple[str, str]] = set()
    for source, ref_key, ns_key in _PV_SECRET_REFS:
        src = _d(spec.get(source))
        if not src:
            continue
        if ns_key is not None:  # azureFile: the name and namespace sit on the source itself
            name, ns = _s(src.get(ref_key)), _s(src.get(ns_key)) or claim_ns
        else:
            ref = _d(src.get(ref_key))
            name, ns = _s(ref.get("name")), _s(ref.get("namespace")) or claim_ns
        if name:
            refs.add((ns, name))
    return refs


class Graph:
    def __init__(self) -> None:
        self.out: dict[Vertex, set[Vertex]] = {}
        self.into: dict[Vertex, set[Vertex]] = {}

    def _add_edge(self, src: Vertex, dst: Vertex) -> None:
        self.out.setdefault(src, set()).add(dst)
        self.into.setdefault(dst, set()).add(src)

    def _drop_if_orphan(self, v: Vertex) -> None:
        if not self.out.get(v) and not self.into.get(v):
            self.out.pop(v, None)
            self.into.pop(v, None)

    def delete_vertex(self, v: Vertex) -> None:
        """Remove v with its edges; neighbours left without edges go too (deleteVertexLocked)."""
        for src in self.into.pop(v, set()):
            self.out.get(src, set()).discard(v)
            self._drop_if_orphan(src)
        for dst in self.out.pop(v, set()):
            self.into.get(dst, set()).discard(v)
            self._drop_if_orphan(dst)

    def clear(self) -> None:
        self.out.clear()
        self.into.clear()

    # --- the populators' operations (AddPod, AddPV, AddVolumeAttachment, AddResourceSlice) ---

    def add_pod(self, pod: dict[str, Any]) -> None:
        meta, spec = _d(pod.get("metadata")), _d(pod.get("spec"))
        ns, name, node = _s(meta.get("namespace")), _s(meta.get("name")), _s(spec.get("nodeName"))
        pod_v: Vertex = (POD, ns, name)
        self.delete_vertex(pod_v)
        if not node:
            return
        self._add_edge(pod_v, (NODE, "", node))
        # A node must never gain access to other objects by making a (mirror) pod that names them.
        if MIRROR_POD_ANNOTATION in _d(meta.get("annotations")):
            return
        sa = _s(spec.get("serviceAccountName"))
        if sa:
            self._add_edge((SERVICE_ACCOUNT, ns, sa), pod_v)
        for secret in pod_secret_names(spec):
            self._add_edge((SECRET, ns, secret), pod_v)
        for cm in pod_configmap_names(spec):
            self._add_edge((CONFIGMAP, ns, cm), pod_v)
        for claim in pod_claim_names(pod):
            self._add_edge((PVC, ns, claim), pod_v)
        for claim in pod_resource_claim_names(pod):
            self._add_edge((RESOURCE_CLAIM, ns, claim), pod_v)

    def delete_pod(self, namespace: str, name: str) -> None:
        self.delete_vertex((POD, namespace, name))

    def add_pv(self, pv: dict[str, Any]) -> None:
        name = _s(_d(pv.get("metadata")).get("name"))
        pv_v: Vertex = (PV, "", name)
        self.delete_vertex(pv_v)
        claim = _d(_d(pv.get("spec")).get("claimRef"))
        if not claim:
            return
        self._add_edge(pv_v, (PVC, _s(claim.get("namespace")), _s(claim.get("name"))))
        for ns, secret in pv_secret_refs(pv):
            self._add_edge((SECRET, ns, secret), pv_v)

    def delete_pv(self, name: str) -> None:
        self.delete_vertex((PV, "", name))

    def set_node_object(self, kind: str, name: str, node: str) -> None:
        """An attachment or slice bound to a node (or to none)."""
        v: Vertex = (kind, "", name)
        self.delete_vertex(v)
        if node:
            self._add_edge(v, (NODE, "", node))

    # --- the query ---

    def has_path(self, start: Vertex, node: str) -> bool:
        """hasPathFrom: a path from start to the node's vertex that does not go through other nodes."""
        target: Vertex = (NODE, "", node)
        if target not in self.into or start not in self.out:
            return False
        seen = {start}
        stack = [start]
        while stack:
            v = stack.pop()
            for nxt in self.out.get(v, ()):
                if nxt == target:
                    return True
                if nxt[0] == NODE or nxt in seen:
                    continue
                seen.add(nxt)
                stack.append(nxt)
        return False
