"""Pure parts of the pods subresources: container choice, conditions, binding validation, proxy locations,
Go's dial error texts and the ephemeral containers update rules."""

from __future__ import annotations

import errno
import socket

import pytest

from kube_apiserver.apis.core.pod_eviction import (
    can_ignore_pdb,
    conditions_are_up_to_date,
    is_pod_ready,
    set_status_condition,
    update_disruption_allowed_condition,
)
from kube_apiserver.apis.core.pod_streaming import go_dial_error
from kube_apiserver.apis.core.pod_subresources import (
    EPHEMERAL_CONTAINERS,
    EphemeralContainersStrategy,
    update_pod_condition,
    validate_container,
    validate_pod_binding,
)
from kube_apiserver.apis.core.resource_proxy import is_global_unicast, split_scheme_name_port
from kube_apiserver.apis.core.resources import RESOURCES
from kube_apiserver.runtime.errors import StatusError


def pod(*containers: str, init: tuple[str, ...] = (), ephemeral: tuple[str, ...] = ()) -> dict:
    return {
        "metadata": {"name": "p"},
        "spec": {
            "initContainers": [{"name": n} for n in init],
            "containers": [{"name": n} for n in containers],
            "ephemeralContainers": [{"name": n} for n in ephemeral],
        },
    }


def test_validate_container():
    assert validate_container("", pod("only")) == "only"
    assert validate_container("dbg", pod("a", "b", ephemeral=("dbg",))) == "dbg"
    with pytest.raises(StatusError) as e:
        validate_container("", pod("a", "b", init=("i",), ephemeral=("e",)))
    assert (e.value.code, e.value.message) == (
        400,
        "a container name must be specified for pod p, choose one of: [i a b e]",
    )
    with pytest.raises(StatusError) as e:
        validate_container("", pod())
    assert e.value.message == "a container name must be specified for pod p"
    with pytest.raises(StatusError) as e:
        validate_container("x", pod("a"))
    assert e.value.message == "container x is not valid for pod p"


def test_update_pod_condition_keeps_transition_time_when_status_holds():
    p: dict = {"status": {"conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "T0"}]}}
    update_pod_condition(p, {"type": "Ready", "status": "True", "reason": "R"})
    assert p["status"]["conditions"] == [
        {"type": "Ready", "status": "True", "lastProbeTime": None, "lastTransitionTime": "T0", "reason": "R"}
    ]
    update_pod_condition(p, {"type": "Ready", "status": "False"})
    assert p["status"]["conditions"][0]["lastTransitionTime"] != "T0"
    update_pod_condition(p, {"type": "PodScheduled", "status": "True"})
    assert [c["type"] for c in p["status"]["conditions"]] == ["Ready", "PodScheduled"]


def test_validate_pod_binding():
    assert validate_pod_binding({"target": {"name": "n"}}) == []
    assert validate_pod_binding({"target": {"kind": "Node", "name": "n"}}) == []
    causes = validate_pod_binding({"target": {"kind": "Pod"}})
    assert [(c.field, c.message) for c in causes] == [
        ("target.kind", 'Unsupported value: "Pod": supported values: "Node", "<empty>"'),
        ("target.name", "Required value"),
    ]
    assert [c.field for c in validate_pod_binding({"target": "x"})] == ["target.name"]


def test_pod_readiness_and_pdb_bypass():
    running = {"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}
    assert is_pod_ready(running) and not can_ignore_pdb(running)
    assert not is_pod_ready({"status": {"conditions": [{"type": "Ready", "status": "False"}]}})
    for phase in ("Pending", "Succeeded", "Failed"):
        assert can_ignore_pdb({"status": {"phase": phase}})
    assert can_ignore_pdb({"metadata": {"deletionTimestamp": "x"}, "status": {"phase": "Running"}})


def test_disruption_allowed_condition():
    status: dict = {"disruptionsAllowed": 2, "observedGeneration": 3}
    update_disruption_allowed_condition(status)
    [cond] = status["conditions"]
    assert list(cond) == ["type", "status", "observedGeneration", "lastTransitionTime", "reason", "message"]
    assert (cond["status"], cond["reason"], cond["message"]) == ("True", "SufficientPods", "")
    pdb = {"metadata": {"generation": 3}, "status": status}
    assert conditions_are_up_to_date(pdb)
    status["disruptionsAllowed"] = 0
    assert not conditions_are_up_to_date(pdb)
    since = cond["lastTransitionTime"]
    set_status_condition(status["conditions"], {"type": "DisruptionAllowed", "status": "True", "reason": "X"})
    assert status["conditions"][0]["lastTransitionTime"] == since and "observedGeneration" not in cond


def test_split_scheme_name_port():
    assert split_scheme_name_port("pod") == ("", "pod", "", True)
    assert split_scheme_name_port("pod:8080") == ("", "pod", "8080", True)
    assert split_scheme_name_port("https:pod:443") == ("https", "pod", "443", True)
    assert split_scheme_name_port("ftp:pod:21")[3] is False
    assert split_scheme_name_port(":80")[3] is False
    assert split_scheme_name_port("a:b:c:d")[3] is False


def test_is_global_unicast_as_go():
    for ip in ("10.1.2.3", "192.168.0.1", "8.8.8.8", "192.0.2.2", "fd00::2"):
        assert is_global_unicast(ip), ip
    for ip in ("", "127.0.0.1", "0.0.0.0", "169.254.1.1", "224.0.0.1", "255.255.255.255", "::1", "fe80::1", "x"):
        assert not is_global_unicast(ip), ip


def test_go_dial_error():
    assert go_dial_error("1.2.3.4:80", ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")) == (
        "dial tcp 1.2.3.4:80: connect: connection refused"
    )
    assert go_dial_error("1.2.3.4:80", TimeoutError()) == "dial tcp 1.2.3.4:80: i/o timeout"
    assert go_dial_error("node-1:10250", socket.gaierror(-2, "Name or service not known")) == (
        "dial tcp: lookup node-1: no such host"
    )
    assert go_dial_error("1.2.3.4:80", OSError(errno.EHOSTUNREACH, "No route to host")) == (
        "dial tcp 1.2.3.4:80: connect: no route to host"
    )


def _strategy() -> EphemeralContainersStrategy:
    spec = next(s for s in RESOURCES if s.resource == "pods")
    return EphemeralContainersStrategy(spec)


def test_ephemeral_update_keeps_all_but_ephemeral_containers():
    old = {
        "metadata": {"name": "p", "labels": {"a": "b"}, "resourceVersion": "5"},
        "spec": {"containers": [{"name": "c", "image": "x"}]},
        "status": {"phase": "Running"},
    }
    new = {
        "metadata": {"name": "p", "labels": {"z": "z"}, "resourceVersion": "5"},
        "spec": {"containers": [{"name": "c", "image": "y"}], "ephemeralContainers": [{"name": "e", "image": "i"}]},
        "status": {"phase": "Failed"},
    }
    out = _strategy().prepare_for_subresource_update(EPHEMERAL_CONTAINERS, new, old)
    assert out["metadata"]["labels"] == {"a": "b"}
    assert out["spec"] == {
        "containers": [{"name": "c", "image": "x"}],
        "ephemeralContainers": new["spec"]["ephemeralContainers"],
    }
    assert out["status"] == {"phase": "Running"}


def test_ephemeral_update_rules():
    s = _strategy()
    old = {
        "metadata": {"name": "p", "resourceVersion": "1"},
        "spec": {"ephemeralContainers": [{"name": "e", "image": "a"}]},
    }
    grown = {"metadata": old["metadata"], "spec": {"ephemeralContainers": [{"name": "e", "image": "a"}, {"name": "f"}]}}
    assert s.validate_update(grown, old) == []
    removed = {"metadata": old["metadata"], "spec": {}}
    [cause] = s.validate_update(removed, old)
    assert (cause.field, cause.message) == (
        "spec.ephemeralContainers",
        'Forbidden: existing ephemeral containers "e" may not be removed\n',
    )
    changed = {"metadata": old["metadata"], "spec": {"ephemeralContainers": [{"name": "e", "image": "b"}]}}
    [cause] = s.validate_update(changed, old)
    assert cause.message.startswith('Forbidden: existing ephemeral containers "e" may not be changed\n')
    mirror = {"metadata": {**old["metadata"], "annotations": {"kubernetes.io/config.mirror": "x"}}, "spec": {}}
    [cause] = s.validate_update(removed, mirror)
    assert (cause.field, cause.message) == ("[]", "Forbidden: static pods do not support ephemeral containers")
