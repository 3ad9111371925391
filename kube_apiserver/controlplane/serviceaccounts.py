"""Wiring of the service account pieces into the kube-apiserver: serviceaccounts/token, TokenReview, the
issuer discovery routes, and the controllers kube-controller-manager would run for service accounts (tokens,
the "default" service account of each namespace, and the kube-root-ca.crt ConfigMap with which their pods
verify the API server)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from kube_apiserver.authentication.serviceaccount_config import ServiceAccountConfig
from kube_apiserver.controllers.root_ca_publisher import RootCACertPublisher
from kube_apiserver.controllers.serviceaccount_tokens import TokensController
from kube_apiserver.controllers.serviceaccounts import ServiceAccountsController
from kube_apiserver.controlplane.serviceaccount_issuer_discovery import discovery_handlers
from kube_apiserver.controlplane.token_request import install_token_request
from kube_apiserver.controlplane.token_review import install_token_review
from kube_apiserver.endpoints.installer import APIGroupVersion
from kube_apiserver.server.genericapiserver import GenericAPIServer

StoreKey = tuple[str, str, str]

# The controllers by their kube-controller-manager names (--controllers).
TOKEN_CONTROLLER = "serviceaccount-token-controller"
SERVICE_ACCOUNT_CONTROLLER = "serviceaccount-controller"
ROOT_CA_PUBLISHER = "root-ca-cert-publisher"


def install_service_accounts(
    kube: GenericAPIServer,
    group_versions: dict[str, list[APIGroupVersion]],
    stores: dict[StoreKey, Any],
    config: Any,
) -> Callable[[], Awaitable[None]]:
    """Install what config (a ControlPlaneConfig) enables; returns the coroutine that starts the controllers."""
    sa_config: ServiceAccountConfig | None = getattr(config, "service_accounts", None)
    disabled = set(getattr(config, "disabled_controllers", ()) or ())
    core = next(agv for agv in group_versions[""] if agv.version == "v1")
    authn = next(agv for agv in group_versions.get("authentication.k8s.io", []) if agv.version == "v1")
    api_audiences = sa_config.api_audiences if sa_config is not None else ()
    install_token_review(authn.resources["tokenreviews"], getattr(config, "authenticator", None), api_audiences)
    controllers: list[Any] = []
    if sa_config is not None:
        install_token_request(core.resources, stores, sa_config)
        for path, handler in discovery_handlers(sa_config, getattr(config, "server_address", "")).items():
            kube.mux.handle(path, handler)
        if TOKEN_CONTROLLER not in disabled:
            controllers.append(
                TokensController(
                    stores[("", "v1", "secrets")],
                    stores[("", "v1", "serviceaccounts")],
                    sa_config.legacy_generator(),
                    getattr(config, "root_ca", b"") or b"",
                )
            )
    if SERVICE_ACCOUNT_CONTROLLER not in disabled:
        controllers.append(
            ServiceAccountsController(stores[("", "v1", "namespaces")], stores[("", "v1", "serviceaccounts")])
        )

    root_ca: bytes = getattr(config, "root_ca", b"") or b""
    if ROOT_CA_PUBLISHER not in disabled and root_ca:
        controllers.append(
            RootCACertPublisher(stores[("", "v1", "namespaces")], stores[("", "v1", "configmaps")], root_ca)
        )

    async def start() -> None:
        for controller in controllers:
            await controller.start()

    return start
