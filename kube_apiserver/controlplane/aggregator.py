"""The aggregator's controllers for the APIs this server serves itself (pkg/controlplane/apiserver/aggregator.go):
an APIService per built-in group version (apiServicesToRegister, synced on start) and per CRD group version
(the CRD registration controller), marked Available by the local availability controller; the readyz check
autoregister-completion waits for them."""

from __future__ import annotations

from collections.abc import Iterable

from kube_apiserver.aggregator.autoregister import AutoRegisterController, api_service
from kube_apiserver.aggregator.available import AutoRegisterCompletion, LocalAvailableConditionController
from kube_apiserver.apis import GROUP_PRIORITY
from kube_apiserver.controlplane.crd_registration import CRDRegistrationController
from kube_apiserver.registry.store import Store
from kube_apiserver.server.genericapiserver import GenericAPIServer
from kube_apiserver.server.healthz import Check


def install_autoregistration(
    aggregator: GenericAPIServer, served: Iterable[tuple[str, str]], api_services: Store, crds: Store
) -> dict[str, Check]:
    """served: the (group, version) pairs of the aggregator's delegates. Returns the readyz check to add."""
    registration = AutoRegisterController(api_services)
    names = []
    for group, version in served:
        priority = GROUP_PRIORITY.get((group, version))
        if priority is None:
            continue  # as upstream: no APIService that could outlive its group
        obj = api_service(group, version, *priority)
        registration.add_api_service_to_sync_on_start(obj)
        names.append(obj["metadata"]["name"])
    crd_registration = CRDRegistrationController(crds, registration)
    local_available = LocalAvailableConditionController(api_services)

    async def start_autoregistration() -> None:
        await crd_registration.start()
        await registration.start()

    aggregator.add_post_start_hook("apiservice-status-local-available-controller", local_available.start)
    aggregator.add_post_start_hook("kube-apiserver-autoregistration", start_autoregistration)
    return {"autoregister-completion": AutoRegisterCompletion(api_services, names).check}
