"""TokenReview (pkg/registry/authentication/tokenreview): authenticate spec.token as the server would
authenticate a request bearing it, for spec.audiences (default: the API's audiences).

The error text follows kube's authenticator stack: the loopback token authenticator comes first and
fails every token with "invalid bearer token", then the token authenticators (their errors aggregated, or
"invalid bearer token" when none claimed the token); errors are joined as utilerrors.Aggregate does.
"""

from __future__ import annotations

from typing import Any

import orjson

from kube_apiserver.authentication.request import RequestAuthenticator
from kube_apiserver.authentication.serviceaccount import TokenAuthError, TokenResponse, intersect
from kube_apiserver.endpoints.handlers.scope import RequestScope, decode_object
from kube_apiserver.endpoints.installer import APIResource
from kube_apiserver.endpoints.request import send_bytes
from kube_apiserver.runtime import errors

INVALID_BEARER_TOKEN = "invalid bearer token"


def aggregate_error(messages: list[str]) -> str:
    """utilerrors.Aggregate.Error(): one message as is, several (deduplicated) in brackets."""
    unique = list(dict.fromkeys(messages))
    if len(unique) == 1:
        return unique[0]
    return "[" + ", ".join(unique) + "]"


async def authenticate_token(
    authenticator: RequestAuthenticator, token: str, audiences: list[str], api_audiences: tuple[str, ...]
) -> tuple[TokenResponse | None, list[str]]:
    """The token union for the target audiences: the first authenticator that accepts the token wins;
    otherwise the errors of those that claimed it. Authenticators that know nothing of audiences are
    wrapped as WrapAudienceAgnosticToken does: usable only when the target includes an API audience."""
    errs: list[str] = []
    for auth in authenticator.token_authenticators:
        aware = getattr(auth, "authenticate_token_audiences", None)
        try:
            if aware is not None:
                resp = await aware(token, audiences or None)
            else:
                auds = intersect(api_audiences, audiences) if audiences else tuple(api_audiences)
                if audiences and not auds:
                    continue
                user = await auth.authenticate_token(token)
                resp = TokenResponse(user, auds) if user is not None else None
        except TokenAuthError as e:
            errs.append(str(e))
            continue
        if resp is not None:
            return resp, []
    return None, errs


class TokenReviewREST:
    def __init__(self, authenticator: RequestAuthenticator | None, api_audiences: tuple[str, ...]) -> None:
        self.authenticator = authenticator
        self.api_audiences = api_audiences

    async def create(self, scope: RequestScope) -> None:
        obj = await decode_object(scope)
        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        token = spec.get("token")
        if not isinstance(token, str) or not token:
            raise errors.new_bad_request("token is required for TokenReview in authentication")
        obj.setdefault("metadata", {})["creationTimestamp"] = None
        raw_auds = spec.get("audiences")
        audiences = [str(a) for a in raw_auds] if isinstance(raw_auds, list) else []
        status: dict[str, Any] = {}
        if self.authenticator is not None:
            status = await self._review(token, audiences or list(self.api_audiences))
        obj["status"] = status
        await send_bytes(scope.req.send, 201, orjson.dumps(obj))

    async def _review(self, token: str, audiences: list[str]) -> dict[str, Any]:
        assert self.authenticator is not None
        resp, errs = await authenticate_token(self.authenticator, token.strip(), audiences, self.api_audiences)
        if resp is None:
            # the loopback authenticator's failure, then the token authenticators' (or the bearer token
            # authenticator's default)
            return {"user": {}, "error": aggregate_error([INVALID_BEARER_TOKEN, *(errs or [INVALID_BEARER_TOKEN])])}
        status: dict[str, Any] = {"authenticated": True, "user": resp.user.with_authenticated_group().to_api()}
        if resp.audiences:
            status["audiences"] = list(resp.audiences)
        return status


def install_token_review(
    resource: APIResource, authenticator: RequestAuthenticator | None, api_audiences: tuple[str, ...]
) -> None:
    rest = TokenReviewREST(authenticator, api_audiences)

    async def create(scope: RequestScope) -> None:
        await rest.create(scope)

    resource.extra[("", "create")] = create
