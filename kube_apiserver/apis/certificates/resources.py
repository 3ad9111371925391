"""certificates.k8s.io/v1 as kube-apiserver 1.33's discovery lists it (ClusterTrustBundle is not GA)."""

from __future__ import annotations

from kube_apiserver.apis.certificates.printers import CSR_PRINTER
from kube_apiserver.apis.common import status
from kube_apiserver.registry.resource_spec import ResourceSpec, SubresourceSpec

GROUP = "certificates.k8s.io"
VERSION = "v1"

RESOURCES: list[ResourceSpec] = [
    ResourceSpec(
        GROUP,
        VERSION,
        "certificatesigningrequests",
        "CertificateSigningRequest",
        False,
        short_names=("csr",),
        subresources=(
            SubresourceSpec("approval", "CertificateSigningRequest", ("get", "patch", "update")),
            status("CertificateSigningRequest"),
        ),
        selectable_fields={"spec.signerName": "spec.signerName"},
        printer=CSR_PRINTER,
    ),
]
