"""Escalation prevention on RBAC writes (pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}
/policybased and pkg/registry/rbac/validation.ConfirmNoEscalation).

A user may create or update a Role or ClusterRole only with rules they already hold, and bind a role only
if they hold its rules, unless they are in system:masters or are authorized for the escalate verb (roles)
or the bind verb (bindings) on it. The requesting user and the authorizer reach the registry through a
context variable the authorization filter sets; writes without one are the server's own (the bootstrap
policy, the aggregation controller) and are not checked, like kube's privileged loopback client."""

from __future__ import annotations

import json
from contextvars import ContextVar
from typing import Any

from kube_apiserver.authentication.user import SYSTEM_PRIVILEGED_GROUP, UserInfo
from kube_apiserver.authorization.authorizer import ALLOW, Attributes, Authorizer
from kube_apiserver.authorization.rbac.authorizer import GROUP, RuleResolver
from kube_apiserver.authorization.rbac.rules import compact_rules, compact_string, covers, normalize_rule
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.errors import StatusCause

# (user, authorizer) of the request being served; None for the server's own writes.
REQUESTER: ContextVar[tuple[UserInfo, Authorizer] | None] = ContextVar("rbac_requester", default=None)
FULL_AUTHORITY = [
    normalize_rule({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}),
    normalize_rule({"verbs": ["*"], "nonResourceURLs": ["*"]}),
]
_GC_FIELDS = ("ownerReferences", "finalizers", "managedFields", "resourceVersion")


def escalation_allowed(user: UserInfo) -> bool:
    return SYSTEM_PRIVILEGED_GROUP in user.groups


def confirm_no_escalation(resolver: RuleResolver, user: UserInfo, namespace: str, rules: list[Any]) -> str:
    """'' when the user holds every rule, else kube's message listing what they lack."""
    owner, resolution_errors = resolver.rules_for(user, namespace)
    ok, missing = covers(owner, [normalize_rule(r) for r in rules])
    if ok:
        return ""
    described = sorted({compact_string(m) for m in compact_rules(missing)})
    groups = "[" + " ".join(json.dumps(g) for g in user.groups) + "]"
    msg = (
        f"user {json.dumps(user.name)} (groups={groups}) is attempting to grant RBAC permissions not currently held:\n"
        + "\n".join(described)
    )
    if resolution_errors:
        # a []error holding RulesFor's one aggregate: "[a]", or "[[a, b]]" for several
        errs = resolution_errors[0] if len(resolution_errors) == 1 else "[" + ", ".join(resolution_errors) + "]"
        msg += f"; resolution errors: [{errs}]"
    return msg


def _only_gc_fields_changed(new: dict[str, Any], old: dict[str, Any]) -> bool:
    def strip(o: dict[str, Any]) -> dict[str, Any]:
        meta = {k: v for k, v in (o.get("metadata") or {}).items() if k not in _GC_FIELDS}
        return {**o, "metadata": meta}

    return strip(new) == strip(old)


class EscalationCheckingStrategy:
    """Wraps an RBAC resource's strategy: the check runs where validation does, on the final object of a
    create, update or patch, before the field validation (kube's policybased storage wraps the store)."""

    def __init__(self, inner: Any, resolver: RuleResolver) -> None:
        self._inner = inner
        self._resolver = resolver
        self._resource = inner.spec.resource

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def validate(self, obj: dict[str, Any]) -> list[StatusCause]:
        if not (obj.get("metadata") or {}).get("resourceVersion"):  # a create: updates are checked below
            self._check(obj, None)
        return self._inner.validate(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
        if not _only_gc_fields_changed(new, old):
            self._check(new, old)
        return self._inner.validate_update(new, old)

    def _check(self, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        requester = REQUESTER.get()
        if requester is None:
            return
        user, authorizer = requester
        if escalation_allowed(user):
            return
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        name = meta.get("name", "")
        namespace = meta.get("namespace", "") if self._resource in ("roles", "rolebindings") else ""
        if self._resource in ("roles", "clusterroles"):
            self._check_role(user, authorizer, obj, old, name, namespace)
        else:
            self._check_binding(user, authorizer, obj, name, namespace)

    def _forbidden(self, name: str, msg: str) -> errors.StatusError:
        return errors.new_forbidden(GROUP, self._resource, name, msg)

    def _check_role(
        self,
        user: UserInfo,
        authorizer: Authorizer,
        obj: dict[str, Any],
        old: dict[str, Any] | None,
        name: str,
        namespace: str,
    ) -> None:
        attrs = Attributes(
            user,
            "escalate",
            True,
            namespace=namespace,
            api_group=GROUP,
            api_version="v1",
            resource=self._resource,
            name=name,
        )
        if authorizer.authorize(attrs)[0] == ALLOW:
            return
        rules = obj.get("rules") if isinstance(obj.get("rules"), list) else []
        msg = confirm_no_escalation(self._resolver, user, namespace, rules)
        if msg:
            raise self._forbidden(name, msg)
        # an aggregationRule can gather anything, so it takes all the permissions there are
        if self._resource == "clusterroles" and (obj.get("aggregationRule") or (old or {}).get("aggregationRule")):
            owner, _ = self._resolver.rules_for(user, "")
            if not covers(owner, FULL_AUTHORITY)[0]:
                raise self._forbidden(name, "must have cluster-admin privileges to use the aggregationRule")

    def _check_binding(
        self, user: UserInfo, authorizer: Authorizer, obj: dict[str, Any], name: str, namespace: str
    ) -> None:
        ref = obj.get("roleRef") if isinstance(obj.get("roleRef"), dict) else {}
        role_resource = "clusterroles" if ref.get("kind") == "ClusterRole" else "roles"
        attrs = Attributes(
            user,
            "bind",
            True,
            namespace=namespace,
            api_group=GROUP,
            resource=role_resource,
            name=str(ref.get("name", "")),
        )
        if authorizer.authorize(attrs)[0] == ALLOW:
            return
        rules, err = self._resolver.get_role_reference_rules(ref, namespace)
        if err:
            raise self._forbidden(name, err)
        msg = confirm_no_escalation(self._resolver, user, namespace, [_api(r) for r in rules])
        if msg:
            raise self._forbidden(name, msg)


def _api(rule: dict[str, tuple[str, ...]]) -> dict[str, list[str]]:
    return {k: list(v) for k, v in rule.items()}
