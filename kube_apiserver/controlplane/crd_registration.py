"""The CRD registration controller (pkg/controlplane/controller/crdregistration): every group version served by
some CustomResourceDefinition has its APIService "<version>.<group>", kept by the auto-registration controller
(managed continuously: it goes when no CRD serves that version any more)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.aggregator.autoregister import AutoRegisterController, api_service
from kube_apiserver.registry.store import Store
from kube_apiserver.storage.interface import ListOptions

# Low, below every built-in group; versions of one group are then sorted kube-like (v2 > v1 > v1beta1).
CRD_GROUP_PRIORITY_MINIMUM = 1000
CRD_VERSION_PRIORITY = 100


def _group_versions(crd: dict[str, Any] | None) -> set[tuple[str, str]]:
    spec = (crd or {}).get("spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("group"), str):
        return set()
    return {
        (spec["group"], v["name"])
        for v in spec.get("versions") or ()
        if isinstance(v, dict) and isinstance(v.get("name"), str)
    }


class CRDRegistrationController:
    def __init__(self, crds: Store, registration: AutoRegisterController) -> None:
        self.crds = crds
        self.registration = registration
        # name -> CRD as last written: the informer's store (the watch cache may not have a write yet when its
        # after_write hook runs)
        self.known: dict[str, dict[str, Any]] | None = None
        crds.after_write.append(self._on_crd)

    def _on_crd(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if self.known is None:
            return  # start() lists them all
        name = ((new or old or {}).get("metadata") or {}).get("name")
        if new is None:
            self.known.pop(name, None)
        else:
            self.known[name] = new
        for gv in sorted(_group_versions(old) | _group_versions(new)):
            self.handle_version_update(*gv)

    async def start(self) -> None:
        """The initial set first (WaitForInitialSync): the auto-registration must not delete the APIService of
        a CRD it has not heard of yet."""
        self.known = {
            item.obj["metadata"]["name"]: item.obj for item in (await self.crds.list("", ListOptions())).items
        }
        for crd in list(self.known.values()):
            for gv in sorted(_group_versions(crd)):
                self.handle_version_update(*gv)

    def handle_version_update(self, group: str, version: str) -> None:
        for crd in (self.known or {}).values():
            spec = crd.get("spec") or {}
            if spec.get("group") != group:
                continue
            for v in spec.get("versions") or ():
                if isinstance(v, dict) and v.get("name") == version and v.get("served"):
                    self.registration.add_api_service_to_sync(
                        api_service(group, version, CRD_GROUP_PRIORITY_MINIMUM, CRD_VERSION_PRIORITY)
                    )
                    return
        self.registration.remove_api_service_to_sync(f"{version}.{group}")
