"""Field sets (sigs.k8s.io/structured-merge-diff fieldpath.Set), kept in their FieldsV1 form.

A set is a trie of dicts keyed by serialized path elements, exactly as managedFields stores it:
"f:<name>" a struct field or map key, "k:<json>" a list-map item by its key fields, "v:<json>" a
set item by value, "i:<n>" an atomic list's item (never produced: atomic lists are leaves). In a
node, child == {} means the element is a member with nothing below it; a non-empty child is a
member when it holds "." (MEMBER). An empty non-member child is never stored, so a set is empty
iff its dict is, and the wire form needs no conversion, only ordering (to_fields_v1).

Sets are values: once built they are never changed in place, so results share untouched subtrees
with their operands. insert() is for sets under construction only.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import orjson

from kube_apiserver.runtime.labels import go_quote

MEMBER = "."
FieldSet = dict[str, Any]
Path = tuple[str, ...]


def is_member(child: FieldSet) -> bool:
    return not child or MEMBER in child


def _children(node: FieldSet) -> FieldSet:
    """node without its own membership mark: the set of what is below it."""
    if MEMBER in node:
        return {k: v for k, v in node.items() if k != MEMBER}
    return node


def _node(children: FieldSet, member: bool) -> FieldSet | None:
    """The child entry for children plus membership; None when it would be empty."""
    if not children:
        return {} if member else None
    if member and MEMBER not in children:
        out = {MEMBER: {}}
        out.update(children)
        return out
    if not member and MEMBER in children:
        return {k: v for k, v in children.items() if k != MEMBER}
    return children


def insert(s: FieldSet, path: Path) -> None:
    """Add path to a set under construction (its parents are not made members)."""
    if not path:
        return  # nobody owns the whole object
    node = s
    for pe in path[:-1]:
        child = node.get(pe)
        if child is None:
            child = node[pe] = {}
        elif not child:
            child[MEMBER] = {}
        node = child
    pe = path[-1]
    child = node.get(pe)
    if child is None:
        node[pe] = {}
    elif child and MEMBER not in child:
        child[MEMBER] = {}


def has(s: FieldSet, path: Path) -> bool:
    node = s
    for pe in path[:-1]:
        node = node.get(pe)  # type: ignore[assignment]
        if node is None:
            return False
    child = node.get(path[-1]) if path else None
    return child is not None and is_member(child)


def with_prefix(s: FieldSet, pe: str) -> FieldSet:
    """The subset of paths below pe, without pe (Set.WithPrefix)."""
    child = s.get(pe)
    return _children(child) if child else {}


# --- set algebra (Set.Union, Difference, Intersection, RecursiveDifference) ---


def union(a: FieldSet, b: FieldSet) -> FieldSet:
    if not a or a is b:
        return b
    if not b:
        return a
    out = dict(a)
    for pe, bc in b.items():
        ac = out.get(pe)
        if ac is None:
            out[pe] = bc
        elif pe != MEMBER and ac is not bc:
            if not ac:
                out[pe] = bc if is_member(bc) else _node(bc, True)
            elif not bc:
                out[pe] = ac if MEMBER in ac else _node(ac, True)
            else:
                out[pe] = union(ac, bc)
    return out


def difference(a: FieldSet, b: FieldSet) -> FieldSet:
    """Members of a not in b: a parent minus a child is the parent, a child minus its parent stays."""
    if not a or not b:
        return a
    out: FieldSet | None = None
    for pe, bc in b.items():
        if pe == MEMBER:
            continue
        ac = a.get(pe)
        if ac is None:
            continue
        if not ac:
            new = None if is_member(bc) else ac
        elif not bc:
            new = _node(ac, False)
        else:
            new = _node(difference(_children(ac), _children(bc)), MEMBER in ac and MEMBER not in bc)
        if new is not ac:
            if out is None:
                out = dict(a)
            if new is None:
                del out[pe]
            else:
                out[pe] = new
    return a if out is None else out


def intersection(a: FieldSet, b: FieldSet) -> FieldSet:
    if not a or not b:
        return {}
    if a is b:
        return a
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    out: FieldSet = {}
    for pe, sc in small.items():
        if pe == MEMBER:
            continue
        lc = large.get(pe)
        if lc is None:
            continue
        member = is_member(sc) and is_member(lc)
        below = intersection(_children(sc), _children(lc)) if sc and lc else {}
        new = _node(below, member)
        if new is not None:
            out[pe] = new
    return out


def recursive_difference(a: FieldSet, b: FieldSet) -> FieldSet:
    """a without every member of b and everything below it."""
    if not a or not b:
        return a
    out: FieldSet | None = None
    for pe, bc in b.items():
        if pe == MEMBER:
            continue
        ac = a.get(pe)
        if ac is None:
            continue
        if is_member(bc):
            new = None
        elif not ac:
            new = ac
        else:
            new = _node(recursive_difference(_children(ac), bc), MEMBER in ac)
        if new is not ac:
            if out is None:
                out = dict(a)
            if new is None:
                del out[pe]
            else:
                out[pe] = new
    return a if out is None else out


def iterate(s: FieldSet, prefix: Path = ()) -> list[Path]:
    """Every member, as Set.Iterate lists them: a node's members first, then its children's, in
    path element order."""
    out: list[Path] = []
    keys = sorted((k for k in s if k != MEMBER), key=sort_key)
    for pe in keys:
        if is_member(s[pe]):
            out.append((*prefix, pe))
    for pe in keys:
        child = s[pe]
        if child:
            out.extend(iterate(_children(child), (*prefix, pe)))
    return out


def from_paths(paths: list[Path]) -> FieldSet:
    s: FieldSet = {}
    for p in paths:
        insert(s, p)
    return s


# --- path elements ---------------------------------------------------------------------------------


def field_pe(name: str) -> str:
    return "f:" + name


def key_pe(fields: list[tuple[str, Any]]) -> str:
    """A list-map item's element: its key fields, sorted by name, as compact JSON."""
    fields = sorted(fields, key=lambda kv: kv[0])
    return "k:" + orjson.dumps(dict(fields)).decode()


def value_pe(value: Any) -> str:
    return "v:" + orjson.dumps(value).decode()


def _value_key(v: Any) -> tuple[Any, ...]:
    """value.Compare's total order: numbers, strings, booleans, lists, maps, null."""
    if isinstance(v, bool):
        return (2, v)
    if isinstance(v, int | float):
        return (0, v)
    if isinstance(v, str):
        return (1, v)
    if isinstance(v, list):
        return (3, tuple(_value_key(x) for x in v))
    if isinstance(v, dict):
        return (4, tuple((k, _value_key(v[k])) for k in sorted(v)))
    return (5,)


@lru_cache(maxsize=65536)
def sort_key(pe: str) -> tuple[Any, ...]:
    """PathElement.Compare: field names, then keys, then values, then indexes."""
    kind, body = pe[:2], pe[2:]
    if kind == "f:":
        return (0, body)
    try:
        if kind == "k:":
            fields = orjson.loads(body)
            return (1, tuple((k, _value_key(fields[k])) for k in fields)) if isinstance(fields, dict) else (1, ())
        if kind == "v:":
            return (2, _value_key(orjson.loads(body)))
        if kind == "i:":
            return (3, int(body))
    except (orjson.JSONDecodeError, ValueError):
        pass
    return (4, pe)


def _go_value(v: Any) -> str:
    """value.ToString: strings quoted as %q, numbers and booleans as %v."""
    if isinstance(v, str):
        return go_quote(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e21:
        return str(int(v))
    if v is None:
        return "null"
    if isinstance(v, list):
        return "[" + ",".join(_go_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}={_go_value(x)}" for k, x in v.items()) + "}"
    return str(v)


def pe_string(pe: str) -> str:
    """PathElement.String(): ".name", "[name=\\"c\\"]", "[=value]", "[0]"."""
    kind, body = pe[:2], pe[2:]
    if kind == "f:":
        return "." + body
    try:
        if kind == "k:":
            fields = orjson.loads(body)
            return "[" + ",".join(f"{k}={_go_value(v)}" for k, v in fields.items()) + "]"
        if kind == "v:":
            return "[=" + _go_value(orjson.loads(body)) + "]"
        if kind == "i:":
            return "[" + body + "]"
    except (orjson.JSONDecodeError, AttributeError):
        pass
    return "{{invalid path element}}"


def path_string(path: Path) -> str:
    return "".join(pe_string(pe) for pe in path)


# --- the FieldsV1 wire form ------------------------------------------------------------------------


def to_fields_v1(s: FieldSet) -> FieldSet:
    """The set as kube serializes it: "." first, then path elements in order."""
    out: FieldSet = {}
    keys = sorted(s)
    if keys and keys[0] == MEMBER:  # "." sorts before every path element
        out[MEMBER] = {}
        del keys[0]
    if keys and keys[-1][:2] != "f:":  # "f:" sorts before "i:", "k:", "v:": all names unless the last
        keys.sort(key=sort_key)
    for pe in keys:
        child = s[pe]
        out[pe] = to_fields_v1(child) if child else {}
    return out


class FieldsV1Error(ValueError):
    pass


@lru_cache(maxsize=65536)
def _pe_error(pe: str) -> str | None:
    kind, body = pe[:2], pe[2:]
    if kind == "f:":
        return None
    if kind in ("k:", "v:"):
        try:
            value = orjson.loads(body)
        except orjson.JSONDecodeError as e:
            return f"parsing JSON: {e}"
        if kind == "k:" and not isinstance(value, dict):
            return f"expected key-value pairs but got {body}"
        return None
    if kind == "i:":
        try:
            int(body)
        except ValueError:
            return f"parsing index {body!r}"
        return None
    return f"found unexpected prefix: {pe!r}"


def _check(raw: Any) -> bool:
    """Raise FieldsV1Error if raw is not a FieldsV1 value; True when it is a set as it stands: no
    member-only node ({".": {}}), and every node in kube's order (so it can be written back as is)."""
    if not isinstance(raw, dict):
        raise FieldsV1Error("expected an object")
    as_is = True
    previous: tuple[Any, ...] | None = None
    for pe, child in raw.items():
        if pe == MEMBER:
            if child != {}:
                raise FieldsV1Error('"." must map to an empty object')
            if previous is not None:
                as_is = False
            continue
        err = _pe_error(pe)
        if err is not None:
            raise FieldsV1Error(err)
        key = sort_key(pe)
        if previous is not None and not previous < key:
            as_is = False
        previous = key
        if not _check(child) or len(child) == 1 and MEMBER in child:
            as_is = False
    return as_is


def _normalized(raw: FieldSet) -> FieldSet:
    out: FieldSet = {}
    for pe, child in raw.items():
        if pe == MEMBER:
            out[MEMBER] = {}
            continue
        sub = _normalized(child)
        out[pe] = {} if sub == {MEMBER: {}} else sub
    return out


def decode_fields_v1(raw: Any) -> tuple[FieldSet, bool]:
    """Check a FieldsV1 value and return it as a set (FieldsToSet), and whether that set is raw
    itself, already in the order kube writes; FieldsV1Error if malformed."""
    if _check(raw):
        return raw, True
    return _normalized(raw), False


def from_fields_v1(raw: Any) -> FieldSet:
    return decode_fields_v1(raw)[0]
