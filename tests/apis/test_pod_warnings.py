"""Pod warnings (pkg/api/pod/warnings.go): the field paths of each warning, spelled only when one is
given, must name the container and port it is about."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.core.pod_warnings import warnings_for_pod_spec_and_meta, warnings_for_template


def _spec() -> dict[str, Any]:
    return {
        "initContainers": [{"name": "init", "ports": [{"containerPort": 80, "protocol": "TCP", "hostIP": "10.0.0.1"}]}],
        "containers": [
            {
                "name": "a",
                "ports": [
                    {"containerPort": 80, "protocol": "TCP"},
                    {"containerPort": 81, "protocol": "TCP", "hostPort": 81},
                ],
                "env": [{"name": "X", "value": "1"}, {"name": "Y", "value": "2"}, {"name": "X", "value": "3"}],
                "resources": {"limits": {"memory": "1.5"}, "requests": {"ephemeral-storage": "100m", "memory": "1Gi"}},
            },
            {
                "name": "b",
                "ports": [
                    {"containerPort": 81, "protocol": "TCP", "hostPort": 81, "hostIP": "10.0.0.2"},
                    {"containerPort": 80, "protocol": "TCP"},
                ],
                # a variable that refers to the one it repeats hides nothing
                "env": [{"name": "Z", "value": "1"}, {"name": "Z", "value": "$(Z):x"}],
            },
        ],
        "hostAliases": [{"ip": "1.2.3.4"}, {"ip": "1.2.3.4"}],
        "imagePullSecrets": [{"name": "s"}, {"name": "s"}, {}],
        "overhead": {"memory": "0.5"},
        "volumes": [{"name": "v", "gitRepo": {}}],
    }


def test_every_warning_names_its_field() -> None:
    meta = {"annotations": {"container.seccomp.security.alpha.kubernetes.io/b": "x"}}
    got = warnings_for_template({"spec": _spec(), "metadata": meta}, "spec.template.")
    p = "spec.template.spec"
    assert got == [
        f"{p}.volumes[0].gitRepo: deprecated in v1.11",
        f'{p}.hostAliases[1].ip: duplicate ip "1.2.3.4"',
        f'{p}.imagePullSecrets[1].name: duplicate name "s"',
        f'{p}.imagePullSecrets[2].name: invalid empty name ""',
        f'{p}.overhead[memory]: fractional byte value "0.5" is invalid, must be an integer',
        f'{p}.containers[0].resources.limits[memory]: fractional byte value "1.5" is invalid, must be an integer',
        f'{p}.containers[0].resources.requests[ephemeral-storage]: fractional byte value "100m" is invalid, '
        "must be an integer",
        f'{p}.containers[0].env[2]: hides previous definition of "X", which may be dropped when using apply',
        "spec.template.metadata.annotations[container.seccomp.security.alpha.kubernetes.io/b]: "
        'non-functional in v1.27+; use the "seccompProfile" field instead',
        f"{p}.initContainers[0].ports[0]: hostIP set without hostPort: "
        "{Name: HostPort:0 ContainerPort:80 Protocol:TCP HostIP:10.0.0.1}",
        f"{p}.containers[0].ports[0]: overlapping port definition with {p}.initContainers[0].ports[0]",
        f"{p}.containers[1].ports[0]: dangerously ambiguous port definition with {p}.containers[0].ports[1]",
        f"{p}.containers[1].ports[1]: overlapping port definition with {p}.initContainers[0].ports[0]",
        f"{p}.containers[1].ports[1]: duplicate port definition with {p}.containers[0].ports[0]",
    ]


def test_a_plain_pod_has_no_warnings() -> None:
    spec = {
        "containers": [
            {
                "name": f"c{i}",
                "ports": [{"containerPort": 8080 + i, "protocol": "TCP"}],
                "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                "resources": {"limits": {"memory": "256Mi"}, "requests": {"memory": "128Mi"}},
            }
            for i in range(3)
        ],
        "nodeSelector": {"kubernetes.io/os": "linux"},
    }
    assert warnings_for_pod_spec_and_meta(spec, {"annotations": {"a": "b"}}) == []
