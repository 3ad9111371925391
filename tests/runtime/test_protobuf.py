"""Decoding application/vnd.kubernetes.protobuf bodies into the dicts their JSON form gives.

The bodies here are built by a small hand encoder with the upstream field numbers written out, so
they check the generated schema tables independently; test_protobuf_golden.py checks real bodies
captured from kubectl against kubectl's own JSON for the same objects.
"""

from __future__ import annotations

import struct
import timeit

import pytest

from kube_apiserver.runtime.protobuf import MAGIC, ProtobufDecodeError, decode_message, decode_protobuf, peek_type_meta
from kube_apiserver.runtime.protobuf.decode import go_duration
from kube_apiserver.runtime.protobuf.encode import ProtobufEncodeError, encode_message, encode_protobuf

# --- encode_for_tests: the protobuf wire format by hand ---


def varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def tag(num: int, wt: int) -> bytes:
    return varint(num << 3 | wt)


def vi(num: int, v: int | bool) -> bytes:
    """A varint field (int32/int64/bool); negative ints as 10-byte two's complement, as Go writes them."""
    return tag(num, 0) + varint(int(v))


def ld(num: int, v: bytes | str) -> bytes:
    """A length-delimited field (string, bytes)."""
    b = v.encode() if isinstance(v, str) else v
    return tag(num, 2) + varint(len(b)) + b


def msg(num: int, *parts: bytes) -> bytes:
    return ld(num, b"".join(parts))


def f64(num: int, v: float) -> bytes:
    return tag(num, 1) + struct.pack("<d", v)


def entry(num: int, key: str, value: bytes | str) -> bytes:
    """A map entry (key = 1, value = 2), value given as a string/bytes."""
    return msg(num, ld(1, key), ld(2, value))


def entry_msg(num: int, key: str, *value: bytes) -> bytes:
    return msg(num, ld(1, key), msg(2, *value))


def quantity(num: int, s: str) -> bytes:
    return msg(num, ld(1, s))


def int_or_string(num: int, v: int | str) -> bytes:
    if isinstance(v, int):
        return msg(num, vi(1, 0), vi(2, v), ld(3, ""))
    return msg(num, vi(1, 1), vi(2, 0), ld(3, v))


def encode_for_tests(api_version: str, kind: str, *fields: bytes) -> bytes:
    """magic + runtime.Unknown{typeMeta{apiVersion, kind}, raw, contentEncoding, contentType}."""
    return MAGIC + msg(1, ld(1, api_version), ld(2, kind)) + msg(2, *fields) + ld(3, "") + ld(4, "")


def meta(name: str = "", namespace: str = "", **extra: bytes) -> bytes:
    """ObjectMeta: name 1, generateName 2, namespace 3, ..., labels 11, annotations 12."""
    parts = [ld(1, name)] if name else []
    if namespace:
        parts.append(ld(3, namespace))
    parts.extend(extra.values())
    return msg(1, *parts)


# --- the kinds kubectl's typed commands send ---


def test_configmap_data_and_binary_data():
    body = encode_for_tests(
        "v1",
        "ConfigMap",
        meta("cm", "default", labels=entry(11, "app", "web")),
        entry(2, "a", "b"),
        entry(2, "greeting", "hello"),
        entry(3, "blob", b"\x00\x01\xff"),
        vi(4, False),  # immutable: *bool, present on the wire -> kept even though false
    )
    assert decode_protobuf(body) == {
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "metadata": {"name": "cm", "namespace": "default", "labels": {"app": "web"}},
        "immutable": False,
        "data": {"a": "b", "greeting": "hello"},
        "binaryData": {"blob": "AAH/"},
    }


def test_secret_bytes_are_base64():
    body = encode_for_tests(
        "v1",
        "Secret",
        meta("s"),
        entry(2, "password", b"s3cr3t\xff"),
        ld(3, "Opaque"),
        entry(4, "plain", "text"),
    )
    out = decode_protobuf(body)
    assert out["data"] == {"password": "czNjcjN0/w=="}
    assert out["stringData"] == {"plain": "text"}
    assert out["type"] == "Opaque"
    assert list(out) == ["kind", "apiVersion", "metadata", "data", "stringData", "type"]  # Go struct order


def _pod_spec(*containers: bytes, extra: bytes = b"") -> bytes:
    return msg(2, *containers, ld(3, "Always"), vi(4, 30), extra)


def _container(name: str, image: str, *parts: bytes) -> bytes:
    return msg(2, ld(1, name), ld(2, image), *parts)


def test_deployment_with_pod_template():
    container = _container(
        "web",
        "nginx:1.25",
        ld(3, "nginx"),
        ld(3, "-g"),  # command
        msg(6, ld(1, "http"), vi(2, 0), vi(3, 8080), ld(4, "TCP"), ld(5, "")),  # ports
        msg(7, ld(1, "MODE"), ld(2, "prod")),  # env
        msg(8, entry_msg(1, "cpu", ld(1, "500m")), entry_msg(2, "memory", ld(1, "64Mi"))),  # resources
        msg(10, msg(1, msg(2, ld(1, "/healthz"), int_or_string(2, "http"))), vi(2, 5)),  # livenessProbe.httpGet
    )
    body = encode_for_tests(
        "apps/v1",
        "Deployment",
        meta("web", "default", labels=entry(11, "app", "web")),
        msg(
            2,
            vi(1, 3),  # replicas
            msg(2, entry(1, "app", "web")),  # selector.matchLabels
            msg(3, msg(1, entry(11, "app", "web")), _pod_spec(container)),  # template
            msg(4, ld(1, "RollingUpdate"), msg(2, int_or_string(1, 0), int_or_string(2, "25%"))),  # strategy
            vi(6, 10),  # revisionHistoryLimit
        ),
        msg(3),  # status: empty
    )
    out = decode_protobuf(body)
    assert out == {
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [
                        {
                            "name": "web",
                            "image": "nginx:1.25",
                            "command": ["nginx", "-g"],
                            "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                            "env": [{"name": "MODE", "value": "prod"}],
                            "resources": {"limits": {"cpu": "500m"}, "requests": {"memory": "64Mi"}},
                            "livenessProbe": {
                                "httpGet": {"path": "/healthz", "port": "http"},
                                "initialDelaySeconds": 5,
                            },
                        }
                    ],
                    "restartPolicy": "Always",
                    "terminationGracePeriodSeconds": 30,
                },
            },
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": "25%"}},
            "revisionHistoryLimit": 10,
        },
        "status": {},
    }


def test_job():
    body = encode_for_tests(
        "batch/v1",
        "Job",
        meta("pi"),
        msg(
            2,
            vi(1, 1),
            vi(2, 1),  # parallelism, completions
            msg(6, msg(1), _pod_spec(_container("pi", "perl", ld(3, "perl"), ld(4, "-e")))),  # template
            vi(7, 0),  # backoffLimit: *int32 zero kept
            ld(9, "NonIndexed"),  # completionMode
            vi(10, False),  # suspend
        ),
    )
    out = decode_protobuf(body)
    assert out["spec"] == {
        "parallelism": 1,
        "completions": 1,
        "backoffLimit": 0,
        "template": {
            "metadata": {},
            "spec": {
                "containers": [{"name": "pi", "image": "perl", "command": ["perl"], "args": ["-e"], "resources": {}}],
                "restartPolicy": "Always",
                "terminationGracePeriodSeconds": 30,
            },
        },
        "completionMode": "NonIndexed",
        "suspend": False,
    }
    assert "status" in out and out["status"] == {}  # non-pointer struct: emitted as Go does


def test_service_target_ports_int_and_string():
    body = encode_for_tests(
        "v1",
        "Service",
        meta("svc"),
        msg(
            2,
            msg(1, ld(1, "http"), ld(2, "TCP"), vi(3, 80), int_or_string(4, 8080), vi(5, 0)),
            msg(1, ld(1, "https"), ld(2, "TCP"), vi(3, 443), int_or_string(4, "https"), vi(5, 30443)),
            entry(2, "app", "web"),
            ld(3, ""),  # clusterIP: "" with omitempty -> left out
            ld(4, "NodePort"),
        ),
        msg(3, msg(1)),
    )
    out = decode_protobuf(body)
    assert out["spec"] == {
        "ports": [
            {"name": "http", "protocol": "TCP", "port": 80, "targetPort": 8080},
            {"name": "https", "protocol": "TCP", "port": 443, "targetPort": "https", "nodePort": 30443},
        ],
        "selector": {"app": "web"},
        "type": "NodePort",
    }
    assert out["status"] == {"loadBalancer": {}}


def test_cluster_role():
    body = encode_for_tests(
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
        meta("reader"),
        msg(2, ld(1, "get"), ld(1, "list"), ld(2, ""), ld(3, "pods"), ld(4, "p1")),
        msg(2, ld(1, "get"), ld(5, "/healthz")),
        msg(3, msg(1, entry(1, "rbac.example.com/aggregate", "true"))),
    )
    assert decode_protobuf(body) == {
        "kind": "ClusterRole",
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "metadata": {"name": "reader"},
        "rules": [
            {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["p1"]},
            {"verbs": ["get"], "nonResourceURLs": ["/healthz"]},
        ],
        "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"rbac.example.com/aggregate": "true"}}]},
    }


def test_token_request():
    body = encode_for_tests(
        "authentication.k8s.io/v1",
        "TokenRequest",
        msg(1),
        msg(
            2, ld(1, "api"), ld(1, "vault"), msg(3, ld(1, "Pod"), ld(2, "v1"), ld(3, "p"), ld(4, "uid-1")), vi(4, 3600)
        ),
        msg(3, ld(1, ""), msg(2)),
    )
    assert decode_protobuf(body) == {
        "kind": "TokenRequest",
        "apiVersion": "authentication.k8s.io/v1",
        "metadata": {},
        "spec": {
            "audiences": ["api", "vault"],
            "expirationSeconds": 3600,
            "boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "p", "uid": "uid-1"},
        },
        "status": {"token": ""},  # token has no omitempty; the zero expirationTimestamp (null) is left out
    }


def test_self_subject_access_review():
    body = encode_for_tests(
        "authorization.k8s.io/v1",
        "SelfSubjectAccessReview",
        msg(1),
        msg(2, msg(1, ld(1, "default"), ld(2, "get"), ld(3, "apps"), ld(4, ""), ld(5, "deployments"), ld(6, "scale"))),
        msg(3, vi(1, False), vi(4, False), ld(2, ""), ld(3, "")),
    )
    assert decode_protobuf(body) == {
        "kind": "SelfSubjectAccessReview",
        "apiVersion": "authorization.k8s.io/v1",
        "metadata": {},
        "spec": {
            "resourceAttributes": {
                "namespace": "default",
                "verb": "get",
                "group": "apps",
                "resource": "deployments",
                "subresource": "scale",
            }
        },
        "status": {"allowed": False},  # allowed has no omitempty, denied has
    }


def test_subject_access_review_extra_is_a_map_of_lists():
    body = encode_for_tests(
        "authorization.k8s.io/v1",
        "SubjectAccessReview",
        msg(1),
        msg(
            2,
            msg(2, ld(1, "/api"), ld(2, "get")),
            ld(3, "alice"),
            ld(4, "devs"),
            entry_msg(5, "scopes", ld(1, "a"), ld(1, "b")),
            ld(6, "u-1"),
        ),
    )
    out = decode_protobuf(body)
    assert out["spec"] == {
        "nonResourceAttributes": {"path": "/api", "verb": "get"},
        "user": "alice",
        "groups": ["devs"],
        "extra": {"scopes": ["a", "b"]},
        "uid": "u-1",
    }


def test_self_subject_review_and_eviction_and_delete_options():
    ssr = decode_protobuf(encode_for_tests("authentication.k8s.io/v1", "SelfSubjectReview", msg(1), msg(2, msg(1))))
    assert ssr == {
        "kind": "SelfSubjectReview",
        "apiVersion": "authentication.k8s.io/v1",
        "metadata": {},
        "status": {"userInfo": {}},
    }
    eviction = encode_for_tests(
        "policy/v1",
        "Eviction",
        meta("p1", "default"),
        msg(2, vi(1, 0), msg(2, ld(1, "uid-1"), ld(2, "42")), ld(4, "Foreground"), ld(5, "All")),
    )
    assert decode_protobuf(eviction) == {
        "kind": "Eviction",
        "apiVersion": "policy/v1",
        "metadata": {"name": "p1", "namespace": "default"},
        "deleteOptions": {
            "gracePeriodSeconds": 0,
            "preconditions": {"uid": "uid-1", "resourceVersion": "42"},
            "propagationPolicy": "Foreground",
            "dryRun": ["All"],
        },
    }
    # DeleteOptions as registered in every group version resolve to meta/v1
    for gv in ("v1", "apps/v1", "meta.k8s.io/v1"):
        out = decode_protobuf(encode_for_tests(gv, "DeleteOptions", vi(1, 5), vi(3, True)))
        assert out == {"kind": "DeleteOptions", "apiVersion": gv, "gracePeriodSeconds": 5, "orphanDependents": True}


# --- Kubernetes-specific JSON forms ---


def test_times_managed_fields_and_owner_references():
    # 2024-01-02T03:04:05Z = 1704164645
    body = encode_for_tests(
        "v1",
        "ConfigMap",
        msg(
            1,
            ld(1, "cm"),
            vi(7, 3),  # generation
            msg(8, vi(1, 1704164645), vi(2, 999_000_000)),  # creationTimestamp: Time drops nanos
            msg(9, vi(1, 0)),  # deletionTimestamp: the epoch
            vi(10, 0),  # deletionGracePeriodSeconds *int64 zero kept
            msg(13, ld(5, "apps/v1"), ld(1, "ReplicaSet"), ld(3, "rs"), ld(4, "u"), vi(6, True), vi(7, False)),
            msg(
                17,
                ld(1, "kubectl"),
                ld(2, "Update"),
                ld(3, "v1"),
                msg(4, vi(1, 1704164645)),
                ld(6, "FieldsV1"),
                msg(7, ld(1, b'{"f:data":{".":{},"f:a":{}}}')),
                ld(8, ""),
            ),
        ),
    )
    m = decode_protobuf(body)["metadata"]
    assert m == {
        "name": "cm",
        "generation": 3,
        "creationTimestamp": "2024-01-02T03:04:05Z",
        "deletionTimestamp": "1970-01-01T00:00:00Z",
        "deletionGracePeriodSeconds": 0,
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": "rs",
                "uid": "u",
                "controller": True,
                "blockOwnerDeletion": False,
            }
        ],
        "managedFields": [
            {
                "manager": "kubectl",
                "operation": "Update",
                "apiVersion": "v1",
                "time": "2024-01-02T03:04:05Z",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:data": {".": {}, "f:a": {}}},
            }
        ],
    }


def test_micro_time_and_event_series():
    body = encode_for_tests(
        "events.k8s.io/v1",
        "Event",
        meta("e", "default"),
        msg(2, vi(1, 1704164645), vi(2, 123_456_789)),  # eventTime: MicroTime
        msg(3, vi(1, 2), msg(2, vi(1, 1704164645), vi(2, 5_000))),  # series
        ld(4, "kubelet"),
        ld(7, "Pulled"),
        ld(11, "Normal"),
    )
    out = decode_protobuf(body)
    assert out["eventTime"] == "2024-01-02T03:04:05.123456Z"
    assert out["series"] == {"count": 2, "lastObservedTime": "2024-01-02T03:04:05.000005Z"}
    assert out["reportingController"] == "kubelet"
    assert out["reason"] == "Pulled"
    assert out["type"] == "Normal"


def test_raw_extension_holds_json():
    body = encode_for_tests(
        "apps/v1",
        "ControllerRevision",
        meta("rev"),
        msg(2, ld(1, b'{"spec":{"template":{"x":1}}}')),
        vi(3, 7),
    )
    assert decode_protobuf(body) == {
        "kind": "ControllerRevision",
        "apiVersion": "apps/v1",
        "metadata": {"name": "rev"},
        "data": {"spec": {"template": {"x": 1}}},
        "revision": 7,
    }
    with pytest.raises(ProtobufDecodeError, match="RawExtension"):
        decode_protobuf(encode_for_tests("apps/v1", "ControllerRevision", meta("rev"), msg(2, ld(1, b"{not json"))))


def test_negative_ints_doubles_and_duration():
    # ServicePort nodePort negative (an int32 written as a 10-byte varint) and a double
    body = encode_for_tests("v1", "Service", meta("s"), msg(2, msg(1, vi(3, -1), int_or_string(4, -2))))
    assert decode_protobuf(body)["spec"]["ports"] == [{"port": -1, "targetPort": -2}]
    assert go_duration(0) == "0s"
    assert go_duration(1_500_000_000) == "1.5s"
    assert go_duration(3_600_000_000_000) == "1h0m0s"
    assert go_duration(90_000_000_000) == "1m30s"
    assert go_duration(1_500_000) == "1.5ms"
    assert go_duration(-2_000) == "-2µs"


def test_field_order_is_go_struct_order_and_wire_order_does_not_matter():
    body = encode_for_tests("v1", "ConfigMap", entry(3, "b", b"x"), entry(2, "a", "1"), vi(4, True), meta("cm"))
    assert list(decode_protobuf(body)) == ["kind", "apiVersion", "metadata", "immutable", "data", "binaryData"]


def test_unknown_fields_are_skipped_and_repeated_message_fields_merge():
    body = encode_for_tests(
        "v1",
        "ConfigMap",
        msg(1, ld(1, "cm")),
        vi(99, 12345),
        f64(98, 1.5),
        ld(97, "future field"),
        tag(96, 5) + b"\x00\x00\x00\x00",
        msg(1, ld(3, "ns")),  # a second metadata occurrence merges into the first
    )
    assert decode_protobuf(body) == {
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "metadata": {"name": "cm", "namespace": "ns"},
    }


def test_packed_repeated_scalars():
    # TopologySpreadConstraint? simpler: PodFailurePolicyOnExitCodesRequirement.values (repeated int32), packed
    packed = ld(3, varint(1) + varint(2) + varint(130))
    out = decode_message(packed + ld(2, "In"), "k8s.io.api.batch.v1.PodFailurePolicyOnExitCodesRequirement")
    assert out == {"operator": "In", "values": [1, 2, 130]}
    unpacked = vi(3, 1) + vi(3, 2) + ld(2, "In")
    assert decode_message(unpacked, "k8s.io.api.batch.v1.PodFailurePolicyOnExitCodesRequirement")["values"] == [1, 2]


def test_go_zero_values_of_non_pointer_fields():
    # ContainerPort.containerPort has no omitempty: emitted even when absent; hostPort (omitempty) is not
    body = decode_message(ld(1, "p"), "k8s.io.api.core.v1.ContainerPort")
    assert body == {"name": "p", "containerPort": 0}
    # PriorityClass.value (no omitempty) and globalDefault (omitempty)
    pc = decode_protobuf(encode_for_tests("scheduling.k8s.io/v1", "PriorityClass", meta("pc"), vi(2, 0), vi(3, False)))
    assert pc == {"kind": "PriorityClass", "apiVersion": "scheduling.k8s.io/v1", "metadata": {"name": "pc"}, "value": 0}


def test_networking_v1_service_cidr_and_discovery_for_nodes():
    cidr = decode_protobuf(
        encode_for_tests(
            "networking.k8s.io/v1", "ServiceCIDR", meta("c"), msg(2, ld(1, "10.0.0.0/24"), ld(1, "fd00::/108"))
        )
    )
    assert cidr["spec"] == {"cidrs": ["10.0.0.0/24", "fd00::/108"]}
    hints = decode_message(msg(1, ld(1, "zone-a")) + msg(2, ld(1, "node-1")), "k8s.io.api.discovery.v1.EndpointHints")
    assert hints == {"forZones": [{"name": "zone-a"}], "forNodes": [{"name": "node-1"}]}


def test_peek_type_meta():
    assert peek_type_meta(encode_for_tests("apps/v1", "Deployment")) == ("apps/v1", "Deployment")


# --- the encoder (for protobuf responses) ---


def test_encoder_round_trips_kubernetes_json_forms():
    obj = {
        "kind": "Event",
        "apiVersion": "events.k8s.io/v1",
        "metadata": {
            "name": "e",
            "namespace": "default",
            "creationTimestamp": "2024-01-02T03:04:05Z",
            "deletionGracePeriodSeconds": 0,
            "labels": {"b": "2", "a": "1"},
            "managedFields": [
                {
                    "manager": "m",
                    "operation": "Apply",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:metadata": {}},
                    "time": "2024-01-02T03:04:05Z",
                }
            ],
        },
        "eventTime": "2024-01-02T03:04:05.123456Z",
        "series": {"count": 2, "lastObservedTime": "2024-01-02T03:04:05.000005Z"},
        "reportingController": "kubelet",
        "reason": "Pulled",
        "regarding": {"kind": "Pod", "name": "p"},
        "type": "Normal",
        "deprecatedSource": {},
    }
    assert decode_protobuf(encode_protobuf(obj)) == obj | {
        "metadata": obj["metadata"] | {"labels": {"a": "1", "b": "2"}}
    }
    svc = {
        "kind": "Service",
        "apiVersion": "v1",
        "metadata": {"name": "s"},
        "spec": {"ports": [{"port": 80, "targetPort": "http"}, {"port": -1, "targetPort": 8080}]},
        "status": {},
    }
    out = decode_protobuf(encode_protobuf(svc))
    assert out["spec"]["ports"] == [{"port": 80, "targetPort": "http"}, {"port": -1, "targetPort": 8080}]
    assert out["status"] == {"loadBalancer": {}}
    sec = {"kind": "Secret", "apiVersion": "v1", "metadata": {"name": "s"}, "data": {"k": "AAH/"}, "immutable": False}
    assert decode_protobuf(encode_protobuf(sec)) == sec
    extra = {"user": "u", "extra": {"scopes": ["a", "b"]}}
    assert (
        decode_message(
            encode_message(extra, "k8s.io.api.authorization.v1.SubjectAccessReviewSpec"),
            "k8s.io.api.authorization.v1.SubjectAccessReviewSpec",
        )
        == extra
    )
    meta = {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": "v1",
        "resources": [
            {"name": "pods", "singularName": "pod", "namespaced": True, "kind": "Pod", "verbs": ["get", "list"]}
        ],
    }
    assert decode_protobuf(encode_protobuf(meta)) == meta


def test_encoder_errors():
    with pytest.raises(ProtobufEncodeError, match="Widget"):
        encode_protobuf({"apiVersion": "example.com/v1", "kind": "Widget"})
    with pytest.raises(ProtobufEncodeError, match="RFC3339"):
        encode_protobuf({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"creationTimestamp": "yesterday"}})
    with pytest.raises(ProtobufEncodeError, match="must be an object"):
        encode_protobuf({"apiVersion": "v1", "kind": "ConfigMap", "metadata": "x"})


# --- malformed input ---


@pytest.mark.parametrize(
    "body, message",
    [
        (b"", "empty data"),
        (b'{"kind":"ConfigMap"}', r"expected prefix \[107 56 115 0\]"),
        (MAGIC + msg(1, ld(1, "v1"), ld(2, "NoSuchKind")) + msg(2), "NoSuchKind"),
        (MAGIC + msg(1, ld(1, "example.com/v1"), ld(2, "Widget")) + msg(2), "Widget"),
        (MAGIC + msg(2, meta("x")), "apiVersion or kind"),
        (MAGIC + msg(1, ld(1, "v1"), ld(2, "ConfigMap")) + msg(2, meta("x")) + ld(3, "gzip"), "contentEncoding"),
        (encode_for_tests("v1", "ConfigMap", meta("x"))[:-9], "unexpected end"),
        (encode_for_tests("v1", "ConfigMap", vi(1, 5)), "wrong wireType"),
        (encode_for_tests("v1", "ConfigMap", ld(2, b"\x0a\x05ab")), "unexpected end"),
        (encode_for_tests("v1", "ConfigMap", tag(5, 3)), "wire type 3"),
        (encode_for_tests("v1", "ConfigMap", b"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01"), "varint"),
        (encode_for_tests("v1", "ConfigMap", meta("x", creationTimestamp=msg(8, vi(1, 10**15)))), "out of range"),
    ],
)
def test_malformed_bodies(body, message):
    with pytest.raises(ProtobufDecodeError, match=message):
        decode_protobuf(body)
    assert issubclass(ProtobufDecodeError, ValueError)


def test_decoding_a_4k_pod_is_fast():
    containers = [
        _container(
            f"c{i}",
            "registry.example.com/team/app:1.2.3",
            ld(3, "/bin/app"),
            ld(4, "--flag=value"),
            ld(4, "--other=thing"),
            msg(6, ld(1, "http"), vi(3, 8080 + i), ld(4, "TCP")),
            *[msg(7, ld(1, f"ENV_{k}"), ld(2, f"value-{k}")) for k in range(10)],
            msg(
                8,
                entry_msg(1, "cpu", ld(1, "500m")),
                entry_msg(1, "memory", ld(1, "128Mi")),
                entry_msg(2, "cpu", ld(1, "100m")),
                entry_msg(2, "memory", ld(1, "64Mi")),
            ),
            msg(9, ld(1, "data"), ld(3, "/data")),
            msg(10, msg(1, msg(2, ld(1, "/healthz"), int_or_string(2, 8080 + i))), vi(2, 5), vi(4, 10)),
            msg(11, msg(1, msg(3, int_or_string(1, "http"))), vi(4, 5)),
            ld(13, "/dev/termination-log"),
            ld(14, "IfNotPresent"),
        )
        for i in range(7)
    ]
    body = encode_for_tests(
        "v1",
        "Pod",
        meta(
            "pod",
            "default",
            labels=b"".join(entry(11, f"label-{k}", f"value-{k}") for k in range(6)),
            annotations=entry(12, "note", "x" * 300),
        ),
        _pod_spec(*containers, extra=msg(1, ld(1, "data"), msg(2, msg(2, ld(1, "")))) + ld(8, "sa") + ld(10, "node-1")),
    )
    assert 3500 <= len(body) <= 5000, len(body)
    out = decode_protobuf(body)
    assert len(out["spec"]["containers"]) == 7
    assert out["spec"]["volumes"] == [{"name": "data", "emptyDir": {}}]
    n = 50
    per_call = min(timeit.repeat(lambda: decode_protobuf(body), number=n, repeat=7)) / n  # min: robust to load
    assert per_call < 0.001, f"{per_call * 1e6:.0f}µs per 4 KiB pod"
