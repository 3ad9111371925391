"""The CertificateSigningRequest printer (printers.go printCertificateSigningRequest)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.printing import AGE_COLUMN, NAME_COLUMN, age, col, d, dicts, human_duration, name, num, text
from kube_apiserver.registry.resource_spec import TablePrinter


def csr_condition(obj: dict[str, Any]) -> str:
    """extractCSRStatus: Denied / Approved / Pending, then ",Failed" and ",Issued"."""
    status = d(obj.get("status"))
    types = {cond.get("type") for cond in dicts(status.get("conditions"))}
    if "Denied" in types:
        result = "Denied"
    elif "Approved" in types:
        result = "Approved"
    else:
        result = "Pending"
    if "Failed" in types:
        result += ",Failed"
    if text(status.get("certificate")):
        result += ",Issued"
    return result


def csr_row(obj: dict[str, Any], now: float) -> list[Any]:
    spec = d(obj.get("spec"))
    expiration = spec.get("expirationSeconds")
    return [
        name(obj),
        age(obj, now),
        text(spec.get("signerName")) or "<none>",
        text(spec.get("username")),
        "<none>" if expiration is None else human_duration(num(expiration)),
        csr_condition(obj),
    ]


CSR_PRINTER = TablePrinter(
    columns=(
        NAME_COLUMN,
        AGE_COLUMN,
        col(
            "SignerName",
            description="Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`.",
        ),
        col("Requestor", description="Base64-encoded PKCS#10 CSR data"),
        col(
            "RequestedDuration",
            description="expirationSeconds is the requested duration of validity of the issued certificate.",
        ),
        col("Condition", description="Conditions applied to the request, such as approval or denial."),
    ),
    row=csr_row,
)
