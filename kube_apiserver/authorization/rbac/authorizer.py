"""The RBAC authorizer and its rule resolver (plugin/pkg/auth/authorizer/rbac, pkg/registry/rbac/validation
DefaultRuleResolver).

Roles and bindings are read from the watch caches of the four RBAC resources. An index from subject to the
rules granted is rebuilt when one of those caches changed: informers on the caches mark it stale on every event
(kube's RBAC authorizer reads informer-backed listers the same way), so a decision costs a few dict lookups
and set tests whatever the number of bindings, and a new binding counts from the moment the cache has it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kube_apiserver.authentication.user import UserInfo
from kube_apiserver.authorization.authorizer import ALLOW, NO_OPINION, Attributes, PrivilegedGroups
from kube_apiserver.authorization.informer import CacheInformer, cacher_of, current_objects
from kube_apiserver.authorization.rbac.rules import CompiledRule, compile_rule, normalize_rule

GROUP = "rbac.authorization.k8s.io"
SA_PREFIX = "system:serviceaccount:"
RESOURCES = ("roles", "clusterroles", "rolebindings", "clusterrolebindings")
Rule = dict[str, tuple[str, ...]]

__all__ = ["GROUP", "Grant", "PrivilegedGroups", "RuleResolver"]


@dataclass(frozen=True, slots=True)
class Grant:
    """The rules one binding gives one subject; error when its role does not exist."""

    source: str  # 'ClusterRoleBinding "x" of ClusterRole "y" to User "z"', for the allow reason
    rules: tuple[Rule, ...]
    compiled: tuple[CompiledRule, ...]
    error: str


def _describe_subject(subject: dict[str, Any], binding_ns: str) -> str:
    kind, name = subject.get("kind"), subject.get("name", "")
    if kind == "ServiceAccount":
        return f'{kind} "{name}/{subject.get("namespace") or binding_ns}"'
    return f'{kind} "{name}"'


def _subject_key(subject: Any, binding_ns: str) -> tuple[str, str] | None:
    """The index key a subject is found under: users and service accounts by user name, groups by group."""
    if not isinstance(subject, dict) or not isinstance(subject.get("name"), str):
        return None
    kind, name = subject.get("kind"), subject["name"]
    if kind == "User":
        return ("u", name)
    if kind == "Group":
        return ("g", name)
    if kind == "ServiceAccount":
        ns = subject.get("namespace") or binding_ns
        return ("u", f"{SA_PREFIX}{ns}:{name}") if isinstance(ns, str) and ns else None
    return None


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


class RuleResolver:
    """RulesFor / VisitRulesFor / GetRoleReferenceRules over the RBAC watch caches, and the RBAC authorizer."""

    def __init__(self, stores: dict[tuple[str, str, str], Any]) -> None:
        self.cachers = {r: cacher_of(stores.get((GROUP, "v1", r))) for r in RESOURCES}
        self._stale = True
        self._informers: list[CacheInformer] = []
        self._last_fingerprint: tuple[Any, ...] | None = None
        self.cluster_roles: dict[str, tuple[Rule, ...]] = {}
        self.roles: dict[tuple[str, str], tuple[Rule, ...]] = {}
        self.cluster_grants: dict[tuple[str, str], list[Grant]] = {}
        self.ns_grants: dict[str, dict[tuple[str, str], list[Grant]]] = {}
        self._compiled: dict[int, tuple[CompiledRule, ...]] = {}

    def start_informers(self) -> None:
        """Follow the caches from now on; until then (or without caches) every query rebuilds the index."""
        if self._informers:
            return
        for cacher in self.cachers.values():
            if cacher is not None and hasattr(cacher, "watchers"):
                self._informers.append(CacheInformer(cacher, self._on_event, self.invalidate))
        self.invalidate()

    def _on_event(self, _type: str, _obj: dict[str, Any], _prev: dict[str, Any] | None) -> None:
        self._stale = True

    def invalidate(self) -> None:
        self._stale = True

    # --- the index ---

    def _fingerprint(self) -> tuple[Any, ...]:
        """Without informers (caches that take no watchers): whether a cache changed, from its last event."""
        out = []
        for cacher in self.cachers.values():
            history = getattr(cacher, "history", None)
            out.append((id(getattr(cacher, "objects", None)), history[-1].revision if history else 0))
        return tuple(out)

    def _index(self) -> None:
        if self._informers:
            self._stale = False
            self._rebuild()
            return
        fp = self._fingerprint()
        if fp != self._last_fingerprint:
            self._rebuild()
            self._last_fingerprint = fp

    def _rebuild(self) -> None:
        compiled: dict[int, tuple[CompiledRule, ...]] = {}

        def rules_of(obj: dict[str, Any]) -> tuple[Rule, ...]:
            rules = obj.get("rules")
            normalized = tuple(normalize_rule(r) for r in rules) if isinstance(rules, list) else ()
            compiled[id(normalized)] = tuple(compile_rule(r) for r in normalized)
            return normalized

        self._compiled = compiled
        self.cluster_roles = {
            _meta(o).get("name", ""): rules_of(o) for o in current_objects(self.cachers["clusterroles"])
        }
        self.roles = {
            (_meta(o).get("namespace", ""), _meta(o).get("name", "")): rules_of(o)
            for o in current_objects(self.cachers["roles"])
        }
        self.cluster_grants = {}
        for crb in current_objects(self.cachers["clusterrolebindings"]):
            self._add_binding(crb, "", self.cluster_grants)
        self.ns_grants = {}
        for rb in current_objects(self.cachers["rolebindings"]):
            ns = _meta(rb).get("namespace", "")
            self._add_binding(rb, ns, self.ns_grants.setdefault(ns, {}))

    def _add_binding(self, binding: dict[str, Any], ns: str, into: dict[tuple[str, str], list[Grant]]) -> None:
        ref = binding.get("roleRef") if isinstance(binding.get("roleRef"), dict) else {}
        rules, error = self.role_ref_rules(ref, ns, lister_style=True)
        compiled = self._compiled.get(id(rules), ())
        name = _meta(binding).get("name", "")
        what = f'RoleBinding "{name}/{ns}"' if ns else f'ClusterRoleBinding "{name}"'
        head = f'{what} of {ref.get("kind")} "{ref.get("name")}" to '
        subjects = binding.get("subjects")
        for subject in subjects if isinstance(subjects, list) else ():
            key = _subject_key(subject, ns)
            if key is not None:
                into.setdefault(key, []).append(Grant(head + _describe_subject(subject, ns), rules, compiled, error))

    def role_ref_rules(self, ref: dict[str, Any], ns: str, lister_style: bool = False) -> tuple[tuple[Rule, ...], str]:
        """The rules a roleRef points at, or the NotFound message (the informer listers name the resource in
        the singular, the registry in the plural)."""
        kind, name = ref.get("kind"), ref.get("name", "")
        if kind == "ClusterRole":
            found = self.cluster_roles.get(name)
            resource = "clusterrole" if lister_style else "clusterroles"
        elif kind == "Role" and ns:
            found = self.roles.get((ns, name))
            resource = "role" if lister_style else "roles"
        else:
            return (), f"unsupported role reference kind: {kind!r}"
        if found is None:
            return (), f'{resource}.{GROUP} "{name}" not found'
        return found, ""

    def _grants_for(self, user: UserInfo, namespace: str) -> list[Grant]:
        keys = [("u", user.name), *(("g", g) for g in user.groups)]
        out: list[Grant] = []
        for key in keys:
            out.extend(self.cluster_grants.get(key, ()))
        if namespace:
            ns_index = self.ns_grants.get(namespace)
            if ns_index:
                for key in keys:
                    out.extend(ns_index.get(key, ()))
        return out

    # --- queries ---

    def rules_for(self, user: UserInfo, namespace: str) -> tuple[list[Rule], list[str]]:
        if self._stale:
            self._index()
        rules: list[Rule] = []
        errors: list[str] = []
        for grant in self._grants_for(user, namespace):
            if grant.error:
                errors.append(grant.error)
            rules.extend(grant.rules)
        return rules, errors

    def get_role_reference_rules(self, ref: dict[str, Any], namespace: str) -> tuple[tuple[Rule, ...], str]:
        if self._stale:
            self._index()
        return self.role_ref_rules(ref, namespace)

    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        """RBACAuthorizer.Authorize: visit the grants of the user, its groups, then of the namespace's bindings,
        and allow on the first rule that matches; otherwise no opinion, naming the roles that were missing."""
        if self._stale:
            self._index()
        user = attrs.user
        errors: list[str] | None = None
        if attrs.is_resource_request:
            verb, group, sub, name = attrs.verb, attrs.api_group, attrs.subresource, attrs.name
            combined = f"{attrs.resource}/{sub}" if sub else attrs.resource
            path = None
        else:
            verb, path = attrs.verb, attrs.path
        namespace = attrs.namespace
        ns_index = self.ns_grants.get(namespace) if namespace else None
        for index in (self.cluster_grants, ns_index):
            if not index:
                continue
            grants = index.get(("u", user.name))
            for key in (None, *user.groups):
                if key is not None:
                    grants = index.get(("g", key))
                if not grants:
                    continue
                for grant in grants:
                    if grant.error:
                        if errors is None:
                            errors = [grant.error]
                        else:
                            errors.append(grant.error)
                        continue
                    if path is None:
                        for rule in grant.compiled:
                            if rule.allows_resource(verb, group, combined, sub, name):
                                return ALLOW, f"RBAC: allowed by {grant.source}"
                    else:
                        for rule in grant.compiled:
                            if rule.allows_path(verb, path):
                                return ALLOW, f"RBAC: allowed by {grant.source}"
        if not errors:
            return NO_OPINION, ""
        return NO_OPINION, "RBAC: " + (errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
