"""Wires RBAC into the kube-apiserver: the rule resolver over the RBAC stores, escalation checks on their
strategies, and the rbac/bootstrap-roles post-start hook (bootstrap policy, then ClusterRole aggregation)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.authorization.rbac.authorizer import GROUP, RuleResolver
from kube_apiserver.authorization.rbac.escalation import EscalationCheckingStrategy
from kube_apiserver.authorization.rbac.reconcile import ClusterRoleAggregator, ensure_rbac_policy


def install_rbac(server: Any, stores: dict[tuple[str, str, str], Any]) -> RuleResolver:
    resolver = RuleResolver(stores)
    resolver.start_informers()
    for resource in ("roles", "clusterroles", "rolebindings", "clusterrolebindings"):
        store = stores[(GROUP, "v1", resource)]
        store.strategy = EscalationCheckingStrategy(store.strategy, resolver)
    aggregator = ClusterRoleAggregator(stores[(GROUP, "v1", "clusterroles")])

    async def bootstrap_roles() -> None:
        await ensure_rbac_policy(stores)
        await aggregator.start()

    server.add_post_start_hook("rbac/bootstrap-roles", bootstrap_roles)
    return resolver
