"""Client-certificate authentication (x509.CommonNameUserConversion): CN is the user, O the groups.

The TLS layer already verified the chain against --client-ca-file; this reads the verified leaf.
"""

from __future__ import annotations

from functools import lru_cache

from cryptography import x509
from cryptography.x509.oid import NameOID

from kube_apiserver.authentication.user import UserInfo


@lru_cache(maxsize=1024)
def user_from_certificate(der: bytes) -> UserInfo | None:
    try:
        cert = x509.load_der_x509_certificate(der)
    except ValueError:
        return None
    cns = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    if not cns:
        return None
    groups = tuple(str(a.value) for a in cert.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME))
    return UserInfo(str(cns[0].value), "", groups)
