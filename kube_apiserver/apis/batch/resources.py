"""batch/v1 as kube-apiserver 1.33's discovery lists it."""

from __future__ import annotations

from kube_apiserver.apis.batch.printers import CRON_JOB_PRINTER, JOB_PRINTER
from kube_apiserver.apis.common import ALL, status
from kube_apiserver.registry.resource_spec import ResourceSpec

GROUP = "batch"
VERSION = "v1"

RESOURCES: list[ResourceSpec] = [
    ResourceSpec(
        GROUP,
        VERSION,
        "cronjobs",
        "CronJob",
        True,
        short_names=("cj",),
        categories=ALL,
        subresources=(status("CronJob"),),
        printer=CRON_JOB_PRINTER,
    ),
    ResourceSpec(
        GROUP,
        VERSION,
        "jobs",
        "Job",
        True,
        categories=ALL,
        subresources=(status("Job"),),
        # pkg/apis/batch/v1/conversion.go accepts status.successful; JobToSelectableFields reads
        # Status.Succeeded (an int: "0" when unset).
        selectable_fields={"status.successful": "status.succeeded"},
        printer=JOB_PRINTER,
    ),
]
