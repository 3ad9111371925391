"""admissionregistration.k8s.io/v1 as kube-apiserver 1.33's discovery lists it.

ValidatingAdmissionPolicy(Binding) are GA since 1.30; MutatingAdmissionPolicy is not GA in 1.33.
"""

from __future__ import annotations

from kube_apiserver.apis.admissionregistration.printers import (
    MUTATING_WEBHOOK_PRINTER,
    VALIDATING_ADMISSION_POLICY_BINDING_PRINTER,
    VALIDATING_ADMISSION_POLICY_PRINTER,
    VALIDATING_WEBHOOK_PRINTER,
)
from kube_apiserver.apis.common import API_EXTENSIONS, status
from kube_apiserver.registry.resource_spec import ResourceSpec

GROUP = "admissionregistration.k8s.io"
VERSION = "v1"

RESOURCES: list[ResourceSpec] = [
    ResourceSpec(
        GROUP,
        VERSION,
        "mutatingwebhookconfigurations",
        "MutatingWebhookConfiguration",
        False,
        categories=API_EXTENSIONS,
        printer=MUTATING_WEBHOOK_PRINTER,
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "validatingadmissionpolicies",
        "ValidatingAdmissionPolicy",
        False,
        categories=API_EXTENSIONS,
        subresources=(status("ValidatingAdmissionPolicy"),),
        printer=VALIDATING_ADMISSION_POLICY_PRINTER,
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "validatingadmissionpolicybindings",
        "ValidatingAdmissionPolicyBinding",
        False,
        categories=API_EXTENSIONS,
        printer=VALIDATING_ADMISSION_POLICY_BINDING_PRINTER,
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "validatingwebhookconfigurations",
        "ValidatingWebhookConfiguration",
        False,
        categories=API_EXTENSIONS,
        printer=VALIDATING_WEBHOOK_PRINTER,
    ),
]
