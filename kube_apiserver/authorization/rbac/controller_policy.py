"""The kube-controller-manager's roles of kube 1.33's bootstrap policy (bootstrappolicy/controller_policy.go):
one ClusterRole system:controller:<name> per controller, bound to the service account kube-system/<name>.
Roles behind feature gates that are off by default in 1.33 (DynamicResourceAllocation, DRADeviceTaints,
VolumeAttributesClass, ClusterTrustBundle, StorageVersionAPI, StorageVersionMigrator, PodCertificateRequest)
are left out; SELinuxChangePolicy (beta, on) and MultiCIDRServiceAllocator (GA) are in. Every rule is stored
with its lists sorted, as RuleOrDie does."""

from __future__ import annotations

from typing import Any

from kube_apiserver.authorization.rbac import bootstrap_policy as bp

PREFIX = "system:controller:"
READ = ["get", "list", "watch"]


def rule(verbs: list[str], groups: list[str], resources: list[str], names: list[str] | None = None) -> dict[str, Any]:
    return bp.r(sorted(verbs), sorted(groups), sorted(resources), sorted(names) if names else None)


def events() -> dict[str, Any]:
    return rule(["create", "update", "patch"], ["", "events.k8s.io"], ["events"])


def _roles() -> list[tuple[str, list[dict[str, Any]]]]:
    apps_ext = ["extensions", "apps"]
    csr, net, storage = "certificates.k8s.io", "networking.k8s.io", "storage.k8s.io"
    return [
        (
            "attachdetach-controller",
            [
                rule(["list", "watch"], [""], ["persistentvolumes", "persistentvolumeclaims"]),
                rule(READ, [""], ["nodes"]),
                rule(["patch", "update"], [""], ["nodes/status"]),
                rule(["list", "watch"], [""], ["pods"]),
                events(),
                rule(["get", "create", "delete", "list", "watch"], [storage], ["volumeattachments"]),
                rule(READ, [storage], ["csidrivers"]),
                rule(READ, [storage], ["csinodes"]),
            ],
        ),
        (
            "clusterrole-aggregation-controller",
            [rule(["escalate", "get", "list", "watch", "update", "patch"], [bp.GROUP], ["clusterroles"])],
        ),
        (
            "cronjob-controller",
            [
                rule(["get", "list", "watch", "update"], ["batch"], ["cronjobs"]),
                rule(["get", "list", "watch", "create", "update", "delete", "patch"], ["batch"], ["jobs"]),
                rule(["update"], ["batch"], ["cronjobs/status"]),
                rule(["update"], ["batch"], ["cronjobs/finalizers"]),
                rule(["list", "watch", "delete"], [""], ["pods"]),
                events(),
            ],
        ),
        (
            "daemon-set-controller",
            [
                rule(READ, apps_ext, ["daemonsets"]),
                rule(["update"], apps_ext, ["daemonsets/status"]),
                rule(["update"], apps_ext, ["daemonsets/finalizers"]),
                rule(["list", "watch"], [""], ["nodes"]),
                rule(["list", "watch", "create", "delete", "patch"], [""], ["pods"]),
                rule(["create"], [""], ["pods/binding"]),
                rule(
                    ["get", "list", "watch", "create", "delete", "update", "patch"], ["apps"], ["controllerrevisions"]
                ),
                events(),
            ],
        ),
        (
            "deployment-controller",
            [
                rule(["get", "list", "watch", "update"], apps_ext, ["deployments"]),
                rule(["update"], apps_ext, ["deployments/status"]),
                rule(["update"], apps_ext, ["deployments/finalizers"]),
                rule(["get", "list", "watch", "create", "update", "patch", "delete"], apps_ext, ["replicasets"]),
                rule(["get", "list", "watch", "update"], [""], ["pods"]),
                events(),
            ],
        ),
        (
            "disruption-controller",
            [
                rule(READ, apps_ext, ["deployments"]),
                rule(READ, apps_ext, ["replicasets"]),
                rule(READ, [""], ["replicationcontrollers"]),
                rule(READ, ["policy"], ["poddisruptionbudgets"]),
                rule(READ, ["apps"], ["statefulsets"]),
                rule(["update"], ["policy"], ["poddisruptionbudgets/status"]),
                rule(["patch", "update"], [""], ["pods/status"]),
                rule(["get"], ["*"], ["*/scale"]),
                events(),
            ],
        ),
        (
            "endpoint-controller",
            [
                rule(READ, [""], ["services", "pods"]),
                rule(["get", "list", "watch", "create", "update", "delete"], [""], ["endpoints"]),
                rule(["create"], [""], ["endpoints/restricted"]),
                events(),
            ],
        ),
        (
            "endpointslice-controller",
            [
                rule(READ, [""], ["services", "pods", "nodes"]),
                rule(["update"], [""], ["services/finalizers"]),
                rule(["get", "list", "watch", "create", "update", "delete"], ["discovery.k8s.io"], ["endpointslices"]),
                events(),
            ],
        ),
        (
            "endpointslicemirroring-controller",
            [
                rule(READ, [""], ["services", "endpoints"]),
                rule(["update"], [""], ["services/finalizers"]),
                rule(["update"], [""], ["endpoints/finalizers"]),
                rule(["get", "list", "watch", "create", "update", "delete"], ["discovery.k8s.io"], ["endpointslices"]),
                events(),
            ],
        ),
        (
            "expand-controller",
            [
                rule(["get", "list", "watch", "update", "patch"], [""], ["persistentvolumes"]),
                rule(["update", "patch"], [""], ["persistentvolumeclaims/status"]),
                rule(READ, [""], ["persistentvolumeclaims"]),
                events(),
                rule(["get"], [""], ["services"]),
            ],
        ),
        (
            "ephemeral-volume-controller",
            [
                rule(READ, [""], ["pods"]),
                rule(["update"], [""], ["pods/finalizers"]),
                rule(["get", "list", "watch", "create"], [""], ["persistentvolumeclaims"]),
                events(),
            ],
        ),
        (
            "generic-garbage-collector",
            [rule(["get", "list", "watch", "patch", "update", "delete"], ["*"], ["*"]), events()],
        ),
        (
            "horizontal-pod-autoscaler",
            [
                rule(READ, ["autoscaling"], ["horizontalpodautoscalers"]),
                rule(["update"], ["autoscaling"], ["horizontalpodautoscalers/status"]),
                rule(["get", "update"], ["*"], ["*/scale"]),
                rule(["list", "watch"], [""], ["pods"]),
                rule(["list", "watch"], ["metrics.k8s.io"], ["pods"]),
                rule(READ, ["custom.metrics.k8s.io"], ["*"]),
                rule(READ, ["external.metrics.k8s.io"], ["*"]),
                events(),
            ],
        ),
        (
            "job-controller",
            [
                rule(["get", "list", "watch", "update", "patch"], ["batch"], ["jobs"]),
                rule(["update"], ["batch"], ["jobs/status"]),
                rule(["update"], ["batch"], ["jobs/finalizers"]),
                rule(["list", "watch", "create", "delete", "patch"], [""], ["pods"]),
                events(),
            ],
        ),
        (
            "namespace-controller",
            [
                rule(["get", "list", "watch", "delete"], [""], ["namespaces"]),
                rule(["update"], [""], ["namespaces/finalize", "namespaces/status"]),
                rule(["get", "list", "watch", "delete", "deletecollection"], ["*"], ["*"]),
            ],
        ),
        (
            "node-controller",
            [
                rule(["get", "list", "watch", "update", "delete", "patch"], [""], ["nodes"]),
                rule(["patch", "update"], [""], ["nodes/status"]),
                rule(["patch", "update"], [""], ["pods/status"]),
                rule(["list", "watch", "get", "delete"], [""], ["pods"]),
                events(),
            ],
        ),
        (
            "persistent-volume-binder",
            [
                rule(["get", "list", "watch", "update", "create", "delete"], [""], ["persistentvolumes"]),
                rule(["update"], [""], ["persistentvolumes/status"]),
                rule(["get", "list", "watch", "update"], [""], ["persistentvolumeclaims"]),
                rule(["update"], [""], ["persistentvolumeclaims/status"]),
                rule(["list", "watch", "get", "create", "delete"], [""], ["pods"]),
                rule(READ, [storage], ["storageclasses"]),
                rule(["list", "watch"], [""], ["nodes"]),
                events(),
                rule(["watch"], [""], ["events"]),
                rule(["get"], [""], ["services"]),
            ],
        ),
        (
            "pod-garbage-collector",
            [
                rule(["list", "watch", "delete"], [""], ["pods"]),
                rule(READ, [""], ["nodes"]),
                rule(["patch"], [""], ["pods/status"]),
            ],
        ),
        (
            "replicaset-controller",
            [
                rule(["get", "list", "watch", "update"], apps_ext, ["replicasets"]),
                rule(["update"], apps_ext, ["replicasets/status"]),
                rule(["update"], apps_ext, ["replicasets/finalizers"]),
                rule(["list", "watch", "patch", "create", "delete"], [""], ["pods"]),
                events(),
            ],
        ),
        (
            "replication-controller",
            [
                rule(["get", "list", "watch", "update"], [""], ["replicationcontrollers"]),
                rule(["update"], [""], ["replicationcontrollers/status"]),
                rule(["update"], [""], ["replicationcontrollers/finalizers"]),
                rule(["list", "watch", "patch", "create", "delete"], [""], ["pods"]),
                events(),
            ],
        ),
        (
            "resourcequota-controller",
            [
                rule(["list", "watch"], ["*"], ["*"]),
                rule(["update"], [""], ["resourcequotas/status"]),
                events(),
            ],
        ),
        (
            "route-controller",
            [rule(["list", "watch"], [""], ["nodes"]), rule(["patch"], [""], ["nodes/status"]), events()],
        ),
        ("service-account-controller", [rule(["create"], [""], ["serviceaccounts"]), events()]),
        (
            "service-controller",
            [
                rule(READ, [""], ["services"]),
                rule(["patch", "update"], [""], ["services/status"]),
                rule(["list", "watch"], [""], ["nodes"]),
                events(),
            ],
        ),
        (
            "service-cidrs-controller",
            [
                rule(["get", "list", "watch", "patch", "update"], [net], ["servicecidrs"]),
                rule(["patch", "update"], [net], ["servicecidrs/finalizers"]),
                rule(["patch", "update"], [net], ["servicecidrs/status"]),
                rule(READ, [net], ["ipaddresses"]),
                events(),
            ],
        ),
        (
            "statefulset-controller",
            [
                rule(["list", "watch"], [""], ["pods"]),
                rule(READ, ["apps"], ["statefulsets"]),
                rule(["update"], ["apps"], ["statefulsets/status"]),
                rule(["update"], ["apps"], ["statefulsets/finalizers"]),
                rule(["get", "create", "delete", "update", "patch"], [""], ["pods"]),
                rule(
                    ["get", "create", "delete", "update", "patch", "list", "watch"], ["apps"], ["controllerrevisions"]
                ),
                rule(["get", "create", "list", "watch"], [""], ["persistentvolumeclaims"]),
                rule(["update", "delete"], [""], ["persistentvolumeclaims"]),
                rule(["update"], [""], ["pods/finalizers"]),
                events(),
            ],
        ),
        ("ttl-controller", [rule(["update", "patch", "list", "watch"], [""], ["nodes"]), events()]),
        (
            "certificate-controller",
            [
                rule(["get", "list", "watch", "delete"], [csr], ["certificatesigningrequests"]),
                rule(["update"], [csr], ["certificatesigningrequests/status", "certificatesigningrequests/approval"]),
                rule(["approve"], [csr], ["signers"], ["kubernetes.io/kube-apiserver-client-kubelet"]),
                rule(
                    ["sign"],
                    [csr],
                    ["signers"],
                    [
                        "kubernetes.io/legacy-unknown",
                        "kubernetes.io/kube-apiserver-client",
                        "kubernetes.io/kube-apiserver-client-kubelet",
                        "kubernetes.io/kubelet-serving",
                    ],
                ),
                rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
                events(),
            ],
        ),
        (
            "pvc-protection-controller",
            [
                rule(["get", "list", "watch", "update"], [""], ["persistentvolumeclaims"]),
                rule(["list", "watch", "get"], [""], ["pods"]),
                events(),
            ],
        ),
        (
            "pv-protection-controller",
            [rule(["get", "list", "watch", "update"], [""], ["persistentvolumes"]), events()],
        ),
        ("ttl-after-finished-controller", [rule(["get", "list", "watch", "delete"], ["batch"], ["jobs"]), events()]),
        ("root-ca-cert-publisher", [rule(["create", "update"], [""], ["configmaps"]), events()]),
        (
            "validatingadmissionpolicy-status-controller",
            [
                rule(READ, ["admissionregistration.k8s.io"], ["validatingadmissionpolicies"]),
                rule(
                    ["get", "patch", "update"], ["admissionregistration.k8s.io"], ["validatingadmissionpolicies/status"]
                ),
                events(),
            ],
        ),
        (
            "legacy-service-account-token-cleaner",
            [
                rule(["get"], [""], ["configmaps"], ["kube-apiserver-legacy-service-account-token-tracking"]),
                rule(["patch", "delete"], [""], ["secrets"]),
            ],
        ),
        (
            "selinux-warning-controller",
            [
                events(),
                rule(READ, [""], ["persistentvolumes"]),
                rule(READ, [""], ["persistentvolumeclaims"]),
                rule(READ, [""], ["pods"]),
                rule(READ, [storage], ["csidrivers"]),
            ],
        ),
    ]


def controller_roles() -> list[dict[str, Any]]:
    return [bp.cluster_role(PREFIX + name, rules) for name, rules in _roles()]


def controller_role_bindings() -> list[dict[str, Any]]:
    """Each role bound to the controller's service account in kube-system (the controller manager's
    --use-service-account-credentials identities)."""
    return [
        bp.binding(
            "ClusterRoleBinding",
            PREFIX + name,
            "ClusterRole",
            PREFIX + name,
            [{"kind": "ServiceAccount", "name": name, "namespace": "kube-system"}],
        )
        for name, _ in _roles()
    ]
