"""The RBAC authorizer and its rule resolver (plugin/pkg/auth/authorizer/rbac, pkg/registry/rbac/validation
DefaultRuleResolver).

Roles and bindings are read from the watch caches of the four RBAC resources. An index from subject to
the rules granted is rebuilt when any of those caches changed, so a decision costs a few dict lookups
whatever the number of bindings (kube's informer-backed listers make the same trade)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kube_apiserver.authentication.user import SYSTEM_PRIVILEGED_GROUP, UserInfo
from kube_apiserver.authorization.authorizer import ALLOW, NO_OPINION, Attributes
from kube_apiserver.authorization.rbac.rules import normalize_rule, rule_allows

GROUP = "rbac.authorization.k8s.io"
SA_PREFIX = "system:serviceaccount:"
Rule = dict[str, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class Grant:
    """The rules one binding gives one subject; error when its role does not exist."""

    source: str  # 'ClusterRoleBinding "x" of ClusterRole "y" to User "z"', for the allow reason
    rules: tuple[Rule, ...]
    error: str


def _objects(store: Any) -> list[dict[str, Any]]:
    storage = getattr(store, "storage", None)
    cacher = getattr(storage, "cacher", storage)
    objects = getattr(cacher, "objects", {}) or {}
    return [item.obj for _, item in sorted(objects.items())]


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


class RuleResolver:
    """RulesFor / VisitRulesFor / GetRoleReferenceRules over the RBAC watch caches."""

    def __init__(self, stores: dict[tuple[str, str, str], Any]) -> None:
        self.stores = {
            r: stores.get((GROUP, "v1", r)) for r in ("roles", "clusterroles", "rolebindings", "clusterrolebindings")
        }
        self._fingerprint: tuple[Any, ...] | None = None
        self.cluster_roles: dict[str, tuple[Rule, ...]] = {}
        self.roles: dict[tuple[str, str], tuple[Rule, ...]] = {}
        self.cluster_grants: dict[tuple[str, str], list[Grant]] = {}
        self.ns_grants: dict[str, dict[tuple[str, str], list[Grant]]] = {}

    # --- the index ---

    def _current_fingerprint(self) -> tuple[Any, ...]:
        out = []
        for store in self.stores.values():
            storage = getattr(store, "storage", None)
            cacher = getattr(storage, "cacher", storage)
            history = getattr(cacher, "history", None)
            out.append((id(getattr(cacher, "objects", None)), history[-1].revision if history else 0))
        return tuple(out)

    def _index(self) -> None:
        fp = self._current_fingerprint()
        if fp != self._fingerprint:
            self._rebuild()
            self._fingerprint = fp

    def _rebuild(self) -> None:
        def rules_of(obj: dict[str, Any]) -> tuple[Rule, ...]:
            rules = obj.get("rules")
            return tuple(normalize_rule(r) for r in rules) if isinstance(rules, list) else ()

        self.cluster_roles = {
            o["metadata"]["name"]: rules_of(o) for o in _objects(self.stores["clusterroles"]) if "metadata" in o
        }
        self.roles = {
            (o["metadata"].get("namespace", ""), o["metadata"]["name"]): rules_of(o)
            for o in _objects(self.stores["roles"])
            if "metadata" in o
        }
        self.cluster_grants = {}
        for crb in _objects(self.stores["clusterrolebindings"]):
            self._add_binding(crb, "", self.cluster_grants)
        self.ns_grants = {}
        for rb in _objects(self.stores["rolebindings"]):
            ns = (rb.get("metadata") or {}).get("namespace", "")
            self._add_binding(rb, ns, self.ns_grants.setdefault(ns, {}))

    def _add_binding(self, binding: dict[str, Any], ns: str, into: dict[tuple[str, str], list[Grant]]) -> None:
        ref = binding.get("roleRef") if isinstance(binding.get("roleRef"), dict) else {}
        rules, error = self.role_ref_rules(ref, ns, lister_style=True)
        name = (binding.get("metadata") or {}).get("name", "")
        what = f'RoleBinding "{name}/{ns}"' if ns else f'ClusterRoleBinding "{name}"'
        head = f'{what} of {ref.get("kind")} "{ref.get("name")}" to '
        subjects = binding.get("subjects")
        for subject in subjects if isinstance(subjects, list) else ():
            key = _subject_key(subject, ns)
            if key is not None:
                into.setdefault(key, []).append(Grant(head + _describe_subject(subject, ns), rules, error))

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
        self._index()
        rules: list[Rule] = []
        errors: list[str] = []
        for grant in self._grants_for(user, namespace):
            if grant.error:
                errors.append(grant.error)
            rules.extend(grant.rules)
        return rules, errors

    def get_role_reference_rules(self, ref: dict[str, Any], namespace: str) -> tuple[tuple[Rule, ...], str]:
        self._index()
        return self.role_ref_rules(ref, namespace)

    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        self._index()
        errors = []
        for grant in self._grants_for(attrs.user, attrs.namespace):
            if grant.error:
                errors.append(grant.error)
                continue
            for rule in grant.rules:
                if rule_allows(attrs, rule):
                    return ALLOW, f"RBAC: allowed by {grant.source}"
        if not errors:
            return NO_OPINION, ""
        return NO_OPINION, "RBAC: " + (errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")


class PrivilegedGroups:
    """system:masters may do anything (authorizerfactory.NewPrivilegedGroups, first in kube's chain)."""

    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        if SYSTEM_PRIVILEGED_GROUP in attrs.user.groups:
            return ALLOW, ""
        return NO_OPINION, ""


class NodeNoOpinion:
    """--authorization-mode=Node is accepted; the node authorizer's graph (pods, secrets, ... reachable
    from a node) is not built, so it has no opinion and nodes need RBAC grants."""

    def authorize(self, attrs: Attributes) -> tuple[str, str]:
        return NO_OPINION, ""
