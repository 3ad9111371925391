"""CertificateSigningRequest validation (pkg/apis/certificates/validation): the request must be a
PEM PKCS#10 request with a valid signature, usages known and not repeated, a well-formed
signerName, expirationSeconds of at least 10 minutes, and consistent conditions."""

from __future__ import annotations

import base64
import re
from typing import Any

from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.names import (
    DNS1123_LABEL_MAX_LENGTH,
    DNS1123_SUBDOMAIN_MAX_LENGTH,
    is_dns1123_label,
    is_dns1123_subdomain,
)
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.labels import go_quote

LEGACY_UNKNOWN_SIGNER_NAME = "kubernetes.io/legacy-unknown"
KEY_USAGES = sorted(
    [
        "signing",
        "digital signature",
        "content commitment",
        "key encipherment",
        "key agreement",
        "data encipherment",
        "cert sign",
        "crl sign",
        "encipher only",
        "decipher only",
        "any",
        "server auth",
        "client auth",
        "code signing",
        "email protection",
        "s/mime",
        "ipsec end system",
        "ipsec tunnel",
        "ipsec user",
        "timestamping",
        "ocsp signing",
        "microsoft sgc",
        "netscape sgc",
    ]
)
TRUE_ONLY_CONDITIONS = ("Approved", "Denied", "Failed")
CONDITION_STATUSES = ["False", "True", "Unknown"]


def _request_bytes(value: Any) -> bytes:
    """spec.request is base64 in JSON ([]byte); undecodable input is left to the schema check."""
    if not isinstance(value, str):
        return b""
    try:
        return base64.b64decode(value, validate=True)
    except ValueError:
        return value.encode()


def check_csr(pem_data: bytes) -> str | None:
    """certificates.ParseCSR + CheckSignature: None when the request is acceptable."""
    from cryptography import x509

    start = pem_data.find(b"-----BEGIN ")
    if start < 0 or not pem_data[start:].startswith(b"-----BEGIN CERTIFICATE REQUEST-----"):
        return "PEM block type must be CERTIFICATE REQUEST"
    try:
        csr = x509.load_pem_x509_csr(pem_data[start:])
    except ValueError as e:
        return f"x509: {e}"
    if not csr.is_signature_valid:
        return "x509: ECDSA verification failure"
    return None


_PEM_BLOCK = re.compile(rb"-----BEGIN ([^\r\n]*?)-----\r?\n(.*?)-----END \1-----", re.S)


def check_certificate(pem_data: bytes) -> str | None:
    """validateCertificate: status.certificate is empty, or PEM CERTIFICATE blocks only, without headers,
    each holding a certificate."""
    from cryptography import x509

    if not pem_data:
        return None
    blocks = 0
    for m in _PEM_BLOCK.finditer(pem_data):
        kind, body = m.group(1).decode("latin-1"), m.group(2)
        if kind != "CERTIFICATE":
            return f"only CERTIFICATE PEM blocks are allowed, found {go_quote(kind)}"
        head = body.split(b"\n\n", 1)[0] if b"\n\n" in body else b""
        if b":" in head:
            return "no PEM block headers are permitted"
        blocks += 1
        try:
            x509.load_pem_x509_certificate(m.group(0))
        except ValueError:
            return "x509: malformed certificate"
    if blocks == 0:
        return "must contain at least one CERTIFICATE PEM block"
    return None


def validate_signer_name(path: str, signer: str) -> list[StatusCause]:
    """ValidateSignerName: "<domain>/<path>" with DNS labels and subdomains, up to 571 characters."""
    if not signer:
        return [field.required(path, "")]
    segments = signer.split("/")
    if len(segments) != 2:
        return [
            field.invalid(
                path, signer, "must be a fully qualified domain and path of the form 'example.com/signer-name'"
            )
        ]
    domain, rest = segments
    errs = []
    if len(domain.encode()) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(field.too_long(path, "", DNS1123_SUBDOMAIN_MAX_LENGTH))
    labels = domain.split(".")
    for label in labels:
        msgs = is_dns1123_label(label)
        if msgs:
            errs.extend(field.invalid(path, domain, f'validating label "{label}": {msg}') for msg in msgs)
            break
    if len(labels) < 2:
        errs.append(field.invalid(path, domain, "should be a domain with at least two segments separated by dots"))
    for label in rest.split("."):
        msgs = is_dns1123_subdomain(label)
        if msgs:
            errs.extend(field.invalid(path, rest, f'validating label "{label}": {msg}') for msg in msgs)
            break
    max_length = DNS1123_SUBDOMAIN_MAX_LENGTH + (DNS1123_SUBDOMAIN_MAX_LENGTH + DNS1123_LABEL_MAX_LENGTH + 1) + 1
    if len(signer.encode()) > max_length:
        errs.append(field.too_long(path, "", max_length))
    return errs


def validate_csr(obj: dict[str, Any]) -> list[StatusCause]:
    spec = field.spec_of(obj)
    errs = []
    request = spec.get("request")
    data = _request_bytes(request)
    err = check_csr(data)
    if err:
        errs.append(field.invalid("spec.request", gorepr.byte_slice(data), err))
    usages = field.as_list(spec.get("usages"))
    if not usages:
        errs.append(field.required("spec.usages", ""))
    for i, usage in enumerate(usages):
        if usage not in KEY_USAGES:
            errs.append(field.not_supported(field.index("spec.usages", i), usage, KEY_USAGES))
    for i, usage in enumerate(usages):
        if usage in usages[:i]:
            errs.append(field.duplicate(field.index("spec.usages", i), usage))
    signer = field.as_str(spec.get("signerName"))
    if signer == LEGACY_UNKNOWN_SIGNER_NAME:
        errs.append(
            field.invalid("spec.signerName", signer, "the legacy signerName is not allowed via this API version")
        )
    else:
        errs.extend(validate_signer_name("spec.signerName", signer))
    seconds = spec.get("expirationSeconds")
    if field.is_int(seconds) and seconds < 600:
        errs.append(
            field.invalid(
                "spec.expirationSeconds", seconds, "may not specify a duration less than 600 seconds (10 minutes)"
            )
        )
    errs.extend(_validate_conditions(field.as_list(field.as_dict(obj.get("status")).get("conditions"))))
    return errs


def _validate_conditions(conditions: list[Any]) -> list[StatusCause]:
    errs = []
    path = "status.conditions"
    seen: set[str] = set()
    approved = denied = False
    for i, cond in enumerate(conditions):
        cond = field.as_dict(cond)
        kind = field.as_str(cond.get("type"))
        status = cond.get("status", "")
        item = field.index(path, i)
        if not kind:
            errs.append(field.required(field.child(item, "type"), ""))
        allowed = ["True"] if kind in TRUE_ONLY_CONDITIONS else CONDITION_STATUSES
        if status == "":
            errs.append(field.required(field.child(item, "status"), ""))
        elif status not in allowed:
            errs.append(field.not_supported(field.child(item, "status"), status, allowed))
        if kind == "Approved":
            approved = True
            if denied:
                errs.append(
                    field.invalid(
                        field.child(item, "type"), kind, "Approved and Denied conditions are mutually exclusive"
                    )
                )
        elif kind == "Denied":
            denied = True
            if approved:
                errs.append(
                    field.invalid(
                        field.child(item, "type"), kind, "Approved and Denied conditions are mutually exclusive"
                    )
                )
        if kind in seen:
            errs.append(field.duplicate(field.child(item, "type"), kind))
        seen.add(kind)
    return errs


def _conditions_of(obj: dict[str, Any], kind: str) -> list[Any]:
    conditions = field.as_list(field.as_dict(obj.get("status")).get("conditions"))
    return [c for c in conditions if field.as_dict(c).get("type") == kind]


def validate_csr_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    """Existing Approved/Denied/Failed conditions may not be removed (the approval subresource is
    the only way to add an approval, enforced by its own strategy)."""
    errs = []
    # allowArbitraryCertificate: a certificate is checked when an update changes it, unless the stored one
    # already fails the check (existing data)
    new_cert = _request_bytes(field.as_dict(new.get("status")).get("certificate"))
    old_cert = _request_bytes(field.as_dict(old.get("status")).get("certificate"))
    if new_cert != old_cert and check_certificate(old_cert) is None:
        err = check_certificate(new_cert)
        if err:
            errs.append(field.invalid("status.certificate", "<certificate data>", err))
    for kind in TRUE_ONLY_CONDITIONS:
        if len(_conditions_of(new, kind)) < len(_conditions_of(old, kind)):
            errs.append(field.forbidden("status.conditions", f'updates may not remove a condition of type "{kind}"'))
    return errs


VALIDATORS = {("v1", "CertificateSigningRequest"): validate_csr}
UPDATE_VALIDATORS = {("v1", "CertificateSigningRequest"): validate_csr_update}
