"""Defaulting again after prepare_for_create (Scheme.default_status): kube defaults what it decodes from
storage, so a created object is default(prepare(default(obj))). Kinds that declare the defaults of their
status redo only those; the result must be the one the whole defaulting gives."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kube_apiserver.apis import builtin_resources
from kube_apiserver.apis.core.pod_strategy import PodStrategy
from kube_apiserver.apis.scheme import build_scheme
from kube_apiserver.registry.strategy import RESTStrategy
from kube_apiserver.runtime.scheme import Scheme

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "serviceAccount": "builder",
        "hostNetwork": True,
        "containers": [
            {
                "name": "app",
                "image": "nginx",
                "ports": [{"containerPort": 8080}],
                "env": [{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
                "resources": {"limits": {"cpu": "0.0001", "memory": "128Mi"}},
                "readinessProbe": {"httpGet": {"port": 8080}},
                "lifecycle": {"preStop": {"httpGet": {"port": 8080}}},
            }
        ],
        "volumes": [{"name": "v"}, {"name": "s", "secret": {"secretName": "s"}}],
    },
}
RC = {
    "apiVersion": "v1",
    "kind": "ReplicationController",
    "metadata": {"name": "rc", "namespace": "default"},
    "spec": {"template": {"metadata": {"labels": {"app": "web"}}, "spec": copy.deepcopy(POD["spec"])}},
}
PVC = {
    "apiVersion": "v1",
    "kind": "PersistentVolumeClaim",
    "metadata": {"name": "data", "namespace": "default"},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
}


def _strategy(kind: str) -> RESTStrategy:
    spec = next(s for s in builtin_resources() if s.group == "" and s.kind == kind)
    return (PodStrategy if kind == "Pod" else RESTStrategy)(spec, build_scheme())


def _created(obj: dict[str, Any], again: str) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    strategy = _strategy(out["kind"])
    strategy.default(out)
    strategy.prepare_for_create(out)
    getattr(strategy, again)(out)
    return out


@pytest.mark.parametrize("obj", [POD, RC, PVC], ids=lambda o: o["kind"])
def test_status_defaults_give_what_the_whole_defaulting_gives(obj):
    assert _created(obj, "default_status") == _created(obj, "default")


def test_pod_status_after_prepare():
    pod = _created(POD, "default_status")
    assert pod["status"] == {"phase": "Pending", "qosClass": "Guaranteed"}
    assert pod["spec"]["containers"][0]["resources"] == {
        "limits": {"cpu": "1m", "memory": "128Mi"},
        "requests": {"cpu": "1m", "memory": "128Mi"},
    }


def test_pvc_without_status_defaulter_is_defaulted_whole_again():
    # prepare_for_create resets the status; the whole defaulting gives it its phase again.
    assert _created(PVC, "default_status")["status"] == {"phase": "Pending"}


def test_scheme_default_status_runs_the_status_defaulters_alone():
    scheme = Scheme()
    calls: list[str] = []
    scheme.add_defaulter(("", "v1", "Thing"), lambda obj: calls.append("whole"))
    scheme.add_defaulter(("", "v1", "Other"), lambda obj: calls.append("other whole"))
    scheme.add_status_defaulter(("", "v1", "Thing"), lambda obj: calls.append("status"))
    scheme.default_status({"apiVersion": "v1", "kind": "Thing"})
    scheme.default_status({"apiVersion": "v1", "kind": "Other"})
    assert calls == ["status", "other whole"]
