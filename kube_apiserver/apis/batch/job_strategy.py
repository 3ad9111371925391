"""Job strategy (pkg/registry/batch/job/strategy.go): on create, unless spec.manualSelector, the
selector and the pod template labels are generated from the job's uid and name, so that the job's
pods are its own and no other job's."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.batch.defaults import copy_template_labels
from kube_apiserver.apis.core.defaults.fields import child
from kube_apiserver.registry.strategy import RESTStrategy

LEGACY_JOB_NAME_LABEL = "job-name"
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
LEGACY_CONTROLLER_UID_LABEL = "controller-uid"
CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"


class JobStrategy(RESTStrategy):
    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        spec = child(obj, "spec")
        # manualSelector is defaulted to false before this runs
        if spec is not None and spec.get("manualSelector") is not True:
            generate_selector(obj)
            # kube decodes the stored job with its defaults once more (the create response and every
            # read come from storage), so a job without labels ends up with the generated ones.
            copy_template_labels(obj)


def generate_selector(obj: dict[str, Any]) -> None:
    """Template labels job-name/controller-uid (legacy and batch.kubernetes.io/ forms) and a selector on
    the controller uid. Labels or selector entries the user set are kept: if they conflict,
    validation rejects the job."""
    meta = child(obj, "metadata") or {}
    name = meta.get("name", "")
    uid = meta.get("uid", "")
    spec = child(obj, "spec")
    template_meta = child(child(spec, "template", create=True), "metadata", create=True)
    labels = child(template_meta, "labels", create=True)
    if labels is not None:
        for key in (LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL):
            labels.setdefault(key, name)
        for key in (LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL):
            labels.setdefault(key, uid)
    match_labels = child(child(spec, "selector", create=True), "matchLabels", create=True)
    if match_labels is not None:
        match_labels.setdefault(CONTROLLER_UID_LABEL, uid)
