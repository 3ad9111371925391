"""The pure parts of TokenRequest, TokenReview and issuer discovery: validation, error aggregation and the
discovery documents."""

from __future__ import annotations

import asyncio
import json

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from kube_apiserver.authentication.request import RequestAuthenticator
from kube_apiserver.authentication.serviceaccount_config import ServiceAccountConfig
from kube_apiserver.authentication.serviceaccount_keys import verifying_keys
from kube_apiserver.authentication.user import UserInfo
from kube_apiserver.controlplane.serviceaccount_issuer_discovery import DiscoveryError, openid_documents
from kube_apiserver.controlplane.token_request import validate_token_request
from kube_apiserver.controlplane.token_review import aggregate_error, authenticate_token

KEY = ec.generate_private_key(ec.SECP384R1())


def config(issuer: str = "https://issuer.example", jwks_uri: str = "") -> ServiceAccountConfig:
    return ServiceAccountConfig((issuer,), KEY, verifying_keys([KEY.public_key()]), (issuer,), jwks_uri=jwks_uri)


def test_validate_token_request():
    assert validate_token_request({"expirationSeconds": 600}) == []
    (cause,) = validate_token_request({"expirationSeconds": 599})
    assert (cause.field, cause.message) == (
        "spec.expirationSeconds",
        "Invalid value: 599: may not specify a duration less than 10 minutes",
    )
    (cause,) = validate_token_request({"expirationSeconds": (1 << 32) + 1})
    assert cause.message == "Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds"


def test_aggregate_error():
    assert aggregate_error(["a"]) == "a"
    assert aggregate_error(["a", "a"]) == "a"
    assert aggregate_error(["a", "b", "a"]) == "[a, b]"


class Static:
    """An authenticator that knows nothing of audiences (as the token file one)."""

    async def authenticate_token(self, token: str) -> UserInfo | None:
        return UserInfo("alice") if token == "t" else None


def test_audience_agnostic_authenticators():
    authn = RequestAuthenticator(True, [Static()], True)
    resp, errs = asyncio.run(authenticate_token(authn, "t", ["api"], ("api",)))
    assert resp.user.name == "alice" and resp.audiences == ("api",) and errs == []
    resp, errs = asyncio.run(authenticate_token(authn, "t", ["other"], ("api",)))
    assert resp is None and errs == []


def test_openid_documents():
    cfg_json, jwks_json = openid_documents(config(), "10.0.0.1:6443")
    doc = json.loads(cfg_json)
    assert doc == {
        "issuer": "https://issuer.example",
        "jwks_uri": "https://10.0.0.1:6443/openid/v1/jwks",
        "response_types_supported": ["id_token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["ES384"],
    }
    (key,) = json.loads(jwks_json)["keys"]
    assert (key["kty"], key["crv"], key["alg"], len(key["x"])) == ("EC", "P-384", "ES384", 64)
    assert json.loads(openid_documents(config(jwks_uri="https://cdn.example/keys"), "")[0])["jwks_uri"] == (
        "https://cdn.example/keys"
    )
    for issuer, message in [
        ("http://issuer.example", "issuer URL must use https scheme, got: http://issuer.example"),
        ("https://issuer.example?a=b", "issuer URL may not include a query, got: https://issuer.example?a=b"),
        ("kubernetes", "issuer URL must use https scheme, got: kubernetes"),
    ]:
        with pytest.raises(DiscoveryError) as e:
            openid_documents(config(issuer), "10.0.0.1:6443")
        assert str(e.value) == message
