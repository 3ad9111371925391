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

    def __init__(self, body: bytes, content_type: str = "application/json") -> None:
        self.body = body
        self.etag = hashlib.sha512(body).hexdigest().upper()
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
        out[key] = {
            "components": {"schemas": closure(roots, definitions, V3_REF_PREFIX), "securitySchemes": BEARER_TOKEN},
            "info": INFO,
            "openapi": "3.0.0",
            "paths": paths,
        }
    return out


class OpenAPIDocuments:
    """The served documents, each built on first use and then served from memory."""

    def __init__(self, group_versions: dict[str, list[ResourceSpec]]) -> None:
        self.group_versions = group_versions
        self._lock = threading.Lock()
        self._v2: CachedDocument | None = None
        self._v2_proto: CachedDocument | None = None
        self._v3_index: CachedDocument | None = None
        self._v3: dict[str, CachedDocument] | None = None

    def v2(self) -> CachedDocument:
        if self._v2 is None:
            with self._lock:
                if self._v2 is None:
                    self._v2 = CachedDocument(_dumps(build_v2(self.group_versions)))
        return self._v2

    def v2_proto(self) -> CachedDocument:
        if self._v2_proto is None:
            from kube_apiserver.endpoints.openapi.proto_v2 import encode_document

            doc = orjson.loads(self.v2().body)
            with self._lock:
                if self._v2_proto is None:
                    body = encode_document(doc)
                    self._v2_proto = CachedDocument(body, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf")
        return self._v2_proto

    def _build_v3(self) -> dict[str, CachedDocument]:
        if self._v3 is None:
            with self._lock:
                if self._v3 is None:
                    docs = {k: CachedDocument(_dumps(d)) for k, d in build_v3(self.group_versions).items()}
                    index = {
                        "paths": {
                            k: {"serverRelativeURL": f"/openapi/v3/{k}?hash={d.etag}"} for k, d in sorted(docs.items())
                        }
                    }
                    self._v3_index = CachedDocument(_dumps(index))
                    self._v3 = docs
        return self._v3

    def v3_index(self) -> CachedDocument:
        self._build_v3()
        assert self._v3_index is not None
        return self._v3_index

    def v3(self, key: str) -> CachedDocument | None:
        return self._build_v3().get(key)
