"""Helpers for the group validation tests: complete, defaulted objects and error rendering."""

from __future__ import annotations

import copy
from typing import Any

from kube_apiserver.runtime.errors import StatusCause


def errors(causes: list[StatusCause]) -> list[str]:
    """Each cause as kube prints it in an Invalid message: "<field>: <detail>"."""
    return [f"{c.field}: {c.message}" if c.field else c.message for c in causes]


def pod_template(labels: dict[str, str] | None = None, restart: str = "Always") -> dict[str, Any]:
    """A pod template as the defaults leave it."""
    return {
        "metadata": {"labels": dict(labels if labels is not None else {"app": "web"})},
        "spec": {
            "containers": [
                {
                    "name": "web",
                    "image": "nginx:1.25",
                    "imagePullPolicy": "IfNotPresent",
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                    "resources": {},
                }
            ],
            "restartPolicy": restart,
            "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst",
            "securityContext": {},
            "schedulerName": "default-scheduler",
        },
    }


def with_changes(obj: dict[str, Any], **paths: Any) -> dict[str, Any]:
    """A deep copy with dotted paths ("spec__replicas" → spec.replicas) set; None removes the key."""
    out = copy.deepcopy(obj)
    for dotted, value in paths.items():
        keys = dotted.split("__")
        target = out
        for k in keys[:-1]:
            target = target.setdefault(k, {})
        if value is None:
            target.pop(keys[-1], None)
        else:
            target[keys[-1]] = value
    return out
