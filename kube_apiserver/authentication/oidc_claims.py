"""The claim checks and the claims-to-user mapping of the OIDC authenticator, as pure functions.

verify_standard_claims is go-oidc's IDTokenVerifier (issuer, audience = --oidc-client-id, exp with no leeway and
required, nbf with a minute's leeway; iat is not checked). user_from_claims is kube's JWT authenticator with the
claim mappings the flags give: --oidc-required-claim, the username claim (email_verified honoured when it is
"email") and the groups claim (a string or a list of strings), each with its prefix.
"""

from __future__ import annotations

import datetime
from typing import Any

from kube_apiserver.authentication.user import UserInfo
from kube_apiserver.runtime.strategicpatch.gojson import json_kind

NBF_LEEWAY = 60.0


class OIDCError(Exception):
    pass


def _go_time(ts: float) -> str:
    try:
        t = datetime.datetime.fromtimestamp(ts, datetime.UTC)
    except (OverflowError, OSError, ValueError):
        return str(ts)
    return t.strftime("%Y-%m-%d %H:%M:%S +0000 UTC")


def _numeric_date(claims: dict[str, Any], name: str) -> float | None:
    """A NumericDate claim (jsonTime): a JSON number, or a string holding one; absent or null is None."""
    value = claims.get(name)
    if value is None:
        return None
    if isinstance(value, bool):
        raise OIDCError(
            f"oidc: failed to unmarshal claims: json: cannot unmarshal bool into Go struct field idToken.{name}"
        )
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
    raise OIDCError(f"oidc: failed to unmarshal claims: invalid {name} claim")


def _audience(claims: dict[str, Any]) -> list[str]:
    aud = claims.get("aud")
    if aud is None:
        return []
    if isinstance(aud, str):
        return [aud]
    if isinstance(aud, list) and all(isinstance(a, str) for a in aud):
        return aud
    raise OIDCError("oidc: failed to unmarshal claims: invalid aud claim")


def _go_list(items: list[str]) -> str:
    return "[" + " ".join(f'"{i}"' for i in items) + "]"


def verify_standard_claims(claims: dict[str, Any], issuer: str, client_id: str, now: float) -> None:
    """Raises OIDCError with go-oidc's message when the token is not for us or not valid now."""
    exp = _numeric_date(claims, "exp")
    nbf = _numeric_date(claims, "nbf")
    aud = _audience(claims)
    iss = claims.get("iss")
    if iss != issuer:
        raise OIDCError(f'oidc: id token issued by a different provider, expected "{issuer}" got "{iss}"')
    if client_id not in aud:
        raise OIDCError(f'oidc: expected audience "{client_id}" got {_go_list(aud)}')
    if exp is None or exp < now:  # a token without exp has the zero time: always expired
        expiry = "0001-01-01 00:00:00 +0000 UTC" if exp is None else _go_time(exp)
        raise OIDCError(f"oidc: token is expired (Token Expiry: {expiry})")
    if nbf is not None and now + NBF_LEEWAY < nbf:
        raise OIDCError(f"oidc: current time {_go_time(now)} before the nbf (not before) time: {_go_time(nbf)}")


def _string_claim(claims: dict[str, Any], name: str) -> str:
    """claims.unmarshalClaim into a string: the claim must be present and a string."""
    if name not in claims:
        raise OIDCError(f"claim not present: {name}")
    value = claims[name]
    if value is None:
        return ""  # JSON null into a Go string leaves it empty
    if not isinstance(value, str):
        raise OIDCError(f"json: cannot unmarshal {json_kind(value)} into Go value of type string")
    return value


def _string_or_array(value: Any) -> list[str]:
    """stringOrArray: a string is a list of one; a list must hold strings (null elements are empty strings)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(v is None or isinstance(v, str) for v in value):
        return [v or "" for v in value]
    raise OIDCError(f"json: cannot unmarshal {json_kind(value)} into Go value of type string")


def username_from_claims(claims: dict[str, Any], claim: str, prefix: str) -> str:
    try:
        username = _string_claim(claims, claim)
    except OIDCError as e:
        raise OIDCError(f'oidc: parse username claims "{claim}": {e}') from None
    if claim == "email" and "email_verified" in claims:
        # When the provider says whether the address was verified, it must have been.
        verified = claims["email_verified"]
        if verified is not None and not isinstance(verified, bool):
            raise OIDCError(
                f"oidc: parse 'email_verified' claim: json: cannot unmarshal {json_kind(verified)} into Go value of type bool"
            )
        if not verified:
            raise OIDCError("oidc: email not verified")
    return prefix + username


def groups_from_claims(claims: dict[str, Any], claim: str, prefix: str) -> tuple[str, ...]:
    if not claim or claim not in claims:
        return ()
    try:
        groups = _string_or_array(claims[claim])
    except OIDCError as e:
        raise OIDCError(f'oidc: parse groups claim "{claim}": {e}') from None
    return tuple(prefix + g for g in groups)


def check_required_claims(claims: dict[str, Any], required: dict[str, str]) -> None:
    for claim, want in required.items():
        try:
            got = _string_claim(claims, claim)
        except OIDCError as e:
            raise OIDCError(f"oidc: parse claim {claim}: {e}") from None
        if got != want:
            raise OIDCError(f"oidc: required claim {claim} value does not match. Got = {got}, want = {want}")


def user_from_claims(claims: dict[str, Any], options: Any) -> UserInfo:
    """The user of verified claims under the authenticator's options (an OIDCOptions); raises OIDCError."""
    check_required_claims(claims, options.required_claims)
    name = username_from_claims(claims, options.username_claim, options.username_prefix)
    groups = groups_from_claims(claims, options.groups_claim, options.groups_prefix)
    return UserInfo(name, "", groups)
