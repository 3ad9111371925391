"""Evaluation of x-kubernetes-validations on a custom resource (apiextensions-apiserver
pkg/apiserver/schema/cel/validation.go): a Validator tree parallel to the schema holds each node's
compiled rules; validate() walks the object with its old version, runs the rules of every non-null
node, and reports kube's field errors, within the per-request runtime cost budget.

Transition rules (those using oldSelf) run only when the node has a correlated old value (same
property, same map key, same x-kubernetes-list-type=map key), unless optionalOldSelf. Ratcheting
(CRDValidationRatcheting, on in 1.33): on update, a failing rule that does not use oldSelf is not
reported when its node (or the nearest correlatable ancestor) is unchanged.

Runtime cost: cel-expr-python counts no cost, so a rule's cost is its static estimate, with the sizes
of the data at hand in place of the schema's bounds when the estimate depends on sizes: never less
than what cel-go would count, and the same budget and per-call limit apply to it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kube_apiserver.apiextensions.schema.cel.compilation import CompiledRule, compile_rules
from kube_apiserver.apiextensions.schema.cel.model import DeclType, schema_decl_type, to_cel
from kube_apiserver.runtime.cel.cost import Est, estimate
from kube_apiserver.runtime.cel.environment import (
    MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES,
    PER_CALL_LIMIT,
    RUNTIME_CEL_COST_BUDGET,
    EvalError,
    Program,
    new_activation,
)
from kube_apiserver.runtime.errors import (
    StatusCause,
    field_duplicate,
    field_forbidden,
    field_internal,
    field_invalid,
    field_required,
)

OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"


class _Budget:
    def __init__(self, remaining: int) -> None:
        self.remaining = remaining
        self.exhausted = False


@dataclass
class Validator:
    schema: dict[str, Any]
    decl: DeclType | None
    rules: list[CompiledRule] = field(default_factory=list)
    properties: dict[str, Validator] = field(default_factory=dict)
    items: Validator | None = None
    additional: Validator | None = None
    uses_old_self: bool = False

    @property
    def type_name(self) -> str:
        t = self.schema.get("type")
        return t if isinstance(t, str) else ""


def has_rules(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    if schema.get("x-kubernetes-validations"):
        return True
    props = schema.get("properties")
    if isinstance(props, dict) and any(has_rules(p) for p in props.values()):
        return True
    return has_rules(schema.get("items")) or has_rules(schema.get("additionalProperties"))


def new_validator(schema: dict[str, Any]) -> Validator | None:
    """The validator of a version's root schema, None when it has no rules."""
    if not has_rules(schema):
        return None
    return _build(schema, schema_decl_type(schema, True))


def _build(schema: dict[str, Any], decl: DeclType | None) -> Validator | None:
    if not has_rules(schema):
        return None
    v = Validator(schema, decl)
    rules = schema.get("x-kubernetes-validations")
    if isinstance(rules, list) and rules and decl is not None:
        v.rules = compile_rules(rules, decl)
        v.uses_old_self = any(r.uses_old_self for r in v.rules)
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, prop in props.items():
            ft = _field_type(decl, name, prop)
            child = _build(prop, ft) if isinstance(prop, dict) else None
            if child is not None:
                v.properties[name] = child
    items = schema.get("items")
    if isinstance(items, dict):
        v.items = _build(items, decl.elem if decl is not None and decl.kind == "list" else _own(items))
    addl = schema.get("additionalProperties")
    if isinstance(addl, dict):
        v.additional = _build(addl, decl.elem if decl is not None and decl.kind == "map" else _own(addl))
    return v


def _own(schema: dict[str, Any]) -> DeclType | None:
    return schema_decl_type(schema, bool(schema.get("x-kubernetes-embedded-resource")))


def _field_type(decl: DeclType | None, name: str, prop: Any) -> DeclType | None:
    if decl is not None and decl.kind == "object":
        for _, (orig, ft) in decl.fields.items():
            if orig == name:
                return ft
    return _own(prop) if isinstance(prop, dict) else None


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def validate(
    validator: Validator | None, obj: Any, old: Any = None, budget: int = RUNTIME_CEL_COST_BUDGET
) -> list[StatusCause]:
    """Every rule error of obj (old: the stored object on update)."""
    if validator is None:
        return []
    causes: list[StatusCause] = []
    _validate(validator, "", obj, old, old is not None, old is not None and obj == old, causes, _Budget(budget))
    return causes


def _validate(
    v: Validator, path: str, obj: Any, old: Any, correlated: bool, unchanged: bool,
    causes: list[StatusCause], budget: _Budget,
) -> None:  # fmt: skip
    if obj is None or budget.exhausted:
        return
    if correlated:
        unchanged = obj == old
    if v.rules:
        _run_rules(v, path, obj, old if correlated else None, unchanged, causes, budget)
        if budget.exhausted:
            return
    if isinstance(obj, dict):
        old_map = old if correlated and isinstance(old, dict) else None
        for key, value in obj.items():
            child = v.properties.get(key)
            sub = child or v.additional
            if sub is None:
                continue
            child_path = _join(path, key) if child is not None else f"{path}[{key}]"
            has_old = old_map is not None and key in old_map
            _validate(sub, child_path, value, old_map.get(key) if has_old else None, has_old, unchanged, causes, budget)
            if budget.exhausted:
                return
    elif isinstance(obj, list) and v.items is not None:
        keyed = _map_list_old(v.schema, old if correlated else None)
        for i, item in enumerate(obj):
            old_item = keyed(item) if keyed is not None else None
            _validate(v.items, f"{path}[{i}]", item, old_item, old_item is not None, unchanged, causes, budget)
            if budget.exhausted:
                return


def _map_list_old(schema: dict[str, Any], old: Any) -> Any:
    """For x-kubernetes-list-type=map, a lookup of the old item with the same keys."""
    if schema.get("x-kubernetes-list-type") != "map" or not isinstance(old, list):
        return None
    keys = [k for k in schema.get("x-kubernetes-list-map-keys") or [] if isinstance(k, str)]
    index = {}
    for item in old:
        if isinstance(item, dict):
            index.setdefault(tuple(repr(item.get(k)) for k in keys), item)

    def lookup(item: Any) -> Any:
        if not isinstance(item, dict):
            return None
        return index.get(tuple(repr(item.get(k)) for k in keys))

    return lookup


def _rule_string(rule: dict[str, Any]) -> str:
    message = rule.get("message")
    if isinstance(message, str) and message:
        return message.strip()
    return str(rule.get("rule") or "").strip()


def _runtime_cost(
    program: Program, compiled_max: int, size_dependent: bool, decl: DeclType, act: dict[str, Any]
) -> int:
    if not size_dependent:
        return compiled_max
    return estimate(program.checked, _data_sizes(decl, act), Est(0, max(_data_size(act), 1))).max


def _data_size(value: Any) -> int:
    """How big the data is: strings' lengths and collections' entries, all counted."""
    if isinstance(value, str | bytes):
        return len(value)
    if isinstance(value, dict):
        return len(value) + sum(_data_size(k) + _data_size(v) for k, v in value.items())
    if isinstance(value, list):
        return len(value) + sum(_data_size(v) for v in value)
    return 1


def _data_sizes(decl: DeclType, act: dict[str, Any]) -> Any:
    def sizer(path: list[str]) -> Est | None:
        root = path[0] if path else ""
        if root == "__oldSelfValue":
            root = "oldSelf"
        if root not in ("self", "oldSelf"):
            return None
        values = [act.get("__oldSelfValue") if path[0] == "__oldSelfValue" else act.get(root)]
        for name in path[1:]:
            nxt: list[Any] = []
            for val in values:
                if name in ("@items",) and isinstance(val, list):
                    nxt.extend(val)
                elif name == "@values" and isinstance(val, dict):
                    nxt.extend(val.values())
                elif name == "@keys" and isinstance(val, dict):
                    nxt.extend(val.keys())
                elif isinstance(val, dict) and name in val:
                    nxt.append(val[name])
            values = nxt
        top = 0
        for val in values:
            top = max(top, len(val) if isinstance(val, str | bytes | list | dict) else 1)
        return Est(0, top)

    return sizer


def _run_rules(
    v: Validator, path: str, obj: Any, old: Any, unchanged: bool, causes: list[StatusCause], budget: _Budget
) -> None:
    decl = v.decl
    if decl is None:
        return
    type_name = v.type_name or ("object" if isinstance(obj, dict) else "")
    if budget.remaining <= 0:
        causes.append(field_invalid(path, type_name, OUT_OF_BUDGET))
        budget.exhausted = True
        return
    self_value = to_cel(obj, decl)
    old_value = to_cel(old, decl) if old is not None and v.uses_old_self else None
    variables: dict[str, Any] = {"self": self_value}
    if v.uses_old_self:
        variables.update(oldSelf=old_value, __oldSelfPresent=old is not None, __oldSelfValue=old_value)
    activation = None  # one for all the node's rules, made when the first rule runs
    for compiled in v.rules:
        rule = compiled.rule
        if compiled.error is not None:
            causes.append(field_invalid(path, type_name, f"rule compile error: {compiled.error[1]}"))
            continue
        program = compiled.program
        if program is None:
            continue
        if compiled.uses_old_self and old is None and not compiled.optional_old_self:
            continue  # transition rules need a correlated old value
        act = variables
        cost = _runtime_cost(program, compiled.max_cost, compiled.size_dependent, decl, act)
        if cost > PER_CALL_LIMIT:
            if PER_CALL_LIMIT > budget.remaining:
                causes.append(field_invalid(path, type_name, OUT_OF_BUDGET))
            else:
                detail = (
                    "'operation cancelled: actual cost limit exceeded': no further validation rules will be run "
                    f"due to call cost exceeds limit for rule: {_rule_string(rule)}"
                )
                causes.append(field_invalid(path, type_name, detail))
            budget.exhausted = True
            return
        if cost > budget.remaining:
            causes.append(field_invalid(path, type_name, OUT_OF_BUDGET))
            budget.exhausted = True
            return
        budget.remaining -= cost
        if activation is None:
            activation = new_activation(variables)
        try:
            result = program.eval(activation)
        except EvalError as e:
            text = str(e)
            if text.startswith("no such overload"):
                detail = (
                    f"'{text}': call arguments did not match a supported operator, function or macro signature "
                    f"for rule: {_rule_string(rule)}"
                )
            else:
                detail = f"{text} evaluating rule: {_rule_string(rule)}"
            causes.append(field_invalid(path, type_name, detail))
            continue
        if result is True:
            continue
        error_path = path
        if compiled.normalized_field_path:
            fp = compiled.normalized_field_path
            error_path = f"{path}{fp}" if fp.startswith("[") else _join(path, fp)
        detail = _message(compiled, act, activation, decl, budget, error_path, type_name, causes)
        if detail is None:
            return
        if not compiled.uses_old_self and unchanged:
            continue  # ratcheting: kube returns this as a warning only
        causes.append(_error_for_reason(error_path, type_name, detail, rule.get("reason")))


def _message(
    compiled: CompiledRule, act: dict[str, Any], activation: Any, decl: DeclType, budget: _Budget, path: str,
    type_name: str, causes: list[StatusCause],
) -> str | None:  # fmt: skip
    """The detail of a failed rule; None when evaluating messageExpression used up the budget."""
    rule = compiled.rule
    program = compiled.message_program
    if program is not None:
        cost = _runtime_cost(program, compiled.message_max_cost, compiled.message_size_dependent, decl, act)
        if cost > budget.remaining:
            causes.append(
                field_invalid(
                    path,
                    type_name,
                    "messageExpression evaluation failed due to running out of cost budget, no further validation "
                    "rules will be run",
                )
            )
            budget.exhausted = True
            return None
        budget.remaining -= cost
        try:
            text = program.eval(activation)
        except EvalError:
            text = None
        if isinstance(text, str):
            trimmed = text.strip()
            if trimmed and len(trimmed) <= MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES and "\n" not in trimmed:
                return trimmed
    message = rule.get("message")
    if isinstance(message, str) and message:
        return message.strip()
    return f"failed rule: {_rule_string(rule)}"


def _error_for_reason(path: str, type_name: str, detail: str, reason: Any) -> StatusCause:
    if reason == "FieldValueForbidden":
        return field_forbidden(path, detail)
    if reason == "FieldValueRequired":
        return field_required(path, detail)
    if reason == "FieldValueDuplicate":
        return field_duplicate(path, type_name)
    if reason == "InternalError":
        return field_internal(path, detail)
    return field_invalid(path, type_name, detail)
