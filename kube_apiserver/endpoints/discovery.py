"""Discovery documents (endpoints/discovery and discovery/aggregated).

Legacy: /api (APIVersions), /apis (APIGroupList), /apis/<g> (APIGroup), /api/v1 and /apis/<g>/<v>
(APIResourceList). Aggregated (apidiscovery.k8s.io v2 and v2beta1, chosen by Accept): /api and /apis
answer APIGroupDiscoveryList with every resource of every version in one document.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from typing import Any

from kube_apiserver.registry.resource_spec import ResourceSpec


def storage_version_hash(group: str, version: str, kind: str) -> str:
    """discovery.StorageVersionHash: 8 bytes of sha256 over "<group>/<version>/<kind>" of the stored kind
    (the core group's starts with the "/")."""
    digest = hashlib.sha256(f"{group}/{version}/{kind}".encode()).digest()
    return base64.b64encode(digest[:8]).decode()


@dataclass
class GroupInfo:
    """A group as discovery shows it: versions in preference order (the first is preferred)."""

    name: str
    versions: list[str] = field(default_factory=list)
    resources: dict[str, list[ResourceSpec]] = field(default_factory=dict)  # version → its resources

    def group_versions(self) -> list[dict[str, str]]:
        return [{"groupVersion": _gv(self.name, v), "version": v} for v in self.versions]

    def api_group(self) -> dict[str, Any]:
        gvs = self.group_versions()
        return {"name": self.name, "versions": gvs, "preferredVersion": gvs[0]}


def _gv(group: str, version: str) -> str:
    return f"{group}/{version}" if group else version


def api_versions(server_address: str) -> dict[str, Any]:
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
    }


def api_group_list(groups: list[GroupInfo]) -> dict[str, Any]:
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": [g.api_group() for g in groups]}


def api_group(group: GroupInfo) -> dict[str, Any]:
    return {"kind": "APIGroup", "apiVersion": "v1", **group.api_group()}


def api_resource_list(group: str, version: str, specs: list[ResourceSpec]) -> dict[str, Any]:
    resources: list[dict[str, Any]] = []
    for spec in specs:
        entry: dict[str, Any] = {
            "name": spec.resource,
            "singularName": spec.singular_name,
            "namespaced": spec.namespaced,
            "kind": spec.kind,
            "verbs": list(spec.verbs),
        }
        if spec.short_names:
            entry["shortNames"] = list(spec.short_names)
        if spec.categories:
            entry["categories"] = list(spec.categories)
        stored = spec.storage_group_version_kind
        if stored is not None:
            entry["storageVersionHash"] = storage_version_hash(*stored)
        resources.append(entry)
        for sub in spec.subresources:
            sub_entry: dict[str, Any] = {
                "name": f"{spec.resource}/{sub.name}",
                "singularName": "",
                "namespaced": spec.namespaced,
            }
            if sub.group or sub.version:
                sub_entry["group"] = sub.group
                sub_entry["version"] = sub.version
            sub_entry["kind"] = sub.kind
            sub_entry["verbs"] = list(sub.verbs)
            resources.append(sub_entry)
    out: dict[str, Any] = {"kind": "APIResourceList"}
    if group:  # the core group's list is written unversioned (stripVersionNegotiatedSerializer)
        out["apiVersion"] = "v1"
    out["groupVersion"] = _gv(group, version)
    out["resources"] = resources
    return out


def _discovery_resource(spec: ResourceSpec) -> dict[str, Any]:
    # ConvertGroupVersionIntoToDiscovery copies the legacy APIResource's group and version, which are empty
    # for a kind of the resource's own group version; the CRD discovery controller names them
    group, version = (spec.group, spec.version) if spec.custom else ("", "")
    out: dict[str, Any] = {
        "resource": spec.resource,
        "responseKind": {"group": group, "version": version, "kind": spec.kind},
        "scope": "Namespaced" if spec.namespaced else "Cluster",
        "singularResource": spec.singular_name,
        "verbs": list(spec.verbs),
    }
    if spec.short_names:
        out["shortNames"] = list(spec.short_names)
    if spec.categories:
        out["categories"] = list(spec.categories)
    if spec.subresources:
        out["subresources"] = [
            {
                "subresource": sub.name,
                "responseKind": {
                    "group": sub.group if (sub.group or sub.version) else group,
                    "version": sub.version or version,
                    "kind": sub.kind,
                },
                "verbs": list(sub.verbs),
            }
            for sub in spec.subresources
        ]
    return out


def aggregated_discovery(groups: list[GroupInfo], version: str) -> dict[str, Any]:
    items = []
    for g in groups:
        versions = []
        for v in g.versions:
            versions.append(
                {
                    "version": v,
                    "resources": [
                        _discovery_resource(s) for s in sorted(g.resources.get(v, []), key=lambda s: s.resource)
                    ],
                    "freshness": "Current",
                }
            )
        # ObjectMeta's name is omitempty: the legacy core group, whose name is "", has none
        metadata: dict[str, Any] = {"name": g.name} if g.name else {}
        metadata["creationTimestamp"] = None
        items.append({"metadata": metadata, "versions": versions})
    return {
        "kind": "APIGroupDiscoveryList",
        "apiVersion": f"apidiscovery.k8s.io/{version}",
        "metadata": {},
        "items": items,
    }


def aggregated_content_type(version: str) -> str:
    return f"application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList"
