"""The post-start hook scheduling/bootstrap-system-priority-classes (pkg/registry/scheduling/rest): the
PriorityClasses system-node-critical and system-cluster-critical, created when missing. Charts and
operators name them in their pods; the Priority admission plugin resolves them like any other class."""

from __future__ import annotations

import logging
from typing import Any

from kube_apiserver.apis.scheduling.validation import SYSTEM_PRIORITY_CLASSES
from kube_apiserver.registry.fieldmanager import managing_as_server
from kube_apiserver.registry.store import Store
from kube_apiserver.runtime import errors

log = logging.getLogger(__name__)

HOOK_NAME = "scheduling/bootstrap-system-priority-classes"

# SystemPriorityClasses (pkg/apis/scheduling/v1/helpers.go): their descriptions
DESCRIPTIONS = {
    "system-node-critical": "Used for system critical pods that must not be moved from their current node.",
    "system-cluster-critical": (
        "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."
    ),
}


def system_priority_class(name: str) -> dict[str, Any]:
    value, _ = SYSTEM_PRIORITY_CLASSES[name]
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        "description": DESCRIPTIONS[name],
    }


def bootstrap_system_priority_classes(store: Store) -> Any:
    """The hook: each system class is created unless one of that name exists (an admin's edits are kept)."""

    async def hook() -> None:
        for name in SYSTEM_PRIORITY_CLASSES:
            try:
                await store.get("", name)
                continue
            except errors.StatusError as e:
                if e.code != 404:
                    raise
            try:
                with managing_as_server(store):
                    await store.create("", system_priority_class(name))
                log.info("created PriorityClass %s with value %d", name, SYSTEM_PRIORITY_CLASSES[name][0])
            except errors.StatusError as e:
                if e.code != 409:
                    raise

    return hook
