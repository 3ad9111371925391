"""One RBAC authorization decision with 1,000 bindings in the store (500 ClusterRoleBindings, 500 RoleBindings over
50 namespaces, plus the whole 1.33 bootstrap policy), on one core, as the authorization filter asks it: the
authorizer union (system:masters, Node, RBAC) with a request's Attributes. Target: <= 20 µs per decision. The
ceiling printed beside it is a dict lookup of a precomputed decision keyed by the same attributes, same run.

The roles and bindings sit in watch-cache stand-ins; the resolver follows them through its informers, as in the
server, so the index is built once and then only rebuilt after a change. The rebuild after one new binding is
timed too (it happens once per change, on the next decision).

    python bench/rbac_decision.py [--seconds 3] [--quick] [--profile]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import calls_per_second, print_profile  # noqa: E402

from kube_apiserver.authentication.user import UserInfo  # noqa: E402
from kube_apiserver.authorization.authorizer import Attributes, PrivilegedGroups, Union  # noqa: E402
from kube_apiserver.authorization.node.authorizer import new_node_authorizer  # noqa: E402
from kube_apiserver.authorization.rbac import bootstrap_policy as policy  # noqa: E402
from kube_apiserver.authorization.rbac.authorizer import RuleResolver  # noqa: E402

G = "rbac.authorization.k8s.io"
TARGET_US = 20.0


@dataclass
class _Stored:
    obj: dict[str, Any]


@dataclass
class _Event:
    type: str
    key: str
    object: _Stored
    prev: _Stored | None
    revision: int


class _Cache:
    """What the authorizers read of a watch cache: its objects and its set of watchers."""

    def __init__(self) -> None:
        self.objects: dict[str, _Stored] = {}
        self.watchers: set[Any] = set()
        self.rev = 0

    def put(self, obj: dict[str, Any]) -> None:
        meta = obj["metadata"]
        key = f"{meta.get('namespace', '')}/{meta['name']}"
        prev = self.objects.get(key)
        self.objects[key] = _Stored(obj)
        self.rev += 1
        for w in tuple(self.watchers):
            w.offer(_Event("MODIFIED" if prev else "ADDED", key, self.objects[key], prev, self.rev))


class _Store:
    def __init__(self) -> None:
        self.storage = _Cache()


def build() -> tuple[dict[tuple[str, str, str], _Store], RuleResolver]:
    stores = {(G, "v1", r): _Store() for r in ("roles", "clusterroles", "rolebindings", "clusterrolebindings")}
    stores[("", "v1", "pods")] = _Store()

    def put(resource: str, obj: dict[str, Any]) -> None:
        stores[(G, "v1", resource)].storage.put(obj)

    for role in policy.cluster_roles():
        put("clusterroles", role)
    for crb in policy.cluster_role_bindings():
        put("clusterrolebindings", crb)
    for role in policy.namespace_roles():
        put("roles", role)
    for rb in policy.namespace_role_bindings():
        put("rolebindings", rb)
    for i in range(1000):
        ref = {
            "apiGroup": G,
            "kind": "ClusterRole",
            "name": ("system:aggregate-to-view", "system:aggregate-to-edit", "system:aggregate-to-admin")[i % 3],
        }
        subjects = [{"kind": "User", "name": f"user{i}"}, {"kind": "Group", "name": f"team{i % 40}"}]
        if i % 2:
            meta = {"name": f"binding-{i}", "namespace": f"ns-{i % 50}"}
            put("rolebindings", {"metadata": meta, "roleRef": ref, "subjects": subjects})
        else:
            put("clusterrolebindings", {"metadata": {"name": f"binding-{i}"}, "roleRef": ref, "subjects": subjects})
    resolver = RuleResolver(stores)
    resolver.start_informers()
    return stores, resolver


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--quick", action="store_true", help="1 s per measurement")
    ap.add_argument("--profile", action="store_true", help="cProfile the decisions instead (top 30 by tottime)")
    args = ap.parse_args()
    seconds = 1.0 if args.quick else args.seconds

    stores, resolver = build()
    union = Union([PrivilegedGroups(), new_node_authorizer(stores), resolver])
    # user301 is bound in ns-1 (a RoleBinding to system:aggregate-to-edit): the allowed rule is its 10th
    user = UserInfo("user301", "", ("team21", "system:authenticated"))
    allowed = Attributes(user, "update", True, "", "ns-1", "apps", "v1", "deployments", "", "web")
    denied = Attributes(user, "delete", True, "", "ns-2", "", "v1", "nodes", "", "n1")
    discovery = Attributes(UserInfo("someone", "", ("system:authenticated",)), "get", False, "/apis/apps/v1")
    assert union.authorize(allowed)[0] == "allow", union.authorize(allowed)
    assert union.authorize(denied)[0] == "no-opinion"
    assert union.authorize(discovery)[0] == "allow"

    def decisions() -> None:
        union.authorize(allowed)
        union.authorize(denied)
        union.authorize(discovery)

    if args.profile:
        print_profile(decisions, 100_000)
        return

    precomputed = {
        (a.user.name, a.verb, a.namespace, a.api_group, a.resource, a.name, a.path): union.authorize(a)
        for a in (allowed, denied, discovery)
    }

    def ceiling() -> None:
        for a in (allowed, denied, discovery):
            precomputed[(a.user.name, a.verb, a.namespace, a.api_group, a.resource, a.name, a.path)]

    rate = calls_per_second(decisions, seconds) * 3
    ceiling_rate = calls_per_second(ceiling, seconds) * 3
    per_decision = 1e6 / rate
    per_lookup = 1e6 / ceiling_rate

    # a new binding: honored on the next decision, at the cost of one index rebuild
    newcomer = Attributes(
        UserInfo("newcomer", "", ("system:authenticated",)), "get", True, namespace="ns-3", resource="pods"
    )
    assert union.authorize(newcomer)[0] == "no-opinion"
    stores[(G, "v1", "rolebindings")].storage.put(
        {
            "metadata": {"name": "newcomer-view", "namespace": "ns-3"},
            "roleRef": {"apiGroup": G, "kind": "ClusterRole", "name": "system:aggregate-to-view"},
            "subjects": [{"kind": "User", "name": "newcomer"}],
        }
    )
    t0 = time.perf_counter()
    decision = union.authorize(newcomer)[0]
    rebuild_ms = (time.perf_counter() - t0) * 1e3
    assert decision == "allow", "a new binding must count from the next decision"

    n_bindings = sum(len(stores[(G, "v1", r)].storage.objects) for r in ("rolebindings", "clusterrolebindings"))
    print(f"RBAC decision ({n_bindings} bindings): {per_decision:.2f} µs per decision ({rate:,.0f}/s)")
    print(f"ceiling (dict lookup of a precomputed decision): {per_lookup:.3f} µs ({ceiling_rate:,.0f}/s)")
    print(f"ratio: {per_decision / per_lookup:.1f}x the ceiling; target <= {TARGET_US:.0f} µs: ", end="")
    print("met" if per_decision <= TARGET_US else "NOT met")
    print(f"index rebuild after one new binding (once per change): {rebuild_ms:.1f} ms")


if __name__ == "__main__":
    main()
