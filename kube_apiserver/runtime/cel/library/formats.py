"""The format library (library.Format): format.<name>() gives a named format and
<format>.validate(<string>) checks a string against it, e.g.
!format.dns1123Label().validate(self.name).hasValue().

In Go, validate returns optional<list<string>>. cel-expr-python cannot build an optional value in a
Python function, so validate returns a kubernetes.NamedFormatResult on which hasValue() and value()
behave as they do on the optional (the errors when the string is invalid, none when it is valid).
Not offered: orValue() on that result (cel-cpp treats orValue as an optional-only operator) and
format.named(<string>), which returns an optional format."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from cel_expr_python import cel

from kube_apiserver.runtime import meta
from kube_apiserver.runtime.cel.library import CELError, Decl, decl, overload
from kube_apiserver.runtime.cel.types import (
    FORMAT_RESULT,
    NAMED_FORMAT,
    FormatResultType,
    NamedFormatType,
    unwrap,
    wrap,
)
from kube_apiserver.runtime.validation import names

_S, _B = cel.Type.STRING, cel.Type.BOOL
_LS = cel.Type.List(_S)
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:[^\s]*$|^/[^\s]*$")


def _one(check: Callable[[str], bool], msg: str) -> Callable[[str], list[str]]:
    return lambda s: [] if check(s) else [msg]


def _date(s: str) -> bool:
    try:
        datetime.strptime(s, "%Y-%m-%d")
    except ValueError:
        return False
    return True


def _datetime(s: str) -> bool:
    try:
        datetime.fromisoformat(s.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return False
    return "T" in s.upper()


def _uuid(s: str) -> bool:
    try:
        uuid.UUID(s)
    except ValueError:
        return False
    return len(s) == 36


def _byte(s: str) -> bool:
    import base64
    import binascii

    try:
        base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


FORMATS: dict[str, Callable[[str], list[str]]] = {
    "dns1123Label": meta.is_dns1123_label,
    "dns1123Subdomain": meta.is_dns1123_subdomain,
    "dns1035Label": names.is_dns1035_label,
    "qualifiedName": names.is_qualified_name,
    "dns1123LabelPrefix": lambda s: names.name_is_dns_label(s, True),
    "dns1123SubdomainPrefix": lambda s: names.name_is_dns_subdomain(s, True),
    "dns1035LabelPrefix": lambda s: names.name_is_dns1035_label(s, True),
    "labelValue": names.is_valid_label_value,
    "uri": _one(lambda s: bool(_URI.match(s)), "invalid URI"),
    "uuid": _one(_uuid, "does not match the UUID format"),
    "byte": _one(_byte, "invalid base64"),
    "date": _one(_date, "invalid date"),
    "datetime": _one(_datetime, "invalid datetime"),
}


def _validate(fmt: Any, text: str) -> Any:
    check = FORMATS.get(unwrap(fmt))
    if check is None:
        raise CELError(f"unknown format {unwrap(fmt)!r}")
    errors = check(text)
    # "\x00" marks a present (possibly empty) error list; "" is none
    return wrap(FORMAT_RESULT, "\x00" + "\n".join(errors) if errors else "")


def _errors(result: Any) -> list[str]:
    text = unwrap(result)
    return text[1:].split("\n") if text else []


def _value(result: Any) -> list[str]:
    if not unwrap(result):
        raise CELError("optional.none() dereference")
    return _errors(result)


def decls() -> list[Decl]:
    out = [
        decl(f"format.{name}", [overload(f"format_{name}", NamedFormatType, [], lambda n=name: wrap(NAMED_FORMAT, n))])
        for name in FORMATS
    ]
    R = FormatResultType
    out += [
        decl("validate", [overload("format_validate", R, [NamedFormatType, _S], _validate, True)]),
        decl("hasValue", [overload("format_result_has_value", _B, [R], lambda r: bool(unwrap(r)), True)]),
        decl("value", [overload("format_result_value", _LS, [R], _value, True)]),
    ]
    return out
