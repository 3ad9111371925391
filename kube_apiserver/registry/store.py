"""The generic registry Store (k8s.io/apiserver/pkg/registry/generic/registry/store.go).

One Store per resource: it turns a verb into storage calls, applying the strategy on the way in
(prepare, validate), system metadata (uid, creationTimestamp, generateName), preconditions,
dry-run, finalizers and graceful deletion; and it turns storage errors into Status errors, the
only place where that happens.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson

from kube_apiserver.registry import warning
from kube_apiserver.registry.deletion_finalizers import deletion_finalizers
from kube_apiserver.registry.fieldmanager import hook as fieldmanager_hook
from kube_apiserver.registry.resource_spec import ResourceSpec, canonical_order
from kube_apiserver.registry.strategy import RESTStrategy
from kube_apiserver.registry.versioned import VersionedStorage
from kube_apiserver.runtime import errors
from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.strategicpatch.goformat import go_quote
from kube_apiserver.storage import errors as serrors
from kube_apiserver.storage.cacher.cacher import CacheEvent, Cacher, CacheWatcher
from kube_apiserver.storage.interface import ListOptions, ListResult, Preconditions, StoredObject

# generateName collisions are retried this many times before AlreadyExists reaches the client.
_GENERATE_NAME_RETRIES = 8


@dataclass
class DeleteOptions:
    grace_period_seconds: int | None = None
    preconditions: Preconditions | None = None
    propagation_policy: str | None = None
    orphan_dependents: bool | None = None  # the deprecated form of propagationPolicy
    dry_run: bool = False


@dataclass
class DeleteResult:
    obj: dict[str, Any]  # the object (pending deletion) or, once removed, the last state
    deleted: bool  # removed from storage now


def key_root(spec: ResourceSpec) -> str:
    """The storage prefix of the resource, or of the resource it shares storage with: storage_key is a
    GroupResource ("events" is core's events, "<resource>.<group>" another group's), as kube-apiserver
    keeps cohabitating resources under the first one's prefix (events.k8s.io events in /registry/events/)."""
    group, base = spec.group, spec.resource
    if spec.storage_key:
        base, _, group = spec.storage_key.partition(".")
    return f"/registry/{group}/{base}/" if group else f"/registry/{base}/"


def _as_stored(obj: dict[str, Any]) -> dict[str, Any]:
    """A dry run's object as storage would have written it: metadata in ObjectMeta order."""
    obj["metadata"] = metautil.object_meta_ordered(metautil.metadata(obj))
    return obj


def _not_stored(obj: dict[str, Any], key: str) -> StoredObject:
    """A dry run's result: the object as storage would have written it, with no new revision."""
    obj = _as_stored(obj)
    return StoredObject(obj, orjson.dumps(obj), 0, key)


# The storages whose DELETE answers with the object as it was deleted rather than a Status (their Store's
# ReturnDeletedObject), by (group, resource).
RETURN_DELETED_OBJECT = frozenset(
    {
        ("", "persistentvolumeclaims"),
        ("", "persistentvolumes"),
        ("", "pods"),
        ("", "podtemplates"),
        ("", "resourcequotas"),
        ("", "serviceaccounts"),
        ("", "services"),
        ("storage.k8s.io", "csidrivers"),
        ("storage.k8s.io", "csinodes"),
        ("storage.k8s.io", "storageclasses"),
        ("storage.k8s.io", "volumeattachments"),
    }
)


class Store:
    def __init__(self, spec: ResourceSpec, storage: Cacher | VersionedStorage, strategy: RESTStrategy) -> None:
        self.spec = spec
        self.return_deleted_object = (spec.group, spec.resource) in RETURN_DELETED_OBJECT
        self.storage = storage
        self.strategy = strategy
        self.prefix = storage.prefix
        # Called with (old, new) after every committed write; controllers hook in here.
        self.after_write: list[Callable[[dict[str, Any] | None, dict[str, Any] | None], None]] = []
        # Admission of an object about to be created, its namespace set: by a POST, a server-side apply or a
        # PUT that creates (upstream runs create admission on all three, the last two from inside the update).
        self.admit_create: list[Callable[[dict[str, Any]], Awaitable[None]]] = []
        # The mutating and validating admission plugins of the object itself (not its subresources), called
        # with the object and the live one (None on create) once it is defaulted and its managedFields
        # recorded (kube's handlers run admission after decoding and the field manager, so what a plugin
        # sets is owned by no manager), before the strategy prepares and validates it. They may change
        # the object or raise a StatusError.
        self.admission: list[Callable[[dict[str, Any], dict[str, Any] | None], None]] = []
        # Validating admission of writes through a subresource (by its name), called with the new object as the
        # subresource's strategy prepared and validated it, and the live one: upstream's updateValidation,
        # which the Store runs after BeforeUpdate (ServiceAccount checks pods/ephemeralcontainers there).
        self.subresource_validation: dict[str, list[Callable[[dict[str, Any], dict[str, Any]], None]]] = {}
        # EnableGarbageCollection (--enable-garbage-collector): a delete may put the garbage collector's
        # finalizers on the object (deletion_finalizers.py)
        self.garbage_collection = True

    # --- keys ---

    def key(self, namespace: str, name: str) -> str:
        if name in (".", "..") or "/" in name or "%" in name:
            # NamespaceKeyFunc / NoNamespaceKeyFunc: the name is a segment of the storage key
            problems = ";".join(metautil.is_path_segment_name(name))
            raise errors.new_bad_request(f"Name parameter invalid: {go_quote(name)}: {problems}")
        if self.spec.namespaced:
            return f"{self.prefix}{namespace}/{name}"
        return f"{self.prefix}{name}"

    def list_prefix(self, namespace: str) -> str:
        if self.spec.namespaced and namespace:
            return f"{self.prefix}{namespace}/"
        return self.prefix

    # --- errors ---

    def _not_found(self, name: str) -> errors.StatusError:
        return errors.new_not_found(self.spec.group, self.spec.resource, name)

    def _conflict(self, name: str, msg: str = errors.OPTIMISTIC_LOCK_ERROR) -> errors.StatusError:
        return errors.new_conflict(self.spec.group, self.spec.resource, name, msg)

    def _interpret(self, e: serrors.StorageError, name: str) -> errors.StatusError:
        if isinstance(e, serrors.KeyNotFoundError):
            return self._not_found(name)
        if isinstance(e, serrors.KeyExistsError):
            return errors.new_already_exists(self.spec.group, self.spec.resource, name)
        if isinstance(e, serrors.ResourceVersionConflictError):
            return self._conflict(name)
        if isinstance(e, serrors.InvalidObjError):
            return self._conflict(name, str(e))
        if isinstance(e, serrors.ExpiredError):
            return errors.new_resource_expired(str(e) if str(e) != e.key else "too old resource version")
        if isinstance(e, serrors.TooLargeResourceVersionError):
            err = errors.new_timeout(str(e))
            err.details, err.retry_after_seconds = True, 1
            err.causes = [errors.StatusCause("ResourceVersionTooLarge", "Too large resource version")]
            return err
        return errors.new_internal_error(str(e))

    # --- reads ---

    async def wait_until(self, revision: int) -> None:
        """Wait for the watch cache to reach a requested resourceVersion; past the wait, the 504 Timeout
        kube answers (Too large resource version, Retry-After 1)."""
        try:
            await self.storage.wait_until(revision)
        except serrors.StorageError as e:
            raise self._interpret(e, "") from None

    async def get(self, namespace: str, name: str) -> StoredObject:
        try:
            return await self.storage.get(self.key(namespace, name))
        except serrors.StorageError as e:
            raise self._interpret(e, name) from None

    async def list(self, namespace: str, opts: ListOptions) -> ListResult:
        try:
            return await self.storage.get_list(self.list_prefix(namespace), opts)
        except serrors.StorageError as e:
            raise self._interpret(e, "") from None

    async def watch(
        self, namespace: str, revision: int | None, predicate: Callable[[dict[str, Any]], bool] | None
    ) -> tuple[CacheWatcher, list[CacheEvent]]:
        try:
            return await self.storage.start_watch(self.list_prefix(namespace), revision, predicate)
        except serrors.ExpiredError as e:
            raise errors.new_resource_expired(str(e)) from None
        except serrors.StorageError as e:
            raise self._interpret(e, "") from None

    # --- create ---

    def _prepare_namespace(self, obj: dict[str, Any], namespace: str) -> None:
        meta = metautil.metadata(obj)
        if self.spec.namespaced:
            body_ns = meta.get("namespace") or ""
            if body_ns and namespace and body_ns != namespace:
                raise errors.new_bad_request(
                    "the namespace of the provided object does not match the namespace sent on the request"
                )
            meta["namespace"] = namespace or body_ns
        else:
            meta.pop("namespace", None)

    async def create(self, namespace: str, obj: dict[str, Any], *, dry_run: bool = False) -> StoredObject:
        obj = canonical_order(obj, self.spec)  # every create: from a request, an apply or the server itself
        meta = metautil.metadata(obj)
        self._prepare_namespace(obj, namespace)
        rv = meta.get("resourceVersion")
        if isinstance(rv, str) and rv.isascii() and rv.isdigit() and int(rv):
            # kube's storage refuses only a resourceVersion it can parse as a revision (with a 500, a 400 here);
            # one it cannot parse ("-1") is dropped like the rest of the system fields
            raise errors.new_bad_request("resourceVersion should not be set on objects to be created")
        meta.pop("resourceVersion", None)
        for admit in self.admit_create:
            await admit(obj)
        for key in ("deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"):
            meta.pop(key, None)
        self.strategy.default(obj)
        managed = fieldmanager_hook.current(self)
        if managed is not None:  # managedFields of the decoded, defaulted object, as upstream
            managed.update(None, obj)
        self._admit(obj, None)
        meta["uid"] = metautil.new_uid()
        meta["creationTimestamp"] = metautil.now_rfc3339()
        generated = not meta.get("name") and bool(meta.get("generateName"))
        if generated:
            meta["name"] = metautil.generate_name(meta["generateName"])
        self.strategy.prepare_for_create(obj)
        # kube decodes what it stored, defaulting it again: fields prepare reset (status) get theirs
        self.strategy.default_status(obj)
        self.strategy.canonicalize(obj)
        causes = self.strategy.validate(obj)
        if causes:
            raise errors.new_invalid(self.spec.group, self.spec.kind, meta.get("name", ""), causes)
        for text in self.strategy.warnings(obj, None):
            warning.add_warning(text)
        for attempt in range(_GENERATE_NAME_RETRIES):
            name = meta["name"]
            key = self.key(meta.get("namespace", ""), name)
            try:
                if dry_run:
                    if self.storage.get_cached(key) is not None:
                        raise serrors.KeyExistsError(key)
                    return _not_stored(obj, key)
                created = await self.storage.create(key, obj)
            except serrors.KeyExistsError:
                if generated and attempt + 1 < _GENERATE_NAME_RETRIES:
                    meta["name"] = metautil.generate_name(meta["generateName"])
                    continue
                raise self._already_exists(key, name, bool(meta.get("generateName"))) from None
            except serrors.StorageError as e:
                raise self._interpret(e, name) from None
            self._notify(None, created.obj)
            return created
        raise AssertionError("unreachable")

    def _already_exists(self, key: str, name: str, generate_name: bool) -> errors.StatusError:
        """The create's AlreadyExists: CheckGeneratedNameError's for an object with a generateName (the name
        it was given is taken: retry after 1 s), and prefixed as kube does when the existing object is
        being deleted (a client recreating it must wait for it to go)."""
        if generate_name:
            err = errors.new_generate_name_conflict(self.spec.group, self.spec.resource, name)
        else:
            err = errors.new_already_exists(self.spec.group, self.spec.resource, name)
        existing = self.storage.get_cached(key)
        if existing is not None and (existing.obj.get("metadata") or {}).get("deletionTimestamp"):
            err.message = f"object is being deleted: {err.message}"
        return err

    def _admit(self, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        for admit in self.admission:
            admit(obj, old)

    # --- update ---

    async def update(
        self,
        namespace: str,
        name: str,
        obj: dict[str, Any],
        *,
        dry_run: bool = False,
        subresource: str = "",
        uid_precondition: str = "",
    ) -> tuple[StoredObject, bool]:
        """Returns the stored object and whether it was created (PUT on a missing object, where allowed).
        uid_precondition: the update is for the object of this uid only (a PUT's body uid, as
        DefaultUpdatedObjectInfo.Preconditions makes it): another one is a 409."""
        meta = metautil.metadata(obj)
        meta["name"] = name  # (a request's body names it already: the handler's check_name saw to that)
        self._prepare_namespace(obj, namespace)
        key = self.key(namespace, name)
        created = False
        managed = fieldmanager_hook.current(self)
        # A subresource never creates its object (upstream's status and scale RESTs pass
        # forceAllowCreate=false; Services, whose strategy creates on update, get a 404 here as well).
        may_create = self.strategy.allow_create_on_update and not subresource

        def try_update(old: dict[str, Any] | None) -> dict[str, Any]:
            nonlocal created
            if uid_precondition and old is not None:
                Preconditions(uid=uid_precondition).check(key, old)
            new = orjson.loads(orjson.dumps(obj))  # the update func may run more than once
            self.strategy.default(new)
            if managed is not None:  # against the live object, on every attempt
                new = managed.update(old, new)
            if not subresource:
                self._admit(new, old)
            if old is None:
                created = True
                new_meta = metautil.metadata(new)
                new_meta.pop("resourceVersion", None)
                new_meta["uid"] = metautil.new_uid()
                new_meta["creationTimestamp"] = metautil.now_rfc3339()
                self.strategy.prepare_for_create(new)
                causes = self.strategy.validate(new)
                if causes:
                    raise errors.new_invalid(self.spec.group, self.spec.kind, name, causes)
                return new
            new = self._prepare_update(new, old, subresource)
            if managed is not None:
                managed.finish(new, old)
            return new

        if may_create and self.admit_create and self.storage.get_cached(key) is None:
            for admit in self.admit_create:  # it would be created
                await admit(obj)
        try:
            if dry_run:
                cur = self.storage.get_cached(key)
                if cur is None:
                    if not may_create:
                        raise self._not_found(name)
                    result = try_update(None)
                else:
                    try:
                        result = try_update(orjson.loads(cur.raw))
                    except _EmptiedFinalizers as e:
                        return _not_stored(e.obj, key), False  # would be deleted: answered with the update
                return _not_stored(result, key), created
            old_obj = self.storage.get_cached(key)
            stored = await self._update_or_delete(key, try_update, old_obj, ignore_not_found=may_create)
        except serrors.StorageError as e:
            raise self._interpret(e, name) from None
        return stored, created

    async def patch(
        self,
        namespace: str,
        name: str,
        patch_fn: Callable[[dict[str, Any]], dict[str, Any]],
        *,
        dry_run: bool = False,
        subresource: str = "",
    ) -> StoredObject:
        """Apply patch_fn to the current object (again on every conflict) and update with the result."""
        key = self.key(namespace, name)
        managed = fieldmanager_hook.current(self)

        def try_update(old: dict[str, Any] | None) -> dict[str, Any]:
            assert old is not None
            new = patch_fn(orjson.loads(orjson.dumps(old)))
            if not isinstance(new, dict):
                raise errors.new_bad_request("the patch must produce an object")
            metautil.check_name(new, name, namespace)  # as the patch handler checks the patched object
            self._prepare_namespace(new, namespace)  # EnsureObjectNamespaceMatchesRequestNamespace
            if new.get("apiVersion") != old.get("apiVersion") or new.get("kind") != old.get("kind"):
                raise errors.new_bad_request("the apiVersion and kind of the object cannot be changed by a patch")
            self.strategy.default(new)
            if managed is not None:
                new = managed.update(old, new)
            if not subresource:
                self._admit(new, old)
            new = self._prepare_update(new, old, subresource)
            if managed is not None:
                managed.finish(new, old)
            return new

        try:
            if dry_run:
                cur = self.storage.get_cached(key)
                if cur is None:
                    raise self._not_found(name)
                try:
                    result = try_update(orjson.loads(cur.raw))
                except _EmptiedFinalizers as e:
                    return _not_stored(e.obj, key)  # would be deleted: answered with the update
                return _not_stored(result, key)
            old_obj = self.storage.get_cached(key)
            if old_obj is None:
                await self.storage.wait_fresh()
                if self.storage.get_cached(key) is None:
                    raise self._not_found(name)
            stored = await self._update_or_delete(key, try_update, old_obj)
        except serrors.StorageError as e:
            raise self._interpret(e, name) from None
        return stored

    def _prepare_update(self, new: dict[str, Any], old: dict[str, Any], subresource: str) -> dict[str, Any]:
        new_meta = metautil.metadata(new)
        old_meta = old.get("metadata") or {}
        name = old_meta.get("name", "")
        rv = new_meta.get("resourceVersion")
        if rv:
            if rv != old_meta.get("resourceVersion"):
                raise self._conflict(name)
        elif not self.strategy.allow_unconditional_update:
            # upstream names the resource (not the kind) and prints the uint64 zero as Go's %#v does
            raise errors.new_invalid(
                self.spec.group,
                self.spec.resource,
                name,
                [
                    errors.field_invalid(
                        "metadata.resourceVersion", errors.GoRepr("0x0"), "must be specified for an update"
                    )
                ],
            )
        if subresource:
            new = self.strategy.prepare_for_subresource_update(subresource, new, old)
            new_meta = metautil.metadata(new)
        else:
            # System fields are the server's: a client cannot change them by update.
            if not new_meta.get("uid") and "uid" in old_meta:  # a different one is refused by validation
                new_meta["uid"] = old_meta["uid"]
            # (BeforeUpdate) The generation is always the stored one; the timestamps and grace period are
            # the stored ones when there are any (a client's deletionTimestamp or deletionGracePeriodSeconds
            # on a live object, or another grace period, is then refused by validation as immutable).
            if "generation" in old_meta:
                new_meta["generation"] = old_meta["generation"]
            else:
                new_meta.pop("generation", None)
            for k in ("creationTimestamp", "deletionTimestamp"):
                if old_meta.get(k):
                    new_meta[k] = old_meta[k]
            if (
                old_meta.get("deletionGracePeriodSeconds") is not None
                and new_meta.get("deletionGracePeriodSeconds") is None
            ):
                new_meta["deletionGracePeriodSeconds"] = old_meta["deletionGracePeriodSeconds"]
            self.strategy.prepare_for_update(new, old)
        new_meta["resourceVersion"] = old_meta.get("resourceVersion", "")
        new_meta.pop("selfLink", None)
        self.strategy.canonicalize(new)
        whole, changes = self.strategy.validate_on_update(new), self.strategy.validate_update(new, old)
        causes = changes + whole if self.strategy.update_rules_first else whole + changes
        if subresource:
            causes += self.strategy.validate_subresource_update(subresource, new, old)
        if causes:
            raise errors.new_invalid(self.spec.group, self.spec.kind, name, causes)
        for validate in self.subresource_validation.get(subresource, ()) if subresource else ():
            validate(new, old)
        for text in self.strategy.warnings(new, old):
            warning.add_warning(text)
        if new_meta.get("deletionTimestamp") and not new_meta.get("deletionGracePeriodSeconds"):
            if not self.strategy.has_finalizers(new):
                raise _EmptiedFinalizers(old_meta.get("resourceVersion", ""), new)
        return new

    async def _update_or_delete(
        self, key: str, try_update: Any, old_obj: StoredObject | None, ignore_not_found: bool = False
    ) -> StoredObject:
        """guaranteed_update, except that emptying the finalizers of a terminating object deletes it
        (one DELETED event carrying the last stored state), retried if the object moved meanwhile. The
        after_write hooks hear of it once: an update (old_obj as read before), or a removal."""
        while True:
            try:
                stored = await self.storage.guaranteed_update(key, try_update, ignore_not_found=ignore_not_found)
                if stored is not old_obj:
                    self._notify(old_obj.obj if old_obj else None, stored.obj)
                return stored
            except _EmptiedFinalizers as e:
                try:
                    gone = await self.storage.delete(
                        key, preconditions=Preconditions(resource_version=e.resource_version)
                    )
                except serrors.InvalidObjError:
                    continue
                self._notify(gone.obj, None)
                # a client that updated expects the updated object back (deleteWithoutFinalizers), not the
                # last stored state (that is what watchers get with the DELETED event)
                return _not_stored(e.obj, key)

    # --- delete ---

    async def delete(self, namespace: str, name: str, options: DeleteOptions) -> DeleteResult:
        key = self.key(namespace, name)
        try:
            await self.storage.wait_fresh()
            current = self.storage.get_cached(key)
            if current is None:
                raise serrors.KeyNotFoundError(key)
            if options.preconditions is not None:
                self.strategy.check_delete_preconditions(name, options.preconditions, current.obj)
            self.strategy.check_delete(current.obj)
            grace = self.strategy.check_graceful_delete(current.obj, options.grace_period_seconds)
            meta = current.obj.get("metadata") or {}
            if grace is not None and meta.get("deletionTimestamp") and not meta.get("deletionGracePeriodSeconds"):
                # BeforeDelete: marked with no grace period left, by a delete that failed between its mark and
                # its removal; it goes now
                grace = None
            if grace and meta.get("deletionTimestamp") and (meta.get("deletionGracePeriodSeconds") or 0) > 0:
                # BeforeDelete's pendingGraceful: a graceful deletion under way may only be shortened; a delete
                # that does not shorten it changes nothing, its finalizers included (errAlreadyDeleting)
                given = options.grace_period_seconds
                if given is None or max(given, 1) >= meta["deletionGracePeriodSeconds"]:
                    return DeleteResult(current.obj, False)
            gc_update, finalizers = self._gc_finalizers(current.obj, options)
            pending = current.obj
            if gc_update:  # judged with the finalizers the delete leaves (it may take the last one off)
                pending = {**current.obj, "metadata": {**meta, "finalizers": finalizers}}
            last, preconditions = current.obj, options.preconditions
            marked = False
            if self.strategy.has_finalizers(pending) or grace:
                try:
                    return DeleteResult(await self._mark_deleting(key, grace or 0, options, may_delete=True), False)
                except _DeleteNow as e:
                    # the finalizers went meanwhile (the object as the mark found it): errDeleteNow, removed
                    # now, on condition that it is still that state
                    last, marked = e.obj, True
                    uid = preconditions.uid if preconditions is not None else None
                    preconditions = Preconditions(uid=uid, resource_version=e.resource_version)
            if grace == 0 and not marked:
                # A graceful kind deleted at once (a pod never scheduled, a forced delete) is marked first, as
                # BeforeDelete does (deletionTimestamp now, grace 0, generation + 1): its watchers see that
                # MODIFIED event before the DELETED one, and the answer is the marked object.
                last = await self._mark_deleting(key, 0, options)
                if preconditions is not None and preconditions.resource_version is not None:
                    # the mark made a new resourceVersion: the removal is conditional on it instead
                    rv = (last.get("metadata") or {}).get("resourceVersion")
                    preconditions = Preconditions(uid=preconditions.uid, resource_version=rv)
            if options.dry_run:
                return DeleteResult(last, True)
            gone = await self.storage.delete(key, preconditions=preconditions)
        except serrors.StorageError as e:
            raise self._interpret(e, name) from None
        self._notify(last, None)
        return DeleteResult(gone.obj, True)

    async def _mark_deleting(
        self, key: str, grace: int, options: DeleteOptions, may_delete: bool = False
    ) -> dict[str, Any]:
        """Mark the object for deletion (deletionTimestamp, the collector's finalizers). may_delete: a delete
        that found finalizers pending; if the object has none left by the time it is marked (they went
        meanwhile) and no grace period runs, _DeleteNow is raised instead (updateForGracefulDeletionAndFinalizers
        decides this on the object it updates, not on an earlier read)."""

        def mark(old: dict[str, Any] | None) -> dict[str, Any]:
            assert old is not None
            if may_delete and not grace:
                gc_update, finalizers = self._gc_finalizers(old, options)
                left = {**old, "metadata": {**metautil.metadata(old), "finalizers": finalizers}} if gc_update else old
                if not self.strategy.has_finalizers(left):
                    raise _DeleteNow(str(metautil.metadata(old).get("resourceVersion") or ""), old)
            meta = metautil.metadata(old)
            generation = meta.get("generation")
            if not meta.get("deletionTimestamp") and isinstance(generation, int) and generation > 0:
                # markAsDeleting / BeforeDelete: the first mark is a change its controllers must see
                meta["generation"] = generation + 1
            if not meta.get("deletionTimestamp") or grace < (meta.get("deletionGracePeriodSeconds") or 0):
                meta["deletionTimestamp"] = _rfc3339_in(grace)
                if self.strategy.records_deletion_grace_period:
                    meta["deletionGracePeriodSeconds"] = grace
            gc_update, finalizers = self._gc_finalizers(old, options)
            if gc_update:
                meta["finalizers"] = finalizers
                if not finalizers:
                    del meta["finalizers"]
                old["metadata"] = metautil.object_meta_ordered(meta)
            self.strategy.prepare_for_delete(old)
            return old

        if options.dry_run:
            cur = self.storage.get_cached(key)
            assert cur is not None
            return _as_stored(mark(orjson.loads(cur.raw)))
        before = self.storage.get_cached(key)
        stored = await self.storage.guaranteed_update(key, mark, preconditions=options.preconditions)
        if stored is not before:
            self._notify(before.obj if before else None, stored.obj)
        return stored.obj

    def _gc_finalizers(self, obj: dict[str, Any], options: DeleteOptions) -> tuple[bool, list[str]]:
        if not self.garbage_collection:
            return False, []
        policy = self.strategy.default_garbage_collection_policy
        return deletion_finalizers(
            obj,
            policy,
            options.propagation_policy,
            options.orphan_dependents,
            self.strategy.orphan_false_is_foreground,
        )

    async def delete_collection(self, namespace: str, opts: ListOptions, options: DeleteOptions) -> None:
        await self.delete_listed((await self.list(namespace, opts)).items, options)

    async def delete_listed(self, items: list[StoredObject], options: DeleteOptions) -> None:
        """DeleteCollection's workers: each listed object deleted; one gone meanwhile is skipped."""
        for item in items:
            meta = item.obj.get("metadata") or {}
            try:
                await self.delete(meta.get("namespace", ""), meta.get("name", ""), options)
            except errors.StatusError as e:
                if e.code != 404:
                    raise

    def _notify(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        for fn in self.after_write:
            fn(old, new)


class _DeleteNow(Exception):  # noqa: N818 - upstream's errDeleteNow
    """A delete that meant to mark the object found no finalizer left on it: it is removed instead."""

    def __init__(self, resource_version: str, obj: dict[str, Any]) -> None:
        super().__init__(resource_version)
        self.resource_version = resource_version
        self.obj = obj


class _EmptiedFinalizers(Exception):  # noqa: N818 - upstream's errEmptiedFinalizers
    """An update took the last finalizer off an object being deleted: delete it instead of writing."""

    def __init__(self, resource_version: str, obj: dict[str, Any]) -> None:
        super().__init__(resource_version)
        self.resource_version = resource_version
        self.obj = obj  # the updated object: what the client is answered with (deleteWithoutFinalizers)


def _rfc3339_in(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + seconds))
