"""Unit tests of the service account JWT pieces: keys, signing, the authenticator's checks and messages,
the bound and legacy validators against a fake getter, and the user they make."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from kube_apiserver.authentication.serviceaccount import (
    CRYPTO_ERROR,
    JWTTokenAuthenticator,
    TokenAuthError,
    TokenGenerator,
    claims,
    legacy_claims,
    split_username,
)
from kube_apiserver.authentication.serviceaccount_config import (
    load_service_account_config,
    validate_issuers,
    validate_max_expiration,
)
from kube_apiserver.authentication.serviceaccount_keys import (
    ServiceAccountKeyError,
    ensure_signing_key,
    key_id_from_public_key,
    private_key_from_file,
    public_jwk,
    public_keys_from_file,
    verifying_keys,
)
from kube_apiserver.authentication.serviceaccount_validators import BoundValidator, LegacyValidator
from kube_apiserver.runtime import errors

ISSUER = "https://kubernetes.default.svc.cluster.local"
RSA_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
EC_KEY = ec.generate_private_key(ec.SECP256R1())


def run(coro):
    return asyncio.run(coro)


def b64json(part: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


class FakeGetter:
    def __init__(self, objects: dict[tuple[str, str, str], dict]) -> None:
        self.objects = objects
        self.marked: list[str] = []

    async def _get(self, resource: str, ns: str, name: str) -> dict:
        try:
            return self.objects[(resource, ns, name)]
        except KeyError:
            raise errors.new_not_found("", resource, name) from None

    async def get_service_account(self, ns, name):
        return await self._get("serviceaccounts", ns, name)

    async def get_pod(self, ns, name):
        return await self._get("pods", ns, name)

    async def get_secret(self, ns, name):
        return await self._get("secrets", ns, name)

    async def get_node(self, name):
        return await self._get("nodes", "", name)

    async def mark_legacy_token_used(self, secret):
        self.marked.append(secret["metadata"]["name"])


SA = {"metadata": {"name": "bot", "namespace": "team", "uid": "sa-uid"}}
POD = {"metadata": {"name": "web", "namespace": "team", "uid": "pod-uid"}, "spec": {"serviceAccountName": "bot"}}
NODE = {"metadata": {"name": "n1", "uid": "node-uid"}}


def bound_auth(getter, key=RSA_KEY, audiences=(ISSUER,)) -> JWTTokenAuthenticator:
    return JWTTokenAuthenticator((ISSUER,), verifying_keys([key.public_key()]), audiences, BoundValidator(getter))


def token_for(sa=SA, pod=None, secret=None, node=None, seconds=3600, auds=(ISSUER,), key=RSA_KEY, now=None):
    public, private = claims(sa, pod, secret, node, seconds, 0, list(auds), now)
    return TokenGenerator(ISSUER, key).generate_token(public, private)


def test_key_id_is_base64url_sha256_of_spki():
    der = RSA_KEY.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    expected = base64.urlsafe_b64encode(hashlib.sha256(der).digest()).rstrip(b"=").decode()
    assert key_id_from_public_key(RSA_KEY.public_key()) == expected


def test_token_shape_header_and_sorted_claims():
    tok = token_for(pod=POD, node=NODE, now=1_700_000_000)
    header, payload = (b64json(p) for p in tok.split(".")[:2])
    assert header == {"alg": "RS256", "kid": key_id_from_public_key(RSA_KEY.public_key())}
    assert list(payload) == sorted(payload)
    assert payload["iss"] == ISSUER and payload["sub"] == "system:serviceaccount:team:bot"
    assert payload["aud"] == [ISSUER]
    assert (payload["iat"], payload["nbf"], payload["exp"]) == (1_700_000_000, 1_700_000_000, 1_700_003_600)
    assert payload["kubernetes.io"] == {
        "namespace": "team",
        "serviceaccount": {"name": "bot", "uid": "sa-uid"},
        "pod": {"name": "web", "uid": "pod-uid"},
        "node": {"name": "n1", "uid": "node-uid"},
    }
    assert len(payload["jti"]) == 36


def test_es256_roundtrip_and_user():
    getter = FakeGetter({("serviceaccounts", "team", "bot"): SA})
    tok = token_for(key=EC_KEY)
    assert b64json(tok.split(".")[0])["alg"] == "ES256"
    resp = run(bound_auth(getter, EC_KEY).authenticate_token_audiences(tok, None))
    assert resp.audiences == (ISSUER,)
    user = resp.user
    assert user.name == "system:serviceaccount:team:bot" and user.uid == "sa-uid"
    assert user.groups == ("system:serviceaccounts", "system:serviceaccounts:team")
    jti = b64json(tok.split(".")[1])["jti"]
    assert user.extra == {"authentication.kubernetes.io/credential-id": (f"JTI={jti}",)}


def test_pod_bound_user_extra():
    getter = FakeGetter({("serviceaccounts", "team", "bot"): SA, ("pods", "team", "web"): POD})
    user = run(bound_auth(getter).authenticate_token(token_for(pod=POD, node=NODE)))
    assert user.extra["authentication.kubernetes.io/pod-name"] == ("web",)
    assert user.extra["authentication.kubernetes.io/pod-uid"] == ("pod-uid",)
    assert user.extra["authentication.kubernetes.io/node-name"] == ("n1",)
    assert user.extra["authentication.kubernetes.io/node-uid"] == ("node-uid",)


def error_of(auth, tok, audiences=None) -> str:
    with pytest.raises(TokenAuthError) as e:
        run(auth.authenticate_token_audiences(tok, audiences))
    return str(e.value)


def test_not_ours_is_none():
    auth = bound_auth(FakeGetter({}))
    assert run(auth.authenticate_token_audiences("garbage", None)) is None
    assert run(auth.authenticate_token_audiences("a.b.c", None)) is None
    other = TokenGenerator("https://other", RSA_KEY).generate_token({"sub": "x"}, {})
    assert run(auth.authenticate_token_audiences(other, None)) is None


def test_signature_and_audience_errors():
    getter = FakeGetter({("serviceaccounts", "team", "bot"): SA})
    auth = bound_auth(getter)
    forged = token_for(key=rsa.generate_private_key(public_exponent=65537, key_size=2048))
    assert error_of(auth, forged) == "invalid signature, no keys found"  # its kid names no key of ours
    header, payload, _ = token_for().split(".")
    assert error_of(auth, f"{header}.{payload}.AAAA") == CRYPTO_ERROR
    assert error_of(auth, token_for(), ["other"]) == (
        'token audiences ["https://kubernetes.default.svc.cluster.local"] is invalid for the target audiences ["other"]'
    )
    assert run(auth.authenticate_token_audiences(token_for(auds=("a", ISSUER)), ["b", ISSUER])).audiences == (ISSUER,)


def test_time_errors():
    auth = bound_auth(FakeGetter({("serviceaccounts", "team", "bot"): SA}))
    now = time.time()
    assert error_of(auth, token_for(now=now - 4000)) == "service account token has expired"
    assert run(auth.authenticate_token_audiences(token_for(now=now - 3630), None)) is not None  # 60 s leeway
    assert error_of(auth, token_for(now=now + 600)) == "service account token is not valid yet"


def test_storage_checks():
    sa_other_uid = {"metadata": {**SA["metadata"], "uid": "new-uid"}}
    tok = token_for(pod=POD)
    assert error_of(bound_auth(FakeGetter({})), tok) == 'serviceaccounts "bot" not found'
    assert (
        error_of(bound_auth(FakeGetter({("serviceaccounts", "team", "bot"): sa_other_uid})), tok)
        == "service account UID (new-uid) does not match claim (sa-uid)"
    )
    assert (
        error_of(bound_auth(FakeGetter({("serviceaccounts", "team", "bot"): SA})), tok)
        == "service account token has been invalidated"
    )
    pod2 = {"metadata": {**POD["metadata"], "uid": "pod2"}}
    getter = FakeGetter({("serviceaccounts", "team", "bot"): SA, ("pods", "team", "web"): pod2})
    assert error_of(bound_auth(getter), tok) == "pod UID (pod2) does not match service account pod ref claim (pod-uid)"
    deleted = {"metadata": {**SA["metadata"], "deletionTimestamp": "2020-01-01T00:00:00Z"}}
    getter = FakeGetter({("serviceaccounts", "team", "bot"): deleted})
    assert error_of(bound_auth(getter), token_for()) == "service account team/bot has been deleted"
    node_tok = token_for(node=NODE)
    assert error_of(bound_auth(FakeGetter({("serviceaccounts", "team", "bot"): SA})), node_tok) == (
        "service account token has been invalidated"
    )


def legacy_secret(token: str, labels=None) -> dict:
    meta = {"name": "bot-token", "namespace": "team", "uid": "s-uid", "labels": labels or {}}
    return {
        "metadata": meta,
        "type": "kubernetes.io/service-account-token",
        "data": {"token": base64.b64encode(token.encode()).decode()},
    }


def legacy_auth(getter) -> JWTTokenAuthenticator:
    return JWTTokenAuthenticator(
        ("kubernetes/serviceaccount",), verifying_keys([RSA_KEY.public_key()]), (ISSUER,), LegacyValidator(True, getter)
    )


def test_legacy_token():
    secret = {"metadata": {"name": "bot-token"}}
    public, private = legacy_claims(SA, secret)
    tok = TokenGenerator("kubernetes/serviceaccount", RSA_KEY).generate_token(public, private)
    payload = b64json(tok.split(".")[1])
    assert payload == {
        "iss": "kubernetes/serviceaccount",
        "kubernetes.io/serviceaccount/namespace": "team",
        "kubernetes.io/serviceaccount/secret.name": "bot-token",
        "kubernetes.io/serviceaccount/service-account.name": "bot",
        "kubernetes.io/serviceaccount/service-account.uid": "sa-uid",
        "sub": "system:serviceaccount:team:bot",
    }
    getter = FakeGetter({("serviceaccounts", "team", "bot"): SA, ("secrets", "team", "bot-token"): legacy_secret(tok)})
    resp = run(legacy_auth(getter).authenticate_token_audiences(tok, None))
    assert resp.user.name == "system:serviceaccount:team:bot" and resp.user.extra == {}
    assert resp.audiences == (ISSUER,) and getter.marked == ["bot-token"]
    getter.objects[("secrets", "team", "bot-token")] = legacy_secret("other")
    assert error_of(legacy_auth(getter), tok) == "Token does not match server's copy"
    del getter.objects[("secrets", "team", "bot-token")]
    assert error_of(legacy_auth(getter), tok) == "Token has been invalidated"
    getter.objects[("secrets", "team", "bot-token")] = legacy_secret(
        tok, {"kubernetes.io/legacy-token-invalid-since": "2024-01-01"}
    )
    assert error_of(legacy_auth(getter), tok).startswith(
        "the token in secret team/bot-token for service account team/bot has been marked invalid."
    )
    bad = TokenGenerator("kubernetes/serviceaccount", RSA_KEY).generate_token({"sub": "system:serviceaccount:x:y"}, {})
    assert error_of(legacy_auth(getter), bad) == "namespace claim is missing"


def test_split_username():
    assert split_username("system:serviceaccount:ns:name") == ("ns", "name")
    assert split_username("system:serviceaccount:ns") is None
    assert split_username("system:serviceaccount:NS:name") is None


def test_keys_from_files(tmp_path):
    key_path = ensure_signing_key(str(tmp_path / "pki"))
    assert key_path.endswith("pki/sa.key")
    first = private_key_from_file(key_path)
    assert ensure_signing_key(str(tmp_path / "pki")) == key_path
    assert private_key_from_file(key_path).private_numbers() == first.private_numbers()  # reused, not remade
    pub = public_keys_from_file(str(tmp_path / "pki" / "sa.pub"))
    assert [key_id_from_public_key(k) for k in pub] == [key_id_from_public_key(first.public_key())]
    both = tmp_path / "both.pem"
    both.write_bytes(
        (tmp_path / "pki" / "sa.pub").read_bytes()
        + EC_KEY.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    assert len(public_keys_from_file(str(both))) == 2
    junk = tmp_path / "junk"
    junk.write_text("hello")
    with pytest.raises(ServiceAccountKeyError) as e:
        public_keys_from_file(str(junk))
    assert (
        str(e.value)
        == f"error reading public key file {junk}: data does not contain any valid RSA or ECDSA public keys"
    )


def test_jwk():
    (vk,) = verifying_keys([EC_KEY.public_key()])
    jwk = public_jwk(vk)
    assert list(jwk) == ["use", "kty", "kid", "crv", "alg", "x", "y"]
    assert (jwk["kty"], jwk["crv"], jwk["alg"]) == ("EC", "P-256", "ES256")
    # the JWK verifies a token, as a relying party would use it
    tok = token_for(key=EC_KEY)
    key = jwt.PyJWK(jwk).key
    assert jwt.decode(tok, key, algorithms=["ES256"], audience=ISSUER)["sub"] == "system:serviceaccount:team:bot"


def test_config_defaults_and_validation(tmp_path):
    cfg = load_service_account_config(
        pki_dir=str(tmp_path), issuers=[], key_files=[], signing_key_file="", api_audiences=[]
    )
    assert cfg.issuers == (ISSUER,) and cfg.api_audiences == (ISSUER,)
    assert (tmp_path / "sa.key").exists() and (tmp_path / "sa.pub").exists()
    assert validate_issuers(["a", "", "a"]) == [
        "service-account-issuer should not be an empty string",
        'service-account-issuer "a" is already specified',
    ]
    assert validate_max_expiration(600) == [
        "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"
    ]
    assert validate_max_expiration(0) == [] and validate_max_expiration(7200) == []
