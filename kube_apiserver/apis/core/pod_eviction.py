"""pods/eviction (pkg/registry/core/pod/storage/eviction.go EvictionREST): a delete that respects the
PodDisruptionBudgets selecting the pod.

A pod that cannot count towards a budget (pending, finished or already terminating) is deleted at
once. Otherwise its one budget (more than one is refused) must allow a disruption: the eviction
takes it (disruptionsAllowed - 1, the pod in status.disruptedPods, so the disruption controller does
not count it healthy meanwhile) and then deletes the pod with the DeleteOptions of the Eviction.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import orjson

from kube_apiserver.apis.core.pod_subresources import (
    get_pod,
    success_status,
    unknown_error,
    update_pod_condition,
)
from kube_apiserver.endpoints import negotiation
from kube_apiserver.endpoints.handlers.scope import RequestScope, decode_object, validate_dry_run, write_status
from kube_apiserver.endpoints.installer import Handler
from kube_apiserver.registry.store import DeleteOptions, Store
from kube_apiserver.runtime import errors
from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.labels import SelectorParseError, selector_from_label_selector_dict
from kube_apiserver.runtime.serializer import decode_body
from kube_apiserver.storage.interface import ListOptions, Preconditions

# MaxDisruptedPodSize: evictions the controller has not confirmed yet, past which more are refused.
MAX_DISRUPTED_POD_SIZE = 2000
# EvictionsRetry: 20 tries, 500 ms apart, on conflicts.
EVICTION_RETRY_STEPS = 20
EVICTION_RETRY_DELAY = 0.5

VIOLATION_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget."
MULTIPLE_PDBS_MESSAGE = (
    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
)
DISRUPTION_BUDGET_CAUSE = "DisruptionBudget"
_POLICIES = ("Foreground", "Background", "Orphan")

T = TypeVar("T")


def is_pod_ready(pod: dict[str, Any]) -> bool:
    """podutil.IsPodReady: the Ready condition is True."""
    status = pod.get("status") if isinstance(pod.get("status"), dict) else {}
    for cond in status.get("conditions") or []:
        if isinstance(cond, dict) and cond.get("type") == "Ready":
            return cond.get("status") == "True"
    return False


def can_ignore_pdb(pod: dict[str, Any]) -> bool:
    phase = (pod.get("status") or {}).get("phase")
    return phase in ("Succeeded", "Failed", "Pending") or bool((pod.get("metadata") or {}).get("deletionTimestamp"))


def should_enforce_resource_version(pod: dict[str, Any]) -> bool:
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and not (pod.get("metadata") or {}).get("deletionTimestamp")


# --- component-helpers/apps/poddisruptionbudget: the DisruptionAllowed condition ---

DISRUPTION_ALLOWED = "DisruptionAllowed"
SUFFICIENT_PODS = "SufficientPods"
INSUFFICIENT_PODS = "InsufficientPods"
SYNC_FAILED = "SyncFailed"


def set_status_condition(conditions: list[dict[str, Any]], new: dict[str, Any]) -> None:
    """apimeta.SetStatusCondition: lastTransitionTime moves only when the status changes.
    Keys in the order of the metav1.Condition struct."""
    for cond in conditions:
        if isinstance(cond, dict) and cond.get("type") == new["type"]:
            if cond.get("status") != new["status"]:
                cond["status"] = new["status"]
                cond["lastTransitionTime"] = metautil.now_rfc3339()
            cond["reason"] = new.get("reason", "")
            cond["message"] = new.get("message", "")
            if new.get("observedGeneration"):
                cond["observedGeneration"] = new["observedGeneration"]
            else:
                cond.pop("observedGeneration", None)
            return
    cond = {"type": new["type"], "status": new["status"]}
    if new.get("observedGeneration"):
        cond["observedGeneration"] = new["observedGeneration"]
    cond["lastTransitionTime"] = metautil.now_rfc3339()
    cond["reason"] = new.get("reason", "")
    cond["message"] = new.get("message", "")
    conditions.append(cond)


def update_disruption_allowed_condition(status: dict[str, Any]) -> None:
    """UpdateDisruptionAllowedCondition: True/SufficientPods while a disruption is allowed."""
    conditions = status.get("conditions") if isinstance(status.get("conditions"), list) else []
    status["conditions"] = conditions
    allowed = _int(status.get("disruptionsAllowed")) > 0
    set_status_condition(
        conditions,
        {
            "type": DISRUPTION_ALLOWED,
            "status": "True" if allowed else "False",
            "reason": SUFFICIENT_PODS if allowed else INSUFFICIENT_PODS,
            "observedGeneration": _int(status.get("observedGeneration")),
        },
    )


def conditions_are_up_to_date(pdb: dict[str, Any]) -> bool:
    """ConditionsAreUpToDate: the DisruptionAllowed condition agrees with disruptionsAllowed."""
    status = pdb.get("status") if isinstance(pdb.get("status"), dict) else {}
    cond = next(
        (c for c in status.get("conditions") or [] if isinstance(c, dict) and c.get("type") == DISRUPTION_ALLOWED),
        None,
    )
    if cond is None or _int(status.get("observedGeneration")) != _int((pdb.get("metadata") or {}).get("generation")):
        return False
    if _int(status.get("disruptionsAllowed")) > 0:
        return cond.get("status") == "True" and cond.get("reason") == SUFFICIENT_PODS
    return cond.get("status") == "False" and cond.get("reason") == INSUFFICIENT_PODS


def too_many_requests(pdb_name: str) -> errors.StatusError:
    """createTooManyRequestsError: the budget's status is behind its spec (or a race was lost)."""
    err = errors.new_too_many_requests(VIOLATION_MESSAGE, 10)
    err.causes = [
        errors.StatusCause(
            DISRUPTION_BUDGET_CAUSE, f"The disruption budget {pdb_name} is still being processed by the server."
        )
    ]
    return err


class _Eviction:
    """The decoded request: the pod name and the DeleteOptions to delete it with."""

    def __init__(self, name: str, options: DeleteOptions, rv_set: bool) -> None:
        self.name = name
        self.options = options
        self.rv_set = rv_set  # the client's own resourceVersion precondition: never retried, never replaced


class EvictionREST:
    def __init__(self, pods: Store, pdbs: Store) -> None:
        self.pods = pods
        self.pdbs = pdbs

    # --- decoding ---

    async def _decode(self, scope: RequestScope) -> _Eviction:
        # policy/v1 is the served kind; a policy/v1beta1 Eviction is accepted as well (AcceptsGroupVersion).
        raw = await scope.req.body()
        gv = "policy/v1"
        if raw.strip():
            try:
                peek = decode_body(raw, negotiation.request_media_type(scope.req.header("content-type")))
            except errors.StatusError:
                peek = None
            if isinstance(peek, dict) and peek.get("apiVersion") == "policy/v1beta1":
                gv = "policy/v1beta1"
        eviction = await decode_object(scope, "Eviction", gv)
        meta = eviction.get("metadata") if isinstance(eviction.get("metadata"), dict) else {}
        body_ns = meta.get("namespace")
        if body_ns and body_ns != scope.info.namespace:
            raise errors.new_bad_request(
                "the namespace of the provided object does not match the namespace sent on the request"
            )
        if (meta.get("name") or "") != scope.info.name:
            raise errors.new_bad_request("name in URL does not match name in Eviction object")
        return _Eviction(scope.info.name, *self._delete_options(scope, eviction.get("deleteOptions")))

    def _delete_options(self, scope: RequestScope, body: Any) -> tuple[DeleteOptions, bool]:
        """propagateDryRun, then the DeleteOptions checks the Store's Delete makes (ValidateDeleteOptions)."""
        query_dry = scope.req.params("dryRun")
        validate_dry_run(query_dry, "CreateOptions")  # the create handler's ValidateCreateOptions
        opts = body if isinstance(body, dict) else {}
        # (a null entry decodes as Go's "" and prints as nothing)
        body_dry = opts.get("dryRun") if isinstance(opts.get("dryRun"), list) else []
        if query_dry and body_dry and list(query_dry) != list(body_dry):
            raise unknown_error(
                "Non-matching dry-run options in request and content: "
                f"[{' '.join(query_dry)}] and [{' '.join('' if v is None else str(v) for v in body_dry)}]"
            )
        dry = body_dry or query_dry
        causes = []
        policy = opts.get("propagationPolicy")
        if opts.get("orphanDependents") is not None and policy is not None:
            causes.append(
                errors.field_invalid(
                    "propagationPolicy", policy, "orphanDependents and deletionPropagation cannot be both set"
                )
            )
        if policy is not None and policy not in _POLICIES:
            causes.append(errors.field_not_supported("propagationPolicy", policy, [*_POLICIES, "nil"]))
        if any(v != "All" for v in dry):
            values = errors.GoRepr("[]string{" + ", ".join(orjson.dumps(str(v)).decode() for v in dry) + "}")
            causes.append(errors.field_not_supported("dryRun", values, ["All"]))
        if causes:
            raise errors.new_invalid("meta.k8s.io", "DeleteOptions", "", causes)
        out = DeleteOptions(dry_run=bool(dry), propagation_policy=policy)
        grace = opts.get("gracePeriodSeconds")
        if isinstance(grace, int) and not isinstance(grace, bool):
            out.grace_period_seconds = grace
        pre = opts.get("preconditions") if isinstance(opts.get("preconditions"), dict) else {}
        uid, rv = pre.get("uid"), pre.get("resourceVersion")
        if uid is not None or rv is not None:
            out.preconditions = Preconditions(uid=uid, resource_version=rv)
        return out, rv is not None

    # --- the eviction ---

    async def create(self, scope: RequestScope) -> None:
        ev = await self._decode(scope)
        ns = scope.info.namespace

        async def delete_if_pdb_can_be_ignored() -> dict[str, Any] | None:
            pod = await get_pod(self.pods, ns, ev.name)
            if not can_ignore_pdb(pod):
                return pod
            options = ev.options
            if should_enforce_resource_version(pod) and not ev.rv_set:
                options = _with_resource_version(options, metautil.metadata(pod).get("resourceVersion", ""))
            await self._add_condition_and_delete(ns, ev.name, options)
            return None

        retry_conflicts = not ev.rv_set
        pod = await _retry(delete_if_pdb_can_be_ignored, retry_conflicts)
        if pod is None:
            await write_status(scope, 201, success_status(201))
            return

        pdbs = await self._pod_disruption_budgets(pod)
        if len(pdbs) > 1:
            # Returned as a result, not an error: no reason, no details, code 500.
            raise unknown_error(MULTIPLE_PDBS_MESSAGE)
        update_deletion_options = False
        pdb_name = ""
        if pdbs:
            pdb = pdbs[0]
            pdb_name = (pdb.get("metadata") or {}).get("name", "")
            status = pdb.get("status") if isinstance(pdb.get("status"), dict) else {}
            if not is_pod_ready(pod):
                policy = (pdb.get("spec") or {}).get("unhealthyPodEvictionPolicy")
                desired = _int(status.get("desiredHealthy"))
                if policy == "AlwaysAllow" or (_int(status.get("currentHealthy")) >= desired and desired > 0):
                    # An unready pod adds nothing to the budget: delete it if it is still the pod we saw.
                    update_deletion_options = True
            if not update_deletion_options:
                await self._check_and_decrement_with_retries(ns, ev.name, pdb, ev.options.dry_run)

        options = ev.options
        if update_deletion_options:
            options = _with_resource_version(options, metautil.metadata(pod).get("resourceVersion", ""))
        try:
            await self._add_condition_and_delete(ns, ev.name, options)
        except errors.StatusError as e:
            if e.code == 409 and update_deletion_options and not ev.rv_set:
                raise too_many_requests(pdb_name) from None
            raise
        await write_status(scope, 201, success_status(201))

    async def _pod_disruption_budgets(self, pod: dict[str, Any]) -> list[dict[str, Any]]:
        meta = pod.get("metadata") or {}
        labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
        out = []
        for item in (await self.pdbs.list(meta.get("namespace", ""), ListOptions())).items:
            spec = item.obj.get("spec") if isinstance(item.obj.get("spec"), dict) else {}
            try:
                selector = selector_from_label_selector_dict(spec.get("selector"))
            except SelectorParseError:
                continue  # an invalid selector matches no pod
            if selector.matches(labels):
                out.append(item.obj)
        return out

    async def _check_and_decrement_with_retries(
        self, ns: str, pod_name: str, pdb: dict[str, Any], dry_run: bool
    ) -> None:
        name = (pdb.get("metadata") or {}).get("name", "")
        for attempt in range(EVICTION_RETRY_STEPS):
            if attempt:
                await asyncio.sleep(EVICTION_RETRY_DELAY)
                pdb = (await self.pdbs.get(ns, name)).obj
            try:
                await self._check_and_decrement(ns, pod_name, pdb, dry_run)
                return
            except errors.StatusError as e:
                if e.code != 409 or attempt + 1 == EVICTION_RETRY_STEPS:
                    raise

    async def _check_and_decrement(self, ns: str, pod_name: str, pdb: dict[str, Any], dry_run: bool) -> None:
        """checkAndDecrement: take one disruption from the budget, or refuse with 429/403."""
        meta = pdb.get("metadata") or {}
        name = meta.get("name", "")
        status = pdb.get("status") if isinstance(pdb.get("status"), dict) else {}
        if _int(status.get("observedGeneration")) < _int(meta.get("generation")):
            raise too_many_requests(name)
        allowed = _int(status.get("disruptionsAllowed"))
        if allowed < 0:
            raise errors.new_forbidden("policy", "poddisruptionbudget", name, "pdb disruptions allowed is negative")
        disrupted = status.get("disruptedPods") if isinstance(status.get("disruptedPods"), dict) else {}
        if len(disrupted) > MAX_DISRUPTED_POD_SIZE:
            raise errors.new_forbidden(
                "policy",
                "poddisruptionbudget",
                name,
                "DisruptedPods map too big - too many evictions not confirmed by PDB controller",
            )
        if allowed == 0:
            err = errors.new_too_many_requests(VIOLATION_MESSAGE, 0)
            desired, current = _int(status.get("desiredHealthy")), _int(status.get("currentHealthy"))
            err.causes = [
                errors.StatusCause(
                    DISRUPTION_BUDGET_CAUSE,
                    f"The disruption budget {name} needs {desired} healthy pods and has {current} currently",
                )
            ]
            raise err
        if dry_run:
            return
        new = copy.deepcopy(pdb)
        new_status = new.setdefault("status", {})
        new_status["disruptionsAllowed"] = allowed - 1
        if allowed - 1 == 0:
            update_disruption_allowed_condition(new_status)
        new_status["disruptedPods"] = {**disrupted, pod_name: metautil.now_rfc3339()}
        await self.pdbs.update(ns, name, new, subresource="status")

    async def _add_condition_and_delete(self, ns: str, name: str, options: DeleteOptions) -> None:
        """addConditionAndDeletePod: mark the pod DisruptionTarget (EvictionByEvictionAPI), then delete it."""
        if not options.dry_run:
            pre = options.preconditions

            def mark(pod: dict[str, Any]) -> dict[str, Any]:
                meta = pod.get("metadata") or {}
                if pre is not None:
                    if pre.uid and pre.uid != meta.get("uid"):
                        raise errors.new_conflict(
                            "",
                            "Pod",
                            name,
                            f"the UID in the precondition ({pre.uid}) does not match the UID in record "
                            f"({meta.get('uid', '')}). The object might have been deleted and then recreated",
                        )
                    if pre.resource_version and pre.resource_version != meta.get("resourceVersion"):
                        raise errors.new_conflict(
                            "",
                            "Pod",
                            name,
                            f"the ResourceVersion in the precondition ({pre.resource_version}) does not match the "
                            f"ResourceVersion in record ({meta.get('resourceVersion', '')}). The object might have been modified",
                        )
                update_pod_condition(
                    pod,
                    {
                        "type": "DisruptionTarget",
                        "status": "True",
                        "reason": "EvictionByEvictionAPI",
                        "message": "Eviction API: evicting",
                    },
                )
                return pod

            updated = await self.pods.patch(ns, name, mark, subresource="status")
            if pre is not None and pre.resource_version:
                # we made the last change ourselves: the precondition moves with it
                rv = metautil.metadata(updated.obj).get("resourceVersion", "")
                options = _with_resource_version(options, rv)
        await self.pods.delete(ns, name, options)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _with_resource_version(options: DeleteOptions, rv: str) -> DeleteOptions:
    pre = options.preconditions
    return DeleteOptions(
        grace_period_seconds=options.grace_period_seconds,
        preconditions=Preconditions(uid=pre.uid if pre else None, resource_version=rv),
        propagation_policy=options.propagation_policy,
        dry_run=options.dry_run,
    )


async def _retry(fn: Callable[[], Awaitable[T]], on_conflict: bool) -> T:
    """retry.OnError(EvictionsRetry, IsConflict, fn)."""
    for attempt in range(EVICTION_RETRY_STEPS):
        try:
            return await fn()
        except errors.StatusError as e:
            if not on_conflict or e.code != 409 or attempt + 1 == EVICTION_RETRY_STEPS:
                raise
        await asyncio.sleep(EVICTION_RETRY_DELAY)
    raise AssertionError("unreachable")


def eviction_handlers(pods: Store, pdbs: Store) -> dict[tuple[str, str], Handler]:
    rest = EvictionREST(pods, pdbs)

    async def create(scope: RequestScope) -> None:
        await rest.create(scope)

    return {("eviction", "create"): create}
