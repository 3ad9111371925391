"""structured-merge-diff's merge.Updater: who owns what after an update, and the apply merge with
its conflicts and pruning.

Objects are compared in the request's version; a manager that recorded its fields in another
version is compared in that one when a converter can produce it, and left alone otherwise.
Ignored fields are those the strategy resets (status on the main resource, everything but status
on /status): they are never credited to anyone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kube_apiserver.registry.fieldmanager import fieldpath as fp
from kube_apiserver.registry.fieldmanager import merge, typed
from kube_apiserver.registry.fieldmanager.managedfields import VersionedSet
from kube_apiserver.registry.fieldmanager.typeconv import Atom

# (object, apiVersion) -> the object in that version, or None when it cannot be converted
Convert = Callable[[Any, str], Any]
# apiVersion -> the kind's type in that version
AtomFor = Callable[[str], "Atom | None"]

ManagedFields = dict[str, VersionedSet]


class Conflicts(Exception):  # noqa: N818 - merge.Conflicts
    """Fields other managers own that an apply would change: (manager identifier, path) pairs."""

    def __init__(self, conflicts: list[tuple[str, fp.Path]]) -> None:
        super().__init__(f"{len(conflicts)} conflicts")
        self.conflicts = conflicts

    @staticmethod
    def from_managers(sets: ManagedFields) -> Conflicts:
        return Conflicts([(manager, path) for manager, vs in sets.items() for path in fp.iterate(vs.set)])


class Updater:
    def __init__(
        self,
        atom_for: AtomFor,
        ignored: dict[str, fp.FieldSet] | None = None,
        convert: Convert | None = None,
    ) -> None:
        self.atom_for = atom_for
        self.ignored = ignored or {}
        self.convert = convert

    def _compare_at(self, old: Any, new: Any, version: str) -> merge.Comparison | None:
        atom = self.atom_for(version)
        if atom is None:
            return None
        return merge.compare(old, new, atom).exclude(self.ignored.get(version, {}))

    def _converted_compare(self, old: Any, new: Any, version: str) -> merge.Comparison | None:
        if self.convert is None:
            return None
        old_v, new_v = self.convert(old, version), self.convert(new, version)
        if old_v is None or new_v is None:
            return None
        return self._compare_at(old_v, new_v, version)

    def _update(
        self, old: Any, new: Any, version: str, managers: ManagedFields, workflow: str, force: bool
    ) -> tuple[ManagedFields, merge.Comparison]:
        compare = self._compare_at(old, new, version)
        if compare is None:
            return managers, merge.Comparison({}, {}, {})
        versions: dict[str, merge.Comparison | None] = {version: compare}
        changed: dict[str, fp.FieldSet] = {}
        conflicts: ManagedFields = {}
        removed: dict[str, fp.FieldSet] = {}
        for manager, vs in managers.items():
            if manager == workflow:
                continue
            if vs.api_version not in versions:
                versions[vs.api_version] = self._converted_compare(old, new, vs.api_version)
            cmp = versions[vs.api_version]
            if cmp is None:
                continue  # recorded in a version we cannot compare in: left as it is
            touched = changed.get(vs.api_version)
            if touched is None:
                touched = changed[vs.api_version] = fp.union(cmp.modified, cmp.added)
            conflict = fp.intersection(vs.set, touched)
            if conflict:
                conflicts[manager] = VersionedSet(conflict, vs.api_version, False)
            if cmp.removed:
                removed[manager] = cmp.removed
        if not force and conflicts:
            raise Conflicts.from_managers(conflicts)
        for manager, c in conflicts.items():
            vs = managers[manager]
            managers[manager] = VersionedSet(fp.difference(vs.set, c.set), vs.api_version, vs.applied)
        for manager, r in removed.items():
            vs = managers[manager]
            managers[manager] = VersionedSet(fp.difference(vs.set, r), vs.api_version, vs.applied)
        for manager in [m for m, vs in managers.items() if not vs.set]:
            del managers[manager]
        return managers, compare

    def update(self, live: Any, new: Any, version: str, managers: ManagedFields, manager: str) -> ManagedFields:
        """After a create, update or patch: the manager takes what it changed, others lose it."""
        managers, compare = self._update(live, new, version, dict(managers), manager, True)
        prev = managers.get(manager)
        s = prev.set if prev is not None else {}
        s = fp.difference(fp.union(fp.union(s, compare.modified), compare.added), compare.removed)
        s = fp.recursive_difference(s, self.ignored.get(version, {}))
        if s:
            managers[manager] = VersionedSet(s, version, False)
        else:
            managers.pop(manager, None)
        return managers

    def apply(
        self, live: Any, config: Any, version: str, managers: ManagedFields, manager: str, force: bool
    ) -> tuple[Any, ManagedFields]:
        """Merge config into live; the applier owns exactly what config sets. Returns the new
        object (None when nothing changed) and the managers; Conflicts unless forced."""
        atom = self.atom_for(version)
        if atom is None:
            raise typed.TypedError([("", f"no schema for {version}")])
        managers = dict(managers)
        new = merge.merge(live, config, atom)
        last = managers.get(manager)
        applied = fp.recursive_difference(typed.to_field_set(config, atom), self.ignored.get(version, {}))
        managers[manager] = VersionedSet(applied, version, True)
        new = self._prune(new, managers, manager, last, atom)
        managers, _ = self._update(live, new, version, managers, manager, force)
        if new == live:
            new = None
        return new, managers

    # --- pruning: what the applier applied last time and dropped now goes, unless someone owns it ---

    def _prune(self, merged: Any, managers: ManagedFields, applier: str, last: VersionedSet | None, atom: Atom) -> Any:
        if last is None or not last.set:
            return merged
        if not fp.difference(last.set, managers[applier].set):
            return merged  # everything applied before is applied again: nothing to take away
        if last.api_version != managers[applier].api_version:
            return merged
        enf = typed.ensure_named_fields_are_members
        last_set = enf(last.set, atom)
        pruned = merge.remove_items(merged, last_set, atom)
        owned: fp.FieldSet = {}
        for vs in managers.values():
            if vs.api_version == last.api_version:
                owned = fp.union(owned, vs.set)
        merged_set = enf(typed.to_field_set(merged, atom), atom)
        pruned_set = enf(typed.to_field_set(pruned, atom), atom)
        drop = fp.difference(merged_set, fp.union(pruned_set, enf(owned, atom)))
        pruned = merge.remove_items(merged, drop, atom)
        pruned_set = enf(typed.to_field_set(pruned, atom), atom)
        out = merge.remove_items(merged, fp.intersection(fp.difference(merged_set, pruned_set), last_set), atom)
        return out if isinstance(out, dict) else {}
