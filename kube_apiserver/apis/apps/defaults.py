"""apps/v1 defaults (pkg/apis/apps/v1/defaults.go and the generated SetObjectDefaults_*, which also
default each kind's pod template and a StatefulSet's volume claim templates with the core defaults)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.defaults.fields import child, default, default_zero, items, spec_of
from kube_apiserver.apis.core.defaults.other import set_object_defaults_persistent_volume_claim
from kube_apiserver.apis.core.defaults.pods import set_defaults_pod_template_spec

DEFAULT_REVISION_HISTORY_LIMIT = 10


def set_defaults_deployment(obj: dict[str, Any]) -> None:
    spec = spec_of(obj)
    if spec is None:
        return
    default(spec, "replicas", 1)
    strategy = child(spec, "strategy", create=True)
    if strategy is not None:
        default_zero(strategy, "type", "RollingUpdate")
        if strategy.get("type") == "RollingUpdate":
            rolling = child(strategy, "rollingUpdate", create=True)
            if rolling is not None:
                default(rolling, "maxUnavailable", "25%")
                default(rolling, "maxSurge", "25%")
    default(spec, "revisionHistoryLimit", DEFAULT_REVISION_HISTORY_LIMIT)
    default(spec, "progressDeadlineSeconds", 600)


def set_defaults_daemon_set(obj: dict[str, Any]) -> None:
    spec = spec_of(obj)
    if spec is None:
        return
    strategy = child(spec, "updateStrategy", create=True)
    if strategy is not None:
        default_zero(strategy, "type", "RollingUpdate")
        if strategy.get("type") == "RollingUpdate":
            rolling = child(strategy, "rollingUpdate", create=True)
            if rolling is not None:
                default(rolling, "maxUnavailable", 1)
                default(rolling, "maxSurge", 0)
    default(spec, "revisionHistoryLimit", DEFAULT_REVISION_HISTORY_LIMIT)


def set_defaults_stateful_set(obj: dict[str, Any]) -> None:
    spec = spec_of(obj)
    if spec is None:
        return
    default_zero(spec, "podManagementPolicy", "OrderedReady")
    strategy = child(spec, "updateStrategy", create=True)
    if strategy is not None:
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
            # only a strategy that was defaulted gets a rollingUpdate block of its own
            default(strategy, "rollingUpdate", {})
        rolling = child(strategy, "rollingUpdate")
        if strategy.get("type") == "RollingUpdate" and rolling is not None:
            default(rolling, "partition", 0)
    # StatefulSetAutoDeletePVC is GA (1.32): the retention policy is always filled in.
    policy = child(spec, "persistentVolumeClaimRetentionPolicy", create=True)
    if policy is not None:
        default_zero(policy, "whenDeleted", "Retain")
        default_zero(policy, "whenScaled", "Retain")
    default(spec, "replicas", 1)
    default(spec, "revisionHistoryLimit", DEFAULT_REVISION_HISTORY_LIMIT)


def set_defaults_replica_set(obj: dict[str, Any]) -> None:
    spec = spec_of(obj)
    if spec is not None:
        default(spec, "replicas", 1)


def _template_defaults(obj: dict[str, Any]) -> None:
    spec = spec_of(obj)
    if spec is not None:
        set_defaults_pod_template_spec(child(spec, "template", create=True))


def set_object_defaults_deployment(obj: dict[str, Any]) -> None:
    set_defaults_deployment(obj)
    _template_defaults(obj)


def set_object_defaults_daemon_set(obj: dict[str, Any]) -> None:
    set_defaults_daemon_set(obj)
    _template_defaults(obj)


def set_object_defaults_replica_set(obj: dict[str, Any]) -> None:
    set_defaults_replica_set(obj)
    _template_defaults(obj)


def set_object_defaults_stateful_set(obj: dict[str, Any]) -> None:
    set_defaults_stateful_set(obj)
    _template_defaults(obj)
    # Each claim template is a whole PersistentVolumeClaim: it gets the object's defaults,
    # status.phase Pending included.
    for claim in items(child(obj, "spec"), "volumeClaimTemplates"):
        set_object_defaults_persistent_volume_claim(claim)


DEFAULTERS = {
    ("v1", "Deployment"): set_object_defaults_deployment,
    ("v1", "DaemonSet"): set_object_defaults_daemon_set,
    ("v1", "ReplicaSet"): set_object_defaults_replica_set,
    ("v1", "StatefulSet"): set_object_defaults_stateful_set,
}
