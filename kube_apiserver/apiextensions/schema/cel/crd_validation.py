"""The CRD's own validation of its x-kubernetes-validations (ValidateCustomResourceDefinitionOpenAPISchema
and CELSchemaContext in apiextensions-apiserver pkg/apis/apiextensions/validation): each rule's fields,
its compilation against the node's CEL type, and its estimated cost, per rule (times how many times
the node can occur) and for the whole schema.

Field paths are those of kube's internal CRD: spec.validation.openAPIV3Schema when every version has the
same schema (kube hoists it), else spec.versions[i].schema.openAPIV3Schema."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kube_apiserver.apiextensions.schema.cel.compilation import RuleCompiler, normalize_field_path
from kube_apiserver.apiextensions.schema.cel.model import schema_decl_type
from kube_apiserver.runtime.errors import (
    GoRepr,
    StatusCause,
    field_forbidden,
    field_invalid,
    field_not_supported,
    field_required,
)

STATIC_ESTIMATED_COST_LIMIT = 10_000_000
STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000
_REASONS = ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"]
_NEWLINES = re.compile(r"[\n\r]+")
_MAX = 2**64 - 1


def cost_error_message(name: str, cost: int, limit: int) -> str:
    factor = cost / limit
    if factor > 100.0:
        text = "more than 100x"
    elif factor < 1.5:
        text = f"{factor:f}x"
    else:
        text = f"{factor:.1f}x"
    return (
        f"{name} exceeds budget by factor of {text} (try simplifying the rule, or adding maxItems, maxProperties, "
        "and maxLength where arrays, maps, and strings are declared)"
    )


def _go_string(value: Any) -> str:
    text = value if isinstance(value, str) else ""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def rule_repr(rule: dict[str, Any]) -> GoRepr:
    """The ValidationRule as Go's %#v prints it in an Invalid error."""
    reason = rule.get("reason")
    optional = rule.get("optionalOldSelf")
    reason_text = (
        "(*apiextensions.FieldValueErrorReason)(nil)"
        if reason is None
        else f"(*apiextensions.FieldValueErrorReason)({_go_string(reason)})"
    )
    optional_text = "(*bool)(nil)" if optional is None else f"(*bool)({'true' if optional else 'false'})"
    return GoRepr(
        f"apiextensions.ValidationRule{{Rule:{_go_string(rule.get('rule'))}, Message:{_go_string(rule.get('message'))}, "
        f"MessageExpression:{_go_string(rule.get('messageExpression'))}, Reason:{reason_text}, "
        f"FieldPath:{_go_string(rule.get('fieldPath'))}, OptionalOldSelf:{optional_text}}}"
    )


@dataclass
class _TotalCost:
    total: int = 0
    most_expensive: list[tuple[int, str]] = field(default_factory=list)

    def observe(self, path: str, cost: int) -> None:
        self.total = min(self.total + cost, _MAX)
        if cost < STATIC_ESTIMATED_CRD_COST_LIMIT // 100:
            return
        self.most_expensive.append((cost, path))
        self.most_expensive.sort(key=lambda c: -c[0])
        del self.most_expensive[4:]


def valid_field_path(path: str, schema: dict[str, Any]) -> bool:
    """ValidFieldPath: .a.b or ['a'] steps through properties and additionalProperties."""
    text = path.strip()
    pos, node = 0, schema
    step = re.compile(r"\.([^.\[\]]+)|\[\s*'((?:[^'\\]|\\.)*)'\s*\]")
    while pos < len(text):
        m = step.match(text, pos)
        if not m or not isinstance(node, dict):
            return False
        name = m.group(1) if m.group(1) is not None else m.group(2)
        props = node.get("properties")
        if isinstance(props, dict):
            if name not in props:
                return False
            node = props[name]
        elif isinstance(node.get("additionalProperties"), dict):
            node = node["additionalProperties"]
        else:
            return False
        pos = m.end()
    return True


def _extract_max(schema: dict[str, Any]) -> int | None:
    t = schema.get("type")
    if t == "object":
        if "additionalProperties" in schema and schema.get("additionalProperties") is not False:
            mp = schema.get("maxProperties")
            return max(mp, 0) if isinstance(mp, int) else None
        return 1
    if t == "array":
        mi = schema.get("maxItems")
        return max(mi, 0) if isinstance(mi, int) else None
    return 1


class _Walker:
    def __init__(self) -> None:
        self.causes: list[StatusCause] = []
        self.total = _TotalCost()

    def walk(self, schema: Any, path: str, cardinality: int | None, is_root: bool) -> None:
        if not isinstance(schema, dict):
            return
        rules = schema.get("x-kubernetes-validations")
        if isinstance(rules, list) and rules:
            self._rules(schema, rules, path, cardinality, is_root)
        child_card = None
        if cardinality is not None:
            factor = _extract_max(schema)
            child_card = None if factor is None else min(cardinality * factor, _MAX)
        props = schema.get("properties")
        if isinstance(props, dict):
            for name, prop in props.items():
                self.walk(
                    prop,
                    f"{path}.properties[{name}]",
                    child_card,
                    bool(isinstance(prop, dict) and prop.get("x-kubernetes-embedded-resource")),
                )
        items = schema.get("items")
        if isinstance(items, dict):
            self.walk(items, f"{path}.items", child_card, bool(items.get("x-kubernetes-embedded-resource")))
        addl = schema.get("additionalProperties")
        if isinstance(addl, dict):
            self.walk(
                addl, f"{path}.additionalProperties", child_card, bool(addl.get("x-kubernetes-embedded-resource"))
            )

    def _rules(
        self, schema: dict[str, Any], rules: list[Any], path: str, cardinality: int | None, is_root: bool
    ) -> None:
        base = f"{path}.x-kubernetes-validations"
        static: list[StatusCause] = []
        for i, rule in enumerate(rules):
            rule = rule if isinstance(rule, dict) else {}
            rp = f"{base}[{i}]"
            text = rule.get("rule") if isinstance(rule.get("rule"), str) else ""
            message = rule.get("message") if isinstance(rule.get("message"), str) else ""
            if not text.strip():
                static.append(field_required(f"{rp}.rule", "rule is not specified"))
            elif message and not message.strip():
                static.append(field_invalid(f"{rp}.message", message, "message must be non-empty if specified"))
            elif _NEWLINES.search(message.strip()):
                static.append(field_invalid(f"{rp}.message", message, "message must not contain line breaks"))
            elif _NEWLINES.search(text.strip()) and not message.strip():
                static.append(field_required(f"{rp}.message", "message must be specified if rule contains line breaks"))
            mexpr = rule.get("messageExpression")
            if isinstance(mexpr, str) and mexpr and not mexpr.strip():
                static.append(
                    field_required(f"{rp}.messageExpression", "messageExpression must be non-empty if specified")
                )
            reason = rule.get("reason")
            if reason is not None and reason not in _REASONS:
                static.append(field_not_supported(f"{rp}.reason", reason, _REASONS))
            fp = rule.get("fieldPath")
            if isinstance(fp, str) and fp:
                if not fp.strip():
                    static.append(field_invalid(f"{rp}.fieldPath", fp, "fieldPath must be non-empty if specified"))
                if "\n" in fp:
                    static.append(field_invalid(f"{rp}.fieldPath", fp, "fieldPath must not contain line breaks"))
                if not valid_field_path(fp, schema):
                    static.append(field_invalid(f"{rp}.fieldPath", fp, "fieldPath must be a valid path"))
        self.causes.extend(static)
        if static:
            return  # kube skips compilation when the schema node has errors
        decl = schema_decl_type(schema, is_root)
        if decl is None:
            self.causes.append(
                StatusCause(
                    "InternalError",
                    "Internal error: internal error: failed to construct type information "
                    "for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations",
                    base,
                )
            )
            return
        compiler = RuleCompiler(decl)
        for i, rule in enumerate(rules):
            rule = rule if isinstance(rule, dict) else {}
            rp = f"{base}[{i}]"
            fp = rule.get("fieldPath") if isinstance(rule.get("fieldPath"), str) else ""
            cr = compiler.compile_rule(rule, normalize_field_path(fp))
            card = cardinality if cardinality is not None else cr.max_cardinality
            cost = 0 if cr.max_cost == 0 else min(cr.max_cost * card, _MAX)
            if cost > STATIC_ESTIMATED_COST_LIMIT:
                self.causes.append(
                    field_forbidden(
                        f"{rp}.rule", cost_error_message("estimated rule cost", cost, STATIC_ESTIMATED_COST_LIMIT)
                    )
                )
            self.total.observe(f"{rp}.rule", cost)
            if cr.error is not None:
                kind, detail = cr.error
                if kind == "Required":
                    self.causes.append(field_required(f"{rp}.rule", detail))
                else:
                    self.causes.append(field_invalid(f"{rp}.rule", rule_repr(rule), detail))
            if cr.message_error is not None:
                self.causes.append(field_invalid(f"{rp}.messageExpression", rule_repr(rule), cr.message_error))
            elif cr.message_program is not None:
                if cr.message_max_cost > STATIC_ESTIMATED_COST_LIMIT:
                    self.causes.append(
                        field_forbidden(
                            f"{rp}.messageExpression",
                            cost_error_message(
                                "estimated messageExpression cost", cr.message_max_cost, STATIC_ESTIMATED_COST_LIMIT
                            ),
                        )
                    )
                self.total.observe(f"{rp}.messageExpression", cr.message_max_cost)
            if cr.error is None and not cr.uses_old_self and rule.get("optionalOldSelf") is not None:
                self.causes.append(
                    field_invalid(
                        f"{rp}.optionalOldSelf",
                        rule.get("optionalOldSelf"),
                        "may not be set if oldSelf is not used in rule",
                    )
                )


def validate_schema_rules(schema: Any, path: str) -> list[StatusCause]:
    """The x-kubernetes-validations errors of one openAPIV3Schema at path."""
    if not isinstance(schema, dict):
        return []
    w = _Walker()
    w.walk(schema, path, 1, True)
    if w.total.total > STATIC_ESTIMATED_CRD_COST_LIMIT:
        for _, p in w.total.most_expensive:
            w.causes.append(
                field_forbidden(
                    p, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"
                )
            )
        w.causes.append(
            field_forbidden(
                path,
                cost_error_message(
                    "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                    w.total.total,
                    STATIC_ESTIMATED_CRD_COST_LIMIT,
                ),
            )
        )
    return w.causes


def validate_crd_rules(crd: dict[str, Any]) -> list[StatusCause]:
    """Every x-kubernetes-validations error of a CRD's version schemas."""
    spec = crd.get("spec") if isinstance(crd.get("spec"), dict) else {}
    versions = [v for v in spec.get("versions") or [] if isinstance(v, dict)]
    schemas = [
        ((v.get("schema") or {}) if isinstance(v.get("schema"), dict) else {}).get("openAPIV3Schema") for v in versions
    ]
    if not any(_has_rules(s) for s in schemas):
        return []
    if schemas and all(s == schemas[0] for s in schemas):
        return validate_schema_rules(schemas[0], "spec.validation.openAPIV3Schema")
    causes: list[StatusCause] = []
    for i, s in enumerate(schemas):
        causes += validate_schema_rules(s, f"spec.versions[{i}].schema.openAPIV3Schema")
    return causes


def _has_rules(schema: Any) -> bool:
    from kube_apiserver.apiextensions.schema.cel.validation import has_rules

    return has_rules(schema)
