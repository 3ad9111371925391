"""Pruning, defaulting and OpenAPI validation of custom resources, with kube's messages."""

from __future__ import annotations

from kube_apiserver.apiextensions.schema.defaulting import default
from kube_apiserver.apiextensions.schema.prune import prune
from kube_apiserver.apiextensions.schema.validation import validate


def _msgs(obj, schema):
    return [(c.field, c.message) for c in validate(obj, schema)]


def _spec(**props):
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": props}}}


def test_type_enum_required_maximum():
    schema = _spec(size={"type": "integer", "maximum": 10}, color={"type": "string", "enum": ["red", "blue"]})
    schema["properties"]["spec"]["required"] = ["name"]
    assert _msgs({"spec": {"size": 20, "color": "pink"}}, schema) == [
        ("spec.name", "Required value"),
        ("spec.size", "Invalid value: 20: spec.size in body should be less than or equal to 10"),
        ("spec.color", 'Unsupported value: "pink": supported values: "red", "blue"'),
    ]
    assert _msgs({"spec": {"name": "n", "size": "x"}}, schema) == [
        ("spec.size", 'Invalid value: "string": spec.size in body must be of type integer: "string"')
    ]


def test_numbers_strings_arrays_objects():
    schema = _spec(
        a={"type": "number", "minimum": 1, "exclusiveMinimum": True},
        b={"type": "integer", "multipleOf": 3},
        c={"type": "string", "minLength": 3, "maxLength": 4, "pattern": "^[a-z]+$"},
        d={"type": "array", "maxItems": 1, "items": {"type": "string"}},
        e={"type": "array", "minItems": 2, "items": {"type": "string"}},
        f={"type": "object", "maxProperties": 1, "additionalProperties": {"type": "string"}},
        g={"type": "string", "format": "email"},
    )
    obj = {"spec": {"a": 1, "b": 4, "c": "AB", "d": ["x", "y"], "e": ["x"], "f": {"p": "1", "q": "2"}, "g": "no"}}
    assert _msgs(obj, schema) == [
        ("spec.a", "Invalid value: 1: spec.a in body should be greater than 1"),
        ("spec.b", "Invalid value: 4: spec.b in body should be a multiple of 3"),
        ("spec.c", 'Invalid value: "AB": spec.c in body should be at least 3 chars long'),
        ("spec.c", "Invalid value: \"AB\": spec.c in body should match '^[a-z]+$'"),
        ("spec.d", "Too many: 2: must have at most 1 items"),
        ("spec.e", 'Invalid value: []interface {}{"x"}: spec.e in body should have at least 2 items'),
        ("spec.f", "Too many: 2: must have at most 1 items"),
        ("spec.g", 'Invalid value: "no": spec.g in body must be of type email: "no"'),
    ]
    assert _msgs({"spec": {"c": "abcde"}}, schema) == [("spec.c", "Too long: may not be more than 4 bytes")]


def test_multiple_of_beyond_float64():
    """A value whose ratio to multipleOf is past float64 (or past its integers) is no multiple, as
    kube-openapi's MultipleOf says, and is a 422's cause, not an error of the server."""
    schema = _spec(r={"type": "number", "multipleOf": 0.5}, i={"type": "integer", "multipleOf": 3})
    assert _msgs({"spec": {"r": 1e308, "i": 10**400}}, schema) == [
        ("spec.r", "Invalid value: 1e+308: spec.r in body should be a multiple of 0.5"),
        ("spec.i", f"Invalid value: {10**400}: spec.i in body should be a multiple of 3"),
    ]
    assert _msgs({"spec": {"r": 2.5, "i": 9}}, schema) == []


def test_list_types_nullable_int_or_string_and_composition():
    schema = _spec(
        s={"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        m={
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "properties": {"name": {"type": "string"}}},
        },
        n={"type": "string", "nullable": True},
        i={"x-kubernetes-int-or-string": True},
        o={"type": "integer", "oneOf": [{"minimum": 5}, {"maximum": 1}]},
    )
    obj = {"spec": {"s": ["a", "a"], "m": [{"name": "x"}, {"name": "x"}], "n": None, "i": True, "o": 3}}
    assert _msgs(obj, schema) == [
        ("spec.s[1]", 'Duplicate value: "a"'),
        ("spec.m[1]", 'Duplicate value: map[string]interface {}{"name":"x"}'),
        ("spec.i", 'Invalid value: "boolean": spec.i in body must be of type integer,string: "boolean"'),
        ("spec.o", 'Invalid value: "": spec.o in body must validate one and only one schema (oneOf)'),
    ]


def test_prune_and_default():
    schema = _spec(
        keep={"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        emb={"type": "object", "x-kubernetes-embedded-resource": True, "properties": {"spec": {"type": "object"}}},
        n={"type": "integer", "default": 3},
        items={"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}},
    )
    obj = {
        "apiVersion": "x/v1",
        "kind": "X",
        "metadata": {"name": "a", "labels": {"k": "v"}},
        "top": 1,
        "spec": {
            "keep": {"anything": 1},
            "emb": {"apiVersion": "v1", "kind": "Pod", "metadata": {}, "junk": 1},
            "items": [{"a": "x", "b": 2}],
            "n": None,
        },
    }
    assert prune(obj, schema) == ["top", "spec.emb.junk", "spec.items[0].b"]
    default(obj, schema)
    assert obj["spec"]["n"] == 3
    assert obj["spec"]["keep"] == {"anything": 1}
    assert obj["metadata"] == {"name": "a", "labels": {"k": "v"}}
    assert obj["spec"]["emb"] == {"apiVersion": "v1", "kind": "Pod", "metadata": {}}
