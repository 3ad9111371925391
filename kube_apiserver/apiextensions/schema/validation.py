"""OpenAPI v3 value validation of custom resources (apiextensions-apiserver/pkg/apiserver/validation
over kube-openapi's validator), with kube's field errors: a type error is a TypeInvalid naming the
JSON type found, enum a NotSupported, required a Required, maxLength TooLong, maxItems and
maxProperties TooMany, everything else an Invalid carrying kube-openapi's message
(`spec.size in body should be less than or equal to 10`)."""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

from kube_apiserver.apiextensions.schema.formats import check_format
from kube_apiserver.runtime.errors import (
    GoRepr,
    StatusCause,
    field_duplicate,
    field_invalid,
    field_not_supported,
    field_required,
    field_too_long,
    field_too_many,
)


def validate(obj: Any, schema: dict[str, Any], path: str = "") -> list[StatusCause]:
    """Every violation of schema by obj, in kube's order (the value's own checks, then its children)."""
    causes: list[StatusCause] = []
    _validate(obj, schema, path, causes, root=not path)
    return causes


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def json_type(value: Any) -> str:
    """The JSON type of a decoded value as kube-openapi names it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def go_number(value: float | int) -> str:
    """A number as Go's %v prints a float64 (10, 1.5, 1e+21)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if math.isfinite(value) and value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mant, _, exp = text.partition("e")
        sign = "-" if exp.startswith("-") else "+"
        exp = exp.lstrip("+-").rjust(2, "0")
        return f"{mant}e{sign}{exp}"
    return text


def _type_invalid(path: str, value: Any, detail: str) -> StatusCause:
    return StatusCause("FieldValueTypeInvalid", f'Invalid value: "{value}": {detail}', path)


def _name(path: str) -> str:
    # kube-openapi names the root value by its empty path ("" in body ...)
    return path


@lru_cache(maxsize=512)
def _regex(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:
        return None


def _type_ok(value: Any, type_: str) -> bool:
    if type_ == "object":
        return isinstance(value, dict)
    if type_ == "array":
        return isinstance(value, list)
    if type_ == "string":
        return isinstance(value, str)
    if type_ == "integer":
        return (
            isinstance(value, int) and not isinstance(value, bool) or (isinstance(value, float) and value.is_integer())
        )
    if type_ == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if type_ == "boolean":
        return isinstance(value, bool)
    return True


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _go_value(value: Any) -> str:
    """A decoded JSON value as Go's %#v prints an interface{} holding it."""
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "interface {}(nil)"
    if isinstance(value, int | float):
        return go_number(value)
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(_go_value(v) for v in value) + "}"
    inner = ", ".join(f'"{k}":{_go_value(v)}' for k, v in sorted(value.items()))
    return "map[string]interface {}{" + inner + "}"


def _validate(value: Any, schema: dict[str, Any], path: str, causes: list[StatusCause], root: bool = False) -> None:
    if not isinstance(schema, dict):
        return
    name = _name(path)
    if value is None:
        if schema.get("nullable") or schema.get("x-kubernetes-preserve-unknown-fields") and not schema.get("type"):
            return
        type_ = schema.get("type")
        if type_:
            causes.append(_type_invalid(path, "null", f'{name} in body must be of type {type_}: "null"'))
        return
    if schema.get("x-kubernetes-int-or-string"):
        if not (isinstance(value, str) or isinstance(value, int) and not isinstance(value, bool)):
            found = json_type(value)
            causes.append(_type_invalid(path, found, f'{name} in body must be of type integer,string: "{found}"'))
            return
    else:
        type_ = schema.get("type")
        if isinstance(type_, str) and type_ and not _type_ok(value, type_):
            found = json_type(value)
            causes.append(_type_invalid(path, found, f'{name} in body must be of type {type_}: "{found}"'))
            return
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and not any(_equal(value, e) for e in enum):
        shown = value if isinstance(value, str) else GoRepr(_go_value(value))
        causes.append(field_not_supported(path, shown, [e if isinstance(e, str) else _go_value(e) for e in enum]))
    if isinstance(value, str):
        _validate_string(value, schema, path, causes)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        _validate_number(value, schema, path, causes)
    elif isinstance(value, list):
        _validate_array(value, schema, path, causes)
    elif isinstance(value, dict):
        _validate_object(value, schema, path, causes, root)
    _validate_composition(value, schema, path, causes)


def _validate_string(value: str, schema: dict[str, Any], path: str, causes: list[StatusCause]) -> None:
    max_len = schema.get("maxLength")
    if isinstance(max_len, int) and len(value) > max_len:
        causes.append(field_too_long(path, value, max_len))
    min_len = schema.get("minLength")
    if isinstance(min_len, int) and len(value) < min_len:
        causes.append(field_invalid(path, value, f"{path} in body should be at least {min_len} chars long"))
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        rx = _regex(pattern)
        if rx is not None and not rx.search(value):
            causes.append(field_invalid(path, value, f"{path} in body should match '{pattern}'"))
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt and not check_format(fmt, value):
        causes.append(_type_invalid(path, value, f'{path} in body must be of type {fmt}: "{value}"'))


def _validate_number(value: float, schema: dict[str, Any], path: str, causes: list[StatusCause]) -> None:
    shown = GoRepr(go_number(value))
    maximum = schema.get("maximum")
    if isinstance(maximum, int | float):
        if schema.get("exclusiveMaximum") and value >= maximum:
            causes.append(field_invalid(path, shown, f"{path} in body should be less than {go_number(maximum)}"))
        elif value > maximum:
            detail = f"{path} in body should be less than or equal to {go_number(maximum)}"
            causes.append(field_invalid(path, shown, detail))
    minimum = schema.get("minimum")
    if isinstance(minimum, int | float):
        if schema.get("exclusiveMinimum") and value <= minimum:
            causes.append(field_invalid(path, shown, f"{path} in body should be greater than {go_number(minimum)}"))
        elif value < minimum:
            detail = f"{path} in body should be greater than or equal to {go_number(minimum)}"
            causes.append(field_invalid(path, shown, detail))
    factor = schema.get("multipleOf")
    if isinstance(factor, int | float) and factor > 0:
        try:
            ratio = value / factor
        except OverflowError:  # an integer beyond float64
            ratio = math.inf
        # a ratio beyond float64 (or beyond its integers) is no multiple (swag.IsFloat64AJSONInteger)
        if not math.isfinite(ratio) or abs(ratio) > _MAX_JSON_INTEGER or abs(ratio - round(ratio)) > 1e-9:
            causes.append(field_invalid(path, shown, f"{path} in body should be a multiple of {go_number(factor)}"))


_MAX_JSON_INTEGER = 2**53  # past it a float64 has no fractions to tell


def _validate_array(value: list[Any], schema: dict[str, Any], path: str, causes: list[StatusCause]) -> None:
    max_items = schema.get("maxItems")
    if isinstance(max_items, int) and len(value) > max_items:
        causes.append(field_too_many(path, len(value), max_items))
    min_items = schema.get("minItems")
    if isinstance(min_items, int) and len(value) < min_items:
        detail = f"{path} in body should have at least {min_items} items"
        causes.append(field_invalid(path, GoRepr(_go_value(value)), detail))
    if schema.get("uniqueItems") and _has_duplicates(value):
        causes.append(field_invalid(path, GoRepr(_go_value(value)), f"{path} in body shouldn't contain duplicates"))
    list_type = schema.get("x-kubernetes-list-type")
    if list_type == "set":
        for i, item in enumerate(value):
            if any(_equal(item, prev) for prev in value[:i]):
                causes.append(
                    field_duplicate(f"{path}[{i}]", item if isinstance(item, str) else GoRepr(_go_value(item)))
                )
    elif list_type == "map":
        keys = [k for k in schema.get("x-kubernetes-list-map-keys") or [] if isinstance(k, str)]
        seen: list[dict[str, Any]] = []
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                continue
            key = {k: item[k] for k in keys if k in item}
            if any(_equal(key, s) for s in seen):
                causes.append(field_duplicate(f"{path}[{i}]", GoRepr(_go_value(key))))
            seen.append(key)
    items = schema.get("items")
    if isinstance(items, dict):
        for i, item in enumerate(value):
            _validate(item, items, f"{path}[{i}]", causes)


def _has_duplicates(value: list[Any]) -> bool:
    return any(_equal(item, prev) for i, item in enumerate(value) for prev in value[:i])


def _validate_object(
    value: dict[str, Any], schema: dict[str, Any], path: str, causes: list[StatusCause], root: bool
) -> None:
    max_props = schema.get("maxProperties")
    if isinstance(max_props, int) and len(value) > max_props:
        causes.append(field_too_many(path, len(value), max_props))
    min_props = schema.get("minProperties")
    if isinstance(min_props, int) and len(value) < min_props:
        detail = f"{path} in body should have at least {min_props} properties"
        causes.append(field_invalid(path, GoRepr(_go_value(value)), detail))
    for name in schema.get("required") or []:
        if isinstance(name, str) and name not in value:
            causes.append(field_required(_join(path, name), ""))
    props = schema.get("properties")
    props = props if isinstance(props, dict) else {}
    addl = schema.get("additionalProperties")
    embedded = root or schema.get("x-kubernetes-embedded-resource") is True
    for key, child in value.items():
        if embedded and key == "metadata":
            continue  # ObjectMeta has its own validation
        sub = props.get(key)
        if isinstance(sub, dict):
            _validate(child, sub, _join(path, key), causes)
        elif isinstance(addl, dict):
            _validate(child, addl, _join(path, key), causes)


def _validate_composition(value: Any, schema: dict[str, Any], path: str, causes: list[StatusCause]) -> None:
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and all_of:
        failed = False
        for sub in all_of:
            before = len(causes)
            _validate(value, sub, path, causes)
            failed = failed or len(causes) > before
        if failed:
            causes.append(field_invalid(path, "", f"{path} in body must validate all the schemas (allOf)"))
    any_of = schema.get("anyOf")
    if isinstance(any_of, list) and any_of and not any(not validate(value, s, path) for s in any_of):
        causes.append(field_invalid(path, "", f"{path} in body must validate at least one schema (anyOf)"))
    one_of = schema.get("oneOf")
    if isinstance(one_of, list) and one_of:
        valid = sum(1 for s in one_of if not validate(value, s, path))
        if valid != 1:
            causes.append(field_invalid(path, "", f"{path} in body must validate one and only one schema (oneOf)"))
    not_ = schema.get("not")
    if isinstance(not_, dict) and not validate(value, not_, path):
        causes.append(field_invalid(path, "", f"{path} in body must not validate the schema (not)"))
