"""Service account issuer discovery (pkg/serviceaccount/openidmetadata.go, pkg/routes/openidmetadata.go):
/.well-known/openid-configuration and /openid/v1/jwks, so relying parties can verify the tokens.

Served only when the issuer is an https URL without query or fragment (kube logs and skips otherwise).
The documents are rendered once; RBAC lets system:serviceaccounts read them
(system:service-account-issuer-discovery).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

import orjson

from kube_apiserver.authentication.serviceaccount_config import ServiceAccountConfig
from kube_apiserver.authentication.serviceaccount_keys import public_jwk
from kube_apiserver.endpoints.request import Request, send_bytes

log = logging.getLogger(__name__)

OPENID_CONFIG_PATH = "/.well-known/openid-configuration"
JWKS_PATH = "/openid/v1/jwks"
CACHE_CONTROL = (b"cache-control", b"public, max-age=3600")
MIME_JWKS = "application/jwk-set+json"


class DiscoveryError(ValueError):
    pass


def _check_https(url: str, what: str) -> None:
    try:
        parts = urlsplit(url)
    except ValueError as e:
        raise DiscoveryError(str(e)) from None
    if parts.scheme != "https":
        raise DiscoveryError(f"{what} must use https scheme, got: {url}")


def openid_documents(config: ServiceAccountConfig, external_address: str) -> tuple[bytes, bytes]:
    """(configuration JSON, JWKS JSON), as NewOpenIDMetadataProvider renders them; raises DiscoveryError."""
    issuer = config.issuers[0]
    parts = urlsplit(issuer)
    if parts.scheme != "https":
        raise DiscoveryError(f"issuer URL must use https scheme, got: {issuer}")
    if parts.query:
        raise DiscoveryError(f"issuer URL may not include a query, got: {issuer}")
    if parts.fragment:
        raise DiscoveryError(f"issuer URL may not include a fragment, got: {issuer}")
    jwks_uri = config.jwks_uri
    if jwks_uri:
        _check_https(jwks_uri, "jwksURI")
    else:
        if not external_address:
            raise DiscoveryError("either the JWKS URI or the default external address, or both, must be set")
        jwks_uri = f"https://{external_address}{JWKS_PATH}"
    keys = [public_jwk(k) for k in config.keys]
    if not keys:
        raise DiscoveryError("no keys provided for validating keyset")
    metadata = {
        "issuer": issuer,
        "jwks_uri": jwks_uri,
        "response_types_supported": ["id_token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": sorted({k["alg"] for k in keys}),
    }
    return orjson.dumps(metadata), orjson.dumps({"keys": keys})


def discovery_handlers(
    config: ServiceAccountConfig, external_address: str
) -> dict[str, Callable[[Request], Awaitable[None]]]:
    """The two routes, or none when the issuer is not fit for discovery."""
    try:
        config_json, keyset_json = openid_documents(config, external_address)
    except DiscoveryError as e:
        log.warning("Failed to set up service account issuer discovery, the endpoints will not be served: %s", e)
        return {}

    async def serve_configuration(req: Request) -> None:
        await _serve(req, config_json, "application/json")

    async def serve_keys(req: Request) -> None:
        await _serve(req, keyset_json, MIME_JWKS)

    return {OPENID_CONFIG_PATH: serve_configuration, JWKS_PATH: serve_keys}


async def _serve(req: Request, body: bytes, content_type: str) -> None:
    if req.method not in ("GET", "HEAD"):  # go-restful's answer to a method the route lacks
        await send_bytes(req.send, 405, b"405: Method Not Allowed", "text/plain; charset=utf-8")
        return
    await send_bytes(req.send, 200, body, content_type, [CACHE_CONTROL])
