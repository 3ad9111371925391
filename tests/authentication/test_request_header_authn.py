"""The request-header (front proxy) authenticator and its place first in the union: header reading as kube's
headerrequest does it, the certificate checks of its verifier, and x509 refusing a certificate only the
request-header CA issued."""

from __future__ import annotations

import asyncio
import datetime

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from kube_apiserver.authentication.cert_pool import CertificatePool
from kube_apiserver.authentication.request import AuthenticationFailed, RequestAuthenticator
from kube_apiserver.authentication.request_header import (
    RequestHeaderAuthenticator,
    RequestHeaderError,
    all_header_values,
    header_value,
    new_extra,
    unescape_extra_key,
)
from kube_apiserver.authentication.user import UserInfo


def _cert(cn, issuer_name, issuer_key, key, ca=False, orgs=(), eku=ExtendedKeyUsageOID.CLIENT_AUTH):
    now = datetime.datetime.now(datetime.UTC)
    name = x509.Name(
        [*(x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in orgs), x509.NameAttribute(NameOID.COMMON_NAME, cn)]
    )
    b = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer_name or name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
    )
    if ca:
        b = b.add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
    elif eku is not None:
        b = b.add_extension(x509.ExtendedKeyUsage([eku]), critical=False)
    return b.sign(issuer_key, hashes.SHA256())


class _CA:
    def __init__(self, cn):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.cert = _cert(cn, None, self.key, self.key, ca=True)

    def issue(self, cn, orgs=(), eku=ExtendedKeyUsageOID.CLIENT_AUTH) -> bytes:
        cert = _cert(cn, self.cert.subject, self.key, ec.generate_private_key(ec.SECP256R1()), orgs=orgs, eku=eku)
        return cert.public_bytes(serialization.Encoding.DER)

    def pool(self) -> CertificatePool:
        return CertificatePool([self.cert])


@pytest.fixture(scope="module")
def cas():
    return _CA("client-ca"), _CA("front-proxy-ca")


def scope(der=None, headers=()):
    s = {"type": "http", "headers": [(k.lower().encode(), v.encode()) for k, v in headers]}
    if der is not None:
        s["extensions"] = {"tls": {"client_cert_der": der}}
    return s


def test_header_helpers():
    h = {"x-remote-user": ["", "second"], "x-user": ["u"], "x-remote-group": ["a", " ", "b,c"]}
    assert header_value(h, ["X-Remote-User", "X-User"]) == "u"  # the first value of a header, which is empty here
    assert header_value(h, ["X-Missing"]) == ""
    assert all_header_values(h, ["X-Remote-Group", "X-Missing"]) == ["a", "b,c"]
    assert unescape_extra_key("acme.com%2fproject") == "acme.com/project"
    assert unescape_extra_key("bad%zzkey") == "bad%zzkey"
    assert unescape_extra_key("trailing%2") == "trailing%2"
    extra = new_extra(
        {"x-remote-extra-scopes": ["a", "b"], "x-remote-extra-acme.com%2fp": ["1"], "x-other": ["no"]},
        ["X-Remote-Extra-"],
    )
    assert extra == {"scopes": ("a", "b"), "acme.com/p": ("1",)}


def test_proxy_user_and_headers_cleared(cas):
    _, proxy_ca = cas
    auth = RequestHeaderAuthenticator(
        proxy_ca.pool(), ["X-Remote-User"], ["X-Remote-Group"], ["X-Remote-Extra-"], ["front-proxy"], ["X-Remote-Uid"]
    )
    s = scope(
        proxy_ca.issue("front-proxy"),
        [
            ("X-Remote-User", "heidi"),
            ("X-Remote-Uid", "u1"),
            ("X-Remote-Group", "g1"),
            ("X-Remote-Group", "g2"),
            ("X-Remote-Extra-Scopes", "s"),
            ("Accept", "application/json"),
        ],
    )
    assert auth.authenticate_request(s) == UserInfo("heidi", "u1", ("g1", "g2"), {"scopes": ("s",)})
    assert s["headers"] == [(b"accept", b"application/json")]


def test_proxy_certificate_checks(cas):
    client_ca, proxy_ca = cas
    auth = RequestHeaderAuthenticator(proxy_ca.pool(), ["X-Remote-User"], allowed_names=["front-proxy"])
    hdr = [("X-Remote-User", "x")]
    assert auth.authenticate_request(scope(None, hdr)) is None  # no certificate: not this authenticator's request
    with pytest.raises(RequestHeaderError, match="^x509: certificate signed by unknown authority$"):
        auth.authenticate_request(scope(client_ca.issue("front-proxy"), hdr))
    with pytest.raises(RequestHeaderError, match="^x509: subject with cn=other is not in the allowed list$"):
        auth.authenticate_request(scope(proxy_ca.issue("other"), hdr))
    with pytest.raises(RequestHeaderError, match="^x509: certificate specifies an incompatible key usage$"):
        auth.authenticate_request(scope(proxy_ca.issue("front-proxy", eku=ExtendedKeyUsageOID.SERVER_AUTH), hdr))
    # no username header: nothing to say, no error
    assert auth.authenticate_request(scope(proxy_ca.issue("front-proxy"), [("X-Remote-Group", "g")])) is None
    # no allowed names: any certificate of the CA
    anyone = RequestHeaderAuthenticator(proxy_ca.pool(), ["X-Remote-User"])
    assert anyone.authenticate_request(scope(proxy_ca.issue("whoever"), hdr)) == UserInfo("x")


def _union(cas, anonymous=True):
    client_ca, proxy_ca = cas
    return RequestAuthenticator(
        True,
        [],
        anonymous,
        RequestHeaderAuthenticator(proxy_ca.pool(), ["X-Remote-User"], ["X-Remote-Group"]),
        client_ca.pool(),
    )


def test_union_order(cas):
    client_ca, proxy_ca = cas
    union = _union(cas)

    def run(s, authorization=""):
        return asyncio.run(union.authenticate(s, authorization))

    # the front proxy's user, with system:authenticated
    user = run(scope(proxy_ca.issue("p"), [("X-Remote-User", "heidi"), ("X-Remote-Group", "g")]))
    assert user == UserInfo("heidi", "", ("g", "system:authenticated"))
    # a client certificate is an x509 user; the proxy headers mean nothing on it
    user = run(scope(client_ca.issue("bob", orgs=("devs",)), [("X-Remote-User", "heidi")]))
    assert user == UserInfo("bob", "", ("devs", "system:authenticated"))
    # the proxy's certificate without headers is no user at all: a 401, not anonymous
    with pytest.raises(AuthenticationFailed, match="signed by unknown authority"):
        run(scope(proxy_ca.issue("p")))
    # nothing presented: anonymous
    assert run(scope()).name == "system:anonymous"


def test_union_token_errors_are_kept():
    class Failing:
        async def authenticate_token(self, token):
            raise AuthenticationFailed("oidc: verify token: expired")

    class Knows:
        async def authenticate_token(self, token):
            return UserInfo("t") if token == "good" else None

    union = RequestAuthenticator(True, [Failing(), Knows()], True)
    assert asyncio.run(union.authenticate(scope(), "Bearer good")) == UserInfo("t", "", ("system:authenticated",))
    with pytest.raises(AuthenticationFailed) as e:
        asyncio.run(union.authenticate(scope(), "Bearer bad"))
    assert str(e.value) == "oidc: verify token: expired; invalid bearer token"
