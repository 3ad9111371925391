"""x-kubernetes-validations: compilation against the schema, cost estimates and limits, and the
errors a custom resource gets, as kube-apiserver 1.33 reports them."""

from __future__ import annotations

from kube_apiserver.apiextensions.schema.cel.compilation import compile_rules, normalize_field_path
from kube_apiserver.apiextensions.schema.cel.crd_validation import cost_error_message, validate_crd_rules
from kube_apiserver.apiextensions.schema.cel.model import escape, schema_decl_type
from kube_apiserver.apiextensions.schema.cel.validation import new_validator, validate

SPEC = {
    "type": "object",
    "properties": {
        "replicas": {"type": "integer"},
        "maxReplicas": {"type": "integer"},
        "name": {"type": "string", "maxLength": 10},
        "tags": {"type": "array", "items": {"type": "string"}},
        "port": {"x-kubernetes-int-or-string": True},
        "foo-bar": {"type": "string"},
        "ratio": {"type": "number"},
        "created": {"type": "string", "format": "date-time"},
        "timeout": {"type": "string", "format": "duration"},
    },
}


def _compile(rule: dict) -> object:
    return compile_rules([rule], schema_decl_type(SPEC, False))[0]


def test_escape():
    assert escape("foo-bar") == "foo__dash__bar"
    assert escape("namespace") == "__namespace__"
    assert escape("a.b/c") == "a__dot__b__slash__c"
    assert escape("a__b") == "a__underscores__b"
    assert escape("1abc") is None
    assert escape("a b") is None


def test_compile_errors_and_result_type():
    assert _compile({"rule": "self.nope == 1"}).error == (
        "Invalid",
        "compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^",
    )
    assert _compile({"rule": "self.replicas"}).error == ("Invalid", "cel expression must evaluate to a bool")
    assert _compile({"rule": "self.replicas > 'a'"}).error == (
        "Invalid",
        "compilation failed: ERROR: <input>:1:15: found no matching overload for '_>_' applied to '(int, string)'\n"
        " | self.replicas > 'a'\n | ..............^",
    )
    ok = _compile({"rule": "self.foo__dash__bar == 'x' && self.ratio + 0.5 > 1.0"})
    assert ok.error is None and not ok.uses_old_self
    assert _compile({"rule": "self.replicas >= oldSelf.replicas"}).uses_old_self
    msg = _compile({"rule": "true", "messageExpression": "1"})
    assert msg.message_error == "messageExpression must evaluate to a string"


def test_costs():
    # ident + select, twice, and the comparison: the numbers cel-go's estimator gives
    assert _compile({"rule": "self.replicas <= self.maxReplicas"}).max_cost == 5
    unbounded = _compile({"rule": "self.tags.all(a, self.tags.all(b, a == b))"})
    assert unbounded.max_cost > 10_000_000 * 100
    assert unbounded.max_cardinality == 3 * 1024 * 1024 // 3


def test_cost_error_message():
    assert cost_error_message("estimated rule cost", 10_500_000, 10_000_000) == (
        "estimated rule cost exceeds budget by factor of 1.050000x (try simplifying the rule, or adding maxItems, "
        "maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )
    assert "factor of 2.5x" in cost_error_message("x", 25_000_000, 10_000_000)
    assert "factor of more than 100x" in cost_error_message("x", 10**12, 10_000_000)


def test_normalize_field_path():
    assert normalize_field_path(".spec.name") == "spec.name"
    assert normalize_field_path(".labels['a.b']") == "labels[a.b]"


def _crd(spec: dict) -> dict:
    schema = {"type": "object", "properties": {"spec": spec}}
    return {"spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": schema}}]}}


def test_crd_rule_errors():
    spec = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "x-kubernetes-validations": [
            {"rule": "self.b > 1"},
            {"rule": ""},
            {"rule": "self.a > 1", "reason": "Bogus"},
            {"rule": "self.a > 1", "fieldPath": ".nope"},
            {"rule": "self.a > 1", "optionalOldSelf": True},
        ],
    }
    causes = validate_crd_rules(_crd(spec))
    assert [(c.field, c.message) for c in causes] == [
        (
            "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule",
            "Required value: rule is not specified",
        ),
        (
            "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[2].reason",
            'Unsupported value: "Bogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", '
            '"FieldValueInvalid", "FieldValueRequired"',
        ),
        (
            "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[3].fieldPath",
            'Invalid value: ".nope": fieldPath must be a valid path',
        ),
    ]
    spec["x-kubernetes-validations"] = [{"rule": "self.b > 1"}, {"rule": "self.a > 1", "optionalOldSelf": True}]
    causes = validate_crd_rules(_crd(spec))
    assert [(c.field, c.message) for c in causes] == [
        (
            "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule",
            'Invalid value: apiextensions.ValidationRule{Rule:"self.b > 1", Message:"", MessageExpression:"", '
            'Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: '
            "compilation failed: ERROR: <input>:1:5: undefined field 'b'\n | self.b > 1\n | ....^",
        ),
        (
            "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].optionalOldSelf",
            "Invalid value: true: may not be set if oldSelf is not used in rule",
        ),
    ]


def test_crd_cost_limits():
    spec = {
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"type": "string"}}},
        "x-kubernetes-validations": [{"rule": "self.items.all(a, self.items.all(b, a == b))"}],
    }
    causes = validate_crd_rules(_crd(spec))
    rule_path = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
    assert [(c.field, c.reason) for c in causes] == [
        (rule_path, "FieldValueForbidden"),
        (rule_path, "FieldValueForbidden"),
        ("spec.validation.openAPIV3Schema", "FieldValueForbidden"),
    ]
    assert causes[1].message == (
        "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"
    )
    assert causes[2].message.startswith(
        "Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget "
        "by factor of more than 100x"
    )
    # bounded sizes make the same rule cheap enough
    spec["properties"]["items"].update(maxItems=10, items={"type": "string", "maxLength": 10})
    assert validate_crd_rules(_crd(spec)) == []


ROOT = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer"},
                "max": {"type": "integer"},
                "label": {"type": "string", "maxLength": 10},
                "mode": {
                    "type": "string",
                    "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "immutable"}],
                },
                "items": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {
                        "type": "object",
                        "properties": {"name": {"type": "string"}, "v": {"type": "integer"}},
                        "x-kubernetes-validations": [{"rule": "self.v >= oldSelf.v", "message": "v may not shrink"}],
                    },
                },
            },
            "x-kubernetes-validations": [
                {"rule": "self.replicas <= self.max", "messageExpression": "'replicas above max for ' + self.label"},
                {"rule": "self.replicas != 13", "fieldPath": ".replicas", "reason": "FieldValueForbidden"},
                {"rule": "!has(oldSelf.replicas) || self.replicas >= 0", "optionalOldSelf": True},
            ],
        }
    },
    "x-kubernetes-validations": [{"rule": "self.metadata.name.startsWith('x')"}],
}


def _obj(name: str = "x1", **spec) -> dict:
    return {"apiVersion": "g/v1", "kind": "K", "metadata": {"name": name}, "spec": spec}


def test_runtime_errors():
    v = new_validator(ROOT)
    assert validate(v, _obj(replicas=1, max=2)) == []
    causes = validate(v, _obj("y", replicas=13, max=2, label="web"))
    assert [(c.reason, c.field, c.message) for c in causes] == [
        ("FieldValueInvalid", "", "Invalid value: \"object\": failed rule: self.metadata.name.startsWith('x')"),
        ("FieldValueInvalid", "spec", 'Invalid value: "object": replicas above max for web'),
        ("FieldValueForbidden", "spec.replicas", "Forbidden: failed rule: self.replicas != 13"),
    ]


def test_transition_rules_and_ratcheting():
    v = new_validator(ROOT)
    old = _obj(replicas=1, max=2, mode="a", items=[{"name": "p", "v": 5}, {"name": "q", "v": 1}])
    # create: transition rules do not run
    assert validate(v, _obj(replicas=1, max=2, mode="b", items=[{"name": "p", "v": 0}])) == []
    new = _obj(replicas=1, max=2, mode="b", items=[{"name": "q", "v": 1}, {"name": "p", "v": 4}, {"name": "r", "v": 0}])
    causes = validate(v, new, old)
    assert [(c.field, c.message) for c in causes] == [
        ("spec.mode", 'Invalid value: "string": immutable'),
        ("spec.items[1]", 'Invalid value: "object": v may not shrink'),
    ]
    # ratcheting: an unchanged invalid spec is not reported again on update
    bad_old = _obj(replicas=5, max=2, mode="a")
    bad_new = {**bad_old, "metadata": {"name": "x1", "labels": {"a": "b"}}}
    assert validate(v, bad_new, bad_old) == []
    assert len(validate(v, bad_new)) == 1


def test_runtime_budget():
    v = new_validator(ROOT)
    causes = validate(v, _obj(replicas=1, max=2), budget=3)
    assert [(c.field, c.message) for c in causes] == [
        (
            "",
            'Invalid value: "object": validation failed due to running out of cost budget, no further validation '
            "rules will be run",
        )
    ]
