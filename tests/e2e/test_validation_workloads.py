"""Validation of the workload and other built-in groups as users meet it: kubectl gets kube-apiserver's
422 Invalid with the same message, and objects kubectl makes the usual way are accepted."""

from __future__ import annotations

import json
from typing import Any

import yaml

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx"}]},
        },
    },
}


def _manifest(obj: dict[str, Any], **spec: Any) -> str:
    out = json.loads(json.dumps(obj))
    out["spec"].update(spec)
    return yaml.safe_dump(out)


def _rejected(server, ns: str, verb: str, manifest: str) -> str:
    res = server.kubectl("-n", ns, verb, "-f", "-", input=manifest, check=False)
    assert res.returncode != 0, res.stdout
    return res.stderr


def _post(server, path: str, body: dict[str, Any]) -> dict[str, Any]:
    r = server.request("POST", path, json=body)
    assert r.status_code == 422, r.text
    status = r.json()
    assert status["reason"] == "Invalid" and status["code"] == 422
    return status


def test_deployment_selector_must_match_template(server, ns) -> None:
    manifest = _manifest(DEPLOYMENT, selector={"matchLabels": {"app": "api"}})
    err = _rejected(server, ns, "create", manifest)
    assert 'The Deployment "web" is invalid: spec.template.metadata.labels: Invalid value: ' in err
    assert 'map[string]string{"app":"web"}: `selector` does not match template `labels`' in err
    status = _post(server, f"/apis/apps/v1/namespaces/{ns}/deployments", yaml.safe_load(manifest))
    assert status["message"] == (
        'Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: '
        'map[string]string{"app":"web"}: `selector` does not match template `labels`'
    )
    assert status["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": 'Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
            "field": "spec.template.metadata.labels",
        }
    ]


def test_negative_replicas(server, ns) -> None:
    err = _rejected(server, ns, "create", _manifest(DEPLOYMENT, replicas=-1))
    assert (
        'The Deployment "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0' in err
    )


def test_deployment_selector_is_immutable(server, ns) -> None:
    server.kubectl("-n", ns, "apply", "-f", "-", input=yaml.safe_dump(DEPLOYMENT))
    changed = json.loads(json.dumps(DEPLOYMENT))
    changed["spec"]["selector"]["matchLabels"]["tier"] = "front"
    changed["spec"]["template"]["metadata"]["labels"]["tier"] = "front"
    err = _rejected(server, ns, "apply", yaml.safe_dump(changed))
    assert (
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"front"}, '
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable" in err
    )
    # what may change still does
    server.kubectl("-n", ns, "scale", "deployment", "web", "--replicas=2")


CRONJOB = {
    "apiVersion": "batch/v1",
    "kind": "CronJob",
    "metadata": {"name": "tick"},
    "spec": {
        "schedule": "*/5 * * * *",
        "jobTemplate": {
            "spec": {
                "template": {"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "busybox"}]}}
            }
        },
    },
}


def test_cronjob_bad_schedule(server, ns) -> None:
    err = _rejected(server, ns, "create", _manifest(CRONJOB, schedule="61 * * * *"))
    assert (
        'The CronJob "tick" is invalid: spec.schedule: Invalid value: "61 * * * *": '
        "end of range (61) above maximum (59): 61" in err
    )
    err = _rejected(server, ns, "create", _manifest(CRONJOB, schedule="TZ=UTC 0 * * * *"))
    assert (
        'spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead'
        in err
    )


def test_cronjob_bad_time_zone(server, ns) -> None:
    err = _rejected(server, ns, "create", _manifest(CRONJOB, timeZone="Europe/Pariss"))
    assert (
        'The CronJob "tick" is invalid: spec.timeZone: Invalid value: "Europe/Pariss": unknown time zone Europe/Pariss'
        in err
    )
    server.kubectl("-n", ns, "create", "-f", "-", input=_manifest(CRONJOB, timeZone="Europe/Paris"))


def test_ingress_prefix_path_must_be_absolute(server, ns) -> None:
    ingress = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "web"},
        "spec": {
            "rules": [
                {
                    "host": "example.com",
                    "http": {
                        "paths": [
                            {
                                "path": "api",
                                "pathType": "Prefix",
                                "backend": {"service": {"name": "web", "port": {"number": 80}}},
                            }
                        ]
                    },
                }
            ]
        },
    }
    err = _rejected(server, ns, "create", yaml.safe_dump(ingress))
    assert (
        'The Ingress "web" is invalid: spec.rules[0].http.paths[0].path: Invalid value: "api": must be an absolute path'
        in err
    )


def test_rolebinding_role_ref_cannot_change(server, ns) -> None:
    server.kubectl("-n", ns, "create", "rolebinding", "rb", "--clusterrole=view", "--user=jane")
    binding = yaml.safe_load(server.kubectl("-n", ns, "get", "rolebinding", "rb", "-o", "yaml").stdout)
    binding["roleRef"]["name"] = "edit"
    err = _rejected(server, ns, "replace", yaml.safe_dump(binding))
    assert (
        'The RoleBinding "rb" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", '
        'Kind:"ClusterRole", Name:"edit"}: cannot change roleRef' in err
    )


def test_pdb_min_available_and_max_unavailable(server, ns) -> None:
    pdb = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "web"},
        "spec": {"minAvailable": 1, "maxUnavailable": 1, "selector": {"matchLabels": {"app": "web"}}},
    }
    err = _rejected(server, ns, "create", yaml.safe_dump(pdb))
    assert 'The PodDisruptionBudget "web" is invalid: spec: Invalid value: policy.PodDisruptionBudgetSpec{' in err
    assert "minAvailable and maxUnavailable cannot be both set" in err


def test_objects_made_the_usual_way_are_accepted(server, ns) -> None:
    def kc(*args: str, **kw: Any) -> Any:
        return server.kubectl("-n", ns, *args, **kw)

    kc("create", "deployment", "web", "--image=nginx", "--replicas=2")
    kc("create", "job", "once", "--image=busybox", "--", "true")
    kc("create", "cronjob", "tick", "--image=busybox", "--schedule=@hourly", "--", "true")
    kc("create", "ingress", "web", "--rule=example.com/api*=web:80", "--class=nginx")
    kc("create", "poddisruptionbudget", "web", "--selector=app=web", "--min-available=50%")
    kc("create", "role", "reader", "--verb=get,list", "--resource=pods")
    kc("create", "rolebinding", "reader", "--role=reader", "--serviceaccount", f"{ns}:default")
    kc("autoscale", "deployment", "web", "--min=1", "--max=4", "--cpu-percent=70")
    kc("create", "priorityclass", f"high-{ns}", "--value=1000", "--description=test")
    kc("apply", "-f", "-", input=yaml.safe_dump({**DEPLOYMENT, "metadata": {"name": "applied"}}))
    job = yaml.safe_load(kc("get", "job", "once", "-o", "yaml").stdout)
    uid = job["metadata"]["uid"]
    assert job["spec"]["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    kc("label", "job", "once", "team=a")  # an update re-validates the whole job
    server.kubectl("delete", "priorityclass", f"high-{ns}")


VALID_OBJECTS = """
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: busybox}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny}
spec:
  podSelector: {}
  policyTypes: [Ingress, Egress]
  ingress:
  - from: [{ipBlock: {cidr: 10.0.0.0/8, except: [10.1.0.0/16]}}, {namespaceSelector: {matchLabels: {team: a}}}]
    ports: [{port: 8080, endPort: 8090}, {port: http}]
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: leader}
spec: {holderIdentity: me, leaseDurationSeconds: 15}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-1, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints: [{addresses: [10.0.0.7]}]
ports: [{name: http, port: 80}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 3
  metrics: [{type: Resource, resource: {name: memory, target: {type: AverageValue, averageValue: 500Mi}}}]
  behavior: {scaleDown: {policies: [{type: Pods, value: 1, periodSeconds: 60}]}}
"""

CLUSTER_OBJECTS = """
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast-%(suffix)s}
provisioner: example.com/fast
parameters: {type: ssd}
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: kata-%(suffix)s}
handler: kata
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx-%(suffix)s}
spec: {controller: k8s.io/ingress-nginx}
"""


def test_valid_objects_of_other_groups_are_accepted(server, ns) -> None:
    server.kubectl("-n", ns, "apply", "-f", "-", input=VALID_OBJECTS)
    cluster = CLUSTER_OBJECTS % {"suffix": ns}
    server.kubectl("apply", "-f", "-", input=cluster)
    # an update of a StorageClass may not touch its parameters
    changed = cluster.replace("type: ssd", "type: hdd")
    res = server.kubectl("apply", "-f", "-", input=changed, check=False)
    assert res.returncode != 0
    assert (
        f'The StorageClass "fast-{ns}" is invalid: parameters: Forbidden: updates to parameters are forbidden.'
        in res.stderr
    )
    server.kubectl("delete", "-f", "-", input=cluster)
