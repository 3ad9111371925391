"""Kubernetes' CEL environment (environment.MustBaseEnvSet for 1.33 CRD rules) on cel-expr-python.

Two environments play the parts Go's single environment plays:
- a checker environment per compilation, whose variables carry the schema's types (protobuf messages
  generated from it) and which declares every library overload: compile() type checks in it;
- one shared runtime environment with untyped variables and one implementation per runtime signature:
  a checked expression is deserialized into it and evaluated on plain JSON values (dicts and lists).

Differences from cel-go that clients may see: compile errors come from cel-cpp (same layout, wording
sometimes differs), two-variable comprehensions (all(i, v, ...), transformList...) do not parse, and
the library gaps named in library/formats.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cel_expr_python import cel
from cel_expr_python.ext import ext_bindings, ext_optional, ext_strings

from kube_apiserver.runtime.cel.ast import CheckedAST, parse_checked
from kube_apiserver.runtime.cel.library import checker_extension, runtime_extension
from kube_apiserver.runtime.cel.types import shared_pool

# k8s.io/apiserver/pkg/apis/cel/config.go
PER_CALL_LIMIT = 1_000_000
RUNTIME_CEL_COST_BUDGET = 10_000_000
MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024

# variables the runtime environment knows; the CRD rules bind oldSelf through the last two
RUNTIME_VARIABLES = ("self", "oldSelf", "__oldSelfPresent", "__oldSelfValue")


def base_extensions() -> list[cel.CelExtensionBase]:
    """The libraries every CEL environment of the server has (CRD rules, admission expressions)."""
    return [ext_strings.ExtStrings(version=2), ext_optional.ExtOptional(), ext_bindings.ExtBindings()]


def checker_env(pool: Any, variables: dict[str, cel.Type]) -> cel.Env:
    """An environment to compile in (never to evaluate: see library.Spec)."""
    return cel.NewEnv(pool, variables=variables, extensions=[*base_extensions(), checker_extension()])


@lru_cache(maxsize=1)
def runtime_env() -> cel.Env:
    variables = {name: cel.Type.DYN for name in RUNTIME_VARIABLES}
    variables["__oldSelfPresent"] = cel.Type.BOOL
    return cel.NewEnv(shared_pool(), variables=variables, extensions=[*base_extensions(), runtime_extension()])


class CompileError(Exception):
    """issues.String() of cel-go: "ERROR: <input>:1:6: ...\\n | <line>\\n | .....^"."""


class EvalError(Exception):
    """An evaluation error, worded as cel-go words it (no such key: x, division by zero, ...)."""


_STATUS = re.compile(r"^[A-Z_]+: ")
_STATUS_TAIL = re.compile(r" \[[A-Z_]+\]$")
_STRUCT_FIELD = re.compile(r"undefined field '([^']*)' not found in struct '[^']*'")


def compile_error_text(raw: str) -> str:
    text = _STATUS_TAIL.sub("", _STATUS.sub("", raw.strip()))
    return _STRUCT_FIELD.sub(r"undefined field '\1'", text)


@dataclass
class Program:
    """A checked expression ready to run in the runtime environment."""

    source: str
    checked: CheckedAST
    result_type: str
    expression: Any  # the runtime environment's Expression

    def eval(self, activation: dict[str, Any] | Any) -> Any:
        """activation: the variables as a dict, or an Activation of the runtime environment (made once for
        several programs: building it converts the values, which costs more than most evaluations)."""
        try:
            if isinstance(activation, dict):
                value = self.expression.eval(data=activation)
            else:
                value = self.expression.eval(activation)
        except RuntimeError as e:
            raise EvalError(eval_error_text(str(e))) from None
        if value.type() == _ERROR:
            raise EvalError(eval_error_text(str(value.value())))
        result = value.value()
        return value.plain_value() if isinstance(result, list | dict) else result


_ERROR = cel.Type.ERROR
_KEY = re.compile(r'Key not found in map : "?(.*?)"?$')
_INDEX = re.compile(r"index=(-?\d+) size=(\d+)")


def eval_error_text(raw: str) -> str:
    text = _STATUS_TAIL.sub("", _STATUS.sub("", raw.strip()))
    m = _KEY.search(text)
    if m:
        return f"no such key: {m.group(1)}"
    m = _INDEX.search(text)
    if m:
        return f"index out of bounds: {m.group(1)}"
    if text.startswith("No matching overloads found") or text.startswith("No matching overload"):
        return "no such overload"
    if text == "divide by zero":
        return "division by zero"
    if text == "modulus by zero":
        return "modulus by zero"
    return text


def new_activation(variables: dict[str, Any]) -> Any:
    return runtime_env().Activation(variables)


def compile_program(env: cel.Env, source: str) -> Program:
    """Type check source in env and load it into the runtime environment; CompileError if it does not
    compile."""
    try:
        checked_expr = env.compile(source)
    except RuntimeError as e:
        raise CompileError(compile_error_text(str(e))) from None
    serialized = checked_expr.serialize()
    result = checked_expr.return_type()
    runtime = runtime_env().deserialize(serialized)
    return Program(source, parse_checked(serialized), _type_name(result), runtime)


def _type_name(t: cel.Type) -> str:
    name = str(t.name())
    return name.lower() if name.isupper() else name
