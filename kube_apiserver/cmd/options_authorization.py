"""Authorization flags (BuiltInAuthorizationOptions) and the authorizer union they build
(pkg/kubeapiserver/authorizer: system:masters first, then each --authorization-mode in order)."""

from __future__ import annotations

import argparse
import json
import logging
from dataclasses import dataclass
from typing import Any

from kube_apiserver.authorization.authorizer import AlwaysAllow, AlwaysDeny, PrivilegedGroups, Union
from kube_apiserver.cmd.flag_types import SliceFlag, duration_flag

log = logging.getLogger("kube_apiserver")

# authzmodes.AuthorizationModeChoices, in kube's order
AUTHORIZATION_MODE_CHOICES = ("AlwaysAllow", "AlwaysDeny", "ABAC", "Webhook", "RBAC", "Node")


class AuthorizationConfigError(ValueError):
    """A policy file or webhook kubeconfig the authorizers cannot use; the server exits with its message."""


def _modes(value: str) -> list[str]:
    # pflag's StringSlice: comma separated, blanks kept as written (they fail validation as kube's do)
    return [m.strip() for m in value.split(",")] if value else []


def _go_quoted_list(values: list[str]) -> str:
    return "[" + " ".join(json.dumps(v) for v in values) + "]"


@dataclass
class AuthorizationOptions:
    authorization_mode: list[str]
    authorization_policy_file: str
    authorization_webhook_config_file: str
    authorization_webhook_version: str
    authorization_webhook_cache_authorized_ttl: float
    authorization_webhook_cache_unauthorized_ttl: float

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> AuthorizationOptions:
        return cls(
            ns.authorization_mode,
            ns.authorization_policy_file,
            ns.authorization_webhook_config_file,
            ns.authorization_webhook_version,
            ns.authorization_webhook_cache_authorized_ttl,
            ns.authorization_webhook_cache_unauthorized_ttl,
        )

    def validate(self) -> list[str]:
        """BuiltInAuthorizationOptions.Validate; several problems are reported as one aggregate, as kube prints."""
        errs: list[str] = []
        modes = self.authorization_mode
        if not modes:
            errs.append("at least one authorization-mode must be passed")
        for mode in modes:
            if mode not in AUTHORIZATION_MODE_CHOICES:
                errs.append(f"authorization-mode {json.dumps(mode)} is not a valid mode")
            if mode == "ABAC" and not self.authorization_policy_file:
                errs.append("authorization-mode ABAC's authorization policy file not passed")
            if mode == "Webhook" and not self.authorization_webhook_config_file:
                errs.append("authorization-mode Webhook's authorization config file not passed")
        if self.authorization_policy_file and "ABAC" not in modes:
            errs.append("cannot specify --authorization-policy-file without mode ABAC")
        if self.authorization_webhook_config_file and "Webhook" not in modes:
            errs.append("cannot specify --authorization-webhook-config-file without mode Webhook")
        if len(modes) != len(set(modes)):
            errs.append(f"authorization-mode {_go_quoted_list(modes)} has mode specified more than once")
        if self.authorization_webhook_version not in ("v1", "v1beta1"):
            errs.append(
                f'unsupported webhook authorizer version "{self.authorization_webhook_version}", supported versions are "v1", "v1beta1"'
            )
        if len(errs) > 1:
            return ["[" + ", ".join(errs) + "]"]
        return errs

    def apply_to_authentication(self, authentication: Any) -> None:
        """BuiltInAuthenticationOptions.ApplyAuthorization: AlwaysAllow and anonymous requests do not mix."""
        if getattr(authentication, "anonymous_auth", False) and "AlwaysAllow" in self.authorization_mode:
            log.warning(
                "AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. "
                "You should use a different authorizer"
            )
            authentication.anonymous_auth = False

    def to_authorizer(self, rbac: Any, stores: dict[tuple[str, str, str], Any] | None = None) -> Union:
        """The union kube builds. rbac is the RBAC rule resolver; stores feed the node authorizer's graph.
        Raises AuthorizationConfigError."""
        chain: list[Any] = [PrivilegedGroups()]
        for mode in self.authorization_mode:
            if mode == "AlwaysAllow":
                chain.append(AlwaysAllow())
            elif mode == "AlwaysDeny":
                chain.append(AlwaysDeny())
            elif mode == "RBAC":
                chain.append(rbac)
            elif mode == "Node":
                from kube_apiserver.authorization.node.authorizer import new_node_authorizer

                chain.append(new_node_authorizer(stores or {}))
            elif mode == "ABAC":
                from kube_apiserver.authorization.abac import ABACAuthorizer, PolicyLoadError

                try:
                    chain.append(ABACAuthorizer.from_file(self.authorization_policy_file))
                except PolicyLoadError as e:
                    raise AuthorizationConfigError(str(e)) from None
            elif mode == "Webhook":
                chain.append(self._webhook())
        return Union(chain)

    def _webhook(self) -> Any:
        from kube_apiserver.authentication.kubeconfig_client import KubeconfigError, WebhookClient
        from kube_apiserver.authorization.webhook import WebhookAuthorizer

        try:
            client = WebhookClient.from_kubeconfig(self.authorization_webhook_config_file)
        except KubeconfigError as e:
            raise AuthorizationConfigError(str(e)) from None
        return WebhookAuthorizer(
            client,
            self.authorization_webhook_version,
            self.authorization_webhook_cache_authorized_ttl,
            self.authorization_webhook_cache_unauthorized_ttl,
        )


def add_flags(p: argparse.ArgumentParser) -> None:
    a = p.add_argument
    a(
        "--authorization-mode",
        type=_modes,
        action=SliceFlag,
        default=["Node", "RBAC"],
        help="Ordered list of plug-ins to do authorization on secure port. Defaults to Node,RBAC here (kube-apiserver "
        "defaults to AlwaysAllow). Comma-delimited list of: " + ",".join(AUTHORIZATION_MODE_CHOICES) + ".",
    )
    a(
        "--authorization-policy-file",
        default="",
        help="File with authorization policy in json line by line format, used with --authorization-mode=ABAC, on the secure port.",
    )
    a(
        "--authorization-webhook-config-file",
        default="",
        help="File with webhook configuration in kubeconfig format, used with --authorization-mode=Webhook. The API server will query the remote service to determine access on the API server's secure port.",
    )
    a(
        "--authorization-webhook-version",
        default="v1beta1",
        help="The API version of the authorization.k8s.io SubjectAccessReview to send to and expect from the webhook.",
    )
    a(
        "--authorization-webhook-cache-authorized-ttl",
        type=duration_flag,
        default=300.0,
        help="The duration to cache 'authorized' responses from the webhook authorizer.",
    )
    a(
        "--authorization-webhook-cache-unauthorized-ttl",
        type=duration_flag,
        default=30.0,
        help="The duration to cache 'unauthorized' responses from the webhook authorizer.",
    )
