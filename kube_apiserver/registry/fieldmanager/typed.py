"""Typed operations on plain JSON values (structured-merge-diff's typed package): validation of an
applied configuration, its field set, the comparison of two objects, the apply merge and the
removal of items.

Values are what JSON decodes to; MISSING stands for an absent field (distinct from null). The
walkers follow the schema: a scalar, an atomic list or map, or an empty/null container on both
sides is a leaf; granular maps and associative lists are walked item by item.
"""

from __future__ import annotations

from typing import Any

from kube_apiserver.registry.fieldmanager import fieldpath as fp
from kube_apiserver.registry.fieldmanager.typeconv import (
    BOOLEAN,
    NUMERIC,
    STRING,
    UNTYPED_ATOMIC,
    Atom,
    ListType,
)


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class TypedError(Exception):
    """Validation errors as smd reports them: "<path>: <message>", several under "errors:"."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        self.errors = errors
        super().__init__(self.text())

    def text(self) -> str:
        lines = [f"{p}: {m}" if p else m for p, m in self.errors]
        if len(lines) == 1:
            return lines[0]
        return "\n".join(["errors:", *("  " + line for line in lines)])


# --- Go's formatting of values in messages -----------------------------------------------------------


def _gofmt(v: Any) -> str:
    """fmt's %v of an unstructured value."""
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e21:
        return str(int(v))
    if isinstance(v, dict):
        return "map[" + " ".join(f"{k}:{_gofmt(v[k])}" for k in sorted(v)) + "]"
    if isinstance(v, list):
        return "[" + " ".join(_gofmt(x) for x in v) + "]"
    return str(v)


def _gotype(v: Any) -> str:
    """fmt's %T of an unstructured value."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int64"
    if isinstance(v, float):
        return "float64"
    if isinstance(v, str):
        return "string"
    if isinstance(v, dict):
        return "map[string]interface {}"
    if isinstance(v, list):
        return "[]interface {}"
    return "<nil>"


# --- shapes --------------------------------------------------------------------------------------


def _shape(atom: Atom, v: Any) -> str:
    """deduceAtom then handleAtom: the part of atom that handles v ("m", "l", "s"), or "" if none."""
    if isinstance(v, dict):
        if atom.map is not None:
            return "m"
    elif isinstance(v, list):
        if atom.list is not None:
            return "l"
    elif v is not None and v is not MISSING:
        if atom.scalar is not None:
            return "s"
    if atom.map is not None:
        return "m"
    if atom.scalar is not None:
        return "s"
    if atom.list is not None:
        return "l"
    return ""


def _scalar_error(kind: str, v: Any) -> str | None:
    if v is None:
        return None
    if kind == NUMERIC:
        if isinstance(v, int | float) and not isinstance(v, bool):
            return None
        return f"expected numeric (int or float), got {_gotype(v)}"
    if kind == STRING:
        if isinstance(v, str):
            return None
        return f"expected string, got &value.valueUnstructured{{Value:{_gofmt(v)}}}"
    if kind == BOOLEAN:
        if isinstance(v, bool):
            return None
        return f"expected boolean, got &{{{_gofmt(v)}}}"
    if isinstance(v, dict | list):
        return f"expected any scalar, got &{{{_gofmt(v)}}}"
    return None


def item_pe(lt: ListType, item: Any) -> str:
    """The path element of an associative list's item; ValueError with smd's words when it has none."""
    keys = lt.keys
    if keys:
        if item is None:
            raise ValueError("associative list with keys may not have a null element")
        if not isinstance(item, dict):
            raise ValueError("associative list with keys may not have non-map elements")
        if len(keys) == 1:
            k = keys[0]
            if k in item:
                return fp.key_pe([(k, item[k])])
        fields = []
        defaults = lt.elem.map.defaults if lt.elem.map is not None else {}
        for k in keys:
            if k in item:
                fields.append((k, item[k]))
            elif k in defaults:
                fields.append((k, defaults[k]))
            else:
                raise ValueError(
                    f'associative list with keys has an element that omits key field "{k}" (and doesn\'t have default value)'
                )
        return fp.key_pe(fields)
    if isinstance(item, dict):
        raise ValueError("associative list without keys has an element that's a map type")
    if isinstance(item, list):
        raise ValueError("not supported: associative list with lists as elements")
    if item is None:
        raise ValueError("associative list without keys has an element that's an explicit null")
    return fp.value_pe(item)


# --- validation (of an applied configuration) --------------------------------------------------------


def validate(v: Any, atom: Atom) -> None:
    """Raise TypedError when v does not conform to atom (unknown fields, wrong types, bad list items)."""
    errs: list[tuple[str, str]] = []
    _validate(v, atom, "", errs)
    if errs:
        raise TypedError(errs)


def _validate(v: Any, atom: Atom, path: str, errs: list[tuple[str, str]]) -> None:
    if v is None:
        return
    shape = _shape(atom, v)
    if shape == "m":
        if not isinstance(v, dict):
            errs.append((path, f"expected map, got &{{{_gofmt(v)}}}"))
            return
        m = atom.map
        assert m is not None
        for k, child in v.items():
            t = m.fields.get(k) or m.elem
            if t is None:
                errs.append((f"{path}.{k}", "field not declared in schema"))
                return
            _validate(child, t, f"{path}.{k}", errs)
    elif shape == "l":
        if not isinstance(v, list):
            errs.append((path, f"expected list, got &{{{_gofmt(v)}}}"))
            return
        lt = atom.list
        assert lt is not None
        seen: set[str] = set()
        for i, child in enumerate(v):
            if lt.atomic:
                sub = f"{path}[{i}]"
            else:
                try:
                    pe = item_pe(lt, child)
                except ValueError as e:
                    errs.append((path, f"element {i}: {e}"))
                    return
                if pe in seen:
                    errs.append((path, f"duplicate entries for key {fp.pe_string(pe)}"))
                seen.add(pe)
                sub = path + fp.pe_string(pe)
            _validate(child, lt.elem, sub, errs)
    elif shape == "s":
        err = _scalar_error(atom.scalar or "", v)
        if err:
            errs.append((path, err))


# --- field sets ---------------------------------------------------------------------------------------


def to_field_set(v: Any, atom: Atom) -> fp.FieldSet:
    """Every leaf field and list/map item v sets (TypedValue.ToFieldSet)."""
    return _tfs(v, atom)[1]


def _tfs(v: Any, atom: Atom) -> tuple[bool, fp.FieldSet]:
    shape = _shape(atom, v)
    if shape == "m":
        m = atom.map
        assert m is not None
        if m.atomic:
            return True, {}
        if not isinstance(v, dict):
            return False, {}
        out: fp.FieldSet = {}
        fields = m.fields
        for k, child in v.items():
            t = fields.get(k)
            declared = t is not None
            if t is None:
                t = m.elem or UNTYPED_ATOMIC
            member, below = _tfs(child, t)
            entry = fp._node(below, member or not declared)
            if entry is not None:
                out["f:" + k] = entry
        return False, out
    if shape == "l":
        lt = atom.list
        assert lt is not None
        if lt.atomic:
            return True, {}
        if not isinstance(v, list):
            return False, {}
        out = {}
        for child in v:
            try:
                pe = item_pe(lt, child)
            except ValueError:
                continue
            below = _tfs(child, lt.elem)[1]
            out[pe] = fp._node(below, True)
        return False, out
    return True, {}


def ensure_named_fields_are_members(s: fp.FieldSet, atom: Atom | None) -> fp.FieldSet:
    """s plus the struct fields that have members below them (Set.EnsureNamedFieldsAreMembers)."""
    if not s:
        return s
    out: fp.FieldSet = {}
    m = atom.map if atom is not None else None
    lt = atom.list if atom is not None else None
    for pe, child in s.items():
        if pe == fp.MEMBER or not child:
            out[pe] = child
            continue
        sub: Atom | None = None
        member = fp.MEMBER in child
        if pe.startswith("f:") and m is not None:
            name = pe[2:]
            declared = m.fields.get(name)
            if declared is not None:
                member = True
                sub = declared
            else:
                sub = m.elem
        elif pe.startswith("k:") and lt is not None:
            sub = lt.elem
        below = ensure_named_fields_are_members(fp._children(child), sub)
        out[pe] = fp._node(below, member)
    return out


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
        _compare_children(lhs, rhs, atom, _shape(atom, rhs if lhs is MISSING else lhs), added, modified, removed)
    return Comparison(added, modified, removed)


def _is_empty(v: Any) -> bool:
    return not v or not isinstance(v, dict | list)


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
    shape = _shape(atom, lhs)
    if lhs is not MISSING and rhs is not MISSING and _shape(atom, rhs) != shape:
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
            out["f:" + k] = _one_sided(child, fields.get(k) or elem) if isinstance(child, dict | list) else {}
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
    shape = _shape(atom, lhs)
    if _shape(atom, rhs) != shape and rhs is not None:
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


def _merge_list(lt: ListType, lhs: list[Any], rhs: list[Any]) -> list[Any]:
    """Items of both in a merged order: lhs's order where rhs keeps it, rhs's where it moves items."""
    rorder, robs = _strict_index(lt, rhs)
    lorder, lobs = _strict_index(lt, lhs)
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
                out.append(lobs[pe])
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
    shape = _shape(atom, v)
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
