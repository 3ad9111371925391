"""OpenAPI v2 and v3 documents of the installed API, served as kube-apiserver serves them."""

from kube_apiserver.endpoints.openapi.documents import CachedDocument, OpenAPIDocuments, build_v2, build_v3
from kube_apiserver.endpoints.openapi.handler import make_handlers

__all__ = ["CachedDocument", "OpenAPIDocuments", "build_v2", "build_v3", "make_handlers"]
