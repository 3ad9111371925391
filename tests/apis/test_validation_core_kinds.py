"""ConfigMap, Secret, Namespace, Node, Endpoints, Event, PersistentVolume(Claim), LimitRange and
ResourceQuota validation with kube-apiserver 1.33's messages and paths."""

from __future__ import annotations

import base64

from kube_apiserver.apis.core.validation.cluster import (
    validate_endpoints,
    validate_event,
    validate_namespace,
    validate_node,
    validate_node_update,
)
from kube_apiserver.apis.core.validation.config import (
    validate_config_map,
    validate_config_map_update,
    validate_secret,
    validate_secret_update,
)
from kube_apiserver.apis.core.validation.resources import (
    validate_limit_range,
    validate_resource_quota,
    validate_resource_quota_update,
)
from kube_apiserver.apis.core.validation.storage import (
    validate_persistent_volume,
    validate_persistent_volume_claim,
    validate_persistent_volume_claim_update,
    validate_persistent_volume_update,
)
from kube_apiserver.runtime.errors import new_invalid

QUALIFIED_NAME_ERR = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def texts(causes):
    return [(c.field, c.message) for c in causes]


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# --- ConfigMap / Secret -------------------------------------------------------------------------------------------


def test_config_map_keys_and_size():
    assert validate_config_map({"data": {"a.b": "1"}, "binaryData": {"c": b64("x")}}) == []
    assert texts(validate_config_map({"data": {"a/b": "1", "d": "x"}, "binaryData": {"d": b64("y")}})) == [
        (
            "data[a/b]",
            "Invalid value: \"a/b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
            "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
        ),
        ("data[d]", 'Invalid value: "d": duplicate of key present in binaryData'),
    ]
    big = {"data": {"k": "x" * (1 << 20), "l": "y"}}
    assert texts(validate_config_map(big)) == [("[]", "Too long: may not be more than 1048576 bytes")]
    assert validate_config_map({"data": {"k": "x" * (1 << 20)}}) == []
    msg = new_invalid("", "ConfigMap", "big", validate_config_map(big)).message
    assert msg == 'ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes'


def test_config_map_immutable():
    old = {"data": {"a": "1"}, "immutable": True}
    assert validate_config_map_update(dict(old), old) == []
    assert texts(validate_config_map_update({"data": {"a": "2"}, "immutable": False}, old)) == [
        ("immutable", "Forbidden: field is immutable when `immutable` is set"),
        ("data", "Forbidden: field is immutable when `immutable` is set"),
    ]
    assert validate_config_map_update({"data": {"a": "2"}}, {"data": {"a": "1"}}) == []


def test_secret_types():
    assert validate_secret({"type": "Opaque", "data": {"a": b64("x")}}) == []
    assert texts(validate_secret({"type": "kubernetes.io/tls", "data": {}})) == [
        ("data[tls.crt]", "Required value"),
        ("data[tls.key]", "Required value"),
    ]
    assert texts(validate_secret({"type": "kubernetes.io/basic-auth"})) == [
        ("data[username]", "Required value"),
        ("data[password]", "Required value"),
    ]
    assert texts(validate_secret({"type": "kubernetes.io/service-account-token", "metadata": {}})) == [
        ("metadata.annotations[kubernetes.io/service-account.name]", "Required value")
    ]
    assert texts(
        validate_secret({"type": "kubernetes.io/dockerconfigjson", "data": {".dockerconfigjson": b64("[1]")}})
    ) == [
        (
            "data[.dockerconfigjson]",
            'Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}',
        )
    ]
    dockercfg = {"type": "kubernetes.io/dockercfg", "data": {".dockercfg": b64("{x")}}
    assert texts(validate_secret(dockercfg)) == [
        (
            "data[.dockercfg]",
            "Invalid value: \"<secret contents redacted>\": invalid character 'x' looking for beginning of object key string",
        )
    ]
    assert texts(validate_secret({"type": "kubernetes.io/ssh-auth", "stringData": {"ssh-privatekey": ""}})) == [
        ("data[ssh-privatekey]", "Required value")
    ]
    big = {"data": {"a": base64.b64encode(b"x" * (1 << 20 | 1)).decode()}}
    assert texts(validate_secret(big)) == [("data", "Too long: may not be more than 1048576 bytes")]


def test_secret_update():
    old = {"type": "Opaque", "data": {"a": b64("1")}, "immutable": True}
    assert texts(
        validate_secret_update({"type": "kubernetes.io/tls", "data": {"a": b64("2")}, "immutable": True}, old)
    ) == [
        ("type", 'Invalid value: "kubernetes.io/tls": field is immutable'),
        ("data", "Forbidden: field is immutable when `immutable` is set"),
    ]


# --- Namespace / Node / Endpoints / Event -------------------------------------------------------------------------


def test_namespace_spec_finalizers():
    assert validate_namespace({"spec": {"finalizers": ["kubernetes"]}}) == []
    assert texts(validate_namespace({"spec": {"finalizers": ["foo"]}})) == [
        ("spec.finalizers", 'Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified')
    ]


def test_node():
    node = {
        "spec": {
            "taints": [
                {"key": "k", "effect": "NoSchedule"},
                {"key": "k", "effect": "Bogus"},
                {"key": "k", "effect": "NoSchedule"},
            ]
        },
        "status": {"capacity": {"cpu": "-1", "pods": "1.5"}},
    }
    result = texts(validate_node(node))
    assert result[0] == (
        "metadata.taints[1].effect",
        'Unsupported value: "Bogus": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    )
    assert result[1][0] == "metadata.taints[2]" and result[1][1].endswith(
        ": taints must be unique by key and effect pair"
    )
    assert result[2:] == [
        ("status.capacity.cpu", 'Invalid value: "-1": must be greater than or equal to 0'),
        ("status.capacity.pods", "Invalid value: 1500m: must be an integer"),
    ]
    assert texts(validate_node_update({"spec": {"providerID": "b"}}, {"spec": {"providerID": "a"}})) == [
        ("spec.providerID", 'Forbidden: node updates may not change providerID except from "" to valid')
    ]


def test_endpoints():
    endpoints = {
        "metadata": {"name": "svc", "namespace": "default"},
        "subsets": [
            {},
            {
                "addresses": [{"ip": "127.0.0.1"}, {"ip": "nope"}],
                "ports": [{"port": 80, "protocol": "TCP"}, {"port": 0, "name": "b"}],
            },
        ],
    }
    assert texts(validate_endpoints(endpoints)) == [
        ("subsets[0]", "Required value: must specify `addresses` or `notReadyAddresses`"),
        (
            "subsets[1].addresses[0].ip",
            'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
        ),
        (
            "subsets[1].addresses[1].ip",
            'Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
        ),
        ("subsets[1].addresses[1].ip", 'Invalid value: "nope": must be a valid IP address'),
        ("subsets[1].ports[0].name", "Required value"),
        ("subsets[1].ports[1].port", "Invalid value: 0: must be between 1 and 65535, inclusive"),
        ("subsets[1].ports[1].protocol", "Required value"),
    ]


def test_event():
    event = {"metadata": {"namespace": "ns1"}, "involvedObject": {"namespace": "ns2"}}
    assert texts(validate_event(event)) == [
        ("involvedObject.namespace", 'Invalid value: "ns2": does not match event.namespace')
    ]
    new_style = {
        "metadata": {"namespace": "ns1"},
        "involvedObject": {"namespace": "ns1"},
        "eventTime": "2024-01-01T00:00:00.000000Z",
    }
    assert texts(validate_event(new_style)) == [
        ("reportingComponent", "Required value"),
        ("reportingComponent", 'Invalid value: "": name part must be non-empty'),
        ("reportingComponent", 'Invalid value: "": ' + QUALIFIED_NAME_ERR),
        ("reportingInstance", "Required value"),
        ("action", "Required value"),
        ("reason", "Required value"),
    ]


# --- PersistentVolume / PersistentVolumeClaim ---------------------------------------------------------------------


def pv(**spec):
    return {
        "metadata": {"name": "pv1"},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "capacity": {"storage": "1Gi"},
            "hostPath": {"path": "/tmp/x"},
            **spec,
        },
    }


def test_persistent_volume():
    assert validate_persistent_volume(pv()) == []
    bad = pv(
        accessModes=["ReadWriteOncePod", "ReadOnlyMany", "Sometimes"], capacity={}, nfs={"server": "s", "path": "rel"}
    )
    assert texts(validate_persistent_volume(bad)) == [
        (
            "spec.accessModes",
            'Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
        ),
        ("spec.accessModes", "Forbidden: may not use ReadWriteOncePod with other access modes"),
        ("spec.capacity", "Required value"),
        ("spec.capacity", 'Unsupported value: core.ResourceList(nil): supported values: "storage"'),
        ("spec.nfs", "Forbidden: may not specify more than 1 volume type"),
    ]
    assert texts(
        validate_persistent_volume(
            {"metadata": {"name": "x"}, "spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "0"}}}
        )
    ) == [
        ("spec.capacity[storage]", 'Invalid value: "0": must be greater than zero'),
        ("spec", "Required value: must specify a volume type"),
    ]
    changed = pv(hostPath={"path": "/tmp/y"})
    (cause,) = validate_persistent_volume_update(changed, pv())
    assert cause.field == "spec.persistentvolumesource"
    assert cause.message.startswith("Forbidden: spec.persistentvolumesource is immutable after creation\n")


def pvc(**spec):
    return {
        "metadata": {"name": "c"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, **spec},
    }


def test_persistent_volume_claim():
    assert validate_persistent_volume_claim(pvc()) == []
    assert texts(validate_persistent_volume_claim(pvc(accessModes=[], resources={}))) == [
        ("spec.accessModes", "Required value: at least 1 access mode is required"),
        ("spec.resources[storage]", "Required value"),
    ]
    assert texts(validate_persistent_volume_claim(pvc(resources={"requests": {"storage": "0"}}))) == [
        ("spec.resources[storage]", 'Invalid value: "0": must be greater than zero')
    ]


def test_persistent_volume_claim_update():
    old = pvc()
    grown = pvc(resources={"requests": {"storage": "2Gi"}})
    (cause,) = validate_persistent_volume_claim_update(grown, old)  # unbound: resizing is not allowed
    assert cause.field == "spec"
    assert cause.message.startswith(
        "Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n"
    )
    bound_old, bound_new = dict(old, status={"phase": "Bound"}), dict(grown, status={"phase": "Bound"})
    assert validate_persistent_volume_claim_update(bound_new, bound_old) == []
    assert validate_persistent_volume_claim_update(pvc(volumeName="pv1"), old) == []  # bound once by the controller
    assert validate_persistent_volume_claim_update(pvc(resources={"requests": {"storage": "1024Mi"}}), old) == []


# --- LimitRange / ResourceQuota -----------------------------------------------------------------------------------


def test_limit_range():
    limits = {
        "spec": {
            "limits": [
                {"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}},
                {"type": "Pod", "default": {"cpu": "1"}},
                {"type": "Container"},
            ]
        }
    }
    assert texts(validate_limit_range(limits)) == [
        ("spec.limits[0].min[cpu]", "Invalid value: 2: min value 2 is greater than max value 1"),
        ("spec.limits[1].default", "Forbidden: may not be specified when `type` is 'Pod'"),
        ("spec.limits[2].type", 'Duplicate value: "Container"'),
    ]


def test_resource_quota():
    quota = {
        "spec": {"hard": {"pods": "1.5", "bogus": "1", "requests.cpu": "-1"}, "scopes": ["BestEffort", "NotBestEffort"]}
    }
    assert texts(validate_resource_quota(quota)) == [
        ("spec.hard[pods]", "Invalid value: 1500m: must be an integer"),
        ("spec.hard[bogus]", 'Invalid value: "bogus": must be a standard resource type or fully qualified'),
        ("spec.hard[bogus]", 'Invalid value: "bogus": must be a standard resource for quota'),
        ("spec.hard[requests.cpu]", 'Invalid value: "-1": must be greater than or equal to 0'),
        # BestEffort quotas count pods only
        (
            "spec.scopes",
            'Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: '
            "unsupported scope applied to resource",
        ),
        ("spec.scopes", 'Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: conflicting scopes'),
    ]
    assert texts(validate_resource_quota_update({"spec": {"scopes": ["BestEffort"]}}, {"spec": {}})) == [
        ("spec.scopes", 'Invalid value: []core.ResourceQuotaScope{"BestEffort"}: field is immutable')
    ]


def test_resource_quota_scope_selector():
    """validateScopedResourceSelectorRequirement: known scopes, each applicable to the hard limits, the operators
    each scope and value list allows, no conflicting pair."""

    def selector(*exprs: dict, hard: dict | None = None) -> dict:
        return {"spec": {"hard": hard or {"pods": "1"}, "scopeSelector": {"matchExpressions": list(exprs)}}}

    assert validate_resource_quota(selector({"scopeName": "PriorityClass", "operator": "In", "values": ["hi"]})) == []
    assert texts(validate_resource_quota(selector({"scopeName": "PriorityClass", "operator": "In"}))) == [
        (
            "spec.scopeSelector.matchExpressions.values",
            "Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
        )
    ]
    assert texts(validate_resource_quota(selector({"scopeName": "Nope", "operator": "Exists", "values": ["x"]}))) == [
        ("spec.scopeSelector.matchExpressions.scopeName", 'Invalid value: "Nope": unsupported scope'),
        (
            "spec.scopeSelector.matchExpressions.values",
            "Invalid value: []string{\"x\"}: must be no value when `operator` is 'Exist' or 'DoesNotExist' "
            "for scope selector",
        ),
    ]
    got = texts(
        validate_resource_quota(
            selector(
                {"scopeName": "BestEffort", "operator": "In", "values": ["a"]},
                {"scopeName": "NotBestEffort", "operator": "Exists"},
                hard={"requests.memory": "1Gi"},
            )
        )
    )
    shown = (
        "core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement{"
        'core.ScopedResourceSelectorRequirement{ScopeName:"BestEffort", Operator:"In", Values:[]string{"a"}}, '
        'core.ScopedResourceSelectorRequirement{ScopeName:"NotBestEffort", Operator:"Exists", Values:[]string(nil)}}}'
    )
    assert got == [
        ("spec.scopeSelector.matchExpressions", f"Invalid value: {shown}: unsupported scope applied to resource"),
        (
            "spec.scopeSelector.matchExpressions.operator",
            "Invalid value: \"In\": must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, "
            "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or "
            "ResourceQuotaScopeCrossNamespacePodAffinity",
        ),
        ("spec.scopeSelector.matchExpressions", "Invalid value: []core.ResourceQuotaScope(nil): conflicting scopes"),
    ]
    assert texts(validate_resource_quota(selector({"scopeName": "PriorityClass", "operator": "Bad"}))) == [
        ("spec.scopeSelector.matchExpressions.operator", 'Invalid value: "Bad": not a valid selector operator')
    ]
