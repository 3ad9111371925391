"""Compilation of one schema node's x-kubernetes-validations rules (apiextensions-apiserver
pkg/apiserver/schema/cel/compilation.go): each rule and messageExpression is type checked against the
node's CEL type, its worst-case cost estimated, and whether it is a transition rule (uses oldSelf).

optionalOldSelf rules see oldSelf as optional(T). cel-expr-python cannot pass an optional value in, so
such a rule is compiled inside cel.bind(oldSelf, __oldSelfPresent ? optional.of(__oldSelfValue) :
optional.none(), <rule>), the rule on a line of its own so that error positions keep its line."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from cel_expr_python import cel

from kube_apiserver.apiextensions.schema.cel.model import DeclType, cel_types, max_cardinality, size_at
from kube_apiserver.runtime.cel.ast import Expr
from kube_apiserver.runtime.cel.cost import Est, estimate_dependence
from kube_apiserver.runtime.cel.environment import CompileError, Program, checker_env, compile_program

_OPTIONAL_PREFIX = "cel.bind(oldSelf, __oldSelfPresent ? optional.of(__oldSelfValue) : optional.none(),\n"
_LINE = re.compile(r"<input>:(\d+):")


@dataclass
class CompiledRule:
    rule: dict[str, Any]
    program: Program | None = None
    error: tuple[str, str] | None = None  # (Invalid|Required|Internal, detail)
    uses_old_self: bool = False
    optional_old_self: bool = False
    max_cost: int = 0
    max_cardinality: int = 0
    size_dependent: bool = False
    message_program: Program | None = None
    message_error: str | None = None
    message_max_cost: int = 0
    message_size_dependent: bool = False
    normalized_field_path: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def _uses_ident(e: Expr | None, name: str) -> bool:
    if e is None:
        return False
    if e.kind == "ident":
        return e.name == name
    parts = [e.operand, e.iter_range, e.accu_init, e.loop_condition, e.loop_step, e.result, *e.args, *e.keys]
    return any(_uses_ident(p, name) for p in parts)


def _shift_lines(text: str) -> str:
    return _LINE.sub(lambda m: f"<input>:{max(int(m.group(1)) - 1, 1)}:", text)


class RuleCompiler:
    """The environments of one schema node: self and oldSelf of the node's type."""

    def __init__(self, decl: DeclType) -> None:
        self.decl = decl
        pool, t = cel_types(decl)
        self.env = checker_env(pool, {"self": t, "oldSelf": t})
        self.optional_env = checker_env(pool, {"self": t, "__oldSelfPresent": cel.Type.BOOL, "__oldSelfValue": t})

    def sizes(self, used: list[bool]) -> Any:
        def sizer(path: list[str]) -> Est | None:
            if path and path[0] == "__oldSelfValue":
                path = ["oldSelf", *path[1:]]
            found = size_at(self.decl, path)
            if found is None:
                return None
            used[0] = True
            return Est(*found)

        return sizer

    def cost(self, program: Program) -> tuple[int, bool]:
        used = [False]
        est, unbounded = estimate_dependence(program.checked, self.sizes(used))
        return est.max, used[0] or unbounded

    def compile_rule(self, rule: dict[str, Any], field_path: str = "") -> CompiledRule:
        result = CompiledRule(rule, normalized_field_path=field_path)
        source = rule.get("rule") if isinstance(rule.get("rule"), str) else ""
        if not source.strip():
            return result
        optional = rule.get("optionalOldSelf") is True
        result.optional_old_self = optional
        try:
            if optional:
                program = compile_program(self.optional_env, _OPTIONAL_PREFIX + source + "\n)")
                program.source = source
            else:
                program = compile_program(self.env, source)
        except CompileError as e:
            text = _shift_lines(str(e)) if optional else str(e)
            result.error = ("Invalid", "compilation failed: " + text)
            return result
        if program.result_type != "bool":
            result.error = ("Invalid", "cel expression must evaluate to a bool")
            return result
        expr = program.checked.expr
        if optional and expr.kind == "comprehension":
            result.uses_old_self = _uses_ident(expr.result, "oldSelf")
        else:
            result.uses_old_self = _uses_ident(expr, "oldSelf")
        result.program = program
        result.max_cost, result.size_dependent = self.cost(program)
        result.max_cardinality = max_cardinality(self.decl.min_serialized_size)
        message_expression = rule.get("messageExpression")
        if isinstance(message_expression, str) and message_expression.strip():
            self._compile_message(result, message_expression)
        return result

    def _compile_message(self, result: CompiledRule, source: str) -> None:
        try:
            program = compile_program(self.env, source)
        except CompileError as e:
            result.message_error = "messageExpression compilation failed: " + str(e)
            return
        if program.result_type != "string":
            result.message_error = "messageExpression must evaluate to a string"
            return
        result.message_program = program
        result.message_max_cost, result.message_size_dependent = self.cost(program)


def compile_rules(rules: list[Any], decl: DeclType) -> list[CompiledRule]:
    compiler = RuleCompiler(decl)
    out = []
    for rule in rules:
        rule = rule if isinstance(rule, dict) else {}
        path = rule.get("fieldPath") if isinstance(rule.get("fieldPath"), str) else ""
        out.append(compiler.compile_rule(rule, normalize_field_path(path)))
    return out


def normalize_field_path(path: str) -> str:
    """A rule's fieldPath as field.Path spells it after the node's own path: ".spec.x" → "spec.x",
    "['a.b']" → "[a.b]"."""
    out = ""
    for m in re.finditer(r"\.([^.\[\]]+)|\[\s*'((?:[^'\\]|\\.)*)'\s*\]", path.strip()):
        if m.group(1) is not None:
            out += ("." if out else "") + m.group(1)
        else:
            out += f"[{m.group(2)}]"
    return out
