"""Tests for the built-in resource tables (what discovery shows for kube-apiserver 1.33)."""

from __future__ import annotations

from collections import Counter

import pytest

from kube_apiserver.apis import GROUP_ORDER, GROUP_PRIORITY, builtin_resources
from kube_apiserver.registry.resource_spec import STANDARD_VERBS, ResourceSpec

RESOURCES = builtin_resources()
BY_KEY = {(r.group, r.version, r.resource): r for r in RESOURCES}


def spec(group_version: str, resource: str) -> ResourceSpec:
    group, _, version = group_version.rpartition("/")
    return BY_KEY[(group, version, resource)]


def test_counts_per_group_version() -> None:
    counts = Counter(r.group_version for r in RESOURCES)
    assert counts == {
        "v1": 17,
        "apiregistration.k8s.io/v1": 1,
        "apps/v1": 5,
        "events.k8s.io/v1": 1,
        "authentication.k8s.io/v1": 2,
        "authorization.k8s.io/v1": 4,
        "autoscaling/v2": 1,
        "autoscaling/v1": 1,
        "batch/v1": 2,
        "certificates.k8s.io/v1": 1,
        "networking.k8s.io/v1": 5,
        "policy/v1": 1,
        "rbac.authorization.k8s.io/v1": 4,
        "storage.k8s.io/v1": 5,
        "admissionregistration.k8s.io/v1": 4,
        "apiextensions.k8s.io/v1": 1,
        "scheduling.k8s.io/v1": 1,
        "coordination.k8s.io/v1": 1,
        "node.k8s.io/v1": 1,
        "discovery.k8s.io/v1": 1,
        "flowcontrol.apiserver.k8s.io/v1": 2,
    }
    assert len(RESOURCES) == 61
    assert len(BY_KEY) == len(RESOURCES)


def test_order_core_first_then_apis_order() -> None:
    groups: list[str] = []
    for r in RESOURCES:
        if not groups or groups[-1] != r.group:
            groups.append(r.group)
    assert groups == ["", *GROUP_ORDER]
    assert builtin_resources() == RESOURCES  # stable
    # discovery lists resources of a group/version alphabetically
    for gv in {r.group_version for r in RESOURCES}:
        names = [r.resource for r in RESOURCES if r.group_version == gv]
        assert names == sorted(names), gv


def test_group_priority_covers_served_versions() -> None:
    served = {(r.group, r.version) for r in RESOURCES}
    assert served - {("apiregistration.k8s.io", "v1")} == set(GROUP_PRIORITY)
    assert GROUP_PRIORITY[("", "v1")] == (18000, 1)
    assert GROUP_PRIORITY[("autoscaling", "v2")][1] > GROUP_PRIORITY[("autoscaling", "v1")][1]
    # /apis order (apiregistration aside) follows descending group priority
    minimums = [GROUP_PRIORITY[(g, "v1")][0] for g in GROUP_ORDER[1:]]
    assert minimums == sorted(minimums, reverse=True)


@pytest.mark.parametrize(
    ("group_version", "resource", "short_names"),
    [
        ("v1", "pods", ("po",)),
        ("v1", "services", ("svc",)),
        ("v1", "configmaps", ("cm",)),
        ("v1", "namespaces", ("ns",)),
        ("v1", "nodes", ("no",)),
        ("v1", "persistentvolumes", ("pv",)),
        ("v1", "persistentvolumeclaims", ("pvc",)),
        ("v1", "serviceaccounts", ("sa",)),
        ("v1", "events", ("ev",)),
        ("v1", "endpoints", ("ep",)),
        ("v1", "limitranges", ("limits",)),
        ("v1", "resourcequotas", ("quota",)),
        ("v1", "replicationcontrollers", ("rc",)),
        ("v1", "componentstatuses", ("cs",)),
        ("v1", "secrets", ()),
        ("apps/v1", "deployments", ("deploy",)),
        ("apps/v1", "daemonsets", ("ds",)),
        ("apps/v1", "replicasets", ("rs",)),
        ("apps/v1", "statefulsets", ("sts",)),
        ("batch/v1", "cronjobs", ("cj",)),
        ("batch/v1", "jobs", ()),
        ("autoscaling/v2", "horizontalpodautoscalers", ("hpa",)),
        ("policy/v1", "poddisruptionbudgets", ("pdb",)),
        ("networking.k8s.io/v1", "ingresses", ("ing",)),
        ("networking.k8s.io/v1", "networkpolicies", ("netpol",)),
        ("networking.k8s.io/v1", "ipaddresses", ("ip",)),
        ("storage.k8s.io/v1", "storageclasses", ("sc",)),
        ("certificates.k8s.io/v1", "certificatesigningrequests", ("csr",)),
        ("apiextensions.k8s.io/v1", "customresourcedefinitions", ("crd", "crds")),
        ("scheduling.k8s.io/v1", "priorityclasses", ("pc",)),
        ("events.k8s.io/v1", "events", ("ev",)),
    ],
)
def test_short_names(group_version: str, resource: str, short_names: tuple[str, ...]) -> None:
    assert spec(group_version, resource).short_names == short_names


def test_verbs() -> None:
    assert spec("v1", "componentstatuses").verbs == ("get", "list")
    assert spec("v1", "bindings").verbs == ("create",)
    assert spec("v1", "namespaces").verbs == ("create", "delete", "get", "list", "patch", "update", "watch")
    virtual = {
        ("v1", "bindings"),
        ("authentication.k8s.io/v1", "tokenreviews"),
        ("authentication.k8s.io/v1", "selfsubjectreviews"),
        ("authorization.k8s.io/v1", "subjectaccessreviews"),
        ("authorization.k8s.io/v1", "localsubjectaccessreviews"),
        ("authorization.k8s.io/v1", "selfsubjectaccessreviews"),
        ("authorization.k8s.io/v1", "selfsubjectrulesreviews"),
    }
    for gv, resource in virtual:
        r = spec(gv, resource)
        assert r.verbs == ("create",)
        assert not r.persisted
        assert r.printer is None
    others = [
        r
        for r in RESOURCES
        if (r.group_version, r.resource) not in virtual and r.resource not in ("componentstatuses", "namespaces")
    ]
    for r in others:
        assert r.verbs == STANDARD_VERBS, r.resource


def test_scope_and_singular() -> None:
    assert spec("v1", "endpoints").singular_name == "endpoints"
    assert spec("v1", "pods").singular_name == "pod"
    assert spec("storage.k8s.io/v1", "csistoragecapacities").namespaced
    assert spec("authorization.k8s.io/v1", "localsubjectaccessreviews").namespaced
    assert not spec("authorization.k8s.io/v1", "subjectaccessreviews").namespaced
    assert not spec("networking.k8s.io/v1", "ingressclasses").namespaced
    assert not spec("networking.k8s.io/v1", "servicecidrs").namespaced
    assert not spec("v1", "persistentvolumes").namespaced
    assert spec("v1", "persistentvolumeclaims").namespaced


def test_subresources() -> None:
    pods = spec("v1", "pods")
    assert [s.name for s in pods.subresources] == [
        "attach",
        "binding",
        "ephemeralcontainers",
        "eviction",
        "exec",
        "log",
        "portforward",
        "proxy",
        "resize",
        "status",
    ]
    assert pods.subresource("log") is not None and pods.subresource("log").verbs == ("get",)
    assert pods.subresource("exec").verbs == ("create", "get")
    assert pods.subresource("exec").kind == "PodExecOptions"
    eviction = pods.subresource("eviction")
    assert (eviction.kind, eviction.group, eviction.version, eviction.verbs) == (
        "Eviction",
        "policy",
        "v1",
        ("create",),
    )
    assert pods.subresource("binding").verbs == ("create",)
    assert pods.subresource("proxy").verbs == ("create", "delete", "get", "patch", "update")
    assert pods.subresource("status").verbs == ("get", "patch", "update")

    for gv, resource in [
        ("apps/v1", "deployments"),
        ("apps/v1", "replicasets"),
        ("apps/v1", "statefulsets"),
        ("v1", "replicationcontrollers"),
    ]:
        scale = spec(gv, resource).subresource("scale")
        assert scale is not None
        assert (scale.kind, scale.group, scale.version, scale.verbs) == (
            "Scale",
            "autoscaling",
            "v1",
            ("get", "patch", "update"),
        )
    token = spec("v1", "serviceaccounts").subresource("token")
    assert token is not None and (token.kind, token.group, token.version) == (
        "TokenRequest",
        "authentication.k8s.io",
        "v1",
    )
    assert [s.name for s in spec("v1", "namespaces").subresources] == ["finalize", "status"]
    assert spec("v1", "namespaces").subresource("finalize").verbs == ("update",)
    assert [s.name for s in spec("v1", "nodes").subresources] == ["proxy", "status"]
    assert [s.name for s in spec("v1", "services").subresources] == ["proxy", "status"]
    assert [s.name for s in spec("certificates.k8s.io/v1", "certificatesigningrequests").subresources] == [
        "approval",
        "status",
    ]
    assert spec("networking.k8s.io/v1", "networkpolicies").subresources == ()
    assert spec("v1", "configmaps").subresources == ()

    with_status = [
        ("v1", "persistentvolumes"),
        ("v1", "persistentvolumeclaims"),
        ("v1", "resourcequotas"),
        ("apps/v1", "daemonsets"),
        ("batch/v1", "jobs"),
        ("batch/v1", "cronjobs"),
        ("autoscaling/v1", "horizontalpodautoscalers"),
        ("autoscaling/v2", "horizontalpodautoscalers"),
        ("policy/v1", "poddisruptionbudgets"),
        ("networking.k8s.io/v1", "ingresses"),
        ("networking.k8s.io/v1", "servicecidrs"),
        ("storage.k8s.io/v1", "volumeattachments"),
        ("apiregistration.k8s.io/v1", "apiservices"),
        ("apiextensions.k8s.io/v1", "customresourcedefinitions"),
        ("flowcontrol.apiserver.k8s.io/v1", "flowschemas"),
        ("flowcontrol.apiserver.k8s.io/v1", "prioritylevelconfigurations"),
        ("admissionregistration.k8s.io/v1", "validatingadmissionpolicies"),
    ]
    for gv, resource in with_status:
        r = spec(gv, resource)
        sub = r.subresource("status")
        assert sub is not None, resource
        assert (sub.kind, sub.verbs) == (r.kind, ("get", "patch", "update"))


def test_categories() -> None:
    all_category = {(r.group, r.resource) for r in RESOURCES if "all" in r.categories}
    assert all_category == {
        ("", "pods"),
        ("", "replicationcontrollers"),
        ("", "services"),
        ("apps", "daemonsets"),
        ("apps", "deployments"),
        ("apps", "replicasets"),
        ("apps", "statefulsets"),
        ("autoscaling", "horizontalpodautoscalers"),
        ("batch", "cronjobs"),
        ("batch", "jobs"),
    }
    extensions = {r.resource for r in RESOURCES if "api-extensions" in r.categories}
    assert extensions == {
        "apiservices",
        "customresourcedefinitions",
        "mutatingwebhookconfigurations",
        "validatingwebhookconfigurations",
        "validatingadmissionpolicies",
        "validatingadmissionpolicybindings",
    }


def test_selectable_fields() -> None:
    pod_fields = spec("v1", "pods").selectable_fields
    for field in (
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.nominatedNodeName",
    ):
        assert pod_fields[field] == field
    assert pod_fields["spec.host"] == "spec.nodeName"
    events = spec("v1", "events").selectable_fields
    assert events["involvedObject.uid"] == "involvedObject.uid"
    assert events["source"] == "source.component"
    assert len(events) == 11
    assert spec("events.k8s.io/v1", "events").selectable_fields["regarding.kind"] == "regarding.kind"
    assert spec("v1", "secrets").selectable_fields == {"type": "type"}
    assert spec("v1", "namespaces").selectable_fields == {"status.phase": "status.phase"}
    assert spec("v1", "nodes").selectable_fields == {"spec.unschedulable": "spec.unschedulable"}
    assert spec("v1", "services").selectable_fields == {"spec.clusterIP": "spec.clusterIP", "spec.type": "spec.type"}
    assert spec("v1", "replicationcontrollers").selectable_fields == {"status.replicas": "status.replicas"}
    assert spec("batch/v1", "jobs").selectable_fields == {"status.successful": "status.succeeded"}
    assert spec("certificates.k8s.io/v1", "certificatesigningrequests").selectable_fields == {
        "spec.signerName": "spec.signerName"
    }
    # apps/v1 registers no field label conversions upstream
    assert spec("apps/v1", "replicasets").selectable_fields == {}
    assert spec("v1", "persistentvolumes").selectable_fields == {}


def test_events_share_storage() -> None:
    assert spec("events.k8s.io/v1", "events").storage_key == "events"
    assert spec("v1", "events").storage_key == ""
    assert all(r.storage_key == "" for r in RESOURCES if r.group != "events.k8s.io")


def test_persisted_resources_have_printers() -> None:
    for r in RESOURCES:
        if r.persisted:
            assert r.printer is not None, r.resource
