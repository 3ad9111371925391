"""The priority-and-fairness-config-producer (pkg/registry/flowcontrol/ensurer and rest): creates the
bootstrap FlowSchemas and PriorityLevelConfigurations, and keeps them up to date, at start and every
minute after.

  - a missing object is created again, mandatory or suggested;
  - a mandatory object's spec is always put back (the exempt level keeps the operator's
    nominalConcurrencyShares and lendablePercent);
  - a suggested object's spec is put back only while its apf.kubernetes.io/autoupdate-spec annotation
    is true, or, without a readable annotation, while its generation is 1 (nobody edited it); the
    annotation is then set to say which;
  - an object annotated autoupdate-spec=true that is no longer a bootstrap object is deleted.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Callable
from typing import Any

from kube_apiserver.apis.flowcontrol import bootstrap
from kube_apiserver.registry import fieldmanager
from kube_apiserver.registry.store import DeleteOptions, Store
from kube_apiserver.runtime import errors

log = logging.getLogger(__name__)

FIELD_MANAGER = "api-priority-and-fairness-config-producer-v1"
RECONCILE_PERIOD = 60.0
CONFLICT_RETRIES = 5
_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})
_BACKGROUND: set[asyncio.Task[None]] = set()


def parse_bool(value: Any) -> bool | None:
    """strconv.ParseBool; None when the value is not a boolean."""
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    return None


def _annotations(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    return annotations if isinstance(annotations, dict) else {}


def should_update_spec(obj: dict[str, Any]) -> bool:
    auto = parse_bool(_annotations(obj).get(bootstrap.AUTO_UPDATE_ANNOTATION))
    if auto is not None:
        return auto
    # no readable annotation: safe to update while nobody changed the spec
    return (obj.get("metadata") or {}).get("generation") == 1


def should_update_annotation(obj: dict[str, Any], desired: bool) -> bool:
    annotations = _annotations(obj)
    if bootstrap.AUTO_UPDATE_ANNOTATION in annotations:
        return parse_bool(annotations[bootstrap.AUTO_UPDATE_ANNOTATION]) != desired
    return True


def spec_equalish(expected: dict[str, Any], actual: dict[str, Any]) -> bool:
    """The bootstrap spec equals the current one; for the exempt level, whatever the operator set as its
    nominalConcurrencyShares and lendablePercent."""
    want = copy.deepcopy(expected.get("spec"))
    have = actual.get("spec")
    if expected.get("kind") == "PriorityLevelConfiguration" and _name(expected) == bootstrap.PRIORITY_LEVEL_EXEMPT:
        exempt = have.get("exempt") if isinstance(have, dict) else None
        if not isinstance(exempt, dict):
            return False
        for key in ("nominalConcurrencyShares", "lendablePercent"):
            if key in exempt:
                want["exempt"][key] = exempt[key]
            else:
                want["exempt"].pop(key, None)
    return bool(want == have)


def revise_if_needed(current: dict[str, Any], boot: dict[str, Any], mandatory: bool) -> dict[str, Any] | None:
    """ReviseIfNeeded: the object to write back, or None when current is as it should be."""
    auto = mandatory or should_update_spec(current)
    update_annotation = should_update_annotation(current, auto)
    spec_changed = auto and not spec_equalish(boot, current)
    if not (update_annotation or spec_changed):
        return None
    revised = copy.deepcopy(current)
    if spec_changed:
        revised["spec"] = copy.deepcopy(boot["spec"])
    if update_annotation:
        meta = revised.setdefault("metadata", {})
        if not isinstance(meta.get("annotations"), dict):
            meta["annotations"] = {}
        meta["annotations"][bootstrap.AUTO_UPDATE_ANNOTATION] = "true" if auto else "false"
    return revised


def _name(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata")
    return meta.get("name", "") if isinstance(meta, dict) else ""


async def ensure_configuration(store: Store, boot: dict[str, Any], mandatory: bool) -> None:
    name = _name(boot)
    hook = fieldmanager.hook_for(store, store.spec, "", FIELD_MANAGER)
    # A conflict (the config consumer wrote the status meanwhile) is retried at once rather than a minute
    # later: read again, decide again.
    for _ in range(CONFLICT_RETRIES):
        try:
            current = (await store.get("", name)).obj
        except errors.StatusError as e:
            if e.code != 404:
                raise
            try:
                with fieldmanager.managing(hook):
                    await store.create("", copy.deepcopy(boot))
                log.info("Successfully created %s %s", boot["kind"], name)
                return
            except errors.StatusError as ce:
                if ce.code != 409:
                    raise
                continue  # created concurrently: look at it again
        revised = revise_if_needed(current, boot, mandatory)
        if revised is None:
            return
        try:
            with fieldmanager.managing(hook):
                await store.update("", name, revised)
            log.info("Updated the %s %s", boot["kind"], name)
            return
        except errors.StatusError as e:
            if e.code == 404:
                continue  # deleted meanwhile: create it
            if e.code != 409:
                raise


async def remove_unwanted_objects(store: Store, boots: list[dict[str, Any]]) -> None:
    wanted = {_name(b) for b in boots}
    cacher = store.storage
    for item in list(cacher.objects.values()):
        obj = item.obj
        name = _name(obj)
        if name in wanted:
            continue
        annotations = _annotations(obj)
        if bootstrap.AUTO_UPDATE_ANNOTATION not in annotations:
            continue  # an operator's own object
        if parse_bool(annotations[bootstrap.AUTO_UPDATE_ANNOTATION]) is not True:
            continue
        try:
            await store.delete("", name, DeleteOptions())
            log.info("Successfully deleted the unwanted %s %s", obj.get("kind"), name)
        except errors.StatusError as e:
            if e.code != 404:
                raise


async def ensure(flow_schemas: Store, priority_levels: Store) -> None:
    """One round: suggested objects, then mandatory ones, then removal of the unwanted."""
    for pl in bootstrap.suggested_priority_levels():
        await ensure_configuration(priority_levels, pl, False)
    for fs in bootstrap.suggested_flow_schemas():
        await ensure_configuration(flow_schemas, fs, False)
    for pl in bootstrap.mandatory_priority_levels():
        await ensure_configuration(priority_levels, pl, True)
    for fs in bootstrap.mandatory_flow_schemas():
        await ensure_configuration(flow_schemas, fs, True)
    await remove_unwanted_objects(
        priority_levels, bootstrap.mandatory_priority_levels() + bootstrap.suggested_priority_levels()
    )
    await remove_unwanted_objects(flow_schemas, bootstrap.mandatory_flow_schemas() + bootstrap.suggested_flow_schemas())


def config_producer(flow_schemas: Store, priority_levels: Store) -> Callable[[], Any]:
    """The post-start hook: done after the first successful round; then a round every minute."""

    async def hook() -> None:
        while True:
            try:
                await ensure(flow_schemas, priority_levels)
                break
            except Exception:  # noqa: BLE001 - retried every second, as upstream polls
                log.exception("APF bootstrap ensurer ran into error, will retry later")
                await asyncio.sleep(1)
        task = asyncio.create_task(_reconcile(flow_schemas, priority_levels), name="apf-bootstrap-ensurer")
        _BACKGROUND.add(task)  # the loop keeps only weak references to tasks

    return hook


async def _reconcile(flow_schemas: Store, priority_levels: Store) -> None:
    while True:
        await asyncio.sleep(RECONCILE_PERIOD)
        try:
            await ensure(flow_schemas, priority_levels)
        except Exception:  # noqa: BLE001 - always auto update; the next round retries
            log.exception("APF bootstrap ensurer ran into error, will retry later")
