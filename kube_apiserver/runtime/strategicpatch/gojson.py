"""Decoding patch bodies with Go's encoding/json error texts.

kube-apiserver answers a malformed patch with the text of Go's JSON decoder (`invalid character
'}' looking for beginning of object key string`, `unexpected end of JSON input`, `json: cannot
unmarshal array into Go value of type map[string]interface {}`). orjson parses; when it refuses, a
small replica of Go's scanner state machine finds the byte Go stops at and says what Go says.
"""

from __future__ import annotations

from typing import Any

import orjson

from kube_apiserver.runtime.serializer import json_nesting_exceeds, max_depth_message
from kube_apiserver.runtime.strategicpatch.goformat import go_quote


class GoJSONError(ValueError):
    """A body Go's encoding/json would refuse; str() is Go's message."""


def loads(data: bytes) -> Any:
    """orjson.loads, or GoJSONError with Go's words for why the body is not JSON (or that it nests
    deeper than the server takes: runtime/serializer.MAX_NESTING_DEPTH)."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        message = syntax_error(data)
        if message is not None:
            raise GoJSONError(message) from None
        # Valid for Go but not for orjson: invalid UTF-8 (Go substitutes U+FFFD) or huge numbers.
        try:
            value = orjson.loads(data.decode("utf-8", errors="replace"))
        except orjson.JSONDecodeError:
            raise GoJSONError("invalid JSON document") from None
    if json_nesting_exceeds(value, data):
        raise GoJSONError(max_depth_message())
    return value


def json_kind(value: Any) -> str:
    """What Go's UnmarshalTypeError calls a JSON value (shared by every decoder that words Go's errors)."""
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    return "number"


def type_error(value: Any, go_type: str) -> str:
    return f"json: cannot unmarshal {json_kind(value)} into Go value of type {go_type}"


def _quote_char(c: int) -> str:
    if c == 0x27:
        return "'\\''"
    if c == 0x22:
        return "'\"'"
    return "'" + go_quote(chr(c))[1:-1] + "'"


_SPACE = b" \t\r\n"
_DIGITS = b"0123456789"
_HEX = b"0123456789abcdefABCDEF"
_ESCAPES = b'bfnrt\\/"'


def syntax_error(data: bytes) -> str | None:  # noqa: C901 - one state machine, as Go's scanner
    """The message of Go's json.SyntaxError for data, or None if Go's scanner accepts it."""
    stack: list[str] = []  # "o" object, "k" object key position, "a" array
    state = "begin"
    literal = b""
    i = 0
    n = len(data)

    def bad(c: int, context: str) -> str:
        return f"invalid character {_quote_char(c)} {context}"

    while i < n:
        c = data[i]
        if state == "begin":  # looking for the beginning of a value
            if c in _SPACE:
                i += 1
                continue
            i += 1
            if c == 0x7B:  # {
                stack.append("k")
                state = "key_or_end"
            elif c == 0x5B:  # [
                stack.append("a")
                state = "value_or_end"
            elif c == 0x22:
                state = "string"
            elif c == 0x2D:
                state = "neg"
            elif c == 0x30:
                state = "zero"
            elif 0x31 <= c <= 0x39:
                state = "int"
            elif c in (0x74, 0x66, 0x6E):  # t f n
                literal = {0x74: b"true", 0x66: b"false", 0x6E: b"null"}[c]
                state = "literal"
                lit_pos = 1
            else:
                return bad(c, "looking for beginning of value")
            continue
        if state == "value_or_end":  # just after [
            if c in _SPACE:
                i += 1
                continue
            if c == 0x5D:
                i += 1
                stack.pop()
                state = "end"
                continue
            state = "begin"
            continue
        if state == "key_or_end":  # just after {
            if c in _SPACE:
                i += 1
                continue
            if c == 0x7D:
                i += 1
                stack.pop()
                state = "end"
                continue
            state = "key"
            continue
        if state == "key":
            if c in _SPACE:
                i += 1
                continue
            if c != 0x22:
                return bad(c, "looking for beginning of object key string")
            i += 1
            state = "string"
            continue
        if state == "string":
            i += 1
            if c == 0x22:
                state = "end"
            elif c == 0x5C:
                state = "esc"
            elif c < 0x20:
                return bad(c, "in string literal")
            continue
        if state == "esc":
            i += 1
            if c in _ESCAPES:
                state = "string"
            elif c == 0x75:
                state = "u0"
            else:
                return bad(c, "in string escape code")
            continue
        if state in ("u0", "u1", "u2", "u3"):
            i += 1
            if c not in _HEX:
                return bad(c, "in \\u hexadecimal character escape")
            state = {"u0": "u1", "u1": "u2", "u2": "u3", "u3": "string"}[state]
            continue
        if state == "neg":
            if c == 0x30:
                i += 1
                state = "zero"
            elif 0x31 <= c <= 0x39:
                i += 1
                state = "int"
            else:
                return bad(c, "in numeric literal")
            continue
        if state == "int":
            if c in _DIGITS:
                i += 1
                continue
            state = "zero"
            continue
        if state == "zero":
            if c == 0x2E:
                i += 1
                state = "dot"
            elif c in (0x65, 0x45):
                i += 1
                state = "e"
            else:
                state = "end"
            continue
        if state == "dot":
            if c in _DIGITS:
                i += 1
                state = "dot0"
                continue
            return bad(c, "after decimal point in numeric literal")
        if state == "dot0":
            if c in _DIGITS:
                i += 1
            elif c in (0x65, 0x45):
                i += 1
                state = "e"
            else:
                state = "end"
            continue
        if state == "e":
            if c in (0x2B, 0x2D):
                i += 1
            state = "esign"
            continue
        if state == "esign":
            if c in _DIGITS:
                i += 1
                state = "e0"
                continue
            return bad(c, "in exponent of numeric literal")
        if state == "e0":
            if c in _DIGITS:
                i += 1
            else:
                state = "end"
            continue
        if state == "literal":
            expect = literal[lit_pos]
            if c != expect:
                word = literal.decode()
                return bad(c, f"in literal {word} (expecting {_quote_char(expect)})")
            i += 1
            lit_pos += 1
            if lit_pos == len(literal):
                state = "end"
            continue
        if state == "end":  # after a complete value
            if not stack:
                if c in _SPACE:
                    i += 1
                    continue
                return bad(c, "after top-level value")
            if c in _SPACE:
                i += 1
                continue
            top = stack[-1]
            i += 1
            if top == "k":
                if c == 0x3A:
                    stack[-1] = "o"
                    state = "begin"
                    continue
                return bad(c, "after object key")
            if top == "o":
                if c == 0x2C:
                    stack[-1] = "k"
                    state = "key"
                    continue
                if c == 0x7D:
                    stack.pop()
                    state = "end"
                    continue
                return bad(c, "after object key:value pair")
            if c == 0x2C:
                state = "begin"
                continue
            if c == 0x5D:
                stack.pop()
                state = "end"
                continue
            return bad(c, "after array element")
    if state in ("end", "int", "zero", "dot0", "e0") and not stack:
        return None
    return "unexpected end of JSON input"
