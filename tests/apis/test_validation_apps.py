"""apps/v1 validation: kube-apiserver 1.33's messages and field paths."""

from __future__ import annotations

from typing import Any

from validation_groups_helpers import errors, pod_template, with_changes

from kube_apiserver.apis.apps.validation.daemonsets import (
    validate_controller_revision,
    validate_controller_revision_update,
    validate_daemon_set,
)
from kube_apiserver.apis.apps.validation.deployments import (
    validate_deployment,
    validate_replica_set,
    validate_selector_immutable,
)
from kube_apiserver.apis.apps.validation.statefulsets import validate_stateful_set, validate_stateful_set_update
from kube_apiserver.apis.scheme import build_scheme

MISMATCH = "`selector` does not match template `labels`"


def deployment(**changes: Any) -> dict[str, Any]:
    obj = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": pod_template(),
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600,
        },
    }
    return with_changes(obj, **changes)


def test_valid_deployment_passes_through_the_scheme() -> None:
    assert build_scheme().validate(deployment()) == []


def test_selector_not_matching_template_labels() -> None:
    obj = deployment(spec__template__metadata__labels={"app": "other", "tier": "web"})
    assert errors(validate_deployment(obj)) == [
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"other", "tier":"web"}: ' + MISMATCH
    ]


def test_missing_selector_is_required_and_mismatches() -> None:
    obj = deployment(spec__selector=None)
    assert errors(validate_deployment(obj)) == [
        "spec.selector: Required value",
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: ' + MISMATCH,
    ]


def test_empty_selector() -> None:
    assert errors(validate_deployment(deployment(spec__selector={}))) == [
        "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment"
    ]
    obj = deployment(spec__selector={"matchLabels": {}})
    assert errors(validate_deployment(obj))[0].startswith(
        "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{}, "
    )


def test_negative_replicas_and_counts() -> None:
    obj = deployment(spec__replicas=-1, spec__minReadySeconds=-5, spec__revisionHistoryLimit=-2)
    assert errors(validate_deployment(obj)) == [
        "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
        "spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0",
        "spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0",
    ]


def test_progress_deadline_must_exceed_min_ready_seconds() -> None:
    obj = deployment(spec__minReadySeconds=600)
    assert errors(validate_deployment(obj)) == [
        "spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"
    ]


def test_rolling_update_values() -> None:
    obj = deployment(spec__strategy__rollingUpdate={"maxUnavailable": 0, "maxSurge": "0%"})
    assert errors(validate_deployment(obj)) == [
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: '
        "may not be 0 when `maxSurge` is 0"
    ]
    obj = deployment(spec__strategy__rollingUpdate={"maxUnavailable": "120%", "maxSurge": "abc"})
    assert errors(validate_deployment(obj)) == [
        'spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"abc"}: '
        "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', "
        "regex used for validation is '[0-9]+%')",
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"120%"}: '
        "must not be greater than 100%",
    ]
    obj = deployment(spec__strategy__rollingUpdate={"maxUnavailable": -1, "maxSurge": 1})
    assert errors(validate_deployment(obj)) == [
        "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: -1: must be greater than or equal to 0"
    ]


def test_strategy_types() -> None:
    obj = deployment(spec__strategy={"type": "Recreate", "rollingUpdate": {"maxSurge": 1}})
    assert errors(validate_deployment(obj)) == [
        "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"
    ]
    obj = deployment(spec__strategy={"type": "BlueGreen"})
    assert errors(validate_deployment(obj)) == [
        'spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:"BlueGreen", '
        "RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: "
        'supported values: "Recreate", "RollingUpdate"'
    ]


def test_template_restart_policy_and_deadline() -> None:
    obj = deployment(spec__template__spec__restartPolicy="Never", spec__template__spec__activeDeadlineSeconds=5)
    assert errors(validate_deployment(obj)) == [
        'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
        "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported",
    ]


def test_pod_template_is_validated() -> None:
    obj = deployment()
    obj["spec"]["template"]["spec"]["containers"][0]["name"] = "Web_1"
    msgs = errors(validate_deployment(obj))
    assert msgs and msgs[0].startswith('spec.template.spec.containers[0].name: Invalid value: "Web_1": ')


def test_selector_is_immutable() -> None:
    old = deployment()
    new = deployment(spec__selector={"matchLabels": {"app": "web", "tier": "x"}})
    assert errors(validate_selector_immutable(new, old)) == [
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"x"}, '
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable"
    ]
    assert validate_selector_immutable(deployment(spec__replicas=3), old) == []
    assert build_scheme().validate_update(new, old) != []


def test_replica_set() -> None:
    rs = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": "web"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}}, "template": pod_template()},
    }
    assert validate_replica_set(rs) == []
    assert errors(validate_replica_set(with_changes(rs, spec__selector={}, spec__replicas=-1))) == [
        "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
        "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment",
    ]


def stateful_set(**changes: Any) -> dict[str, Any]:
    obj = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db"},
        "spec": {
            "replicas": 1,
            "serviceName": "db",
            "selector": {"matchLabels": {"app": "web"}},
            "template": pod_template(),
            "podManagementPolicy": "OrderedReady",
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
            "revisionHistoryLimit": 10,
            "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
        },
    }
    return with_changes(obj, **changes)


def test_valid_stateful_set() -> None:
    assert validate_stateful_set(stateful_set()) == []


def test_stateful_set_rules() -> None:
    obj = stateful_set(
        spec__podManagementPolicy="Random",
        spec__updateStrategy={"type": "OnDelete", "rollingUpdate": {"partition": 1}},
        spec__template__metadata__labels={"app": "db"},
        spec__persistentVolumeClaimRetentionPolicy={"whenDeleted": "Keep", "whenScaled": "Delete"},
    )
    assert errors(validate_stateful_set(obj)) == [
        "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'",
        "spec.updateStrategy.rollingUpdate: Invalid value: apps.RollingUpdateStatefulSetStrategy{Partition:1, "
        "MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy 'RollingUpdate'",
        'spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: '
        '"Retain", "Delete"',
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"db"}: ' + MISMATCH,
    ]
    obj = stateful_set(spec__updateStrategy={"type": "Rolling"}, spec__selector={})
    assert errors(validate_stateful_set(obj)) == [
        'spec.updateStrategy: Invalid value: apps.StatefulSetUpdateStrategy{Type:"Rolling", '
        "RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}: must be 'RollingUpdate' or 'OnDelete'",
        "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for statefulset",
    ]
    obj = stateful_set(
        spec__updateStrategy__rollingUpdate__partition=-1, spec__template__spec__restartPolicy="OnFailure"
    )
    assert errors(validate_stateful_set(obj)) == [
        "spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0",
        'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
    ]


def test_stateful_set_template_labels_are_reported_under_template_labels() -> None:
    obj = stateful_set(spec__selector={"matchExpressions": [{"key": "app", "operator": "Exists"}]})
    obj["spec"]["template"]["metadata"]["labels"]["bad key"] = "x"
    msgs = errors(validate_stateful_set(obj))
    assert msgs and msgs[0].startswith('spec.template.labels: Invalid value: "bad key": ')


def test_stateful_set_update_forbidden_fields() -> None:
    old = stateful_set()
    allowed = stateful_set(spec__replicas=5, spec__updateStrategy={"type": "OnDelete"}, spec__minReadySeconds=3)
    assert validate_stateful_set_update(allowed, old) == []
    for change in ({"spec__serviceName": "other"}, {"spec__selector": {"matchLabels": {"app": "x"}}}):
        assert errors(validate_stateful_set_update(stateful_set(**change), old)) == [
            "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
            "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"
        ]


def daemon_set(**changes: Any) -> dict[str, Any]:
    obj = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": pod_template(),
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
            "revisionHistoryLimit": 10,
        },
    }
    return with_changes(obj, **changes)


def test_daemon_set() -> None:
    assert validate_daemon_set(daemon_set()) == []
    obj = daemon_set(spec__updateStrategy__rollingUpdate={"maxUnavailable": 1, "maxSurge": "10%"})
    assert errors(validate_daemon_set(obj)) == [
        'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"10%"}: '
        "may not be set when maxUnavailable is non-zero"
    ]
    obj = daemon_set(spec__updateStrategy__rollingUpdate={"maxUnavailable": 0, "maxSurge": 0})
    assert errors(validate_daemon_set(obj)) == [
        "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"
    ]
    obj = daemon_set(spec__updateStrategy={"type": "Sometimes"}, spec__template__spec__activeDeadlineSeconds=1)
    assert errors(validate_daemon_set(obj)) == [
        "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported",
        'spec.updateStrategy: Unsupported value: apps.DaemonSetUpdateStrategy{Type:"Sometimes", '
        "RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}: "
        'supported values: "RollingUpdate", "OnDelete"',
    ]


def test_daemon_set_without_selector_reports_the_template_labels() -> None:
    assert errors(validate_daemon_set(daemon_set(spec__selector=None))) == [
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: ' + MISMATCH
    ]


def test_controller_revision() -> None:
    rev = {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "r"}, "revision": 1}
    assert errors(validate_controller_revision(rev)) == ["data: Required value: data is mandatory"]
    rev["data"] = {"spec": {}}
    assert validate_controller_revision(rev) == []
    assert errors(validate_controller_revision(with_changes(rev, revision=-1))) == [
        "revision: Invalid value: -1: must be greater than or equal to 0"
    ]
    changed = with_changes(rev, data={"spec": {"x": 1}})
    assert errors(validate_controller_revision_update(changed, rev))[0].endswith(": field is immutable")


def test_odd_types_do_not_raise() -> None:
    for obj in (
        deployment(spec="x"),
        deployment(spec__selector="x", spec__template=3, spec__strategy=[]),
        deployment(spec__template__metadata__labels=[1], spec__replicas="2"),
    ):
        validate_deployment(obj)
        validate_stateful_set(obj)
        validate_daemon_set(obj)
