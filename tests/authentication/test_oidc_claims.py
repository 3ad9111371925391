"""The OIDC authenticator's claim checks and claims-to-user mapping (go-oidc's verifier, kube's JWT authenticator
with the --oidc-* flags' mappings), and the flags' defaulting and validation."""

from __future__ import annotations

import pytest

from kube_apiserver.authentication.oidc import (
    OIDCConfigError,
    OIDCOptions,
    default_username_prefix,
    new_options,
    split_token,
)
from kube_apiserver.authentication.oidc_claims import (
    OIDCError,
    check_required_claims,
    groups_from_claims,
    user_from_claims,
    username_from_claims,
    verify_standard_claims,
)
from kube_apiserver.authentication.user import UserInfo

ISS = "https://issuer.example"
NOW = 1_700_000_000.0


def claims(**kw):
    base = {"iss": ISS, "aud": "kubernetes", "sub": "alice", "exp": NOW + 60}
    base.update(kw)
    return {k: v for k, v in base.items() if v is not None}


def test_default_username_prefix():
    assert default_username_prefix(ISS, "sub", "") == ISS + "#"
    assert default_username_prefix(ISS, "email", "") == ""
    assert default_username_prefix(ISS, "sub", "-") == ""
    assert default_username_prefix(ISS, "email", "-") == ""
    assert default_username_prefix(ISS, "sub", "oidc:") == "oidc:"
    assert default_username_prefix(ISS, "email", "oidc:") == "oidc:"


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"aud": "other"}, 'oidc: expected audience "kubernetes" got ["other"]'),
        ({"aud": ["a", "b"]}, 'oidc: expected audience "kubernetes" got ["a" "b"]'),
        ({"aud": None}, 'oidc: expected audience "kubernetes" got []'),
        (
            {"iss": "https://evil"},
            'oidc: id token issued by a different provider, expected "https://issuer.example" got "https://evil"',
        ),
        ({"exp": NOW - 1}, "oidc: token is expired (Token Expiry: 2023-11-14 22:13:19 +0000 UTC)"),
        ({"exp": None}, "oidc: token is expired (Token Expiry: 0001-01-01 00:00:00 +0000 UTC)"),
        (
            {"nbf": NOW + 61},
            "oidc: current time 2023-11-14 22:13:20 +0000 UTC before the nbf (not before) time: 2023-11-14 22:14:21 +0000 UTC",
        ),
        (
            {"exp": True},
            "oidc: failed to unmarshal claims: json: cannot unmarshal bool into Go struct field idToken.exp",
        ),
        ({"aud": 3}, "oidc: failed to unmarshal claims: invalid aud claim"),
    ],
)
def test_standard_claims_refused(kw, message):
    with pytest.raises(OIDCError) as e:
        verify_standard_claims(claims(**kw), ISS, "kubernetes", NOW)
    assert str(e.value) == message


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"aud": ["other", "kubernetes"]},
        {"nbf": NOW + 59},  # a minute of clock skew
        {"iat": NOW + 3600},  # iat is not checked
        {"exp": str(NOW + 60)},  # a NumericDate in a string still decodes
        {"exp": NOW},  # expired only once past exp
    ],
)
def test_standard_claims_accepted(kw):
    verify_standard_claims(claims(**kw), ISS, "kubernetes", NOW)


def test_username_claim():
    assert username_from_claims(claims(), "sub", ISS + "#") == "https://issuer.example#alice"
    assert username_from_claims(claims(email="a@x.org"), "email", "") == "a@x.org"
    assert username_from_claims(claims(email="a@x.org", email_verified=True), "email", "") == "a@x.org"
    with pytest.raises(OIDCError, match="^oidc: email not verified$"):
        username_from_claims(claims(email="a@x.org", email_verified=False), "email", "")
    with pytest.raises(OIDCError) as e:
        username_from_claims(claims(email="a@x.org", email_verified="true"), "email", "")
    assert (
        str(e.value) == "oidc: parse 'email_verified' claim: json: cannot unmarshal string into Go value of type bool"
    )
    # email_verified matters only when the username is the email
    assert username_from_claims(claims(email_verified=False), "sub", "") == "alice"
    with pytest.raises(OIDCError) as e:
        username_from_claims(claims(), "email", "")
    assert str(e.value) == 'oidc: parse username claims "email": claim not present: email'
    with pytest.raises(OIDCError) as e:
        username_from_claims(claims(sub=42), "sub", "")
    assert (
        str(e.value) == 'oidc: parse username claims "sub": json: cannot unmarshal number into Go value of type string'
    )


def test_groups_claim():
    assert groups_from_claims(claims(groups=["a", "b"]), "groups", "oidc:") == ("oidc:a", "oidc:b")
    assert groups_from_claims(claims(groups="solo"), "groups", "") == ("solo",)
    assert groups_from_claims(claims(), "groups", "oidc:") == ()
    assert groups_from_claims(claims(groups=None), "groups", "oidc:") == ()
    assert groups_from_claims(claims(groups=["a"]), "", "") == ()  # no --oidc-groups-claim: no groups
    with pytest.raises(OIDCError) as e:
        groups_from_claims(claims(groups=[1]), "groups", "")
    assert (
        str(e.value) == 'oidc: parse groups claim "groups": json: cannot unmarshal array into Go value of type string'
    )


def test_required_claims():
    check_required_claims(claims(hd="example.com"), {"hd": "example.com"})
    with pytest.raises(OIDCError) as e:
        check_required_claims(claims(hd="evil.com"), {"hd": "example.com"})
    assert str(e.value) == "oidc: required claim hd value does not match. Got = evil.com, want = example.com"
    with pytest.raises(OIDCError) as e:
        check_required_claims(claims(), {"hd": "example.com"})
    assert str(e.value) == "oidc: parse claim hd: claim not present: hd"


def test_user_from_claims():
    opts = OIDCOptions(ISS, "kubernetes", "email", "", "roles", "r:", {"hd": "x"})
    user = user_from_claims(claims(email="a@x.org", roles=["admin"], hd="x"), opts)
    assert user == UserInfo("a@x.org", "", ("r:admin",))


def test_new_options_defaults_and_errors(tmp_path):
    o = new_options(ISS, "kubernetes")
    assert (o.username_claim, o.username_prefix, o.signing_algs) == ("sub", ISS + "#", ("RS256",))
    assert new_options(ISS, "k", username_claim="email").username_prefix == ""
    with pytest.raises(OIDCConfigError) as e:
        new_options("http://issuer.example?x=1", "k")
    assert str(e.value) == (
        "invalid authentication configuration: ["
        'jwt[0].issuer.url: Invalid value: "http://issuer.example?x=1": URL scheme must be https, '
        'jwt[0].issuer.url: Invalid value: "http://issuer.example?x=1": URL must not contain a query]'
    )
    with pytest.raises(OIDCConfigError, match='^oidc: unsupported signing alg: "none"$'):
        new_options(ISS, "k", signing_algs=["RS256", "none"])
    with pytest.raises(OIDCConfigError) as e:
        new_options(ISS, "k", username_claim="")
    assert str(e.value) == (
        "invalid authentication configuration: jwt[0].claimMappings.username: Required value: claim or expression is required"
    )
    bad = tmp_path / "ca.crt"
    bad.write_text("not a certificate")
    with pytest.raises(OIDCConfigError) as e:
        new_options(ISS, "k", ca_file=str(bad))
    assert "certificateAuthority: Invalid value" in str(e.value)
    with pytest.raises(OIDCConfigError, match="^open .*missing: no such file or directory$"):
        new_options(ISS, "k", ca_file=str(tmp_path / "missing"))


def test_split_token():
    assert split_token("a.b") is None
    assert split_token("not.a.jwt") is None
    header, body = split_token("eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.sig")
    assert header == {"alg": "RS256"} and body == {"iss": "x"}
