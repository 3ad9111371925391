"""Deprecated custom resource versions (CRD spec.versions[*].deprecated / deprecationWarning): every
request to such a version gets a Warning header, the CRD's own text or kube's default one
(crdHandler.ServeHTTP with defaultDeprecationWarning)."""

from __future__ import annotations

import re
from typing import Any

from kube_apiserver.endpoints.installer import APIGroupVersion
from kube_apiserver.endpoints.request import Request
from kube_apiserver.endpoints.request_info import RequestInfo


def version_priority(version: str) -> tuple[int, int, int, str]:
    """CompareKubeAwareVersionStrings as a sort key: GA > beta > alpha, higher numbers first, then other
    names in lexical order (smaller is newer)."""
    m = re.match(r"^v(\d+)(?:(alpha|beta)(\d+))?$", version)
    if not m:
        return (3, 0, 0, version)
    stability = {None: 0, "beta": 1, "alpha": 2}[m.group(2)]
    return (stability, -int(m.group(1)), -int(m.group(3) or 0), "")


def default_deprecation_warning(version: str, spec: dict[str, Any]) -> str:
    """'<group>/<version> <Kind> is deprecated', naming the newest served, non-deprecated newer version."""
    group = spec.get("group", "")
    kind = (spec.get("names") or {}).get("kind", "")
    msg = f"{group}/{version} {kind} is deprecated"
    newer = [
        str(v.get("name", ""))
        for v in spec.get("versions") or []
        if isinstance(v, dict)
        and v.get("served")
        and not v.get("deprecated")
        and version_priority(str(v.get("name", ""))) < version_priority(version)
    ]
    if newer:
        msg += f"; use {group}/{min(newer, key=version_priority)} {kind}"
    return msg


def deprecation_warning(version: dict[str, Any], spec: dict[str, Any]) -> str | None:
    if not version.get("deprecated"):
        return None
    text = version.get("deprecationWarning")
    return text if isinstance(text, str) else default_deprecation_warning(str(version.get("name", "")), spec)


class CustomResourceGroupVersion(APIGroupVersion):
    """A group-version of custom resources: the routes, plus each deprecated resource's Warning."""

    def __init__(self, group: str, version: str) -> None:
        super().__init__(group, version)
        self.warnings: dict[str, str] = {}  # resource (plural) → its deprecation warning

    async def serve(self, req: Request, info: RequestInfo) -> bool:
        text = self.warnings.get(info.resource)
        if text is not None and info.resource in self.resources:
            req.add_warning(text)
        return await super().serve(req, info)
