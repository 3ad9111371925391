"""The bootstrap policy of kube-apiserver 1.33 (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go):
the default ClusterRoles, ClusterRoleBindings and the kube-system Roles and RoleBindings, as data."""

from __future__ import annotations

from typing import Any

GROUP = "rbac.authorization.k8s.io"
AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate"
BOOTSTRAP_LABELS = {"kubernetes.io/bootstrapping": "rbac-defaults"}
AGG_ADMIN = "rbac.authorization.k8s.io/aggregate-to-admin"
AGG_EDIT = "rbac.authorization.k8s.io/aggregate-to-edit"
AGG_VIEW = "rbac.authorization.k8s.io/aggregate-to-view"

READ = ["get", "list", "watch"]
WRITE = ["create", "delete", "deletecollection", "patch", "update"]
RW = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
EVENTS_WRITE = ["create", "patch", "update"]


def r(verbs: list[str], groups: list[str], resources: list[str], names: list[str] | None = None) -> dict[str, Any]:
    rule: dict[str, Any] = {"verbs": verbs, "apiGroups": groups, "resources": resources}
    if names:
        rule["resourceNames"] = names
    return rule


def url(verbs: list[str], urls: list[str]) -> dict[str, Any]:
    return {"verbs": verbs, "nonResourceURLs": urls}


def _meta(name: str, labels: dict[str, str] | None = None, namespace: str = "") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    meta["labels"] = {**BOOTSTRAP_LABELS, **(labels or {})}
    meta["annotations"] = {AUTOUPDATE: "true"}
    return meta


def cluster_role(
    name: str, rules: list[dict[str, Any]], labels: dict[str, str] | None = None, aggregate_from: str = ""
) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": f"{GROUP}/v1", "kind": "ClusterRole", "metadata": _meta(name, labels)}
    if aggregate_from:
        obj["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": {aggregate_from: "true"}}]}
    if rules or not aggregate_from:  # aggregated roles start without rules: the controller fills them
        obj["rules"] = rules
    return obj


def _subject(kind: str, name: str, namespace: str = "") -> dict[str, Any]:
    if kind == "ServiceAccount":
        return {"kind": kind, "name": name, "namespace": namespace}
    return {"kind": kind, "apiGroup": GROUP, "name": name}


def binding(
    kind: str, name: str, role_kind: str, role: str, subjects: list[dict[str, Any]], namespace: str = ""
) -> dict[str, Any]:
    return {
        "apiVersion": f"{GROUP}/v1",
        "kind": kind,
        "metadata": _meta(name, namespace=namespace),
        "roleRef": {"apiGroup": GROUP, "kind": role_kind, "name": role},
        "subjects": subjects,
    }


def _crb(name: str, subjects: list[dict[str, Any]], role: str = "") -> dict[str, Any]:
    return binding("ClusterRoleBinding", name, "ClusterRole", role or name, subjects)


def node_rules() -> list[dict[str, Any]]:
    """NodeRules: what every kubelet may do (system:node; the Node authorizer applies them to nodes)."""
    csr = "certificates.k8s.io"
    return [
        r(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
        r(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews", "subjectaccessreviews"]),
        r(READ, [""], ["services"]),
        r(["create", "get", "list", "watch"], [""], ["nodes"]),
        r(["patch", "update"], [""], ["nodes/status"]),
        r(["patch", "update"], [""], ["nodes"]),
        r(EVENTS_WRITE, [""], ["events"]),
        r(READ, [""], ["pods"]),
        r(["create", "delete"], [""], ["pods"]),
        r(["patch", "update"], [""], ["pods/status"]),
        r(["create"], [""], ["pods/eviction"]),
        r(READ, [""], ["configmaps", "secrets"]),
        r(["get"], [""], ["persistentvolumeclaims", "persistentvolumes"]),
        r(["get"], [""], ["endpoints"]),
        r(["create", "get", "list", "watch"], [csr], ["certificatesigningrequests"]),
        r(["create", "delete", "get", "patch", "update"], ["coordination.k8s.io"], ["leases"]),
        r(["get"], ["storage.k8s.io"], ["volumeattachments"]),
        r(["create"], [""], ["serviceaccounts/token"]),
        r(["get", "patch", "update"], [""], ["persistentvolumeclaims/status"]),
        r(READ, ["storage.k8s.io"], ["csidrivers"]),
        r(["create", "delete", "get", "patch", "update"], ["storage.k8s.io"], ["csinodes"]),
        r(READ, ["node.k8s.io"], ["runtimeclasses"]),
    ]


def _base_cluster_roles() -> list[dict[str, Any]]:
    csr = "certificates.k8s.io"
    lease_self = ["coordination.k8s.io"]
    return [
        cluster_role("cluster-admin", [r(["*"], ["*"], ["*"]), url(["*"], ["*"])]),
        cluster_role(
            "system:discovery",
            [
                url(
                    ["get"],
                    [
                        "/api",
                        "/api/*",
                        "/apis",
                        "/apis/*",
                        "/healthz",
                        "/livez",
                        "/openapi",
                        "/openapi/*",
                        "/readyz",
                        "/version",
                        "/version/",
                    ],
                )
            ],
        ),
        cluster_role(
            "system:monitoring",
            [
                url(
                    ["get"],
                    [
                        "/healthz",
                        "/healthz/*",
                        "/livez",
                        "/livez/*",
                        "/metrics",
                        "/metrics/slis",
                        "/readyz",
                        "/readyz/*",
                    ],
                )
            ],
        ),
        cluster_role(
            "system:basic-user",
            [
                r(["create"], ["authorization.k8s.io"], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
                r(["create"], ["authentication.k8s.io"], ["selfsubjectreviews"]),
            ],
        ),
        cluster_role(
            "system:public-info-viewer", [url(["get"], ["/healthz", "/livez", "/readyz", "/version", "/version/"])]
        ),
        cluster_role("admin", [], aggregate_from=AGG_ADMIN),
        cluster_role("edit", [], labels={AGG_ADMIN: "true"}, aggregate_from=AGG_EDIT),
        cluster_role("view", [], labels={AGG_EDIT: "true"}, aggregate_from=AGG_VIEW),
        cluster_role(
            "system:aggregate-to-admin",
            [
                r(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews"]),
                r(RW, [GROUP], ["rolebindings", "roles"]),
            ],
            labels={AGG_ADMIN: "true"},
        ),
        cluster_role(
            "system:aggregate-to-edit",
            [
                r(
                    READ,
                    [""],
                    ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"],
                ),
                r(["impersonate"], [""], ["serviceaccounts"]),
                r(WRITE, [""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"]),
                r(["create"], [""], ["pods/eviction"]),
                r(
                    WRITE,
                    [""],
                    [
                        "configmaps",
                        "events",
                        "persistentvolumeclaims",
                        "replicationcontrollers",
                        "replicationcontrollers/scale",
                        "secrets",
                        "serviceaccounts",
                        "services",
                        "services/proxy",
                    ],
                ),
                r(["create"], [""], ["serviceaccounts/token"]),
                r(
                    WRITE,
                    ["apps"],
                    [
                        "daemonsets",
                        "deployments",
                        "deployments/rollback",
                        "deployments/scale",
                        "replicasets",
                        "replicasets/scale",
                        "statefulsets",
                        "statefulsets/scale",
                    ],
                ),
                r(WRITE, ["autoscaling"], ["horizontalpodautoscalers"]),
                r(WRITE, ["batch"], ["cronjobs", "jobs"]),
                r(
                    WRITE,
                    ["extensions"],
                    [
                        "daemonsets",
                        "deployments",
                        "deployments/rollback",
                        "deployments/scale",
                        "ingresses",
                        "networkpolicies",
                        "replicasets",
                        "replicasets/scale",
                        "replicationcontrollers/scale",
                    ],
                ),
                r(WRITE, ["policy"], ["poddisruptionbudgets"]),
                r(WRITE, ["networking.k8s.io"], ["ingresses", "networkpolicies"]),
                r(RW, ["coordination.k8s.io"], ["leases"]),
            ],
            labels={AGG_EDIT: "true"},
        ),
        cluster_role(
            "system:aggregate-to-view",
            [
                r(
                    READ,
                    [""],
                    [
                        "configmaps",
                        "endpoints",
                        "persistentvolumeclaims",
                        "persistentvolumeclaims/status",
                        "pods",
                        "replicationcontrollers",
                        "replicationcontrollers/scale",
                        "serviceaccounts",
                        "services",
                        "services/status",
                    ],
                ),
                r(
                    READ,
                    [""],
                    [
                        "bindings",
                        "events",
                        "limitranges",
                        "namespaces/status",
                        "pods/log",
                        "pods/status",
                        "replicationcontrollers/status",
                        "resourcequotas",
                        "resourcequotas/status",
                    ],
                ),
                r(READ, [""], ["namespaces"]),
                r(READ, ["discovery.k8s.io"], ["endpointslices"]),
                r(
                    READ,
                    ["apps"],
                    [
                        "controllerrevisions",
                        "daemonsets",
                        "daemonsets/status",
                        "deployments",
                        "deployments/scale",
                        "deployments/status",
                        "replicasets",
                        "replicasets/scale",
                        "replicasets/status",
                        "statefulsets",
                        "statefulsets/scale",
                        "statefulsets/status",
                    ],
                ),
                r(READ, ["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
                r(READ, ["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"]),
                r(
                    READ,
                    ["extensions"],
                    [
                        "daemonsets",
                        "daemonsets/status",
                        "deployments",
                        "deployments/scale",
                        "deployments/status",
                        "ingresses",
                        "ingresses/status",
                        "networkpolicies",
                        "replicasets",
                        "replicasets/scale",
                        "replicasets/status",
                        "replicationcontrollers/scale",
                    ],
                ),
                r(READ, ["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
                r(READ, ["networking.k8s.io"], ["ingresses", "ingresses/status", "networkpolicies"]),
            ],
            labels={AGG_VIEW: "true"},
        ),
        cluster_role(
            "system:heapster",
            [r(READ, [""], ["events", "namespaces", "nodes", "pods"]), r(READ, ["extensions"], ["deployments"])],
        ),
        cluster_role("system:node", node_rules()),
        cluster_role(
            "system:node-problem-detector",
            [
                r(["get"], [""], ["nodes"]),
                r(["patch"], [""], ["nodes/status"]),
                r(EVENTS_WRITE, ["", "events.k8s.io"], ["events"]),
            ],
        ),
        cluster_role(
            "system:kubelet-api-admin",
            [
                r(READ, [""], ["nodes"]),
                r(["proxy"], [""], ["nodes"]),
                r(["*"], [""], ["nodes/log", "nodes/metrics", "nodes/proxy", "nodes/stats"]),
            ],
        ),
        cluster_role(
            "system:node-bootstrapper", [r(["create", "get", "list", "watch"], [csr], ["certificatesigningrequests"])]
        ),
        cluster_role(
            "system:auth-delegator",
            [
                r(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
                r(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
            ],
        ),
        cluster_role("system:kube-aggregator", [r(READ, [""], ["endpoints", "services"])]),
        cluster_role(
            "system:kube-controller-manager",
            [
                r(EVENTS_WRITE, ["", "events.k8s.io"], ["events"]),
                r(["create"], lease_self, ["leases"]),
                r(["get", "update"], lease_self, ["leases"], ["kube-controller-manager"]),
                r(["create"], [""], ["secrets", "serviceaccounts"]),
                r(["delete"], [""], ["secrets"]),
                r(["get"], [""], ["configmaps", "namespaces", "secrets", "serviceaccounts"]),
                r(["update"], [""], ["secrets", "serviceaccounts"]),
                r(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
                r(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
                r(["list", "watch"], ["*"], ["*"]),
                r(["create"], [""], ["serviceaccounts/token"]),
            ],
        ),
        cluster_role("system:kube-dns", [r(["list", "watch"], [""], ["endpoints", "services"])]),
        cluster_role(
            "system:persistent-volume-provisioner",
            [
                r(["create", "delete", "get", "list", "watch"], [""], ["persistentvolumes"]),
                r(["get", "list", "update", "watch"], [""], ["persistentvolumeclaims"]),
                r(READ, ["storage.k8s.io"], ["storageclasses"]),
                r(["watch"], [""], ["events"]),
                r(EVENTS_WRITE, ["", "events.k8s.io"], ["events"]),
            ],
        ),
        cluster_role(
            "system:kube-scheduler",
            [
                r(EVENTS_WRITE, ["", "events.k8s.io"], ["events"]),
                r(["create"], lease_self, ["leases"]),
                r(["get", "update"], lease_self, ["leases"], ["kube-scheduler"]),
                r(READ, [""], ["nodes"]),
                r(["delete", "get", "list", "watch"], [""], ["pods"]),
                r(["create"], [""], ["bindings", "pods/binding"]),
                r(["patch", "update"], [""], ["pods/status"]),
                r(READ, [""], ["replicationcontrollers", "services"]),
                r(READ, ["apps", "extensions"], ["replicasets"]),
                r(READ, ["apps"], ["statefulsets"]),
                r(READ, ["policy"], ["poddisruptionbudgets"]),
                r(READ, [""], ["persistentvolumeclaims", "persistentvolumes"]),
                r(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
                r(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
                r(READ, ["storage.k8s.io"], ["csinodes"]),
                r(READ, [""], ["namespaces"]),
                r(READ, ["storage.k8s.io"], ["csidrivers"]),
                r(READ, ["storage.k8s.io"], ["csistoragecapacities"]),
            ],
        ),
        cluster_role(
            "system:volume-scheduler",
            [
                r(["get", "list", "patch", "update", "watch"], [""], ["persistentvolumes"]),
                r(READ, ["storage.k8s.io"], ["storageclasses"]),
                r(["get", "list", "patch", "update", "watch"], [""], ["persistentvolumeclaims"]),
            ],
        ),
        cluster_role(
            "system:node-proxier",
            [
                r(["list", "watch"], [""], ["endpoints", "services"]),
                r(READ, [""], ["nodes"]),
                r(EVENTS_WRITE, ["", "events.k8s.io"], ["events"]),
                r(["list", "watch"], ["discovery.k8s.io"], ["endpointslices"]),
            ],
        ),
        cluster_role(
            "system:service-account-issuer-discovery",
            [
                url(
                    ["get"],
                    [
                        "/.well-known/openid-configuration",
                        "/.well-known/openid-configuration/",
                        "/openid/v1/jwks",
                        "/openid/v1/jwks/",
                    ],
                )
            ],
        ),
        cluster_role(
            "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
            [r(["create"], [csr], ["certificatesigningrequests/nodeclient"])],
        ),
        cluster_role(
            "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
            [r(["create"], [csr], ["certificatesigningrequests/selfnodeclient"])],
        ),
        *(
            cluster_role(
                f"system:certificates.k8s.io:{name}", [r(["approve"], [csr], ["signers"], [f"kubernetes.io/{signer}"])]
            )
            for name, signer in (
                ("kube-apiserver-client-approver", "kube-apiserver-client"),
                ("kube-apiserver-client-kubelet-approver", "kube-apiserver-client-kubelet"),
                ("kubelet-serving-approver", "kubelet-serving"),
                ("legacy-unknown-approver", "legacy-unknown"),
            )
        ),
    ]


def _base_cluster_role_bindings() -> list[dict[str, Any]]:
    group, user = "Group", "User"
    authenticated = _subject(group, "system:authenticated")
    return [
        _crb("cluster-admin", [_subject(group, "system:masters")]),
        _crb("system:monitoring", [_subject(group, "system:monitoring")]),
        _crb("system:discovery", [authenticated]),
        _crb("system:basic-user", [authenticated]),
        _crb("system:public-info-viewer", [authenticated, _subject(group, "system:unauthenticated")]),
        _crb("system:node-proxier", [_subject(user, "system:kube-proxy")]),
        _crb("system:kube-controller-manager", [_subject(user, "system:kube-controller-manager")]),
        _crb("system:kube-dns", [_subject("ServiceAccount", "kube-dns", "kube-system")]),
        _crb("system:kube-scheduler", [_subject(user, "system:kube-scheduler")]),
        _crb("system:volume-scheduler", [_subject(user, "system:kube-scheduler")]),
        _crb("system:node", []),
        _crb("system:service-account-issuer-discovery", [_subject(group, "system:serviceaccounts")]),
    ]


def cluster_roles() -> list[dict[str, Any]]:
    """ClusterRoles() followed by ControllerRoles(), as the rbac/bootstrap-roles hook reconciles them."""
    from kube_apiserver.authorization.rbac.controller_policy import controller_roles

    return _base_cluster_roles() + controller_roles()


def cluster_role_bindings() -> list[dict[str, Any]]:
    from kube_apiserver.authorization.rbac.controller_policy import controller_role_bindings

    return _base_cluster_role_bindings() + controller_role_bindings()


def namespace_roles() -> list[dict[str, Any]]:
    """NamespaceRoles (namespace_policy.go), kube-system's then kube-public's."""

    def role(name: str, ns: str, rules: list[dict[str, Any]]) -> dict[str, Any]:
        return {"apiVersion": f"{GROUP}/v1", "kind": "Role", "metadata": _meta(name, namespace=ns), "rules": rules}

    events = r(EVENTS_WRITE, ["", "events.k8s.io"], ["events"])
    return [
        role(
            "extension-apiserver-authentication-reader",
            "kube-system",
            [r(READ, [""], ["configmaps"], ["extension-apiserver-authentication"])],
        ),
        role("system:controller:bootstrap-signer", "kube-system", [r(READ, [""], ["secrets"])]),
        role(
            "system:controller:cloud-provider",
            "kube-system",
            [r(["create", "get", "list", "watch"], [""], ["configmaps"])],
        ),
        role(
            "system:controller:token-cleaner",
            "kube-system",
            [r(["delete", "get", "list", "watch"], [""], ["secrets"]), events],
        ),
        role(
            "system::leader-locking-kube-controller-manager",
            "kube-system",
            [
                r(["watch"], [""], ["configmaps"]),
                r(["get", "update"], [""], ["configmaps"], ["kube-controller-manager"]),
                r(["create", "get", "list", "update", "watch"], ["coordination.k8s.io"], ["leases"]),
            ],
        ),
        role(
            "system::leader-locking-kube-scheduler",
            "kube-system",
            [r(["watch"], [""], ["configmaps"]), r(["get", "update"], [""], ["configmaps"], ["kube-scheduler"])],
        ),
        role(
            "system:controller:bootstrap-signer",
            "kube-public",
            [r(READ, [""], ["configmaps"]), r(["update"], [""], ["configmaps"], ["cluster-info"]), events],
        ),
    ]


def namespace_role_bindings() -> list[dict[str, Any]]:
    def rb(name: str, subjects: list[dict[str, Any]], role: str = "", ns: str = "kube-system") -> dict[str, Any]:
        return binding("RoleBinding", name, "Role", role or name, subjects, namespace=ns)

    def sa(name: str) -> dict[str, Any]:
        return _subject("ServiceAccount", name, "kube-system")

    return [
        rb(
            "system::extension-apiserver-authentication-reader",
            [_subject("User", "system:kube-controller-manager"), _subject("User", "system:kube-scheduler")],
            "extension-apiserver-authentication-reader",
        ),
        rb(
            "system::leader-locking-kube-controller-manager",
            [
                _subject("User", "system:kube-controller-manager"),
                sa("kube-controller-manager"),
                sa("leader-election-controller"),
            ],
        ),
        rb("system::leader-locking-kube-scheduler", [_subject("User", "system:kube-scheduler"), sa("kube-scheduler")]),
        rb("system:controller:bootstrap-signer", [sa("bootstrap-signer")]),
        rb("system:controller:cloud-provider", [sa("cloud-provider")]),
        rb("system:controller:token-cleaner", [sa("token-cleaner")]),
        rb("system:controller:bootstrap-signer", [sa("bootstrap-signer")], ns="kube-public"),
    ]
