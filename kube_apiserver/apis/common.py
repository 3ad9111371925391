"""Small builders shared by the groups' resource tables."""

from __future__ import annotations

from kube_apiserver.registry.resource_spec import SubresourceSpec

# Verb lists exactly as discovery shows them.
GET_PATCH_UPDATE: tuple[str, ...] = ("get", "patch", "update")
CREATE_ONLY: tuple[str, ...] = ("create",)
CONNECT_GET: tuple[str, ...] = ("create", "get")  # attach, exec, portforward
PROXY_VERBS: tuple[str, ...] = ("create", "delete", "get", "patch", "update")
# namespaces have no deletecollection
NAMESPACE_VERBS: tuple[str, ...] = ("create", "delete", "get", "list", "patch", "update", "watch")

ALL: tuple[str, ...] = ("all",)
API_EXTENSIONS: tuple[str, ...] = ("api-extensions",)


def status(kind: str) -> SubresourceSpec:
    """The /status subresource of a resource of the given kind."""
    return SubresourceSpec(name="status", kind=kind, verbs=GET_PATCH_UPDATE)


def scale() -> SubresourceSpec:
    """The /scale subresource: autoscaling/v1 Scale."""
    return SubresourceSpec(name="scale", kind="Scale", verbs=GET_PATCH_UPDATE, group="autoscaling", version="v1")
