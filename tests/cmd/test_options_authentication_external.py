"""The --oidc-*, --authentication-token-webhook-* and --requestheader-* flags: defaults, list flags as pflag
parses them, and validation."""

from __future__ import annotations

import argparse

import pytest

from kube_apiserver.cmd.options_authentication_external import ExternalAuthenticationOptions, add_flags


def parse(*argv: str) -> ExternalAuthenticationOptions:
    p = argparse.ArgumentParser()
    add_flags(p)
    return ExternalAuthenticationOptions.from_namespace(p.parse_args(list(argv)))


def test_defaults():
    o = parse()
    assert o.oidc.username_claim == "sub"
    assert o.oidc.signing_algs == ["RS256"]
    assert not o.oidc.flags_set
    assert (o.webhook.version, o.webhook.cache_ttl) == ("v1beta1", 120.0)
    assert o.request_header.username_headers == []
    assert o.validate() == []


def test_string_slices_add_up():
    o = parse(
        "--requestheader-username-headers=X-Remote-User,X-User",
        "--requestheader-username-headers",
        "X-Third",
        "--requestheader-allowed-names=a",
        "--oidc-signing-algs=RS256,ES256",
    )
    assert o.request_header.username_headers == ["X-Remote-User", "X-User", "X-Third"]
    assert o.request_header.allowed_names == ["a"]
    assert o.oidc.signing_algs == ["RS256", "ES256"]


def test_required_claims_and_ttl():
    o = parse(
        "--oidc-required-claim",
        "hd=example.com",
        "--oidc-required-claim= a = b=c ",
        "--authentication-token-webhook-cache-ttl=30s",
    )
    assert o.oidc.required_claims == {"hd": "example.com", "a": "b=c"}
    assert o.webhook.cache_ttl == 30.0


@pytest.mark.parametrize(
    ("argv", "problems"),
    [
        (
            ["--oidc-client-id=k"],
            ["oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set"],
        ),
        (
            ["--oidc-groups-prefix="],
            ["oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set"],
        ),
        (["--oidc-issuer-url=https://i", "--oidc-client-id=k"], []),
        (["--requestheader-group-headers=a, "], ['empty value in "requestheader-group-headers"']),
    ],
)
def test_validate(argv, problems):
    assert parse(*argv).validate() == problems
