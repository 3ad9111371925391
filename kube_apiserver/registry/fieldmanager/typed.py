"""Typed operations on one plain JSON value (structured-merge-diff's typed package): validation of
an applied configuration, its field set, and the shapes and list item keys the two-value walkers
(merge.py: compare, merge, remove) share.

Values are what JSON decodes to; MISSING stands for an absent field (distinct from null). The
walkers follow the schema: a scalar, an atomic list or map, or an empty/null container is a leaf;
granular maps and associative lists are walked item by item.
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

_CONTAINERS = (dict, list)  # a tuple: `X | Y` in isinstance builds a union object on every call
_NUMBERS = (int, float)  # a tuple: `X | Y` in isinstance builds a union object on every call


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


def shape_of(atom: Atom, v: Any) -> str:
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
        if isinstance(v, _NUMBERS) and not isinstance(v, bool):
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
    if isinstance(v, _CONTAINERS):
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
    shape = shape_of(atom, v)
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
    shape = shape_of(atom, v)
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
