"""AppArmor on pods as kube-apiserver 1.33 has it: the deprecated container.apparmor.security.beta.kubernetes.io/<c>
annotations and the securityContext.appArmorProfile fields are synced on pod create (both ways), validated
against each other, fixed once the pod exists, and warned of in workload templates."""

from __future__ import annotations

import json

import yaml

KEY = "container.apparmor.security.beta.kubernetes.io/"


def pod(name: str, annotations: dict, containers: list, pod_profile: dict | None = None, os: str = "") -> str:
    spec: dict = {"containers": [{"image": "nginx", **c} for c in containers]}
    if pod_profile:
        spec["securityContext"] = {"appArmorProfile": pod_profile}
    if os:
        spec["os"] = {"name": os}
    doc = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "annotations": annotations}, "spec": spec}
    return yaml.safe_dump(doc)


def test_create_syncs_annotations_and_fields(server, ns):
    res = server.kubectl(
        "-n",
        ns,
        "create",
        "-f",
        "-",
        input=pod(
            "sync",
            {KEY + "a": "runtime/default", KEY + "b": "localhost/prof"},
            [
                {"name": "a"},  # annotation equal to the pod's field: nothing copied, no warning
                {"name": "b"},  # annotation, no field: the field is set, with a warning
                {"name": "c", "securityContext": {"appArmorProfile": {"type": "Unconfined"}}},  # field only
                {"name": "e"},  # nothing of its own: the pod's field becomes its annotation
            ],
            pod_profile={"type": "RuntimeDefault"},
        ),
    )
    assert res.stderr.splitlines() == [
        f'Warning: metadata.annotations[{KEY}b]: deprecated since v1.30; use the "appArmorProfile" field instead',
    ]
    obj = json.loads(server.kubectl("-n", ns, "get", "pod", "sync", "-o", "json").stdout)
    assert obj["metadata"]["annotations"] == {
        KEY + "a": "runtime/default",
        KEY + "b": "localhost/prof",
        KEY + "c": "unconfined",
        KEY + "e": "runtime/default",
    }
    contexts = [c.get("securityContext") for c in obj["spec"]["containers"]]
    assert contexts == [
        None,
        {"appArmorProfile": {"type": "Localhost", "localhostProfile": "prof"}},
        {"appArmorProfile": {"type": "Unconfined"}},
        None,
    ]
    # an annotation no valid field comes from: warned of, not copied
    res = server.kubectl(
        "-n", ns, "create", "-f", "-", input=pod("padded", {KEY + "a": "localhost/ x"}, [{"name": "a"}])
    )
    assert res.stderr.splitlines() == [
        f'Warning: metadata.annotations[{KEY}a]: deprecated since v1.30; use the "appArmorProfile" field instead',
    ]
    obj = json.loads(server.kubectl("-n", ns, "get", "pod", "padded", "-o", "json").stdout)
    assert "securityContext" not in obj["spec"]["containers"][0]


def test_windows_pods_are_not_synced(server, ns):
    server.kubectl(
        "-n",
        ns,
        "create",
        "-f",
        "-",
        input=pod("win", {}, [{"name": "a"}], os="windows"),
    )
    obj = json.loads(server.kubectl("-n", ns, "get", "pod", "win", "-o", "json").stdout)
    assert not obj["metadata"].get("annotations")


def test_annotations_and_fields_are_validated_together(server, ns):
    res = server.kubectl(
        "-n",
        ns,
        "create",
        "-f",
        "-",
        check=False,
        input=pod(
            "bad",
            {KEY + "a": "unconfined", KEY + "b": "localhost/x", KEY + "zz": "bogus"},
            [
                {"name": "a", "securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}}},
                {
                    "name": "b",
                    "securityContext": {"appArmorProfile": {"type": "Localhost", "localhostProfile": "other"}},
                },
            ],
        ),
    )
    assert res.returncode == 1
    assert res.stderr.splitlines() == [
        'The Pod "bad" is invalid: ',
        f'* metadata.annotations[{KEY}zz]: Invalid value: "zz": container not found',
        f'* metadata.annotations[{KEY}zz]: Invalid value: "bogus": invalid AppArmor profile name: "bogus"',
        "* spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match",
        "* spec.containers[1].securityContext.appArmorProfile.localhostProfile: Forbidden: apparmor profile in annotation and field must match",
    ]
    too_long = {"type": "Localhost", "localhostProfile": "p" * 4096}
    r = server.request(
        "POST",
        f"/api/v1/namespaces/{ns}/pods",
        json={
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "long"},
            "spec": {"containers": [{"name": "a", "image": "nginx", "securityContext": {"appArmorProfile": too_long}}]},
        },
    )
    assert r.status_code == 422
    assert r.json()["details"]["causes"] == [
        {
            "reason": "FieldValueTooLong",
            "message": "Too long: may not be more than 4095 bytes",
            "field": "spec.containers[0].securityContext.appArmorProfile.localhostProfile",
        }
    ]


def test_a_pods_apparmor_annotations_are_fixed(server, ns):
    server.kubectl("-n", ns, "create", "-f", "-", input=pod("fixed", {KEY + "a": "runtime/default"}, [{"name": "a"}]))
    res = server.kubectl("-n", ns, "annotate", "pod", "fixed", f"{KEY}a=unconfined", "--overwrite", check=False)
    assert res.stderr.strip() == (
        f'The Pod "fixed" is invalid: metadata.annotations[{KEY}a]: Forbidden: may not remove or update AppArmor annotations'
    )
    res = server.kubectl("-n", ns, "annotate", "pod", "fixed", f"{KEY}a-", check=False)
    assert "may not remove or update AppArmor annotations" in res.stderr
    res = server.kubectl("-n", ns, "annotate", "pod", "fixed", f"{KEY}b=unconfined", check=False)
    assert f"metadata.annotations[{KEY}b]: Forbidden: may not add AppArmor annotations" in res.stderr
    server.kubectl("-n", ns, "annotate", "pod", "fixed", "other=ok")  # other annotations still change


def test_workload_templates_warn_and_must_match(server, ns):
    def deployment(name: str, container: dict) -> str:
        template = {
            "metadata": {"labels": {"app": name}, "annotations": {KEY + "a": "localhost/p"}},
            "spec": {"containers": [{"name": "a", "image": "nginx", **container}]},
        }
        spec = {"selector": {"matchLabels": {"app": name}}, "template": template}
        return yaml.safe_dump({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name}, "spec": spec})

    res = server.kubectl("-n", ns, "create", "-f", "-", input=deployment("tmpl", {}))
    assert res.stderr.splitlines() == [
        f"Warning: spec.template.metadata.annotations[{KEY}a]: deprecated since v1.30; "
        'use the "appArmorProfile" field instead'
    ]
    obj = json.loads(server.kubectl("-n", ns, "get", "deploy", "tmpl", "-o", "json").stdout)
    assert "securityContext" not in obj["spec"]["template"]["spec"]["containers"][0]  # templates are not synced
    profile = {"securityContext": {"appArmorProfile": {"type": "Localhost", "localhostProfile": "q"}}}
    res = server.kubectl("-n", ns, "create", "-f", "-", input=deployment("tmpl2", profile), check=False)
    assert res.stderr.strip() == (
        'The Deployment "tmpl2" is invalid: spec.template.spec.containers[0].securityContext.appArmorProfile'
        ".localhostProfile: Forbidden: apparmor profile in annotation and field must match"
    )
