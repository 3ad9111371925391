"""The CRD OpenAPI controllers (apiextensions-apiserver/pkg/controller/openapi and openapiv3): for every
established CRD, the v2 spec and v3 document of each served version, published into the served
/openapi/v2 and /openapi/v3 documents, and withdrawn when the CRD goes (or stops being established).

The CRD handler calls update() from its sync, before it reports the CRD established, so a client that
waits for the Established condition finds its kinds in the OpenAPI (kubectl explain) right away.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol

from kube_apiserver.apiextensions.openapi_builder import build_openapi_v2, build_openapi_v3
from kube_apiserver.apiextensions.structural import is_structural

log = logging.getLogger(__name__)


class Documents(Protocol):
    def set_custom(self, v2: list[dict[str, Any]], v3: dict[str, list[dict[str, Any]]]) -> None: ...


@dataclass
class _Specs:
    key: tuple[Any, ...]  # what the specs were built from: uid, generation, names, versions served
    v2: list[dict[str, Any]]
    v3: dict[str, dict[str, Any]]  # "apis/<group>/<version>" → document


def is_established(crd: dict[str, Any]) -> bool:
    conds = (crd.get("status") or {}).get("conditions") or []
    return any(isinstance(c, dict) and c.get("type") == "Established" and c.get("status") == "True" for c in conds)


def published_schema(crd: dict[str, Any], version: dict[str, Any]) -> dict[str, Any] | None:
    """The schema the builder works from: the version's, when it is structural (else none at all)."""
    schema = (version.get("schema") or {}).get("openAPIV3Schema") if isinstance(version.get("schema"), dict) else None
    if not isinstance(schema, dict) or not is_structural(schema):
        return None
    return schema


class CRDOpenAPIController:
    def __init__(self, documents: Documents | None = None) -> None:
        self.documents = documents
        self.specs: dict[str, _Specs] = {}  # CRD name → its published specs

    def update(self, name: str, crd: dict[str, Any] | None) -> None:
        """Publish crd (the CRD named name as it is now; None when it is gone)."""
        if crd is None or not is_established(crd):
            if self.specs.pop(name, None) is not None:
                self._publish()
            return
        meta = crd.get("metadata") or {}
        spec = crd.get("spec") or {}
        key = (meta.get("uid"), meta.get("generation"), repr(spec.get("names")), spec.get("group"))
        old = self.specs.get(name)
        if old is not None and old.key == key:
            return
        v2: list[dict[str, Any]] = []
        v3: dict[str, dict[str, Any]] = {}
        try:
            for version in spec.get("versions") or []:
                if not isinstance(version, dict) or not version.get("served"):
                    continue
                vname = str(version.get("name", ""))
                schema = published_schema(crd, version)
                v2.append(build_openapi_v2(crd, vname, schema))
                v3[f"apis/{spec.get('group', '')}/{vname}"] = build_openapi_v3(crd, vname, schema)
        except Exception:  # noqa: BLE001 - a CRD kube would not publish must not stop the controller
            log.exception("crd %s: building its OpenAPI failed", name)
            return
        self.specs[name] = _Specs(key, v2, v3)
        self._publish()

    def _publish(self) -> None:
        if self.documents is None:
            return
        v2: list[dict[str, Any]] = []
        v3: dict[str, list[dict[str, Any]]] = {}
        for name in sorted(self.specs):
            entry = self.specs[name]
            v2.extend(entry.v2)
            for key, doc in entry.v3.items():
                v3.setdefault(key, []).append(doc)
        self.documents.set_custom(v2, v3)

    def attach(self, documents: Documents) -> None:
        """The served documents exist only once the whole server is assembled."""
        self.documents = documents
        self._publish()
