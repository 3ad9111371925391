"""Structural schema checks and the published (OpenAPI v2/v3) form of a CRD schema."""

from __future__ import annotations

from kube_apiserver.apiextensions.openapi_builder import definition_name, prune_defaults
from kube_apiserver.apiextensions.openapi_schema import to_kube_openapi, wrap_refs
from kube_apiserver.apiextensions.selectable import resolve_field_path
from kube_apiserver.apiextensions.structural import is_structural, validate_structural


def _texts(schema: dict) -> list[str]:
    return [f"{c.field}: {c.message}" for c in validate_structural(schema, "s")]


def test_structural_rules():
    assert _texts({"type": "object", "properties": {"a": {"type": "string"}}}) == []
    assert _texts({"properties": {}}) == ["s.type: Required value: must not be empty at the root"]
    assert _texts({"type": "string"}) == ['s.type: Invalid value: "string": must be object at the root']
    assert _texts({"type": "object", "additionalProperties": {"type": "string"}}) == [
        "s.additionalProperties: Forbidden: must not be used at the root"
    ]
    assert _texts({"type": "object", "properties": {"l": {"type": "array", "items": {}}}}) == [
        "s.properties[l].items.type: Required value: must not be empty for specified array items"
    ]
    assert _texts({"type": "object", "properties": {"e": {"x-kubernetes-embedded-resource": True}}}) == [
        "s.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true "
        "without x-kubernetes-preserve-unknown-fields",
        "s.properties[e].type: Required value: must be object if x-kubernetes-embedded-resource is true",
    ]
    both = {"x-kubernetes-int-or-string": True, "x-kubernetes-preserve-unknown-fields": True}
    assert _texts({"type": "object", "properties": {"i": both}}) == [
        "s.properties[i].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if "
        "x-kubernetes-int-or-string is true"
    ]
    # the int-or-string patterns may carry types under anyOf
    ios = {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert _texts({"type": "object", "properties": {"i": ios}}) == []
    nested = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "allOf": [{"properties": {"a": {"default": "x"}}}],
    }
    assert _texts(nested) == ["s.allOf[0].properties[a].default: Forbidden: must be undefined to be structural"]
    meta = {
        "type": "object",
        "properties": {"metadata": {"type": "object", "properties": {"name": {"type": "string"}}}},
    }
    assert is_structural(meta)


def test_published_schema_v3_and_v2():
    schema = {
        "type": "object",
        "example": {"ignored": True},
        "properties": {
            "n": {"type": "integer", "default": 0, "maximum": 0, "nullable": False},
            "ios": {"x-kubernetes-int-or-string": True},
            "free": {
                "type": "object",
                "x-kubernetes-preserve-unknown-fields": True,
                "properties": {"a": {"type": "string"}},
            },
            "opt": {"type": "string", "nullable": True},
            "arr": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
            "pick": {"type": "object", "oneOf": [{"required": ["a"]}], "properties": {"a": {"type": "string"}}},
        },
        "required": ["n", "opt"],
    }
    v3 = to_kube_openapi(schema, v2=False)
    assert "example" not in v3
    assert v3["properties"]["n"] == {"type": "integer", "default": 0, "maximum": 0}
    assert v3["properties"]["ios"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]
    assert v3["properties"]["opt"] == {"type": "string", "nullable": True}
    v2 = to_kube_openapi(schema, v2=True)
    assert v2["required"] == ["n"]  # a nullable field is not required in v2
    assert v2["properties"]["opt"] == {}
    assert v2["properties"]["free"] == {"x-kubernetes-preserve-unknown-fields": True}
    assert v2["properties"]["ios"] == {"x-kubernetes-int-or-string": True}
    assert "oneOf" not in v2["properties"]["pick"]
    assert prune_defaults(v2)["properties"]["n"] == {"type": "integer", "maximum": 0}


def test_wrap_refs_and_names():
    assert wrap_refs({"properties": {"m": {"$ref": "#/x", "description": "d"}, "k": {"$ref": "#/y"}}}) == {
        "properties": {"m": {"allOf": [{"$ref": "#/x"}], "description": "d"}, "k": {"$ref": "#/y"}}
    }
    assert definition_name("stable.example.com", "v1", "CronTab") == "com.example.stable.v1.CronTab"


def test_resolve_field_path():
    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "a.b": {"type": "string"},
                    "m": {"type": "object", "additionalProperties": {"type": "integer"}},
                },
            }
        },
    }
    assert resolve_field_path(".spec['a.b']", schema)[::2] == ("spec.a.b", "")
    path, found, err = resolve_field_path(".spec.m.key", schema)
    assert (path, found, err) == ("spec.m[key]", {"type": "integer"}, "")
    assert resolve_field_path(".spec.x", schema)[2] == "does not refer to a valid field"
    assert resolve_field_path(".spec[0]", schema)[2] == "expected single quoted string but got 0"
    assert resolve_field_path(".spec.", schema)[2] == "unexpected end of JSON path"
