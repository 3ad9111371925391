"""How kube-apiserver prints the value of an invalid field.

field.Error.ErrorBody renders the bad value with Go's fmt: ints and bools as themselves, strings
quoted (%q), anything else with %#v (e.g. map[string]string{"app":"web"} or
v1.LabelSelector{MatchLabels:..., MatchExpressions:...}); a pointer is dereferenced first, a nil
one prints as null. Clients show these texts to users, so the shapes that users commonly meet
(label maps, selectors, int-or-string values, string slices, small structs) are rendered as Go
does. A GoValue is not a str, so errors.field_* helpers print it as is.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from typing import Any

from kube_apiserver.runtime.labels import go_quote


class GoValue:
    """A value already rendered the way Go's fmt prints it."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"GoValue({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GoValue) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


def go_scalar(value: Any) -> str:
    """%v of a scalar as it appears inside a %#v struct or map: strings quoted, nil as null."""
    if isinstance(value, GoValue):
        return value.text
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | float):
        return str(value)
    return go_quote(str(value))


def render(value: Any) -> GoValue:
    """The text of a bad value at the top of an error: a string is %q, a number or bool %v."""
    if isinstance(value, GoValue):
        return value
    return GoValue(go_scalar(value))


def string_map(value: Any, type_name: str = "map[string]string") -> GoValue:
    """%#v of a map[string]string: keys sorted as fmt does, a nil map as map[string]string(nil)."""
    if value is None or not isinstance(value, dict):
        return GoValue(f"{type_name}(nil)")
    items = ", ".join(f"{go_quote(str(k))}:{go_scalar(v)}" for k, v in sorted(value.items(), key=lambda kv: str(kv[0])))
    return GoValue(f"{type_name}{{{items}}}")


def string_slice(value: Any, type_name: str = "[]string") -> GoValue:
    """%#v of a []string (or a named string slice type): a JSON [] is an empty, non-nil slice."""
    if value is None or not isinstance(value, list):
        return GoValue(f"{type_name}(nil)")
    return GoValue(f"{type_name}{{" + ", ".join(go_scalar(v) for v in value) + "}")


def int_slice(value: Any, type_name: str = "[]int32") -> GoValue:
    if value is None or not isinstance(value, list):
        return GoValue(f"{type_name}(nil)")
    return GoValue(f"{type_name}{{" + ", ".join(go_scalar(v) for v in value) + "}")


def byte_slice(value: Any) -> GoValue:
    """%#v of a []byte: every byte in hex (a CSR request shows this way)."""
    if value is None:
        return GoValue("[]byte(nil)")
    data = value.encode() if isinstance(value, str) else bytes(value)
    return GoValue("[]byte{" + ", ".join(f"0x{b:x}" for b in data) + "}")


def struct(type_name: str, fields: Iterable[tuple[str, Any]]) -> GoValue:
    """%#v of a struct: Type{Field:value, ...} with fields in declaration order."""
    body = ", ".join(f"{name}:{go_scalar(v)}" for name, v in fields)
    return GoValue(f"{type_name}{{{body}}}")


def pointer(type_name: str, value: Any) -> GoValue:
    """%#v of a pointer field inside a struct: (*T)(nil), or (*T)(0xc...) with an address.

    Go prints the address of the pointee; it differs from process to process, so any stable
    address-looking number is as faithful as we can be.
    """
    if value is None:
        return GoValue(f"(*{type_name})(nil)")
    digest = zlib.crc32(repr(value).encode()) & 0xFFFFFF
    return GoValue(f"(*{type_name})(0xc000{digest:06x})")


def int_or_string(value: Any) -> GoValue:
    """%#v of an intstr.IntOrString (its String method has a pointer receiver, so fmt uses %#v)."""
    if isinstance(value, str):
        return struct("intstr.IntOrString", [("Type", GoValue("1")), ("IntVal", 0), ("StrVal", value)])
    if isinstance(value, int) and not isinstance(value, bool):
        return struct("intstr.IntOrString", [("Type", GoValue("0")), ("IntVal", value), ("StrVal", "")])
    return struct("intstr.IntOrString", [("Type", GoValue("0")), ("IntVal", 0), ("StrVal", "")])


def label_selector_requirements(value: Any) -> GoValue:
    type_name = "[]v1.LabelSelectorRequirement"
    if value is None or not isinstance(value, list):
        return GoValue(f"{type_name}(nil)")
    items = []
    for req in value:
        req = req if isinstance(req, dict) else {}
        items.append(
            struct(
                "v1.LabelSelectorRequirement",
                [
                    ("Key", str(req.get("key") or "")),
                    ("Operator", str(req.get("operator") or "")),
                    ("Values", string_slice(req.get("values"))),
                ],
            ).text
        )
    return GoValue(f"{type_name}{{" + ", ".join(items) + "}")


def label_selector(value: Any) -> GoValue:
    """%#v of a metav1.LabelSelector (dereferenced from the *LabelSelector the validators pass)."""
    if value is None:
        return GoValue("null")
    sel = value if isinstance(value, dict) else {}
    return struct(
        "v1.LabelSelector",
        [
            ("MatchLabels", string_map(sel.get("matchLabels"))),
            ("MatchExpressions", label_selector_requirements(sel.get("matchExpressions"))),
        ],
    )


def quantity(value: Any) -> GoValue:
    """%#v of a resource.Quantity as decoded from JSON (String has a pointer receiver)."""
    from kube_apiserver.runtime.quantity import QuantityError, parse_quantity

    text = str(value)
    try:
        amount, fmt = parse_quantity(value)
    except (QuantityError, ValueError, TypeError):
        return struct("resource.Quantity", [("s", text)])
    if amount.denominator == 1:
        inner = f"i:resource.int64Amount{{value:{amount.numerator}, scale:0}}"
    else:
        inner = "i:resource.int64Amount{value:0, scale:0}"
    return GoValue(
        f'resource.Quantity{{{inner}, d:resource.infDecAmount{{Dec:(*inf.Dec)(nil)}}, s:"", Format:"{fmt}"}}'
    )


# Fields that hold maps, not structs, wherever they appear in the big structs approx() renders, with the Go
# type %#v names them by; their keys are data, printed quoted and as they are.
_MAP_FIELDS = {
    "labels": "map[string]string",
    "annotations": "map[string]string",
    "nodeSelector": "map[string]string",
    "matchLabels": "map[string]string",
    "data": "map[string]string",
    "stringData": "map[string]string",
    "parameters": "map[string]string",
    "requests": "core.ResourceList",
    "limits": "core.ResourceList",
}
# JSON names whose Go field is not the JSON name capitalized (the embedded ObjectMeta).
_GO_FIELD_NAMES = {"metadata": "ObjectMeta"}


def approx(type_name: str, value: Any) -> GoValue:
    """A %#v-like rendering of an arbitrary JSON object for the rare big structs (a whole pod
    template that may not change, ...): JSON names capitalized as Go's field names, the known map fields
    (labels, resource lists, ...) as maps with their keys as they are, pointers to nested structs shown
    inline. Not byte-for-byte Go, which prints pointer addresses there and every zero field."""

    def walk(v: Any, map_type: str = "") -> str:
        if isinstance(v, dict):
            if map_type:
                entries = sorted(v.items(), key=lambda kv: str(kv[0]))  # fmt prints a map's keys sorted
                return map_type + "{" + ", ".join(f"{go_quote(str(k))}:{walk(x)}" for k, x in entries) + "}"
            return (
                "{"
                + ", ".join(
                    f"{_GO_FIELD_NAMES.get(str(k)) or _go_field_name(str(k))}:{walk(x, _MAP_FIELDS.get(str(k), ''))}"
                    for k, x in v.items()
                )
                + "}"
            )
        if isinstance(v, list):
            return "{" + ", ".join(walk(x) for x in v) + "}"
        return go_scalar(v)

    return GoValue(type_name + walk(value if value is not None else {}))


def _go_field_name(json_name: str) -> str:
    return json_name[:1].upper() + json_name[1:]
