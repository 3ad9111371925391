"""Typed operations on two values (structured-merge-diff's typed Compare, Merge and RemoveItems):
what changed between two objects, an applied configuration merged into the live object, and an
object without some of its fields and items."""

from __future__ import annotations

from typing import Any

from kube_apiserver.registry.fieldmanager import fieldpath as fp
from kube_apiserver.registry.fieldmanager.typeconv import UNTYPED_ATOMIC, Atom, ListType
from kube_apiserver.registry.fieldmanager.typed import MISSING, TypedError, item_pe, shape_of

_CONTAINERS = (dict, list)  # a tuple: `X | Y` in isinstance builds a union object on every call

# --- comparison ---------------------------------------------------------------------------------------


class Comparison:
    """Fields rhs added, modified (set on both sides, different) and removed, relative to lhs."""

    __slots__ = ("added", "modified", "removed")

    def __init__(self, added: fp.FieldSet, modified: fp.FieldSet, removed: fp.FieldSet) -> None:
        self.added = added
        self.modified = modified
        self.removed = removed

    def is_same(self) -> bool:
        return not (self.added or self.modified or self.removed)

    def exclude(self, ignored: fp.FieldSet) -> Comparison:
        if not ignored:
            return self
        return Comparison(
            fp.recursive_difference(self.added, ignored),
            fp.recursive_difference(self.modified, ignored),
            fp.recursive_difference(self.removed, ignored),
        )


def compare(lhs: Any, rhs: Any, atom: Atom) -> Comparison:
    added: fp.FieldSet = {}
    modified: fp.FieldSet = {}
    removed: fp.FieldSet = {}
    if lhs != rhs:
        _compare_children(lhs, rhs, atom, shape_of(atom, rhs if lhs is MISSING else lhs), added, modified, removed)
    return Comparison(added, modified, removed)


def _is_empty(v: Any) -> bool:
    return not v or not isinstance(v, _CONTAINERS)


def _leaf(lhs: Any, rhs: Any, pe: str, added: fp.FieldSet, modified: fp.FieldSet, removed: fp.FieldSet) -> None:
    if lhs is MISSING:
        added[pe] = {}
    elif rhs is MISSING:
        removed[pe] = {}
    elif lhs != rhs or type(lhs) is not type(rhs) and (isinstance(lhs, bool) or isinstance(rhs, bool)):
        modified[pe] = {}


def _compare(
    lhs: Any, rhs: Any, atom: Atom, pe: str, added: fp.FieldSet, modified: fp.FieldSet, removed: fp.FieldSet
) -> None:
    if lhs is MISSING:
        added[pe] = _one_sided(rhs, atom)
        return
    if rhs is MISSING:
        removed[pe] = _one_sided(lhs, atom)
        return
    if lhs == rhs and type(lhs) is type(rhs):
        return
    shape = shape_of(atom, lhs)
    if lhs is not MISSING and rhs is not MISSING and shape_of(atom, rhs) != shape:
        modified[pe] = {}  # a different kind of value in an untyped field: one leaf changed
        return
    if shape == "m":
        m = atom.map
        assert m is not None
        if m.atomic or _is_empty(lhs) and _is_empty(rhs):
            _leaf(lhs, rhs, pe, added, modified, removed)
            return
    elif shape == "l":
        lt = atom.list
        assert lt is not None
        if lt.atomic or _is_empty(lhs) and _is_empty(rhs):
            _leaf(lhs, rhs, pe, added, modified, removed)
            return
    else:
        _leaf(lhs, rhs, pe, added, modified, removed)
        return
    ca: fp.FieldSet = {}
    cm: fp.FieldSet = {}
    cr: fp.FieldSet = {}
    _compare_children(lhs, rhs, atom, shape, ca, cm, cr)
    entry = fp._node(ca, lhs is MISSING)
    if entry is not None:
        added[pe] = entry
    if cm:
        modified[pe] = cm
    entry = fp._node(cr, rhs is MISSING)
    if entry is not None:
        removed[pe] = entry


def _one_sided(v: Any, atom: Atom) -> fp.FieldSet:
    """The entry of a value only one side has: it and everything below it (a leaf: itself)."""
    if isinstance(v, dict):
        m = atom.map
        if m is None or m.atomic or not v:
            return {}
        out: fp.FieldSet = {fp.MEMBER: {}}
        fields, elem = m.fields, m.elem or UNTYPED_ATOMIC
        for k, child in v.items():
            out["f:" + k] = _one_sided(child, fields.get(k) or elem) if isinstance(child, _CONTAINERS) else {}
        return out
    if isinstance(v, list):
        lt = atom.list
        if lt is None or lt.atomic or not v:
            return {}
        out = {fp.MEMBER: {}}
        for pe, item in _index(lt, v).items():
            out[pe] = _one_sided(item, lt.elem)
        return out if len(out) > 1 else {}
    return {}


def _compare_children(
    lhs: Any, rhs: Any, atom: Atom, shape: str, added: fp.FieldSet, modified: fp.FieldSet, removed: fp.FieldSet
) -> None:
    if shape == "m":
        m = atom.map
        assert m is not None
        lmap = lhs if isinstance(lhs, dict) else {}
        rmap = rhs if isinstance(rhs, dict) else {}
        fields, elem = m.fields, m.elem or UNTYPED_ATOMIC
        for k, lv in lmap.items():
            rv = rmap.get(k, MISSING)
            if rv is not MISSING and lv == rv and type(lv) is type(rv):
                continue
            _compare(lv, rv, fields.get(k) or elem, "f:" + k, added, modified, removed)
        for k, rv in rmap.items():
            if k not in lmap:
                _compare(MISSING, rv, fields.get(k) or elem, "f:" + k, added, modified, removed)
    elif shape == "l":
        lt = atom.list
        assert lt is not None
        litems = _index(lt, lhs)
        ritems = _index(lt, rhs)
        for pe, lv in litems.items():
            _compare(lv, ritems.get(pe, MISSING), lt.elem, pe, added, modified, removed)
        for pe, rv in ritems.items():
            if pe not in litems:
                _compare(MISSING, rv, lt.elem, pe, added, modified, removed)


def changed_fields(lhs: Any, rhs: Any, atom: Atom) -> fp.FieldSet:
    """fp.union(c.modified, c.added) of c = compare(lhs, rhs, atom), in one walk of rhs: what a
    manager takes when it turns lhs into rhs with nobody else owning anything (a create, whose lhs
    is the kind's empty object). The removed fields need no subtracting: they are where rhs has
    nothing, so the union never holds them."""
    out: fp.FieldSet = {}
    if lhs != rhs:
        _changed_children(lhs, rhs, atom, shape_of(atom, rhs if lhs is MISSING else lhs), out)
    return out


def _changed(lhs: Any, rhs: Any, atom: Atom, pe: str, out: fp.FieldSet) -> None:
    """_compare's added and modified entries for pe, into one set (both sides present, unequal)."""
    shape = shape_of(atom, lhs)
    if shape_of(atom, rhs) != shape:
        out[pe] = {}
        return
    if shape == "m":
        m = atom.map
        assert m is not None
        leaf = m.atomic or _is_empty(lhs) and _is_empty(rhs)
    elif shape == "l":
        lt = atom.list
        assert lt is not None
        leaf = lt.atomic or _is_empty(lhs) and _is_empty(rhs)
    else:
        leaf = True
    if leaf:
        if lhs != rhs or type(lhs) is not type(rhs) and (isinstance(lhs, bool) or isinstance(rhs, bool)):
            out[pe] = {}
        return
    children: fp.FieldSet = {}
    _changed_children(lhs, rhs, atom, shape, children)
    if children:
        out[pe] = children


def _changed_children(lhs: Any, rhs: Any, atom: Atom, shape: str, out: fp.FieldSet) -> None:
    if shape == "m":
        m = atom.map
        assert m is not None
        lmap = lhs if isinstance(lhs, dict) else {}
        fields, elem = m.fields, m.elem or UNTYPED_ATOMIC
        for k, rv in (rhs if isinstance(rhs, dict) else {}).items():
            lv = lmap.get(k, MISSING)
            if lv is MISSING:
                out["f:" + k] = _one_sided(rv, fields.get(k) or elem) if isinstance(rv, _CONTAINERS) else {}
            elif lv != rv or type(lv) is not type(rv):
                _changed(lv, rv, fields.get(k) or elem, "f:" + k, out)
    elif shape == "l":
        lt = atom.list
        assert lt is not None
        litems = _index(lt, lhs)
        for pe, rv in _index(lt, rhs).items():
            lv = litems.get(pe, MISSING)
            if lv is MISSING:
                out[pe] = _one_sided(rv, lt.elem)
            elif lv != rv or type(lv) is not type(rv):
                _changed(lv, rv, lt.elem, pe, out)


def _index(lt: ListType, v: Any) -> dict[str, Any]:
    """An associative list's items by path element; repeated and unkeyable items are skipped."""
    out: dict[str, Any] = {}
    if not isinstance(v, list):
        return out
    for item in v:
        try:
            pe = item_pe(lt, item)
        except ValueError:
            continue
        if pe not in out:
            out[pe] = item
    return out


# --- the apply merge -----------------------------------------------------------------------------------


def merge(lhs: Any, rhs: Any, atom: Atom) -> Any:
    """The configuration rhs applied on lhs (TypedValue.Merge): rhs wins on leaves, maps and
    associative lists merge item by item, items ordered as rhs where it changes the list."""
    if rhs is MISSING:
        return lhs
    if lhs is MISSING:
        return rhs
    shape = shape_of(atom, lhs)
    if shape_of(atom, rhs) != shape and rhs is not None:
        return rhs
    if shape == "m":
        m = atom.map
        assert m is not None
        if m.atomic or _is_empty(lhs) and _is_empty(rhs):
            return rhs
        lmap = lhs if isinstance(lhs, dict) else {}
        rmap = rhs if isinstance(rhs, dict) else {}
        out: dict[str, Any] = {}
        fields, elem = m.fields, m.elem or UNTYPED_ATOMIC
        for k, lv in lmap.items():
            rv = rmap.get(k, MISSING)
            out[k] = lv if rv is MISSING else merge(lv, rv, fields.get(k) or elem)
        for k, rv in rmap.items():
            if k not in out:
                out[k] = rv
        return out
    if shape == "l":
        lt = atom.list
        assert lt is not None
        if lt.atomic or _is_empty(lhs) and _is_empty(rhs):
            return rhs
        return _merge_list(lt, lhs if isinstance(lhs, list) else [], rhs if isinstance(rhs, list) else [])
    return rhs


def _strict_index(lt: ListType, items: list[Any]) -> tuple[list[str], dict[str, Any]]:
    """The applied configuration's items by path element; TypedError for repeated or unkeyable ones."""
    order: list[str] = []
    seen: dict[str, Any] = {}
    errs: list[tuple[str, str]] = []
    for i, item in enumerate(items):
        try:
            pe = item_pe(lt, item)
        except ValueError as e:
            errs.append(("", f"element {i}: {e}"))
            continue
        if pe in seen:
            errs.append(("", f"duplicate entries for key {fp.pe_string(pe)}"))
            continue
        seen[pe] = item
        order.append(pe)
    if errs:
        raise TypedError(errs)
    return order, seen


def _live_index(lt: ListType, items: list[Any]) -> tuple[list[str], dict[str, Any], dict[str, list[Any]]]:
    """The live object's items: as _strict_index, but repeated keys (which validation lets some
    lists have, env names for one) and unkeyable items are kept, to be written back untouched."""
    order: list[str] = []
    seen: dict[str, Any] = {}
    repeated: dict[str, list[Any]] = {}
    for i, item in enumerate(items):
        try:
            pe = item_pe(lt, item)
        except ValueError:
            pe = f"\x00{i}"  # never matches the configuration's items
        if pe in seen:
            repeated.setdefault(pe, [seen[pe]]).append(item)
            continue
        seen[pe] = item
        order.append(pe)
    return order, seen, repeated


def _merge_list(lt: ListType, lhs: list[Any], rhs: list[Any]) -> list[Any]:
    """Items of both in a merged order: lhs's order where rhs keeps it, rhs's where it moves items.
    An item the live list repeats stays repeated unless the configuration sets it."""
    rorder, robs = _strict_index(lt, rhs)
    lorder, lobs, repeated = _live_index(lt, lhs)
    shared = [pe for pe in rorder if pe in lobs]
    si = 0
    next_shared = shared[0] if shared else None
    out: list[Any] = []
    li = ri = 0
    ln, rn = len(lorder), len(rorder)
    while li < ln or ri < rn:
        if li < ln and ri < rn:
            pe = lorder[li]
            if pe == rorder[ri]:
                out.append(merge(lobs[pe], robs[pe], lt.elem))
                li += 1
                ri += 1
                si += 1
                next_shared = shared[si] if si < len(shared) else None
                continue
            if pe in robs and next_shared is not None and next_shared != pe:
                li += 1  # a shared item, but not the one to place now
                continue
        if li < ln:
            pe = lorder[li]
            if pe not in robs:
                out.extend(repeated.get(pe) or (lobs[pe],))
                li += 1
                continue
        if ri < rn:
            pe = rorder[ri]
            lv = lobs.get(pe, MISSING)
            out.append(robs[pe] if lv is MISSING else merge(lv, robs[pe], lt.elem))
            ri += 1
            if next_shared is not None and next_shared == pe:
                si += 1
                next_shared = shared[si] if si < len(shared) else None
    return out


# --- removing items ----------------------------------------------------------------------------------


def remove_items(v: Any, to_remove: fp.FieldSet, atom: Atom) -> Any:
    """v without the fields and items of to_remove; an emptied map or list becomes null."""
    if not to_remove:
        return v
    shape = shape_of(atom, v)
    if shape == "m":
        m = atom.map
        assert m is not None
        if not isinstance(v, dict) or not v or m.atomic:
            return None
        out: dict[str, Any] = {}
        fields, elem = m.fields, m.elem or UNTYPED_ATOMIC
        for k, child in v.items():
            sub = to_remove.get("f:" + k)
            if sub is None:
                out[k] = child
                continue
            if fp.is_member(sub):
                continue
            out[k] = remove_items(child, sub, fields.get(k) or elem)
        return out or None
    if shape == "l":
        lt = atom.list
        assert lt is not None
        if not isinstance(v, list) or not v or lt.atomic:
            return None
        items: list[Any] = []
        for item in v:
            try:
                pe = item_pe(lt, item)
            except ValueError:
                items.append(item)
                continue
            sub = to_remove.get(pe)
            if sub is None:
                items.append(item)
                continue
            if fp.is_member(sub):
                continue
            items.append(remove_items(item, sub, lt.elem))
        return items or None
    return v
