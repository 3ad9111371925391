"""serviceaccounts/token (pkg/registry/core/serviceaccount/storage/token.go TokenREST): a TokenRequest
(authentication.k8s.io/v1) for a service account answers with a freshly signed bound token.

The token is for spec.audiences (default: the API's audiences), lives spec.expirationSeconds (default
3600, at least 600, capped by --service-account-max-token-expiration) and may be bound to a Pod, Secret or
Node of the request's namespace, which must exist (with the UID given, if one is) and is checked again each
time the token is used.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import orjson

from kube_apiserver.authentication.serviceaccount import (
    EXPIRATION_EXTENSION_SECONDS,
    WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS,
    claims,
)
from kube_apiserver.authentication.serviceaccount_config import MAX_TOKEN_SECONDS, ServiceAccountConfig
from kube_apiserver.endpoints.handlers.scope import RequestScope, decode_object
from kube_apiserver.endpoints.installer import APIResource, Handler
from kube_apiserver.endpoints.request import send_bytes
from kube_apiserver.registry.resource_spec import ResourceSpec, canonical_order
from kube_apiserver.runtime import errors

GROUP = "authentication.k8s.io"
GROUP_VERSION = "authentication.k8s.io/v1"
KIND = "TokenRequest"
DEFAULT_EXPIRATION_SECONDS = 60 * 60  # SetDefaults_TokenRequestSpec
MIN_TOKEN_AGE_SECONDS = 10 * 60

StoreKey = tuple[str, str, str]


def _rfc3339(ts: float) -> str:
    return datetime.fromtimestamp(int(ts), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def validate_token_request(spec: dict[str, Any]) -> list[errors.StatusCause]:
    """ValidateTokenRequest."""
    causes = []
    seconds = spec.get("expirationSeconds")
    if isinstance(seconds, int) and seconds < MIN_TOKEN_AGE_SECONDS:
        causes.append(
            errors.field_invalid("spec.expirationSeconds", seconds, "may not specify a duration less than 10 minutes")
        )
    if isinstance(seconds, int) and seconds > MAX_TOKEN_SECONDS:
        causes.append(
            errors.field_invalid(
                "spec.expirationSeconds", seconds, "may not specify a duration larger than 2^32 seconds"
            )
        )
    return causes


def _gvk_string(api_version: str, kind: str) -> tuple[str, str]:
    """(group, GroupVersionKind.String()) of schema.FromAPIVersionAndKind."""
    group, _, version = api_version.rpartition("/") if "/" in api_version else ("", "", api_version)
    return group, f"{group}/{version}, Kind={kind}"


def _uid(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("uid", ""))


class TokenREST:
    def __init__(self, stores: dict[StoreKey, Any], config: ServiceAccountConfig) -> None:
        self.stores = stores
        self.config = config
        self.generator = config.generator()

    def _store(self, resource: str) -> Any:
        return self.stores[("", "v1", resource)]

    async def create(self, scope: RequestScope) -> None:
        name, namespace = scope.info.name, scope.info.namespace
        req = await decode_object(scope, KIND, GROUP_VERSION)
        meta = req.get("metadata") if isinstance(req.get("metadata"), dict) else {}
        req["metadata"] = meta
        spec = req.get("spec") if isinstance(req.get("spec"), dict) else {}
        req["spec"] = spec
        if not isinstance(spec.get("expirationSeconds"), int) or isinstance(spec.get("expirationSeconds"), bool):
            spec["expirationSeconds"] = DEFAULT_EXPIRATION_SECONDS
        if meta.get("name") and meta["name"] != name:
            raise errors.new_invalid(
                GROUP,
                KIND,
                name,
                [
                    errors.field_invalid(
                        "metadata.name", meta["name"], "must match the service account name if specified"
                    )
                ],
            )
        if meta.get("namespace") and meta["namespace"] != namespace:
            raise errors.new_invalid(
                GROUP,
                KIND,
                name,
                [
                    errors.field_invalid(
                        "metadata.namespace", meta["namespace"], "must match the service account namespace if specified"
                    )
                ],
            )
        sa = (await self._store("serviceaccounts").get(namespace, name)).obj
        audiences = spec.get("audiences")
        if not isinstance(audiences, list) or not audiences:
            audiences = list(self.config.api_audiences)
        spec["audiences"] = [str(a) for a in audiences]
        meta.setdefault("name", name)
        meta["name"] = meta["name"] or name
        meta["namespace"] = meta.get("namespace") or namespace
        now = time.time()
        meta["creationTimestamp"] = _rfc3339(now)
        req.pop("status", None)
        causes = validate_token_request(spec)
        if causes:
            raise errors.new_invalid(GROUP, KIND, "", causes)

        pod, node, secret = await self._bound_objects(spec, name, namespace)

        max_seconds = self.config.max_expiration_seconds
        if max_seconds > 0 and spec["expirationSeconds"] > max_seconds:
            scope.req.add_warning(
                f"requested expiration of {spec['expirationSeconds']} seconds shortened to {max_seconds} seconds"
            )
            spec["expirationSeconds"] = max_seconds
        # A pod-bound token of the length admission injects is extended to a year (and warned about after
        # the hour) while clients learn to reload their tokens.
        warn_after, exp = 0, spec["expirationSeconds"]
        if (
            self.config.extend_expiration
            and pod is not None
            and exp == WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS
            and set(spec["audiences"]) <= set(self.config.api_audiences)
        ):
            warn_after, exp = exp, EXPIRATION_EXTENSION_SECONDS
        try:
            public, private = claims(sa, pod, secret, node, exp, warn_after, spec["audiences"], now)
        except ValueError as e:
            raise errors.new_internal_error(str(e)) from None
        token = self.generator.generate_token(public, private)
        spec.setdefault("boundObjectRef", None)
        req["status"] = {"token": token, "expirationTimestamp": _rfc3339(now + spec["expirationSeconds"])}
        out = canonical_order(req, _SPEC)
        out["spec"] = {
            "audiences": spec["audiences"],
            "expirationSeconds": spec["expirationSeconds"],
            "boundObjectRef": spec.get("boundObjectRef"),
        }
        await send_bytes(scope.req.send, 201, orjson.dumps(out))

    async def _bound_objects(
        self, spec: dict[str, Any], name: str, namespace: str
    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None, dict[str, Any] | None]:
        ref = spec.get("boundObjectRef")
        if not isinstance(ref, dict):
            spec["boundObjectRef"] = None
            return None, None, None
        kind = str(ref.get("kind") or "")
        ref_name = str(ref.get("name") or "")
        group, gvk = _gvk_string(str(ref.get("apiVersion") or ""), kind)
        pod = node = secret = None
        if group == "" and kind == "Pod":
            pod = (await self._store("pods").get(namespace, ref_name)).obj
            pod_spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
            if name != pod_spec.get("serviceAccountName"):
                raise errors.new_bad_request(
                    f'cannot bind token for serviceaccount "{name}" to pod running with different serviceaccount name.'
                )
            uid = _uid(pod)
            node_name = pod_spec.get("nodeName")
            if isinstance(node_name, str) and node_name:
                try:
                    node = (await self._store("nodes").get("", node_name)).obj
                except errors.StatusError as e:
                    if e.code != 404:
                        raise errors.new_internal_error(str(e)) from None
                    # the pod's node name goes in without a UID, so a reader still sees where it runs
                    node = {"metadata": {"name": node_name}}
        elif group == "" and kind == "Node":
            node = (await self._store("nodes").get("", ref_name)).obj
            uid = _uid(node)
        elif group == "" and kind == "Secret":
            secret = (await self._store("secrets").get(namespace, ref_name)).obj
            uid = _uid(secret)
        else:
            raise errors.new_bad_request(f"cannot bind token to object of type {gvk}")
        ref_uid = ref.get("uid")
        if ref_uid and uid != ref_uid:
            raise errors.new_conflict(
                group,
                kind,
                ref_name,
                f"the UID in the bound object reference ({ref_uid}) does not match the UID in record. "
                "The object might have been deleted and then recreated",
            )
        return pod, node, secret


_SPEC = ResourceSpec(GROUP, "v1", "tokenrequests", KIND, True)


def install_token_request(
    resources: dict[str, APIResource], stores: dict[StoreKey, Any], config: ServiceAccountConfig
) -> None:
    """serviceaccounts/token on the core v1 resources."""
    rest = TokenREST(stores, config)

    async def create(scope: RequestScope) -> None:
        await rest.create(scope)

    handlers: dict[tuple[str, str], Handler] = {("token", "create"): create}
    resources["serviceaccounts"].extra.update(handlers)
