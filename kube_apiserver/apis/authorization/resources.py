"""authorization.k8s.io/v1 as kube-apiserver 1.33's discovery lists it: virtual, create-only reviews."""

from __future__ import annotations

from kube_apiserver.apis.common import CREATE_ONLY
from kube_apiserver.registry.resource_spec import ResourceSpec

GROUP = "authorization.k8s.io"
VERSION = "v1"

RESOURCES: list[ResourceSpec] = [
    ResourceSpec(GROUP, VERSION, "localsubjectaccessreviews", "LocalSubjectAccessReview", True, verbs=CREATE_ONLY),
    ResourceSpec(GROUP, VERSION, "selfsubjectaccessreviews", "SelfSubjectAccessReview", False, verbs=CREATE_ONLY),
    ResourceSpec(GROUP, VERSION, "selfsubjectrulesreviews", "SelfSubjectRulesReview", False, verbs=CREATE_ONLY),
    ResourceSpec(GROUP, VERSION, "subjectaccessreviews", "SubjectAccessReview", False, verbs=CREATE_ONLY),
]
