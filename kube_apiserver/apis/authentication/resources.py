"""authentication.k8s.io/v1 as kube-apiserver 1.33's discovery lists it: virtual, create-only reviews."""

from __future__ import annotations

from kube_apiserver.apis.common import CREATE_ONLY
from kube_apiserver.registry.resource_spec import ResourceSpec

GROUP = "authentication.k8s.io"
VERSION = "v1"

RESOURCES: list[ResourceSpec] = [
    ResourceSpec(GROUP, VERSION, "selfsubjectreviews", "SelfSubjectReview", False, verbs=CREATE_ONLY),
    ResourceSpec(GROUP, VERSION, "tokenreviews", "TokenReview", False, verbs=CREATE_ONLY),
]
