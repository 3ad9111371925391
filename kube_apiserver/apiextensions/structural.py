"""Structural schemas (apiextensions-apiserver/pkg/apiserver/schema: ValidateStructural and its
completeness check): every specified field has a type, value validations (allOf, anyOf, oneOf, not)
only restrict what the schema outside of them specifies, metadata at the root may only restrict name
and generateName, and the x-kubernetes-* extensions appear in the combinations kube allows.

The errors come with kube's field paths and details, sorted by their text as kube sorts them (its
types are maps: no other order is stable).
"""

from __future__ import annotations

import re
from typing import Any

from kube_apiserver.runtime.errors import StatusCause, field_forbidden, field_invalid, field_required

_SIZED = (str, list, dict)  # a tuple: `X | Y` in isinstance builds a union object on every call

ROOT, ITEM, FIELD = 0, 1, 2
INT_OR_STRING_ANY_OF = [{"type": "integer"}, {"type": "string"}]
_TYPE_REQUIRED = {
    ROOT: "must not be empty at the root",
    ITEM: "must not be empty for specified array items",
    FIELD: "must not be empty for specified object fields",
}
# What a value validation (inside allOf/anyOf/oneOf/not) may not specify, and how kube says so.
_NESTED_FORBIDDEN = (
    ("type", "must be empty to be structural"),
    ("default", "must be undefined to be structural"),
    ("title", "must be empty to be structural"),
    ("description", "must be empty to be structural"),
    ("nullable", "must be false to be structural"),
    ("externalDocs", "must be undefined to be structural"),
    ("x-kubernetes-preserve-unknown-fields", "must be false to be structural"),
    ("x-kubernetes-embedded-resource", "must be false to be structural"),
    ("x-kubernetes-int-or-string", "must be false to be structural"),
    ("x-kubernetes-list-map-keys", "must be empty to be structural"),
    ("x-kubernetes-list-type", "must be undefined to be structural"),
    ("x-kubernetes-map-type", "must be undefined to be structural"),
    ("x-kubernetes-validations", "must be empty to be structural"),
)


def key(path: str, name: str) -> str:
    return f"{path}[{name}]"


def _true(s: dict[str, Any], name: str) -> bool:
    return s.get(name) is True


def _set(s: dict[str, Any], name: str) -> bool:
    """Whether a field is set as Go's structural types see it (false, "", [] and null are unset)."""
    value = s.get(name)
    if value is None or value is False:
        return False
    return not (isinstance(value, _SIZED) and not value)


def _props(s: dict[str, Any]) -> dict[str, dict[str, Any]]:
    props = s.get("properties")
    if not isinstance(props, dict):
        return {}
    return {k: v for k, v in props.items() if isinstance(v, dict)}


def _type(s: dict[str, Any]) -> str:
    t = s.get("type")
    return t if isinstance(t, str) else ""


def validate_structural(schema: dict[str, Any], path: str) -> list[StatusCause]:
    causes = _invariants(schema, ROOT, path) + _completeness(schema, path)
    return sorted(causes, key=lambda c: f"{c.field}: {c.message}")


def is_structural(schema: dict[str, Any]) -> bool:
    return not validate_structural(schema, "")


def _is_int_or_string_any_of(s: dict[str, Any]) -> bool:
    return s.get("anyOf") == INT_OR_STRING_ANY_OF


def _is_int_or_string_all_of(s: dict[str, Any]) -> bool:
    all_of = s.get("allOf")
    return (
        isinstance(all_of, list)
        and bool(all_of)
        and isinstance(all_of[0], dict)
        and _is_int_or_string_any_of(all_of[0])
    )


def _invariants(s: dict[str, Any], lvl: int, path: str) -> list[StatusCause]:
    out: list[StatusCause] = []
    items = s.get("items")
    if _type(s) == "array" and not isinstance(items, dict):
        out.append(field_required(f"{path}.items", "must be specified"))
    if isinstance(items, dict):
        out += _invariants(items, ITEM, f"{path}.items")
    for name, prop in sorted(_props(s).items()):
        out += _invariants(prop, FIELD, key(f"{path}.properties", name))
    extra = s.get("additionalProperties")
    if extra is not None:
        if lvl == ROOT:
            out.append(field_forbidden(f"{path}.additionalProperties", "must not be used at the root"))
        if isinstance(extra, dict):
            out += _invariants(extra, FIELD, f"{path}.additionalProperties")
    if _true(s, "x-kubernetes-int-or-string") and _true(s, "x-kubernetes-preserve-unknown-fields"):
        out.append(
            field_invalid(
                f"{path}.x-kubernetes-preserve-unknown-fields",
                True,
                "must be false if x-kubernetes-int-or-string is true",
            )
        )
    if _true(s, "x-kubernetes-int-or-string") and _true(s, "x-kubernetes-embedded-resource"):
        out.append(
            field_invalid(
                f"{path}.x-kubernetes-embedded-resource", True, "must be false if x-kubernetes-int-or-string is true"
            )
        )
    out += _value_validation(s, _is_int_or_string_any_of(s), _is_int_or_string_all_of(s), lvl, path)
    check_metadata = lvl == ROOT or _true(s, "x-kubernetes-embedded-resource")
    t = _type(s)
    if _true(s, "x-kubernetes-embedded-resource") and t != "object":
        detail = "must be object if x-kubernetes-embedded-resource is true"
        out.append(field_invalid(f"{path}.type", t, detail) if t else field_required(f"{path}.type", detail))
    elif not t and not _true(s, "x-kubernetes-int-or-string") and not _true(s, "x-kubernetes-preserve-unknown-fields"):
        out.append(field_required(f"{path}.type", _TYPE_REQUIRED[lvl]))
    if _true(s, "x-kubernetes-embedded-resource") and extra is not None:
        out.append(
            field_forbidden(f"{path}.additionalProperties", "must not be used if x-kubernetes-embedded-resource is set")
        )
    if lvl == ROOT and t and t != "object":
        out.append(field_invalid(f"{path}.type", t, "must be object at the root"))
    props = _props(s)
    for name in ("kind", "apiVersion"):
        if name in props and check_metadata and _type(props[name]) != "string":
            out.append(field_invalid(f"{key(f'{path}.properties', name)}.type", _type(props[name]), "must be string"))
    if "metadata" in props:
        out += _metadata(props["metadata"], check_metadata, lvl, key(f"{path}.properties", "metadata"))
    if (
        _true(s, "x-kubernetes-embedded-resource")
        and not _true(s, "x-kubernetes-preserve-unknown-fields")
        and not props
    ):
        out.append(
            field_required(
                f"{path}.properties",
                "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
            )
        )
    return out


def _metadata(s: dict[str, Any], check: bool, lvl: int, path: str) -> list[StatusCause]:
    out: list[StatusCause] = []
    if check and _type(s) != "object":
        out.append(field_invalid(f"{path}.type", _type(s), "must be object"))
    if lvl == ROOT:
        rest = {k: v for k, v in s.items() if _set(s, k) and k not in ("type", "default")}
        props = _props(s)
        if props and set(props) <= {"name", "generateName"}:
            rest.pop("properties", None)
        if rest:
            out.append(
                field_forbidden(
                    path,
                    "must not specify anything other than name and generateName, but metadata is implicitly specified",
                )
            )
    return out


def _junctors(s: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for name in ("allOf", "anyOf", "oneOf"):
        subs = s.get(name)
        if isinstance(subs, list):
            out += [(f"{name}[{i}]", sub) for i, sub in enumerate(subs) if isinstance(sub, dict)]
    if isinstance(s.get("not"), dict):
        out.append(("not", s["not"]))
    return out


def _value_validation(
    s: dict[str, Any], skip_any_of: bool, skip_first_all_of: bool, lvl: int, path: str
) -> list[StatusCause]:
    out: list[StatusCause] = []
    for name, sub in _junctors(s):
        if name.startswith("anyOf") and skip_any_of:
            continue
        skip = skip_first_all_of and name == "allOf[0]"
        out += _nested(sub, skip, lvl, f"{path}.{name}")
    pattern = s.get("pattern")
    if isinstance(pattern, str) and pattern:
        try:
            re.compile(pattern)
        except re.error as e:
            out.append(
                field_invalid(
                    f"{path}.pattern",
                    pattern,
                    f"must be a valid regular expression, but isn't: {go_regexp_error(e, pattern)}",
                )
            )
    return out


def go_regexp_error(e: re.error, pattern: str) -> str:
    """The gist of Go's regexp.Compile error for the common mistakes (its wording, Python's finding)."""
    msg = str(e.msg)
    if "missing )" in msg or "unterminated subpattern" in msg:
        return f"error parsing regexp: missing closing ): `{pattern}`"
    if "unbalanced parenthesis" in msg:
        return f"error parsing regexp: unexpected ): `{pattern}`"
    if "unterminated character set" in msg:
        return f"error parsing regexp: missing closing ]: `{pattern[e.pos or 0 :]}`"
    if "nothing to repeat" in msg:
        return (
            f"error parsing regexp: missing argument to repetition operator: `{pattern[e.pos or 0 : (e.pos or 0) + 1]}`"
        )
    return f"error parsing regexp: {msg}: `{pattern}`"


def _nested(s: dict[str, Any], skip_any_of: bool, lvl: int, path: str) -> list[StatusCause]:
    out = _value_validation(s, skip_any_of, False, lvl, path)
    if isinstance(s.get("items"), dict):
        out += _nested(s["items"], False, lvl, f"{path}.items")
    for name, prop in sorted(_props(s).items()):
        out += _nested(prop, False, FIELD, key(f"{path}.properties", name))
    for name, detail in _NESTED_FORBIDDEN:
        if (s.get(name) is not None) if name == "default" else _set(s, name):
            out.append(field_forbidden(f"{path}.{name}", detail))
    if s.get("additionalProperties") is not None:
        out.append(field_forbidden(f"{path}.additionalProperties", "must be undefined to be structural"))
    if "metadata" in _props(s):
        out.append(field_forbidden(key(f"{path}.properties", "metadata"), "must not be specified in a nested context"))
    return out


def _completeness(s: dict[str, Any], path: str) -> list[StatusCause]:
    """Every field or array a root value validation mentions is specified outside of it too."""
    out: list[StatusCause] = []
    for name, sub in _junctors(s):
        out += _nested_complete(sub, s, path, f"{path}.{name}")
    return out


def _nested_complete(v: dict[str, Any], s: dict[str, Any] | None, s_path: str, v_path: str) -> list[StatusCause]:
    if s is None:
        return [field_required(s_path, f"because it is defined in {v_path}")]
    out: list[StatusCause] = []
    for name, sub in _junctors(v):
        out += _nested_complete(sub, s, s_path, f"{v_path}.{name}")
    if isinstance(v.get("items"), dict):
        items = s.get("items") if isinstance(s.get("items"), dict) else None
        out += _nested_complete(v["items"], items, f"{s_path}.items", f"{v_path}.items")
    s_props = _props(s)
    for name, sub in sorted(_props(v).items()):
        sp, vp = key(f"{s_path}.properties", name), key(f"{v_path}.properties", name)
        if name not in s_props:
            out.append(field_required(sp, f"because it is defined in {vp}"))
        else:
            out += _nested_complete(sub, s_props[name], sp, vp)
    return out
