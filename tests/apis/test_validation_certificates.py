"""certificates.k8s.io/v1 CertificateSigningRequest validation: kube-apiserver 1.33's messages."""

from __future__ import annotations

import base64
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from validation_groups_helpers import errors, with_changes

from kube_apiserver.apis.certificates.validation import validate_csr, validate_csr_update


def _request() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    csr = x509.CertificateSigningRequestBuilder().subject_name(
        x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "jane")])
    )
    pem = csr.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)
    return base64.b64encode(pem).decode()


def csr(**changes: Any) -> dict[str, Any]:
    obj = {
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": "jane"},
        "spec": {"request": _request(), "signerName": "kubernetes.io/kube-apiserver-client", "usages": ["client auth"]},
    }
    return with_changes(obj, **changes)


def test_valid() -> None:
    assert validate_csr(csr()) == []


def test_request_must_be_a_pem_csr() -> None:
    msgs = errors(validate_csr(csr(spec__request=base64.b64encode(b"hi").decode())))
    assert msgs == ["spec.request: Invalid value: []byte{0x68, 0x69}: PEM block type must be CERTIFICATE REQUEST"]


def test_usages_signer_and_expiration() -> None:
    obj = csr(
        spec__usages=["client auth", "client auth", "teleport"],
        spec__signerName="example",
        spec__expirationSeconds=60,
    )
    assert errors(validate_csr(obj)) == [
        'spec.usages[2]: Unsupported value: "teleport": supported values: "any", "cert sign", "client auth", '
        '"code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", '
        '"email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", '
        '"key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", '
        '"timestamping"',
        'spec.usages[1]: Duplicate value: "client auth"',
        'spec.signerName: Invalid value: "example": must be a fully qualified domain and path of the form '
        "'example.com/signer-name'",
        "spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)",
    ]
    assert errors(validate_csr(csr(spec__usages=[], spec__signerName="kubernetes.io/legacy-unknown"))) == [
        "spec.usages: Required value",
        'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this '
        "API version",
    ]
    assert errors(validate_csr(csr(spec__signerName="example/signer"))) == [
        'spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots'
    ]


def test_conditions() -> None:
    conditions = [{"type": "Approved", "status": "False"}, {"type": "Denied", "status": "True"}]
    assert errors(validate_csr(csr(status={"conditions": conditions}))) == [
        'status.conditions[0].status: Unsupported value: "False": supported values: "True"',
        'status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
    ]
    old = csr(status={"conditions": [{"type": "Approved", "status": "True"}]})
    assert errors(validate_csr_update(csr(status={"conditions": []}), old)) == [
        'status.conditions: Forbidden: updates may not remove a condition of type "Approved"'
    ]
