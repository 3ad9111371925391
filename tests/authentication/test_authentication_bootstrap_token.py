"""Bootstrap token authenticator: token form, secret checks, expiration and groups as cluster-bootstrap."""

from __future__ import annotations

import asyncio
import base64
from datetime import UTC, datetime, timedelta

from kube_apiserver.authentication.bootstrap_token import (
    BootstrapTokenAuthenticator,
    get_groups,
    has_expired,
    parse_token,
)
from kube_apiserver.runtime import errors


def secret(**data: str) -> dict:
    return {
        "metadata": {"name": "bootstrap-token-abcdef", "namespace": "kube-system"},
        "type": "bootstrap.kubernetes.io/token",
        "data": {k: base64.b64encode(v.encode()).decode() for k, v in data.items()},
    }


GOOD = {"token-id": "abcdef", "token-secret": "0123456789abcdef", "usage-bootstrap-authentication": "true"}


class Getter:
    def __init__(self, obj: dict | None) -> None:
        self.obj = obj
        self.asked: list[tuple[str, str]] = []

    async def get_secret(self, namespace: str, name: str) -> dict:
        self.asked.append((namespace, name))
        if self.obj is None:
            raise errors.new_not_found("", "secrets", name)
        return self.obj


def auth(obj: dict | None, token: str = "abcdef.0123456789abcdef"):
    getter = Getter(obj)
    return asyncio.run(BootstrapTokenAuthenticator(getter).authenticate_token(token)), getter


def test_parse_token():
    assert parse_token("abcdef.0123456789abcdef") == ("abcdef", "0123456789abcdef")
    for bad in (
        "ABCDEF.0123456789abcdef",
        "abcdef.0123456789abcde",
        "abcdef0123456789abcdef",
        "abcdef.0123456789abcdef ",
    ):
        assert parse_token(bad) is None


def test_authenticates_with_groups():
    user, getter = auth(secret(**GOOD, **{"auth-extra-groups": "system:bootstrappers:b,system:bootstrappers:a"}))
    assert getter.asked == [("kube-system", "bootstrap-token-abcdef")]
    assert user.name == "system:bootstrap:abcdef" and user.uid == ""
    assert user.groups == ("system:bootstrappers", "system:bootstrappers:a", "system:bootstrappers:b")


def test_rejections():
    assert auth(None)[0] is None
    assert auth(secret(**GOOD), "abcdef.0123456789abcdee")[0] is None
    assert auth(secret(**{**GOOD, "usage-bootstrap-authentication": "false"}))[0] is None
    assert auth(secret(**{**GOOD, "token-id": "zzzzzz"}))[0] is None
    assert auth({**secret(**GOOD), "type": "Opaque"})[0] is None
    assert auth(secret(**GOOD, **{"auth-extra-groups": "system:masters"}))[0] is None
    deleting = secret(**GOOD)
    deleting["metadata"]["deletionTimestamp"] = "2020-01-01T00:00:00Z"
    assert auth(deleting)[0] is None
    assert auth(secret(**GOOD, expiration="2020-01-01T00:00:00Z"))[0] is None
    assert auth(secret(**GOOD, expiration="2999-01-01T00:00:00Z"))[0] is not None


def test_expiration_and_groups():
    now = datetime.now(UTC)
    assert has_expired(secret(expiration=(now - timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")), now)
    assert not has_expired(secret(expiration=(now + timedelta(hours=1)).isoformat()), now)
    assert has_expired(secret(expiration="tomorrow"), now)  # unparseable counts as expired
    assert not has_expired(secret(), now)
    assert get_groups(secret()) == ["system:bootstrappers"]
