"""A pool of CA certificates that a client certificate must chain to (x509.VerifyOptions.Roots for one authenticator).

The TLS layer accepts the union of the client CA and the request-header CA, as kube's does; each authenticator then
checks that the certificate was issued by its own CAs. Python's ssl module (3.11) hands over only the leaf, not the
chain the client sent, so a leaf must be issued directly by a certificate of the bundle (a CA or an intermediate
placed in it).
"""

from __future__ import annotations

import datetime
from collections import OrderedDict

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.x509.oid import ExtendedKeyUsageOID

_CACHE_SIZE = 1024


class CertificatePoolError(ValueError):
    pass


def load_pem_bundle(data: bytes, source: str) -> list[x509.Certificate]:
    """The certificates of a PEM bundle; raises CertificatePoolError when there is none (certutil.NewPoolFromBytes)."""
    try:
        certs = x509.load_pem_x509_certificates(data)
    except ValueError:
        certs = []
    if not certs:
        raise CertificatePoolError(f"{source}: data does not contain any valid RSA or ECDSA certificates")
    return certs


class CertificatePool:
    def __init__(self, certs: list[x509.Certificate], pem: bytes = b"") -> None:
        self.certs = certs
        self.pem = pem
        self._verified: OrderedDict[bytes, str | None] = OrderedDict()

    @classmethod
    def from_file(cls, path: str) -> CertificatePool:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise CertificatePoolError(f"open {path}: {e.strerror.lower() if e.strerror else e}") from None
        return cls(load_pem_bundle(data, path), data)

    def verify(self, der: bytes) -> str | None:
        """None when the certificate (DER) was issued by one of the pool's certificates for client authentication,
        else why not (Go's x509 error text). Results are remembered per certificate."""
        if der in self._verified:
            self._verified.move_to_end(der)
            return self._verified[der]
        problem = self._verify(der)
        self._verified[der] = problem
        if len(self._verified) > _CACHE_SIZE:
            self._verified.popitem(last=False)
        return problem

    def _verify(self, der: bytes) -> str | None:
        try:
            leaf = x509.load_der_x509_certificate(der)
        except ValueError:
            return "x509: malformed certificate"
        now = datetime.datetime.now(datetime.UTC)
        if now < leaf.not_valid_before_utc or now > leaf.not_valid_after_utc:
            return "x509: certificate has expired or is not yet valid"
        try:
            usages = leaf.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
        except x509.ExtensionNotFound:
            usages = None  # no EKU extension: any usage, as Go treats it
        if usages is not None and not (
            ExtendedKeyUsageOID.CLIENT_AUTH in usages or ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE in usages
        ):
            return "x509: certificate specifies an incompatible key usage"
        for ca in self.certs:
            if ca.subject != leaf.issuer:
                continue
            try:
                leaf.verify_directly_issued_by(ca)
            except (ValueError, TypeError, InvalidSignature):
                continue
            return None
        return "x509: certificate signed by unknown authority"
