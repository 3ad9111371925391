"""The rbac/bootstrap-roles post-start hook (pkg/registry/rbac/rest.PolicyData.EnsureRBACPolicy with
pkg/registry/rbac/reconciliation) and the ClusterRole aggregation controller
(pkg/controller/clusterroleaggregation).

Reconciling creates what is missing, adds missing rules, aggregation selectors, labels, annotations and
subjects, and keeps whatever users added; an object annotated rbac.authorization.kubernetes.io/autoupdate
"false" is left alone. A binding whose roleRef differs is recreated (roleRef is immutable)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from kube_apiserver.authorization.rbac import bootstrap_policy as policy
from kube_apiserver.authorization.rbac.rules import covers, normalize_rule, to_api_rule
from kube_apiserver.registry.fieldmanager import managing_as_server
from kube_apiserver.registry.store import DeleteOptions, Store
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.labels import SelectorParseError, selector_from_label_selector_dict

log = logging.getLogger(__name__)
GROUP = policy.GROUP


def _merge_missing(current: dict[str, Any], expected: dict[str, Any]) -> bool:
    """Adds expected labels and annotations the current object lacks (its own values win)."""
    changed = False
    meta = current.setdefault("metadata", {})
    for key in ("labels", "annotations"):
        have = meta.get(key) if isinstance(meta.get(key), dict) else {}
        for k, v in (expected["metadata"].get(key) or {}).items():
            if k not in have:
                have[k] = v
                changed = True
        if have:
            meta[key] = have
    return changed


def _autoupdate(obj: dict[str, Any]) -> bool:
    return ((obj.get("metadata") or {}).get("annotations") or {}).get(policy.AUTOUPDATE) != "false"


def reconcile_role(current: dict[str, Any], expected: dict[str, Any]) -> bool:
    """computeReconciledRole without removing extra permissions; True when current changed."""
    changed = _merge_missing(current, expected)
    rules = current.get("rules") if isinstance(current.get("rules"), list) else []
    _, missing = covers([normalize_rule(x) for x in rules], [normalize_rule(x) for x in expected.get("rules") or []])
    if missing:
        current["rules"] = rules + [to_api_rule(m) for m in missing]
        changed = True
    if "aggregationRule" in expected:
        agg = current.get("aggregationRule") if isinstance(current.get("aggregationRule"), dict) else {}
        selectors = agg.get("clusterRoleSelectors") if isinstance(agg.get("clusterRoleSelectors"), list) else []
        for sel in expected["aggregationRule"]["clusterRoleSelectors"]:
            if sel not in selectors:
                selectors.append(sel)
                changed = True
        current["aggregationRule"] = {**agg, "clusterRoleSelectors": selectors}
    return changed


def reconcile_binding(current: dict[str, Any], expected: dict[str, Any]) -> bool:
    changed = _merge_missing(current, expected)
    subjects = current.get("subjects") if isinstance(current.get("subjects"), list) else []
    for s in expected["subjects"]:
        if not any(
            isinstance(h, dict) and all(h.get(k) == v for k, v in s.items() if k != "apiGroup") for h in subjects
        ):
            subjects.append(s)
            changed = True
    if changed:
        current["subjects"] = subjects
    return changed


async def _ensure(store: Store, expected: dict[str, Any], is_binding: bool) -> None:
    meta = expected["metadata"]
    ns, name = meta.get("namespace", ""), meta["name"]
    try:
        current = (await store.get(ns, name)).obj
    except errors.StatusError as e:
        if e.code != 404:
            raise
        try:
            with managing_as_server(store):
                await store.create(ns, _copy(expected))
        except errors.StatusError as ce:
            if ce.code != 409:
                raise
        return
    if not _autoupdate(current):
        return
    if is_binding and current.get("roleRef") != expected["roleRef"]:
        await store.delete(ns, name, DeleteOptions())
        with managing_as_server(store):
            await store.create(ns, _copy(expected))
        return
    probe = _copy(current)
    if not (reconcile_binding if is_binding else reconcile_role)(probe, expected):
        return

    def update(old: dict[str, Any]) -> dict[str, Any]:
        (reconcile_binding if is_binding else reconcile_role)(old, expected)
        return old

    with managing_as_server(store):
        await store.patch(ns, name, update)


def _copy(obj: dict[str, Any]) -> dict[str, Any]:
    import orjson

    return orjson.loads(orjson.dumps(obj))


async def ensure_rbac_policy(stores: dict[tuple[str, str, str], Store]) -> None:
    def s(resource: str) -> Store:
        return stores[(GROUP, "v1", resource)]

    for role in policy.cluster_roles():
        await _ensure(s("clusterroles"), role, False)
    for crb in policy.cluster_role_bindings():
        await _ensure(s("clusterrolebindings"), crb, True)
    for role in policy.namespace_roles():
        await _ensure(s("roles"), role, False)
    for rb in policy.namespace_role_bindings():
        await _ensure(s("rolebindings"), rb, True)


class ClusterRoleAggregator:
    """Fills the rules of every ClusterRole with an aggregationRule from the ClusterRoles its selectors
    match (by name order, without duplicates), again whenever a ClusterRole changes."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._dirty = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def _on_write(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        self._dirty.set()

    async def start(self) -> None:
        self.store.after_write.append(self._on_write)
        await self.sync_all()
        self._task = asyncio.create_task(self._loop(), name="clusterrole-aggregation")

    async def _loop(self) -> None:
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            try:
                await self.sync_all()
            except Exception:  # noqa: BLE001 - keep the controller alive; the next change retries
                log.exception("ClusterRole aggregation failed")

    def _roles(self) -> list[dict[str, Any]]:
        storage = self.store.storage
        cacher = getattr(storage, "cacher", storage)
        return [item.obj for _, item in sorted(cacher.objects.items())]

    @staticmethod
    def aggregated_rules(role: dict[str, Any], roles: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        agg = role.get("aggregationRule")
        if not isinstance(agg, dict):
            return None
        name = role["metadata"]["name"]
        rules: list[dict[str, Any]] = []
        by_name = sorted(roles, key=lambda o: o["metadata"]["name"])
        for sel in agg.get("clusterRoleSelectors") or []:
            try:
                selector = selector_from_label_selector_dict(sel if isinstance(sel, dict) else None)
            except SelectorParseError:
                continue
            for other in by_name:
                if other["metadata"]["name"] == name or not selector.matches(other["metadata"].get("labels") or {}):
                    continue
                for rule in other.get("rules") or []:
                    if rule not in rules:
                        rules.append(rule)
        return rules

    async def sync_all(self) -> None:
        # Aggregated roles may aggregate one another (admin ⊇ edit ⊇ view): repeat until nothing moves.
        for _ in range(10):
            changed = False
            await self.store.storage.wait_fresh()  # see our own writes of the last round
            roles = self._roles()
            for role in roles:
                rules = self.aggregated_rules(role, roles)
                if rules is None or rules == (role.get("rules") or []):
                    continue

                def set_rules(old: dict[str, Any], rules: list[dict[str, Any]] = rules) -> dict[str, Any]:
                    old["rules"] = rules
                    return old

                try:
                    await self.store.patch("", role["metadata"]["name"], set_rules)
                except errors.StatusError as e:
                    if e.code != 404:
                        raise
                changed = True
            if not changed:
                return
