"""Patch metadata of the built-in types, compiled from the 1.33 OpenAPI definitions.

kube-apiserver looks the patch strategy and merge key of a field up in the Go struct tags
(PatchMetaFromStruct); the OpenAPI definitions carry the same tags as x-kubernetes-patch-strategy and
x-kubernetes-patch-merge-key. Each definition becomes a GoType: a struct with its JSON fields, a map,
a slice or a scalar, compiled on first use and cached, so a patch only pays for the fields it walks.
Lookups fail with the texts of the Go lookup (forked encoding/json fields.go), which reach clients.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from kube_apiserver.runtime.schema.definitions import V2_REF_PREFIX, definition_name, openapi_definitions
from kube_apiserver.runtime.strategicpatch.errors import PatchError, err_field_not_found, err_not_struct
from kube_apiserver.runtime.strategicpatch.goformat import go_v

STRUCT, MAP, SLICE = "struct", "map", "slice"


class Field:
    """One JSON field of a struct: its type and its patch tags."""

    __slots__ = ("type", "strategies", "strategy", "merge_key", "error")

    def __init__(self, go_type: GoType, strategies: list[str], merge_key: str) -> None:
        self.type = go_type
        self.strategies = strategies
        self.merge_key = merge_key
        self.error = ""
        # extractRetainKeysPatchStrategy: retainKeys only matters when computing patches, what
        # applying needs is the other strategy ("merge", "replace" or none).
        if len(strategies) == 1:
            self.strategy = "" if strategies[0] == "retainKeys" else strategies[0]
        elif len(strategies) == 2 and "retainKeys" in strategies:
            self.strategy = strategies[1] if strategies[0] == "retainKeys" else strategies[0]
        else:
            self.strategy = ""
            self.error = f"unexpected patch strategy: {go_v(strategies)}"


class GoType:
    """A Go type as strategic merge patch sees it. kind is reflect.Kind's name ("struct", "map",
    "slice", "string", "int64", ...); name is the struct's type name; elem the map/slice element."""

    __slots__ = ("kind", "name", "elem", "_schema", "_registry", "_fields", "_folded")

    def __init__(self, kind: str, name: str = "", elem: GoType | None = None) -> None:
        self.kind = kind
        self.name = name
        self.elem = elem
        self._schema: dict[str, Any] | None = None
        self._registry: Registry | None = None
        self._fields: dict[str, Field] | None = None
        self._folded: dict[str, Field] | None = None

    def fields(self) -> dict[str, Field]:
        if self._fields is None:
            assert self._registry is not None and self._schema is not None
            self._fields = self._registry.compile_fields(self._schema)
        return self._fields

    def lookup_struct(self, key: str) -> Field:
        """LookupPatchMetadataForStruct: the field of this struct a JSON key names."""
        if self.kind != STRUCT:
            raise err_not_struct(self.kind)
        fields = self.fields()
        f = fields.get(key)
        if f is None:
            # encoding/json falls back to a case-insensitive match of the field name
            if self._folded is None:
                self._folded = {}
                for name, candidate in fields.items():
                    self._folded.setdefault(name.casefold(), candidate)
            f = self._folded.get(key.casefold())
            if f is None:
                raise err_field_not_found(self.name, key)
        if f.error:
            raise PatchError(f.error)
        return f

    def lookup_slice(self, key: str) -> tuple[GoType, Field]:
        """LookupPatchMetadataForSlice: the element type of a list field and the field's tags."""
        f = self.lookup_struct(key)
        t = f.type
        if t.kind != SLICE or t.elem is None:
            raise PatchError(f"expected slice or array type, but got: {self.kind}")
        if t.elem.kind == SLICE:
            raise PatchError("unexpected slice of slice")
        return t.elem, f


def _scalar_kind(schema: dict[str, Any]) -> str:
    t = schema.get("type")
    fmt = schema.get("format", "")
    if t == "integer":
        return "int32" if fmt == "int32" else "int64"
    if t == "number":
        return "float64"
    if t == "boolean":
        return "bool"
    if t == "string" and fmt == "byte":
        return SLICE  # []byte
    return "string"


class Registry:
    """The GoTypes of one set of definitions (name -> schema, references "#/definitions/<name>")."""

    def __init__(self, definitions: dict[str, dict[str, Any]], ref_prefix: str = V2_REF_PREFIX) -> None:
        self.definitions = definitions
        self.ref_prefix = ref_prefix
        self._types: dict[str, GoType] = {}

    def named(self, name: str) -> GoType:
        """The struct type of a definition (every definition is a Go struct: Quantity, Time and
        RawExtension too, whose JSON form is not an object and which have no JSON fields)."""
        t = self._types.get(name)
        if t is None:
            t = GoType(STRUCT, name.rsplit(".", 1)[-1])
            t._schema = self.definitions.get(name) or {}
            t._registry = self
            self._types[name] = t
        return t

    def type_of(self, schema: Any) -> GoType:
        if not isinstance(schema, dict):
            return GoType("string")
        ref = schema.get("$ref")
        if not isinstance(ref, str):
            all_of = schema.get("allOf")  # the v3 form of a reference with siblings
            if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
                ref = all_of[0].get("$ref")
        if isinstance(ref, str) and ref.startswith(self.ref_prefix):
            return self.named(ref[len(self.ref_prefix) :])
        t = schema.get("type")
        if t == "array":
            return GoType(SLICE, elem=self.type_of(schema.get("items")))
        if t == "object" or "additionalProperties" in schema:
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict):
                return GoType(MAP, elem=self.type_of(extra))
            if "properties" in schema:  # an inline struct
                inline = GoType(STRUCT, "")
                inline._schema = schema
                inline._registry = self
                return inline
            return GoType(MAP, elem=GoType("interface"))
        return GoType(_scalar_kind(schema))

    def compile_fields(self, schema: dict[str, Any]) -> dict[str, Field]:
        out: dict[str, Field] = {}
        for name, prop in (schema.get("properties") or {}).items():
            if not isinstance(prop, dict):
                continue
            tag = prop.get("x-kubernetes-patch-strategy", "")
            strategies = tag.split(",") if isinstance(tag, str) else [""]
            merge_key = prop.get("x-kubernetes-patch-merge-key", "")
            out[name] = Field(self.type_of(prop), strategies, merge_key if isinstance(merge_key, str) else "")
        return out


@cache
def builtin_registry() -> Registry:
    return Registry(openapi_definitions())


@cache
def schema_for_kind(group: str, version: str, kind: str) -> GoType | None:
    """The struct type of a built-in kind, or None when it has no definition (custom resources)."""
    name = definition_name(group, version, kind)
    if name is None:
        return None
    return builtin_registry().named(name)
