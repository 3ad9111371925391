"""NamespaceLifecycle admission: no new objects in a namespace that does not exist or is terminating,
and the system namespaces cannot be deleted."""

from __future__ import annotations

import weakref
from typing import Any

from kube_apiserver.registry.store import Store
from kube_apiserver.runtime import errors
from kube_apiserver.storage.cacher.cacher import Cacher

IMMORTAL_NAMESPACES = ("default", "kube-system", "kube-public")


class NamespaceLifecycle:
    def __init__(self, namespaces: Cacher) -> None:
        self.namespaces = namespaces
        # weakly: a CRD's edit replaces its stores, and a dead store's id() may come back for a new one
        self._installed: weakref.WeakSet[Store] = weakref.WeakSet()

    async def admit_create(self, resource: str, group: str, namespace: str, obj: dict[str, Any]) -> None:
        if not namespace or (resource == "namespaces" and not group):
            return
        ns = self.namespaces.get_cached(f"{self.namespaces.prefix}{namespace}")
        if ns is None:
            await self.namespaces.wait_fresh()
            ns = self.namespaces.get_cached(f"{self.namespaces.prefix}{namespace}")
        if ns is None:
            raise errors.new_not_found("", "namespaces", namespace)
        if (ns.obj.get("status") or {}).get("phase") == "Terminating" and resource not in ("events",):
            raise errors.StatusError(
                403,
                "Forbidden",
                f'{resource}{"." + group if group else ""} "{(obj.get("metadata") or {}).get("name") or ""}" is forbidden: '
                f"unable to create new content in namespace {namespace} because it is being terminated",
                (obj.get("metadata") or {}).get("name", ""),
                group,
                resource,
                causes=[
                    errors.StatusCause(
                        "NamespaceTerminating", f"namespace {namespace} is being terminated", "metadata.namespace"
                    )
                ],
            )

    def install(self, store: Store) -> None:
        """Admit every object the store creates (POST, server-side apply, PUT that creates) in its namespace.
        Once per store: the versions of a resource share one."""
        if not store.spec.namespaced or store in self._installed:
            return
        self._installed.add(store)
        resource, group = store.spec.resource, store.spec.group

        async def admit(obj: dict[str, Any]) -> None:
            await self.admit_create(resource, group, (obj.get("metadata") or {}).get("namespace", ""), obj)

        store.admit_create.append(admit)

    def admit_delete(self, resource: str, group: str, name: str) -> None:
        if resource == "namespaces" and not group and name in IMMORTAL_NAMESPACES:
            raise errors.StatusError(
                403,
                "Forbidden",
                f'namespaces "{name}" is forbidden: this namespace may not be deleted',
                name,
                "",
                "namespaces",
            )
