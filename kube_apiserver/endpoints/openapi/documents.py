"""The OpenAPI documents of the installed API: /openapi/v2 (one swagger document) and /openapi/v3
(an index and one document per group-version, plus the discovery roots and /version), each built
once, on first use, and kept as bytes with its ETag (kube-openapi's cached.Value).
"""

from __future__ import annotations

import gzip
import hashlib
import threading
import time
from email.utils import formatdate
from typing import Any

import orjson

from kube_apiserver.endpoints.openapi import routes
from kube_apiserver.endpoints.openapi.render import (
    V2Params,
    closure,
    path_item_v2,
    path_item_v3,
    referenced,
)
from kube_apiserver.endpoints.openapi.resource_routes import resource_paths
from kube_apiserver.registry.resource_spec import ResourceSpec
from kube_apiserver.runtime.schema.definitions import (
    KUBERNETES_VERSION,
    QUANTITY,
    V2_REF_PREFIX,
    V3_REF_PREFIX,
    openapi_definitions,
)

INFO = {"title": "Kubernetes", "version": KUBERNETES_VERSION}
BEARER_TOKEN = {
    "BearerToken": {
        "description": "Bearer Token authentication",
        "in": "header",
        "name": "authorization",
        "type": "apiKey",
    }
}
# gziphandler.DefaultMinSize: smaller bodies are not worth compressing.
GZIP_MIN_SIZE = 1400


class CachedDocument:
    """A document's bytes, its ETag (upper-case hex SHA-512, unquoted) and, made on demand, its gzip."""

    __slots__ = ("body", "etag", "content_type", "last_modified", "_gzip", "_lock")

    def __init__(self, body: bytes, content_type: str = "application/json", etag: str = "") -> None:
        self.body = body
        # (a document served in another form keeps the ETag of its JSON, as kube-openapi computes it)
        self.etag = etag or hashlib.sha512(body).hexdigest().upper()
        self.content_type = content_type
        self.last_modified = formatdate(time.time(), usegmt=True)
        self._gzip: bytes | None = None
        self._lock = threading.Lock()

    def gzipped(self) -> bytes:
        if self._gzip is None:
            with self._lock:
                if self._gzip is None:
                    self._gzip = gzip.compress(self.body, compresslevel=6, mtime=0)
        return self._gzip


def _dumps(doc: dict[str, Any]) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)


def _paths_by_document(group_versions: dict[str, list[ResourceSpec]]) -> dict[str, dict[str, routes.PathItem]]:
    """v3 document key ("api", "api/v1", "apis", "apis/apps", "apis/apps/v1", "version") → its paths."""
    docs: dict[str, dict[str, routes.PathItem]] = {
        "api": {"/api/": routes.legacy_root()},
        "apis": {"/apis/": routes.apis_root()},
        "version": {"/version/": routes.version_path()},
        **{key: {item.path: item} for key, item in routes.issuer_discovery_paths().items()},
    }
    for key, specs in group_versions.items():
        parts = key.split("/")
        group, version = ("", parts[1]) if parts[0] == "api" else (parts[1], parts[2])
        if group:
            docs.setdefault(f"apis/{group}", {f"/apis/{group}/": routes.group_root(group)})
        paths: dict[str, routes.PathItem] = {}
        root = routes.group_version_root(group, version)
        paths[root.path] = root
        for spec in specs:
            for path, item in resource_paths(spec).items():
                if path in paths:
                    paths[path].operations.extend(item.operations)
                else:
                    paths[path] = item
        docs[key] = paths
    return docs


def _v2_definitions() -> dict[str, Any]:
    defs = dict(openapi_definitions(V2_REF_PREFIX))
    # kube's v2 Quantity is a plain string; the "quantity" format is the structural engine's marker.
    defs[QUANTITY] = {k: v for k, v in defs[QUANTITY].items() if k != "format"}
    return defs


def build_v2(group_versions: dict[str, list[ResourceSpec]]) -> dict[str, Any]:
    params = V2Params()
    paths: dict[str, Any] = {}
    for doc_paths in _paths_by_document(group_versions).values():
        for path, item in doc_paths.items():
            paths[path] = path_item_v2(item, params)
    roots: set[str] = set()
    referenced(paths, V2_REF_PREFIX, roots)
    referenced(params.shared, V2_REF_PREFIX, roots)
    return {
        "definitions": closure(roots, _v2_definitions(), V2_REF_PREFIX),
        "info": INFO,
        "parameters": dict(sorted(params.shared.items())),
        "paths": dict(sorted(paths.items())),
        "security": [{"BearerToken": []}],
        "securityDefinitions": BEARER_TOKEN,
        "swagger": "2.0",
    }


def build_v3(group_versions: dict[str, list[ResourceSpec]]) -> dict[str, dict[str, Any]]:
    """One document per v3 key."""
    definitions = openapi_definitions(V3_REF_PREFIX)
    out: dict[str, dict[str, Any]] = {}
    for key, doc_paths in _paths_by_document(group_versions).items():
        paths = {path: path_item_v3(item) for path, item in sorted(doc_paths.items())}
        roots: set[str] = set()
        referenced(paths, V3_REF_PREFIX, roots)
        components: dict[str, Any] = {"schemas": closure(roots, definitions, V3_REF_PREFIX)}
        if any(op.authenticated for item in doc_paths.values() for op in item.operations):
            components["securitySchemes"] = BEARER_TOKEN
        else:  # (an empty schemas map is left out, as Go's omitempty does)
            components = {k: v for k, v in components.items() if v}
        out[key] = {
            "components": components,
            "info": INFO,
            "openapi": "3.0.0",
            "paths": paths,
        }
    return out


class OpenAPIDocuments:
    """The served documents, each built on first use and then served from memory.

    Custom resources come and go: set_custom() replaces what the CRD OpenAPI controllers publish
    (per CRD version a v2 spec and a v3 document). /openapi/v2 is then the built-in document with the
    custom paths, parameters and definitions merged in (built-in ones win, as kube's MergeSpecs does),
    and every custom group-version is a v3 document of its own in the index, with a new hash.
    """

    def __init__(self, group_versions: dict[str, list[ResourceSpec]]) -> None:
        self.group_versions = group_versions
        self._lock = threading.Lock()
        self._static_v2: CachedDocument | None = None
        self._v2: CachedDocument | None = None
        self._v2_proto: CachedDocument | None = None
        self._v3_index: CachedDocument | None = None
        self._static_v3: dict[str, CachedDocument] | None = None
        self._v3: dict[str, CachedDocument] | None = None
        self._custom_v2: list[dict[str, Any]] = []
        self._custom_v3: dict[str, list[dict[str, Any]]] = {}

    def set_custom(self, v2: list[dict[str, Any]], v3: dict[str, list[dict[str, Any]]]) -> None:
        """Publish these custom specs from now on: v2 specs to merge, v3 documents per "apis/<g>/<v>"."""
        with self._lock:
            self._custom_v2, self._custom_v3 = list(v2), dict(v3)
            self._v2 = self._v2_proto = None
            self._v3 = self._v3_index = None

    def _static_v2_doc(self) -> CachedDocument:
        if self._static_v2 is None:
            with self._lock:
                if self._static_v2 is None:
                    self._static_v2 = CachedDocument(_dumps(build_v2(self.group_versions)))
        return self._static_v2

    def v2(self) -> CachedDocument:
        doc = self._v2
        if doc is None:
            static = self._static_v2_doc()
            with self._lock:
                custom = self._custom_v2
                if self._v2 is None:
                    self._v2 = (
                        static if not custom else CachedDocument(_dumps(merge_v2(orjson.loads(static.body), custom)))
                    )
                doc = self._v2
        return doc

    def v2_proto(self) -> CachedDocument:
        doc = self._v2_proto
        if doc is None:
            from kube_apiserver.endpoints.openapi.proto_v2 import encode_document

            source = self.v2()
            body = encode_document(orjson.loads(source.body))
            with self._lock:
                if self._v2 is source:  # not replaced by set_custom() meanwhile
                    self._v2_proto = CachedDocument(
                        body, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf", source.etag
                    )
                    doc = self._v2_proto
            if doc is None:
                return self.v2_proto()
        return doc

    def _build_v3(self) -> dict[str, CachedDocument]:
        docs = self._v3
        if docs is None:
            if self._static_v3 is None:
                with self._lock:
                    if self._static_v3 is None:
                        built = build_v3(self.group_versions)
                        self._static_v3 = {k: CachedDocument(_dumps(d)) for k, d in built.items()}
            with self._lock:
                if self._v3 is None:
                    assert self._static_v3 is not None
                    merged = dict(self._static_v3)
                    for key, specs in self._custom_v3.items():
                        base = [orjson.loads(merged[key].body)] if key in merged else []
                        merged[key] = CachedDocument(_dumps(merge_v3([*base, *specs])))
                    index = {
                        "paths": {
                            k: {"serverRelativeURL": f"/openapi/v3/{k}?hash={d.etag}"}
                            for k, d in sorted(merged.items())
                        }
                    }
                    self._v3_index = CachedDocument(_dumps(index))
                    self._v3 = merged
                docs = self._v3
        return docs

    def v3_index(self) -> CachedDocument:
        while True:
            self._build_v3()
            index = self._v3_index
            if index is not None:
                return index

    def v3(self, key: str) -> CachedDocument | None:
        return self._build_v3().get(key)


def merge_v2(static: dict[str, Any], custom: list[dict[str, Any]]) -> dict[str, Any]:
    """MergeSpecs: the custom specs' paths, parameters and definitions added to the built-in document,
    which keeps its own where both have one (a CRD cannot replace a built-in path or type)."""
    for key in ("paths", "definitions", "parameters"):
        merged = dict(static.get(key) or {})
        for spec in custom:
            for name, value in (spec.get(key) or {}).items():
                merged.setdefault(name, value)
        static[key] = merged
    return static


def merge_v3(specs: list[dict[str, Any]]) -> dict[str, Any]:
    """MergeSpecsV3: one group-version's documents as one (the first one's info)."""
    first = specs[0]
    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {}
    for spec in specs:
        for name, value in (spec.get("paths") or {}).items():
            paths.setdefault(name, value)
        for name, value in ((spec.get("components") or {}).get("schemas") or {}).items():
            schemas.setdefault(name, value)
    components = dict(first.get("components") or {})
    components["schemas"] = schemas
    return {**first, "components": components, "paths": paths}
