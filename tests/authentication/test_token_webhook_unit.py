"""The webhook token authenticator without a network: the TokenReview it sends, how it reads the answer, its
cache (answers kept for the TTL, failures not kept, one review per token at a time) and its audiences."""

from __future__ import annotations

import asyncio

import pytest

from kube_apiserver.authentication.kubeconfig_client import WebhookError
from kube_apiserver.authentication.request import AuthenticationFailed
from kube_apiserver.authentication.token_webhook import (
    WebhookConfigError,
    WebhookTokenAuthenticator,
    token_review_request,
    user_from_review,
)
from kube_apiserver.authentication.user import UserInfo


class FakeClient:
    def __init__(self, answers):
        self.answers = answers
        self.sent = []

    async def post(self, obj):
        self.sent.append(obj)
        await asyncio.sleep(0.01)
        answer = self.answers[obj["spec"]["token"]]
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def close(self):
        pass


def test_request_body():
    assert token_review_request("t", "v1") == {
        "kind": "TokenReview",
        "apiVersion": "authentication.k8s.io/v1",
        "metadata": {"creationTimestamp": None},
        "spec": {"token": "t"},
        "status": {"user": {}},
    }
    assert token_review_request("t", "v1beta1", ["api"])["spec"] == {"token": "t", "audiences": ["api"]}
    assert token_review_request("t", "v1beta1")["apiVersion"] == "authentication.k8s.io/v1beta1"


def test_reading_answers():
    ok = {
        "status": {"authenticated": True, "user": {"username": "u", "uid": "1", "groups": ["g"], "extra": {"k": ["v"]}}}
    }
    assert user_from_review(ok) == (UserInfo("u", "1", ("g",), {"k": ("v",)}), "", [])
    assert user_from_review({"status": {"authenticated": False, "error": "nope"}}) == (None, "nope", [])
    assert user_from_review({"status": {"authenticated": "true"}})[0] is None  # only a JSON true authenticates
    assert user_from_review({"status": None}) == (None, "", [])
    assert user_from_review({"status": {"authenticated": True, "user": {"groups": "g"}}})[0] == UserInfo("")


def test_unsupported_version():
    with pytest.raises(WebhookConfigError) as e:
        WebhookTokenAuthenticator(FakeClient({}), "v2")
    assert str(e.value) == 'unsupported authentication webhook version "v2", supported versions are "v1", "v1beta1"'


def test_cache_and_failures():
    client = FakeClient(
        {
            "yes": {"status": {"authenticated": True, "user": {"username": "y"}}},
            "no": {"status": {"authenticated": False}},
            "err": {"status": {"authenticated": False, "error": "revoked"}},
            "down": WebhookError("connection refused", -1),
        }
    )
    auth = WebhookTokenAuthenticator(client, "v1", cache_ttl=60)

    async def scenario():
        # concurrent reviews of one token: one request
        users = await asyncio.gather(*(auth.authenticate_token("yes") for _ in range(5)))
        assert users == [UserInfo("y")] * 5
        assert await auth.authenticate_token("no") is None
        assert await auth.authenticate_token("no") is None
        for token, message in (("err", "revoked"), ("down", "connection refused")):
            for _ in range(2):
                with pytest.raises(AuthenticationFailed, match=f"^{message}$"):
                    await auth.authenticate_token(token)

    asyncio.run(scenario())
    tokens = [r["spec"]["token"] for r in client.sent]
    # answers cached, errors asked again
    assert tokens == ["yes", "no", "err", "err", "down", "down"]


def test_no_cache_with_zero_ttl():
    client = FakeClient({"yes": {"status": {"authenticated": True, "user": {"username": "y"}}}})
    auth = WebhookTokenAuthenticator(client, "v1", cache_ttl=0)

    async def twice():
        await auth.authenticate_token("yes")
        await auth.authenticate_token("yes")

    asyncio.run(twice())
    assert len(client.sent) == 2


def test_audiences():
    client = FakeClient(
        {
            "implicit": {"status": {"authenticated": True, "user": {"username": "a"}}},
            "matching": {"status": {"authenticated": True, "user": {"username": "b"}, "audiences": ["api", "x"]}},
            "other": {"status": {"authenticated": True, "user": {"username": "c"}, "audiences": ["elsewhere"]}},
        }
    )
    auth = WebhookTokenAuthenticator(client, "v1", 0, api_audiences=["api"])

    async def run():
        return [await auth.authenticate_token(t) for t in ("implicit", "matching", "other")]

    assert asyncio.run(run()) == [UserInfo("a"), UserInfo("b"), None]
    assert client.sent[0]["spec"]["audiences"] == ["api"]
