"""RequestInfo from method, path and query, as requestinfo.go reads them."""

from __future__ import annotations

import pytest

from kube_apiserver.endpoints.request import Request
from kube_apiserver.endpoints.request_info import RequestInfo, new_request_info


def info_of(method: str, path: str, query: bytes = b"") -> RequestInfo:
    return new_request_info(
        Request({"type": "http", "method": method, "path": path, "query_string": query}, None, None)
    )


@pytest.mark.parametrize(
    ("method", "path", "query", "verb", "namespace", "resource", "name", "subresource"),
    [
        ("POST", "/api/v1/namespaces/default/configmaps", b"", "create", "default", "configmaps", "", ""),
        ("GET", "/api/v1/namespaces/default/configmaps", b"", "list", "default", "configmaps", "", ""),
        ("GET", "/api/v1/namespaces/default/configmaps", b"watch=true", "watch", "default", "configmaps", "", ""),
        (
            "GET",
            "/api/v1/namespaces/default/configmaps",
            b"watch=1&fieldSelector=metadata.name%3Dc",
            "watch",
            "default",
            "configmaps",
            "c",
            "",
        ),
        ("GET", "/api/v1/watch/namespaces/default/configmaps/c", b"", "watch", "default", "configmaps", "c", ""),
        ("GET", "/api/v1/namespaces/default/configmaps/c", b"", "get", "default", "configmaps", "c", ""),
        ("PUT", "/apis/apps/v1/namespaces/ns/deployments/d/status", b"", "update", "ns", "deployments", "d", "status"),
        ("DELETE", "/api/v1/namespaces/default/pods", b"", "deletecollection", "default", "pods", "", ""),
        ("PUT", "/api/v1/namespaces/ns/finalize", b"", "update", "ns", "namespaces", "ns", "finalize"),
    ],
)
def test_request_info_fields(
    method: str, path: str, query: bytes, verb: str, namespace: str, resource: str, name: str, subresource: str
) -> None:
    for _ in range(2):  # the second time from the cache, where the method and path decide alone
        info = info_of(method, path, query)
        assert info.is_resource_request
        assert (info.verb, info.namespace, info.resource, info.name, info.subresource) == (
            verb,
            namespace,
            resource,
            name,
            subresource,
        )


def test_lists_and_watches_of_one_path_read_the_query_every_time() -> None:
    path = "/api/v1/namespaces/default/secrets"
    assert info_of("GET", path, b"watch=true").verb == "watch"
    assert info_of("GET", path).verb == "list"
    assert info_of("GET", path, b"watch=true").verb == "watch"


def test_non_resource_requests() -> None:
    info = info_of("GET", "/healthz")
    assert not info.is_resource_request and info.verb == "get" and info.path == "/healthz"
    assert not info_of("GET", "/apis/apps/v1").is_resource_request
