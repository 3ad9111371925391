"""The field manager against structured-merge-diff's and kube-apiserver's behaviour: FieldsV1 encoding
of field sets, golden managedFields as kube-apiserver 1.33 writes them, and server-side apply
(ownership, conflicts, pruning)."""

from __future__ import annotations

import copy
import re
from typing import Any

import orjson
import pytest

from kube_apiserver.apis.scheme import build_scheme
from kube_apiserver.registry import fieldmanager
from kube_apiserver.registry.fieldmanager import fieldpath as fp
from kube_apiserver.registry.fieldmanager import merge, typed
from kube_apiserver.registry.fieldmanager.hook import ignore_managed_fields_timestamps
from kube_apiserver.registry.fieldmanager.typeconv import atom_for_kind
from kube_apiserver.registry.fieldmanager.zero import zero_object
from kube_apiserver.runtime import errors

SCHEME = build_scheme()
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def entries(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """managedFields without their times (checked apart: they are now)."""
    out = []
    for e in obj["metadata"].get("managedFields") or []:
        if "time" in e:
            assert RFC3339.match(e["time"]), e["time"]
        out.append({k: v for k, v in e.items() if k != "time"})
    return out


# --- field sets and their FieldsV1 form -----------------------------------------------------------


def test_fields_v1_orders_members_first_then_fields_keys_values_indexes():
    s = fp.from_paths(
        [
            ("f:spec", "f:ports", fp.key_pe([("protocol", "TCP"), ("port", 80)]), "f:port"),
            ("f:spec", "f:ports", fp.key_pe([("protocol", "TCP"), ("port", 80)])),
            ("f:spec", "f:ports", fp.key_pe([("protocol", "TCP"), ("port", 443)])),
            ("f:metadata", "f:finalizers", fp.value_pe("b")),
            ("f:metadata", "f:finalizers", fp.value_pe("a")),
            ("f:metadata", "f:finalizers"),
            ("f:z", "i:1"),
            ("f:z", "v:2"),
            ("f:z", 'k:{"a":1}'),
            ("f:z", "f:b"),
        ]
    )
    wire = orjson.dumps(fp.to_fields_v1(s)).decode()
    assert wire == (
        '{"f:metadata":{"f:finalizers":{".":{},"v:\\"a\\"":{},"v:\\"b\\"":{}}},'
        '"f:spec":{"f:ports":{"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:port":{}},'
        '"k:{\\"port\\":443,\\"protocol\\":\\"TCP\\"}":{}}},'
        '"f:z":{"f:b":{},"k:{\\"a\\":1}":{},"v:2":{},"i:1":{}}}'
    )
    assert fp.from_fields_v1(orjson.loads(wire)) == s


def test_fields_v1_decoding_refuses_what_kube_refuses():
    for bad in ({"x:a": {}}, {"k:[1]": {}}, {"v:{": {}}, {"f:a": []}, {"f:a": {".": {"f:b": {}}}}):
        with pytest.raises(fp.FieldsV1Error):
            fp.from_fields_v1(bad)


def test_path_strings_as_conflicts_print_them():
    path = ("f:spec", "f:template", "f:spec", "f:containers", fp.key_pe([("name", "nginx")]), "f:image")
    assert fp.path_string(path) == '.spec.template.spec.containers[name="nginx"].image'
    assert (
        fp.path_string(("f:ports", fp.key_pe([("protocol", "TCP"), ("port", 80)]))) == '.ports[port=80,protocol="TCP"]'
    )
    assert fp.path_string(("f:finalizers", fp.value_pe("x"))) == '.finalizers[="x"]'


def test_set_algebra_follows_fieldpath():
    parent = fp.from_paths([("f:a",)])
    child = fp.from_paths([("f:a", "f:b")])
    both = fp.union(parent, child)
    assert both == {"f:a": {".": {}, "f:b": {}}}
    assert fp.difference(both, child) == {"f:a": {}}  # parent - child = parent
    assert fp.difference(child, parent) == child  # child - parent = child (only members are removed)
    assert fp.recursive_difference(both, parent) == {}  # the member and everything below it
    assert fp.intersection(both, child) == child
    assert fp.intersection(parent, child) == {}
    assert fp.has(both, ("f:a", "f:b")) and fp.has(both, ("f:a",)) and not fp.has(child, ("f:a",))
    assert fp.iterate(fp.from_paths([("f:b", "f:c"), ("f:a",), ("f:b",)])) == [("f:a",), ("f:b",), ("f:b", "f:c")]


_POD_BEFORE = {
    "metadata": {"name": "p", "labels": {"a": "b", "gone": "x"}, "creationTimestamp": None},
    "spec": {
        "containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80}]}, {"name": "old", "image": "o"}],
        "nodeSelector": {"k": "v"},
        "priority": 1,
        "hostNetwork": False,
        "affinity": {},
    },
    "status": {"phase": "Pending"},
}


@pytest.mark.parametrize(
    "after",
    [
        _POD_BEFORE,
        {},
        {"metadata": {"name": "p", "labels": {"a": "c", "new": "y"}, "creationTimestamp": "2026-01-01T00:00:00Z"}},
        {  # list-map items changed, added and removed; an atomic map changed; 1 → 1.0 and False → 0
            "metadata": {"name": "p", "labels": {"a": "b", "gone": "x"}},
            "spec": {
                "containers": [
                    {"name": "c", "image": "j", "ports": [{"containerPort": 80}, {"containerPort": 81}]},
                    {"name": "added", "image": "a"},
                ],
                "nodeSelector": {"k": "w"},
                "priority": 1.0,
                "hostNetwork": 0,
                "affinity": {"nodeAffinity": {}},
            },
        },
        {"spec": {"containers": "not a list", "nodeSelector": None, "extra": {"x": [1, 2]}}, "status": []},
    ],
)
def test_changed_fields_is_the_union_of_what_compare_adds_and_modifies(after: dict[str, Any]) -> None:
    # the create path's one-walk shortcut must own exactly what the general comparison gives
    atom = atom_for_kind("", "v1", "Pod")
    assert atom is not None
    for before in (_POD_BEFORE, zero_object("v1", "Pod"), typed.MISSING):
        cmp = merge.compare(before, after, atom)
        assert merge.changed_fields(before, after, atom) == fp.union(cmp.modified, cmp.added)


def test_field_set_of_a_pod_spec_uses_the_schema_list_and_map_types():
    atom = atom_for_kind("", "v1", "Pod")
    assert atom is not None
    pod = {
        "metadata": {"labels": {"a": "b"}, "finalizers": ["x"]},
        "spec": {
            "containers": [{"name": "c", "args": ["1", "2"], "ports": [{"containerPort": 80}]}],
            "nodeSelector": {"k": "v"},
            "affinity": {"nodeAffinity": {}},
        },
    }
    # nodeSelector is an atomic map (a leaf); an empty struct sets nothing
    assert fp.to_fields_v1(typed.to_field_set(pod, atom)) == {
        "f:metadata": {"f:finalizers": {'v:"x"': {}}, "f:labels": {"f:a": {}}},
        "f:spec": {
            "f:containers": {
                'k:{"name":"c"}': {
                    ".": {},
                    "f:args": {},  # an atomic list is a leaf: no i: elements
                    "f:name": {},
                    # the key field's schema default (protocol "TCP") completes the item's key
                    "f:ports": {'k:{"containerPort":80,"protocol":"TCP"}': {".": {}, "f:containerPort": {}}},
                },
            },
            "f:nodeSelector": {},
        },
    }


def test_the_empty_object_is_the_go_zero_value():
    assert zero_object("apps/v1", "Deployment") == {
        "metadata": {"creationTimestamp": None},
        "spec": {
            "selector": None,
            "template": {"metadata": {"creationTimestamp": None}, "spec": {"containers": None}},
            "strategy": {},
        },
        "status": {},
    }
    assert zero_object("v1", "ConfigMap") == {"metadata": {"creationTimestamp": None}}


def test_invalid_configurations_are_reported_as_structured_merge_diff_does():
    atom = atom_for_kind("apps", "v1", "Deployment")
    assert atom is not None
    with pytest.raises(typed.TypedError) as e:
        typed.validate({"spec": {"replicas": "3", "foo": 1}}, atom)
    assert e.value.text() == (
        "errors:\n  .spec.replicas: expected numeric (int or float), got string\n  .spec.foo: field not declared in schema"
    )
    containers = [{"name": "a"}, {"name": "a"}, "x"]
    with pytest.raises(typed.TypedError) as e:
        typed.validate({"spec": {"template": {"spec": {"containers": containers}}}}, atom)
    assert e.value.text() == (
        "errors:\n"
        '  .spec.template.spec.containers: duplicate entries for key [name="a"]\n'
        "  .spec.template.spec.containers: element 2: associative list with keys may not have non-map elements"
    )
    # a key field without a value nor a schema default
    with pytest.raises(typed.TypedError) as e:
        typed.validate({"spec": {"template": {"spec": {"imagePullSecrets": [{}]}}}}, atom)
    assert e.value.text() == (
        ".spec.template.spec.imagePullSecrets: element 0: associative list with keys has an element "
        'that omits key field "name" (and doesn\'t have default value)'
    )


# --- managedFields on writes (golden, as kube-apiserver 1.33 writes them) ----------------------------


def kubectl_create_deployment() -> dict[str, Any]:
    """What `kubectl create deployment web --image=nginx` sends, decoded and defaulted."""
    dep = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx", "resources": {}}]},
            },
            "strategy": {},
        },
        "status": {},
    }
    SCHEME.default(dep)
    return dep


KUBECTL_CREATE_FIELDS = {
    "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
    "f:spec": {
        "f:progressDeadlineSeconds": {},
        "f:replicas": {},
        "f:revisionHistoryLimit": {},
        "f:selector": {},
        "f:strategy": {"f:rollingUpdate": {".": {}, "f:maxSurge": {}, "f:maxUnavailable": {}}, "f:type": {}},
        "f:template": {
            "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {
                "f:containers": {
                    'k:{"name":"nginx"}': {
                        ".": {},
                        "f:image": {},
                        "f:imagePullPolicy": {},
                        "f:name": {},
                        "f:resources": {},
                        "f:terminationMessagePath": {},
                        "f:terminationMessagePolicy": {},
                    }
                },
                "f:dnsPolicy": {},
                "f:restartPolicy": {},
                "f:schedulerName": {},
                "f:securityContext": {},
                "f:terminationGracePeriodSeconds": {},
            },
        },
    },
}


def stored(obj: dict[str, Any]) -> dict[str, Any]:
    """The object as the Store keeps it after a create."""
    out = copy.deepcopy(obj)
    out["metadata"].update(uid="0b5f7d3e-0000-4000-8000-000000000001", resourceVersion="10")
    out["metadata"]["creationTimestamp"] = "2025-01-01T00:00:00Z"
    return out


def scale_of(dep: dict[str, Any], manager: str, replicas: int) -> dict[str, Any]:
    """The scale subresource's update: the Scale's field manager through the ScaleHandler."""
    out = copy.deepcopy(dep)
    handler = fieldmanager.ScaleHandler(out["metadata"].get("managedFields"), "apps/v1")
    current = {
        "apiVersion": "autoscaling/v1",
        "kind": "Scale",
        "metadata": {"name": "web", "namespace": "default", "uid": out["metadata"]["uid"], "resourceVersion": "10"},
        "spec": {"replicas": out["spec"]["replicas"]},
        "status": {"replicas": 0},
    }
    current["metadata"]["managedFields"] = handler.to_subresource()
    new = copy.deepcopy(current)
    new["spec"]["replicas"] = replicas
    new = fieldmanager.field_manager_for("autoscaling/v1", "Scale", "scale").update(current, new, manager)
    out["spec"]["replicas"] = replicas
    out["metadata"]["managedFields"] = handler.to_parent(new["metadata"].get("managedFields"))
    return out


def test_golden_deployment_created_by_kubectl_then_labelled_and_scaled():
    fm = fieldmanager.field_manager_for("apps/v1", "Deployment", has_status=True)
    dep = fm.update(None, kubectl_create_deployment(), "kubectl-create")
    assert entries(dep) == [
        {
            "manager": "kubectl-create",
            "operation": "Update",
            "apiVersion": "apps/v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": KUBECTL_CREATE_FIELDS,
        }
    ]
    assert list(dep["metadata"]["managedFields"][0]) == [
        "manager",
        "operation",
        "apiVersion",
        "time",
        "fieldsType",
        "fieldsV1",
    ]
    live = stored(dep)

    labelled = copy.deepcopy(live)
    labelled["metadata"]["labels"]["tier"] = "web"
    labelled = fm.update(live, labelled, "kubectl-label")
    assert entries(labelled)[1] == {
        "manager": "kubectl-label",
        "operation": "Update",
        "apiVersion": "apps/v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:metadata": {"f:labels": {"f:tier": {}}}},
    }

    scaled = scale_of(labelled, "kubectl-scale", 3)
    create_fields = copy.deepcopy(KUBECTL_CREATE_FIELDS)
    del create_fields["f:spec"]["f:replicas"]  # the scale took replicas away from kubectl-create
    # ToParent gives the new entry the parent's time for its manager: none, as upstream writes it
    # (and then it sorts first, with time 0).
    assert entries(scaled) == [
        {
            "manager": "kubectl-scale",
            "operation": "Update",
            "apiVersion": "apps/v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": {"f:replicas": {}}},
            "subresource": "scale",
        },
        {
            "manager": "kubectl-create",
            "operation": "Update",
            "apiVersion": "apps/v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": create_fields,
        },
        entries(labelled)[1],
    ]
    assert "time" not in scaled["metadata"]["managedFields"][0]


def test_a_configmap_created_then_labelled():
    fm = fieldmanager.field_manager_for("v1", "ConfigMap")
    cm = fm.update(None, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}}, "")
    assert entries(cm) == [
        {
            "manager": "unknown",  # neither a fieldManager nor a user agent
            "operation": "Update",
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {".": {}, "f:a": {}}},
        }
    ]


@pytest.mark.parametrize(
    ("api_version", "kind", "obj"),
    [
        ("apps/v1", "Deployment", None),
        ("v1", "ConfigMap", {"metadata": {"name": "c", "labels": {"a": "b"}}, "data": {"k": "v"}, "immutable": True}),
        (
            "v1",
            "Pod",
            {
                "metadata": {"name": "p"},
                "spec": {"containers": [{"name": "c", "image": "i"}]},
                "status": {"phase": "Pending"},
            },
        ),
        (
            "v1",
            "Service",
            {"metadata": {"name": "s"}, "spec": {"ports": [{"port": 80, "protocol": "TCP"}], "selector": {}}},
        ),
        ("v1", "Secret", {"metadata": {"name": "s", "uid": "u", "creationTimestamp": "2026-01-01T00:00:00Z"}}),
    ],
)
def test_a_create_owns_what_the_general_update_against_the_empty_object_gives(
    api_version: str, kind: str, obj: dict[str, Any] | None
) -> None:
    # update(None, ...) takes a shortcut for creates; the general path, from the kind's empty object, must agree
    fm = fieldmanager.field_manager_for(api_version, kind, has_status=kind != "ConfigMap")
    new = kubectl_create_deployment() if obj is None else {"apiVersion": api_version, "kind": kind, **obj}
    created = fm.update(None, copy.deepcopy(new), "m")
    general = fm.update(fm.zero(), copy.deepcopy(new), "m")
    assert entries(created) == entries(general)
    for obj_ in (created, general):
        obj_["metadata"].pop("managedFields", None)
    assert created == general


def test_an_update_takes_fields_from_others_and_merges_with_its_earlier_entry():
    fm = fieldmanager.field_manager_for("v1", "ConfigMap")
    cm = stored(
        fm.update(
            None,
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1", "b": "2"}},
            "one",
        )
    )
    new = copy.deepcopy(cm)
    new["data"]["a"] = "changed"
    cm2 = stored(fm.update(cm, new, "two"))
    new = copy.deepcopy(cm2)
    new["data"]["c"] = "3"
    del new["data"]["b"]
    cm3 = fm.update(cm2, new, "two")
    assert [(e["manager"], e["fieldsV1"]) for e in entries(cm3)] == [
        ("one", {"f:data": {}}),  # lost a (changed) and b (removed); keeps the map it created
        ("two", {"f:data": {"f:a": {}, "f:c": {}}}),  # one entry per manager, operation, version
    ]


def test_managed_fields_reset_and_invalid_ones_ignored():
    fm = fieldmanager.field_manager_for("v1", "ConfigMap")
    cm = stored(
        fm.update(None, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}}, "one")
    )
    for bogus in ([{"manager": "x", "operation": "Replace", "apiVersion": "v1", "fieldsType": "FieldsV1"}], "nope"):
        new = copy.deepcopy(cm)
        new["metadata"]["managedFields"] = bogus
        new["data"]["b"] = "2"
        out = fm.update(cm, new, "two")
        assert [e["manager"] for e in entries(out)] == ["one", "two"]  # the live object's, kept
    for reset in ([], [{}]):
        new = copy.deepcopy(cm)
        new["metadata"]["managedFields"] = reset
        out = fm.update(cm, new, "two")
        assert "managedFields" not in out["metadata"]
        # and the object stays untracked by later updates
        again = copy.deepcopy(stored(out))
        again["data"]["z"] = "1"
        assert "managedFields" not in fm.update(stored(out), again, "three")["metadata"]


def test_status_writes_own_only_status():
    fm_main = fieldmanager.field_manager_for("apps/v1", "Deployment", has_status=True)
    fm_status = fieldmanager.field_manager_for("apps/v1", "Deployment", "status", has_status=True)
    dep = stored(fm_main.update(None, kubectl_create_deployment(), "kubectl-create"))
    new = copy.deepcopy(dep)
    new["status"] = {"replicas": 1, "observedGeneration": 1}
    new["spec"]["replicas"] = 5  # reset by the status strategy: never anyone's
    new["metadata"]["managedFields"] = []  # a subresource ignores the request's managedFields
    out = fm_status.update(dep, new, "kube-controller-manager")
    by_manager = {e["manager"]: e for e in entries(out)}
    assert by_manager["kube-controller-manager"] == {
        "manager": "kube-controller-manager",
        "operation": "Update",
        "apiVersion": "apps/v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:status": {"f:observedGeneration": {}, "f:replicas": {}}},
        "subresource": "status",
    }
    assert by_manager["kubectl-create"]["fieldsV1"] == KUBECTL_CREATE_FIELDS
    # and the main resource does not own status
    new = copy.deepcopy(dep)
    new["status"] = {"replicas": 9}
    assert [e["manager"] for e in entries(fm_main.update(dep, new, "someone"))] == ["kubectl-create"]


def test_update_managers_are_capped_at_ten():
    fm = fieldmanager.field_manager_for("v1", "ConfigMap")
    cm = stored(fm.update(None, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {}}, "m0"))
    for i in range(1, 12):
        new = copy.deepcopy(cm)
        new["data"][f"k{i}"] = "v"
        cm = stored(fm.update(cm, new, f"m{i:02d}"))
        for e in cm["metadata"]["managedFields"]:
            e["time"] = f"2025-01-01T00:00:{i if e['manager'] == f'm{i:02d}' else 0:02d}Z"
    managers = [e["manager"] for e in cm["metadata"]["managedFields"]]
    assert len(managers) == 10 and managers[0] == "ancient-changes"
    # the oldest merged into one bucket: m0 (which made data), m01 and m02
    assert cm["metadata"]["managedFields"][0]["fieldsV1"] == {"f:data": {".": {}, "f:k1": {}, "f:k2": {}}}


def test_a_write_that_changes_only_times_keeps_the_old_ones():
    old = {"metadata": {"name": "a", "managedFields": [{"manager": "m", "time": "2025-01-01T00:00:00Z"}]}, "x": 1}
    new = copy.deepcopy(old)
    new["metadata"]["managedFields"][0]["time"] = "2026-01-01T00:00:00Z"
    ignore_managed_fields_timestamps(new, old)
    assert new == old
    new["x"] = 2
    new["metadata"]["managedFields"][0]["time"] = "2026-01-01T00:00:00Z"
    ignore_managed_fields_timestamps(new, old)
    assert new["metadata"]["managedFields"][0]["time"] == "2026-01-01T00:00:00Z"


# --- server-side apply -------------------------------------------------------------------------------


def deployment_config(*containers: dict[str, Any], replicas: int = 2) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": list(containers)}},
        },
    }


def applied(
    fm: fieldmanager.FieldManager, live: dict[str, Any] | None, config: dict[str, Any], manager: str, force=False
):
    out = fm.apply(live, copy.deepcopy(config), manager, force)
    SCHEME.default(out)
    return stored(out)


def test_apply_creates_owns_what_it_applied_and_prunes_what_it_drops():
    fm = fieldmanager.field_manager_for("apps/v1", "Deployment", has_status=True)
    main, side = {"name": "main", "image": "nginx"}, {"name": "side", "image": "busybox"}
    dep = applied(fm, None, deployment_config(main, side), "kubectl")
    assert entries(dep) == [
        {
            "manager": "kubectl",
            "operation": "Apply",
            "apiVersion": "apps/v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:spec": {
                    "f:replicas": {},
                    "f:selector": {},
                    "f:template": {
                        "f:metadata": {"f:labels": {"f:app": {}}},
                        "f:spec": {
                            "f:containers": {
                                'k:{"name":"main"}': {".": {}, "f:image": {}, "f:name": {}},
                                'k:{"name":"side"}': {".": {}, "f:image": {}, "f:name": {}},
                            }
                        },
                    },
                }
            },
        }
    ]
    # a second manager co-owns a field by applying the same value, and owns one of its own
    other = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"team": "a"}}}
    other["spec"] = {"replicas": 2}
    dep = applied(fm, dep, other, "other")
    assert {e["manager"]: e["fieldsV1"] for e in entries(dep)}["other"] == {
        "f:metadata": {"f:labels": {"f:team": {}}},
        "f:spec": {"f:replicas": {}},
    }
    # re-applying without "side" removes it (its fields were only kubectl's)
    dep = applied(fm, dep, deployment_config(main), "kubectl")
    assert [c["name"] for c in dep["spec"]["template"]["spec"]["containers"]] == ["main"]
    # dropping replicas does not remove it: "other" still owns it
    config = deployment_config(main)
    del config["spec"]["replicas"]
    dep = applied(fm, dep, config, "kubectl")
    assert dep["spec"]["replicas"] == 2
    assert "f:replicas" not in {e["manager"]: e["fieldsV1"] for e in entries(dep)}["kubectl"]["f:spec"]


def test_apply_conflicts_are_kubes_409():
    fm = fieldmanager.field_manager_for("apps/v1", "Deployment", has_status=True)
    main = {"name": "main", "image": "nginx"}
    dep = applied(fm, None, deployment_config(main, replicas=2), "kubectl")
    changed = deployment_config({"name": "main", "image": "nginx:2"}, replicas=3)
    with pytest.raises(errors.StatusError) as e:
        fm.apply(dep, copy.deepcopy(changed), "ci", False)
    err = e.value
    assert err.code == 409 and err.reason == "Conflict"
    assert err.message == (
        'Apply failed with 2 conflicts: conflicts with "kubectl":\n'
        "- .spec.replicas\n"
        '- .spec.template.spec.containers[name="main"].image'
    )
    assert err.status()["details"] == {
        "causes": [
            {"reason": "FieldManagerConflict", "message": 'conflict with "kubectl"', "field": ".spec.replicas"},
            {
                "reason": "FieldManagerConflict",
                "message": 'conflict with "kubectl"',
                "field": '.spec.template.spec.containers[name="main"].image',
            },
        ]
    }
    # an Update manager is named with its version
    cm_fm = fieldmanager.field_manager_for("v1", "ConfigMap")
    cm = stored(
        cm_fm.update(
            None,
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}},
            "kubectl-create",
        )
    )
    with pytest.raises(errors.StatusError) as e:
        cm_fm.apply(
            cm, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "2"}}, "x", False
        )
    assert e.value.message == 'Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.a'
    # force takes the fields over
    dep = applied(fm, dep, changed, "ci", force=True)
    owners = {e["manager"]: e["fieldsV1"] for e in entries(dep)}
    assert "f:replicas" not in owners["kubectl"]["f:spec"] and "f:replicas" in owners["ci"]["f:spec"]


def test_apply_over_untracked_fields_gives_them_to_before_first_apply():
    fm = fieldmanager.field_manager_for("v1", "ConfigMap")
    live = stored({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}})
    out = applied(
        fm, live, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"b": "2"}}, "app"
    )
    assert [(e["manager"], e["operation"], e["fieldsV1"]) for e in entries(out)] == [
        ("app", "Apply", {"f:data": {"f:b": {}}}),
        ("before-first-apply", "Update", {"f:data": {".": {}, "f:a": {}}}),
    ]


def test_apply_refusals():
    fm = fieldmanager.field_manager_for("v1", "ConfigMap")
    base = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "ns"}}
    with pytest.raises(errors.StatusError) as e:
        fm.apply(None, {**base, "kind": "Secret"}, "m", False)
    assert (e.value.code, e.value.message) == (400, "invalid object type: /v1, Kind=Secret")
    with pytest.raises(errors.StatusError) as e:
        fm.apply(None, {**base, "spec": {}}, "m", False)
    assert (e.value.code, e.value.reason, e.value.message) == (
        400,  # a 500 upstream (kubernetes/kubernetes#139253): the applied configuration is the client's error
        "BadRequest",
        "failed to create typed patch object (ns/c; /v1, Kind=ConfigMap): .spec: field not declared in schema",
    )
    with pytest.raises(errors.StatusError) as e:
        fm.apply(None, {**base, "metadata": {"name": "c", "managedFields": []}}, "m", False)
    assert (e.value.code, e.value.message) == (400, "metadata.managedFields must be nil")


def test_kubectl_takes_over_what_its_client_side_apply_set():
    fm = fieldmanager.field_manager_for("v1", "ConfigMap")
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}}
    last = orjson.dumps(config).decode()
    live = {
        **copy.deepcopy(config),
        "metadata": {"name": "c", "annotations": {fieldmanager.manager.LAST_APPLIED: last}},
    }
    live = stored(fm.update(None, live, "kubectl-client-side-apply"))
    new_config = copy.deepcopy(config)
    new_config["data"]["a"] = "2"
    with pytest.raises(errors.StatusError):
        fm.apply(live, copy.deepcopy(new_config), "someone-else", False)
    out = fm.apply(live, copy.deepcopy(new_config), "kubectl", False)  # no conflict for kubectl
    assert out["data"] == {"a": "2"}
    assert orjson.loads(out["metadata"]["annotations"][fieldmanager.manager.LAST_APPLIED]) == new_config


def test_field_manager_names():
    assert fieldmanager.prefix_from_user_agent("kubectl-edit/v1.33.0 (linux/amd64) kubernetes/abc") == "kubectl-edit"
    assert fieldmanager.prefix_from_user_agent("OpenAPI-Generator/33.1.0/python") == "OpenAPI-Generator"
    assert fieldmanager.prefix_from_user_agent("a\tb/1") == "ab"
    assert fieldmanager.prefix_from_user_agent("x" * 200) == "x" * 128
    assert fieldmanager.manager_or_user_agent("mine", "kubectl/v1") == "mine"
    causes = fieldmanager.validate_field_manager("a\tb" + "c" * 130)
    assert [(c.field, c.message) for c in causes] == [
        ("fieldManager", "Too long: may not be more than 128 bytes"),
        ("fieldManager", 'Invalid value: "a\\tb' + "c" * 130 + '": invalid character U+0009 (at position 1)'),
    ]


def test_managers_of_another_version_are_compared_in_theirs():
    v2 = fieldmanager.field_manager_for("autoscaling/v2", "HorizontalPodAutoscaler")
    v1 = fieldmanager.field_manager_for("autoscaling/v1", "HorizontalPodAutoscaler")
    v1.convert = fieldmanager.scheme_convert(SCHEME)
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "h"},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "w"}, "minReplicas": 1, "maxReplicas": 5},
    }
    live_v2 = stored(v2.update(None, hpa, "a"))
    live = SCHEME.convert(copy.deepcopy(live_v2), "v1")
    config = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"}}
    config["spec"] = {"maxReplicas": 7}
    with pytest.raises(errors.StatusError) as e:
        v1.apply(live, config, "b", False)
    assert e.value.message == 'Apply failed with 1 conflict: conflict with "a" using autoscaling/v2: .spec.maxReplicas'


def test_apply_keeps_repeated_live_items_it_does_not_set():
    atom = atom_for_kind("", "v1", "Pod")
    assert atom is not None
    env = [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}, {"name": "B", "value": "3"}]
    live = {"spec": {"containers": [{"name": "c", "env": env}]}}
    config = {"spec": {"containers": [{"name": "c", "env": [{"name": "B", "value": "4"}]}]}}
    merged = merge.merge(live, config, atom)
    assert merged["spec"]["containers"][0]["env"] == [
        {"name": "A", "value": "1"},
        {"name": "A", "value": "2"},
        {"name": "B", "value": "4"},
    ]
    config = {"spec": {"containers": [{"name": "c", "env": [{"name": "A", "value": "9"}]}]}}
    assert merge.merge(live, config, atom)["spec"]["containers"][0]["env"] == [
        {"name": "A", "value": "9"},
        {"name": "B", "value": "3"},
    ]
