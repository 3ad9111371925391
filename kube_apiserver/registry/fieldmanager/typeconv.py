"""The typed view structured-merge-diff works on, built from the OpenAPI definitions as
kube-openapi's schemaconv.ToSchemaFromOpenAPI builds it for kube-apiserver's TypeConverter.

Each type is an Atom with up to three parts (a value picks the part of its own shape):
- scalar: "numeric" | "string" | "boolean" | "untyped" (strings with a format, Quantity,
  RawExtension, IntOrString: any scalar);
- list: element type, atomic (a leaf) or associative: a set (no keys) or a map keyed by
  x-kubernetes-list-map-keys. Without x-kubernetes-list-type, patch strategy "merge" with a merge
  key makes a list map, "merge" alone a set; anything else is atomic;
- map: declared fields (structs) and/or an element type (additionalProperties, or "deduced" for an
  object that declares nothing), granular unless x-kubernetes-map-type is atomic.

Key fields may take their schema default when an item omits them (ContainerPort.protocol "TCP").
"""

from __future__ import annotations

from functools import cache
from typing import Any

from kube_apiserver.runtime.schema.definitions import V3_REF_PREFIX, definition_name, openapi_definitions

NUMERIC, STRING, BOOLEAN, UNTYPED = "numeric", "string", "boolean", "untyped"
_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension"

# +default markers on list-map key fields that the schema file the definitions come from lost.
_KEY_DEFAULTS: dict[tuple[str, str], Any] = {
    ("io.k8s.api.core.v1.ContainerPort", "protocol"): "TCP",
    ("io.k8s.api.core.v1.ServicePort", "protocol"): "TCP",
}


class ListType:
    __slots__ = ("elem", "atomic", "keys")

    def __init__(self, elem: Atom, atomic: bool, keys: tuple[str, ...] | None) -> None:
        self.elem = elem
        self.atomic = atomic
        self.keys = keys  # None: a set (or atomic); a tuple: a list map


class MapType:
    __slots__ = ("fields", "elem", "atomic", "defaults")

    def __init__(self) -> None:
        self.fields: dict[str, Atom] = {}
        self.elem: Atom | None = None  # None: only the declared fields are allowed
        self.atomic = False
        self.defaults: dict[str, Any] = {}  # field defaults, for list-map keys


class Atom:
    __slots__ = ("scalar", "list", "map", "name")

    def __init__(self, name: str = "") -> None:
        self.scalar: str | None = None
        self.list: ListType | None = None
        self.map: MapType | None = None
        self.name = name

    def field(self, key: str) -> Atom | None:
        """The type of a map entry: a declared field's, else the element type (None: not allowed)."""
        m = self.map
        if m is None:
            return None
        t = m.fields.get(key)
        return t if t is not None else m.elem


def _untyped_atomic() -> Atom:
    a = Atom("__untyped_atomic_")
    a.scalar = UNTYPED
    a.list = ListType(a, True, None)
    m = MapType()
    m.elem, m.atomic = a, True
    a.map = m
    return a


UNTYPED_ATOMIC = _untyped_atomic()


def _deduced() -> Atom:
    a = Atom("__untyped_deduced_")
    a.scalar = UNTYPED
    a.list = ListType(UNTYPED_ATOMIC, True, None)
    m = MapType()
    m.elem = a
    a.map = m
    return a


DEDUCED = _deduced()


class _Converter:
    def __init__(self, defs: dict[str, dict[str, Any]]) -> None:
        self.defs = defs
        self.named: dict[str, Atom] = {}
        self.overridden: dict[tuple[str, bool], Atom] = {}

    def named_type(self, name: str) -> Atom:
        atom = self.named.get(name)
        if atom is not None:
            return atom
        atom = self.named[name] = Atom(name)  # registered first: definitions refer to themselves
        if name == _QUANTITY:
            atom.scalar = UNTYPED
            return atom
        if name == _RAW_EXTENSION:
            # any JSON value, owned whole (__untyped_atomic_: ControllerRevision.data holds an object)
            atom.scalar, atom.list, atom.map = UNTYPED_ATOMIC.scalar, UNTYPED_ATOMIC.list, UNTYPED_ATOMIC.map
            return atom
        schema = self.defs.get(name)
        if not isinstance(schema, dict):
            atom.scalar, atom.list, atom.map = DEDUCED.scalar, DEDUCED.list, DEDUCED.map
            return atom
        self.fill(atom, schema, name)
        return atom

    def ref(self, schema: dict[str, Any]) -> str | None:
        ref = schema.get("$ref")
        if not isinstance(ref, str):
            all_of = schema.get("allOf")
            if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
                ref = all_of[0].get("$ref")
        if isinstance(ref, str):
            return ref.rsplit("/", 1)[-1]
        return None

    def type_of(self, schema: Any, owner: str) -> Atom:
        """A field's (or items' / additionalProperties') type: a reference or an inline schema."""
        if not isinstance(schema, dict):
            return DEDUCED
        name = self.ref(schema)
        if name is not None:
            atom = self.named_type(name)
            map_type = schema.get("x-kubernetes-map-type")
            if map_type in ("atomic", "granular") and atom.map is not None:
                return self.with_map_relationship(atom, map_type == "atomic")
            return atom
        atom = Atom()
        self.fill(atom, schema, owner)
        return atom

    def with_map_relationship(self, atom: Atom, atomic: bool) -> Atom:
        assert atom.map is not None
        if atom.map.atomic == atomic:
            return atom
        key = (atom.name, atomic)
        out = self.overridden.get(key)
        if out is None:
            out = self.overridden[key] = Atom(atom.name)
            m = MapType()
            m.fields, m.elem, m.defaults, m.atomic = atom.map.fields, atom.map.elem, atom.map.defaults, atomic
            out.scalar, out.list, out.map = atom.scalar, atom.list, m
        return out

    def fill(self, atom: Atom, schema: dict[str, Any], owner: str) -> None:
        typ = schema.get("type")
        if isinstance(typ, list):
            typ = typ[0] if typ else ""
        typ = typ or ""
        if typ == "":
            atom.scalar = UNTYPED
            atom.list = self.list_of(schema, owner)
            atom.map = self.map_of(schema, owner)
        elif typ == "object":
            atom.map = self.map_of(schema, owner)
        elif typ == "array":
            atom.list = self.list_of(schema, owner)
        elif typ in ("integer", "number"):
            atom.scalar = NUMERIC
        elif typ == "boolean":
            atom.scalar = BOOLEAN
        elif typ == "string":
            atom.scalar = STRING if schema.get("format", "") in ("", "byte") else UNTYPED
        else:
            atom.scalar = UNTYPED

    def map_of(self, schema: dict[str, Any], owner: str) -> MapType:
        m = MapType()
        props = schema.get("properties")
        if isinstance(props, dict):
            for name, sub in props.items():
                m.fields[name] = self.type_of(sub, owner)
                default = _KEY_DEFAULTS.get((owner, name))
                if default is None and isinstance(sub, dict) and "default" in sub:
                    default = sub["default"]
                if default is not None:
                    m.defaults[name] = default
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            m.elem = self.type_of(extra, owner)
        elif extra is True or schema.get("x-kubernetes-preserve-unknown-fields") is True or not m.fields:
            m.elem = DEDUCED
        m.atomic = schema.get("x-kubernetes-map-type") == "atomic"
        return m

    def list_of(self, schema: dict[str, Any], owner: str) -> ListType:
        items = schema.get("items")
        elem = self.type_of(items, owner) if isinstance(items, dict) else UNTYPED_ATOMIC
        list_type = schema.get("x-kubernetes-list-type")
        if list_type == "set":
            return ListType(elem, False, None)
        if list_type == "map":
            keys = schema.get("x-kubernetes-list-map-keys")
            names = tuple(k for k in keys if isinstance(k, str)) if isinstance(keys, list) else ()
            return ListType(elem, False, names)
        if list_type is None:
            strategy = schema.get("x-kubernetes-patch-strategy")
            if strategy in ("merge", "merge,retainKeys"):
                key = schema.get("x-kubernetes-patch-merge-key")
                return ListType(elem, False, (key,) if isinstance(key, str) else None)
        return ListType(elem, True, None)


@cache
def _converter() -> _Converter:
    return _Converter(openapi_definitions(V3_REF_PREFIX))


def atom_for_definition(name: str) -> Atom:
    return _converter().named_type(name)


_OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

# Kinds served from a CustomResourceDefinition: their version's openAPIV3Schema, converted.
_CUSTOM: dict[tuple[str, str, str], Atom] = {}


def register_kind_schema(group: str, version: str, kind: str, schema: dict[str, Any] | None) -> None:
    """Type a custom resource version by its schema (none: deduced, as for schemaless CRDs); its
    metadata is always ObjectMeta, apiVersion and kind strings, as kube's CRD type converter does."""
    converter = _converter()
    atom = Atom(f"{group}/{version}, Kind={kind}")
    if isinstance(schema, dict) and schema:
        converter.fill(atom, schema, kind)
    if atom.map is None:
        atom.scalar, atom.list, atom.map = None, None, MapType()
        atom.map.elem = DEDUCED
    atom.map.fields["metadata"] = converter.named_type(_OBJECT_META)
    for name in ("apiVersion", "kind"):
        string = Atom()
        string.scalar = STRING
        atom.map.fields[name] = string
    _CUSTOM[(group, version, kind)] = atom


def unregister_kind_schema(group: str, version: str, kind: str) -> None:
    _CUSTOM.pop((group, version, kind), None)


def atom_for_kind(group: str, version: str, kind: str) -> Atom | None:
    """The type of a kind: a custom resource's registered schema, else the built-in definition's;
    None when neither knows it."""
    custom = _CUSTOM.get((group, version, kind))
    return custom if custom is not None else _builtin_atom_for_kind(group, version, kind)


@cache
def _builtin_atom_for_kind(group: str, version: str, kind: str) -> Atom | None:
    name = definition_name(group, version, kind)
    if name is None:
        return None
    return atom_for_definition(name)
