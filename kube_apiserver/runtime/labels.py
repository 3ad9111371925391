"""Label selectors, as k8s.io/apimachinery/pkg/labels parses, prints and matches them.

The grammar, the canonical string form and the error messages follow upstream (Kubernetes 1.33):
``labels.Parse`` for the ``labelSelector`` query parameter and ``metav1.LabelSelectorAsSelector`` for the
``metav1.LabelSelector`` objects embedded in workloads. Error messages matter: the API server returns them
verbatim as the message of a 400 BadRequest Status.

Grammar (``labels.Parse``)::

    <selector>    ::= <requirement> | <requirement> "," <selector>
    <requirement> ::= ["!"] KEY [ ("in" | "notin") "(" VALUES ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]

``a`` means "key exists", ``!a`` "key does not exist", ``a in ()`` and ``a=`` mean the empty value, ``>``/``<``
compare integers. The empty string selects everything.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "DOES_NOT_EXIST",
    "DOUBLE_EQUALS",
    "EQUALS",
    "EXISTS",
    "GREATER_THAN",
    "IN",
    "LESS_THAN",
    "NOT_EQUALS",
    "NOT_IN",
    "LabelSelector",
    "Requirement",
    "SelectorParseError",
    "go_quote",
    "label_key_errors",
    "label_value_errors",
    "new_requirement",
    "parse_label_selector",
    "selector_from_label_selector_dict",
    "selector_from_set",
    "validated_selector_from_set",
]


class SelectorParseError(ValueError):
    """A label or field selector could not be parsed or is invalid.

    ``str(err)`` (also ``err.message``) is the upstream error text; the API server answers it as the message of a
    400 BadRequest Status.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# --- operators (k8s.io/apimachinery/pkg/selection) ---------------------------------------------------------------

EQUALS = "="
DOUBLE_EQUALS = "=="
NOT_EQUALS = "!="
IN = "in"
NOT_IN = "notin"
EXISTS = "exists"
DOES_NOT_EXIST = "!"
GREATER_THAN = "gt"
LESS_THAN = "lt"

_BINARY_OPERATORS = (IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN)
_UNARY_OPERATORS = (EXISTS, DOES_NOT_EXIST)
_VALID_OPERATORS = _BINARY_OPERATORS + _UNARY_OPERATORS

# metav1.LabelSelectorOperator -> selection.Operator
_LABEL_SELECTOR_OPERATORS = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST}


# --- Go-compatible formatting --------------------------------------------------------------------------------------

_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def go_quote(s: str) -> str:
    """Quote ``s`` as Go's ``%q`` / ``strconv.Quote`` does (used in upstream messages)."""
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return f'"{s}"'
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif ch.isprintable():  # same classes as Go's unicode.IsPrint (L, M, N, P, S and ASCII space)
            out.append(ch)
        else:
            code = ord(ch)
            if code < 0x80:
                out.append(f"\\x{code:02x}")
            elif code < 0x10000:
                out.append(f"\\u{code:04x}")
            else:
                out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def _go_string_slice(values: Sequence[str]) -> str:
    """Go's ``%#v`` of a []string (as built by upstream, an empty one is a nil slice)."""
    if not values:
        return "[]string(nil)"
    return "[]string{" + ", ".join(go_quote(v) for v in values) + "}"


def _field_invalid(path: str, value: str | Sequence[str], detail: str) -> str:
    """``field.Invalid(path, value, detail).Error()``."""
    shown = go_quote(value) if isinstance(value, str) else _go_string_slice(value)
    return f"{path}: Invalid value: {shown}: {detail}" if detail else f"{path}: Invalid value: {shown}"


def _aggregate(errors: list[str]) -> str:
    """``field.ErrorList.ToAggregate().Error()``: duplicates dropped, several joined as ``[a, b]``."""
    unique = list(dict.fromkeys(errors))
    if len(unique) == 1:
        return unique[0]
    return "[" + ", ".join(unique) + "]"


# --- validation (k8s.io/apimachinery/pkg/util/validation) ----------------------------------------------------------

_QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED_NAME_ERR = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)
_QUALIFIED_NAME_MAX_LENGTH = 63
_QUALIFIED_NAME_RE = re.compile(_QUALIFIED_NAME_FMT)

_LABEL_VALUE_FMT = "(" + _QUALIFIED_NAME_FMT + ")?"
_LABEL_VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_VALUE_MAX_LENGTH = 63
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_MAX_LENGTH = 253
_DNS1123_SUBDOMAIN_RE = re.compile(_DNS1123_SUBDOMAIN_FMT)

_EMPTY_ERROR = "must be non-empty"


def _max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{example}', " for example in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def byte_len(s: str) -> int:
    """Go's len() of a string: the bytes of its UTF-8 encoding (no encoding needed for ASCII)."""
    return len(s) if s.isascii() else len(s.encode("utf-8", "surrogatepass"))


def _dns1123_subdomain_errors(value: str) -> list[str]:
    errs: list[str] = []
    if byte_len(value) > _DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(_max_len_error(_DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(_regex_error(_DNS1123_SUBDOMAIN_ERR, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def label_key_errors(key: str) -> list[str]:
    """``validation.IsQualifiedName``: the problems with a label key (an empty list when it is valid)."""
    parts = key.split("/")
    errs: list[str] = []
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part " + _EMPTY_ERROR)
        else:
            errs.extend("prefix part " + msg for msg in _dns1123_subdomain_errors(prefix))
    else:
        return [
            "a qualified name "
            + _regex_error(_QUALIFIED_NAME_ERR, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part " + _EMPTY_ERROR)
    elif byte_len(name) > _QUALIFIED_NAME_MAX_LENGTH:
        errs.append("name part " + _max_len_error(_QUALIFIED_NAME_MAX_LENGTH))
    if not _QUALIFIED_NAME_RE.fullmatch(name):
        errs.append(
            "name part " + _regex_error(_QUALIFIED_NAME_ERR, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def label_value_errors(value: str) -> list[str]:
    """``validation.IsValidLabelValue``: the problems with a label value (an empty list when it is valid)."""
    errs: list[str] = []
    if byte_len(value) > _LABEL_VALUE_MAX_LENGTH:
        errs.append(_max_len_error(_LABEL_VALUE_MAX_LENGTH))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(_regex_error(_LABEL_VALUE_ERR, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


_INT64_RE = re.compile(r"[+-]?[0-9]+")
_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


def _parse_int64(s: str) -> int | None:
    """``strconv.ParseInt(s, 10, 64)``; None where Go returns an error."""
    if not _INT64_RE.fullmatch(s):
        return None
    n = int(s)
    return n if _INT64_MIN <= n <= _INT64_MAX else None


# --- requirements ---------------------------------------------------------------------------------------------------


class Requirement:
    """One ``key <operator> values`` term of a label selector (immutable)."""

    __slots__ = ("key", "operator", "values")

    key: str
    operator: str
    values: tuple[str, ...]

    def __init__(self, key: str, operator: str, values: Iterable[str] = ()) -> None:
        """Build without validation; use :func:`new_requirement` to validate as upstream does."""
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "operator", operator)
        object.__setattr__(self, "values", tuple(values))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Requirement is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Requirement):
            return NotImplemented
        return self.key == other.key and self.operator == other.operator and self.values == other.values

    def __hash__(self) -> int:
        return hash((self.key, self.operator, self.values))

    def __repr__(self) -> str:
        return f"Requirement({self.key!r}, {self.operator!r}, {self.values!r})"

    def __str__(self) -> str:
        op = self.operator
        if op == EXISTS:
            return self.key
        if op == DOES_NOT_EXIST:
            return "!" + self.key
        values = self.values[0] if len(self.values) == 1 else ",".join(sorted(self.values))
        if op == IN:
            return f"{self.key} in ({values})"
        if op == NOT_IN:
            return f"{self.key} notin ({values})"
        if op == GREATER_THAN:
            return f"{self.key}>{values}"
        if op == LESS_THAN:
            return f"{self.key}<{values}"
        return f"{self.key}{op}{values}"

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        """Whether ``labels`` satisfy this requirement (``Requirement.Matches``)."""
        return _matches_all((_compile(self),), labels if labels is not None else _NO_LABELS)


# Compiled form used by matches(): (kind, key, value set, integer bound).
_K_IN = 0
_K_NOT_IN = 1
_K_EXISTS = 2
_K_NOT_EXISTS = 3
_K_GT = 4
_K_LT = 5
_K_NEVER = 6

_Check = tuple[int, str, frozenset[str], int]


def _compile(req: Requirement) -> _Check:
    op = req.operator
    if op in (IN, EQUALS, DOUBLE_EQUALS):
        return (_K_IN, req.key, frozenset(req.values), 0)
    if op in (NOT_IN, NOT_EQUALS):
        return (_K_NOT_IN, req.key, frozenset(req.values), 0)
    if op == EXISTS:
        return (_K_EXISTS, req.key, frozenset(), 0)
    if op == DOES_NOT_EXIST:
        return (_K_NOT_EXISTS, req.key, frozenset(), 0)
    if op in (GREATER_THAN, LESS_THAN):
        bound = _parse_int64(req.values[0]) if len(req.values) == 1 else None
        if bound is None:  # upstream logs and does not match
            return (_K_NEVER, req.key, frozenset(), 0)
        return (_K_GT if op == GREATER_THAN else _K_LT, req.key, frozenset(), bound)
    return (_K_NEVER, req.key, frozenset(), 0)


def _matches_all(checks: tuple[_Check, ...], labels: Mapping[str, str]) -> bool:
    get = labels.get
    for kind, key, values, bound in checks:
        if kind == _K_IN:
            value = get(key)
            if value is None or value not in values:
                return False
        elif kind == _K_NOT_IN:
            value = get(key)
            if value is not None and value in values:
                return False
        elif kind == _K_EXISTS:
            if key not in labels:
                return False
        elif kind == _K_NOT_EXISTS:
            if key in labels:
                return False
        elif kind == _K_GT or kind == _K_LT:
            value = get(key)
            if value is None:
                return False
            number = _parse_int64(value)
            if number is None:
                return False
            if kind == _K_GT:
                if not number > bound:
                    return False
            elif not number < bound:
                return False
        else:
            return False
    return True


def _child(path: str | None, name: str) -> str:
    return name if path is None else f"{path}.{name}"


def new_requirement(key: str, operator: str, values: Sequence[str] = (), *, path: str | None = None) -> Requirement:
    """``labels.NewRequirement``: validate and build a requirement, raising :class:`SelectorParseError`.

    ``path`` is the field path errors are reported under (upstream's ``field.WithPath``); None, as in
    ``labels.Parse`` and ``LabelSelectorAsSelector``, reports ``key`` and ``values[i][key]``.
    """
    errors: list[str] = []
    key_errs = label_key_errors(key)
    if key_errs:
        errors.append(_field_invalid(_child(path, "key"), key, "; ".join(key_errs)))
    values_path = _child(path, "values")
    count = len(values)
    if operator in (IN, NOT_IN):
        if count == 0:
            errors.append(_field_invalid(values_path, values, "for 'in', 'notin' operators, values set can't be empty"))
    elif operator in (EQUALS, DOUBLE_EQUALS, NOT_EQUALS):
        if count != 1:
            errors.append(_field_invalid(values_path, values, "exact-match compatibility requires one single value"))
    elif operator in (EXISTS, DOES_NOT_EXIST):
        if count != 0:
            errors.append(_field_invalid(values_path, values, "values set must be empty for exists and does not exist"))
    elif operator in (GREATER_THAN, LESS_THAN):
        if count != 1:
            errors.append(
                _field_invalid(values_path, values, "for 'Gt', 'Lt' operators, exactly one value is required")
            )
        for i, value in enumerate(values):
            if _parse_int64(value) is None:
                errors.append(
                    _field_invalid(
                        f"{values_path}[{i}]", value, "for 'Gt', 'Lt' operators, the value must be an integer"
                    )
                )
    else:
        supported = ", ".join(go_quote(op) for op in _VALID_OPERATORS)
        errors.append(
            f"{_child(path, 'operator')}: Unsupported value: {go_quote(operator)}: supported values: {supported}"
        )
    for i, value in enumerate(values):
        value_errs = label_value_errors(value)
        if value_errs:
            errors.append(_field_invalid(f"{values_path}[{i}][{key}]", value, "; ".join(value_errs)))
    if errors:
        raise SelectorParseError(_aggregate(errors))
    return Requirement(key, operator, values)


# --- selectors ------------------------------------------------------------------------------------------------------


class LabelSelector:
    """A parsed label selector: the AND of its requirements (immutable, hashable).

    ``LabelSelector.nothing()`` is upstream's ``labels.Nothing()``: it matches no labels and prints as "".
    """

    __slots__ = ("_requirements", "_checks", "_nothing")

    _requirements: tuple[Requirement, ...]
    _checks: tuple[_Check, ...]
    _nothing: bool

    def __init__(self, requirements: Iterable[Requirement] = (), *, nothing: bool = False) -> None:
        reqs = () if nothing else tuple(sorted(requirements, key=_requirement_key))  # stable, as upstream's ByKey
        self._requirements = reqs
        self._checks = tuple(_compile(r) for r in reqs)
        self._nothing = nothing

    @classmethod
    def everything(cls) -> LabelSelector:
        """The selector that matches all labels (``labels.Everything()``)."""
        return _EVERYTHING

    @classmethod
    def nothing(cls) -> LabelSelector:
        """The selector that matches no labels (``labels.Nothing()``)."""
        return _NOTHING

    @property
    def requirements(self) -> tuple[Requirement, ...]:
        """The requirements, sorted by key."""
        return self._requirements

    @property
    def empty(self) -> bool:
        """True when the selector does not restrict the selection (matches everything)."""
        return not self._nothing and not self._requirements

    @property
    def matches_nothing(self) -> bool:
        """True only for :meth:`nothing` (``labels.MatchesNothing``)."""
        return self._nothing

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        """Whether an object with these labels is selected (None means no labels)."""
        if self._nothing:
            return False
        checks = self._checks
        if not checks:
            return True
        return _matches_all(checks, labels if labels is not None else _NO_LABELS)

    def requires_exact_match(self, label: str) -> str | None:
        """The value the selector requires ``label`` to have (``key=v``, ``key==v`` or ``key in (v)``), else None.

        As upstream, only the first requirement on ``label`` is looked at.
        """
        for req in self._requirements:
            if req.key == label:
                if req.operator in (EQUALS, DOUBLE_EQUALS, IN) and len(req.values) == 1:
                    return req.values[0]
                return None
        return None

    def add(self, *requirements: Requirement) -> LabelSelector:
        """A new selector with more requirements (``Selector.Add``)."""
        if self._nothing:
            return self
        return LabelSelector(self._requirements + requirements)

    def __str__(self) -> str:
        return ",".join(str(r) for r in self._requirements)

    def __repr__(self) -> str:
        if self._nothing:
            return "LabelSelector.nothing()"
        return f"LabelSelector({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LabelSelector):
            return NotImplemented
        return self._nothing == other._nothing and self._requirements == other._requirements

    def __hash__(self) -> int:
        return hash((self._nothing, self._requirements))


def _requirement_key(req: Requirement) -> str:
    return req.key


_NO_LABELS: Mapping[str, str] = {}
_EVERYTHING = LabelSelector()
_NOTHING = LabelSelector(nothing=True)


def selector_from_set(labels: Mapping[str, str] | None) -> LabelSelector:
    """``labels.SelectorFromSet``: ``k1=v1,k2=v2`` without validation; None or {} selects everything."""
    if not labels:
        return _EVERYTHING
    return LabelSelector(Requirement(k, EQUALS, (v,)) for k, v in labels.items())


def validated_selector_from_set(labels: Mapping[str, str] | None) -> LabelSelector:
    """``labels.ValidatedSelectorFromSet``: as :func:`selector_from_set`, validating keys and values."""
    if not labels:
        return _EVERYTHING
    return LabelSelector(new_requirement(k, EQUALS, (v,)) for k, v in sorted(labels.items()))


def selector_from_label_selector_dict(selector: Mapping[str, Any] | None) -> LabelSelector:
    """``metav1.LabelSelectorAsSelector`` for a metav1.LabelSelector as a dict.

    None selects nothing; a selector with no matchLabels and no matchExpressions selects everything.
    Raises :class:`SelectorParseError` with upstream's message for an invalid selector.
    """
    if selector is None:
        return _NOTHING
    match_labels = selector.get("matchLabels") or {}
    match_expressions = selector.get("matchExpressions") or []
    if not isinstance(match_labels, Mapping):
        raise SelectorParseError("matchLabels: Invalid value: must be an object of string values")
    if not isinstance(match_expressions, list):
        raise SelectorParseError("matchExpressions: Invalid value: must be a list")
    if not match_labels and not match_expressions:
        return _EVERYTHING
    requirements: list[Requirement] = []
    for key, value in sorted(match_labels.items()):  # upstream walks the map in random order
        if not isinstance(key, str) or not isinstance(value, str):
            raise SelectorParseError("matchLabels: Invalid value: must be an object of string values")
        requirements.append(new_requirement(key, EQUALS, [value]))
    for expr in match_expressions:
        if not isinstance(expr, Mapping):
            raise SelectorParseError("matchExpressions: Invalid value: each item must be an object")
        operator = expr.get("operator") or ""
        op = _LABEL_SELECTOR_OPERATORS.get(operator) if isinstance(operator, str) else None
        if op is None:
            raise SelectorParseError(f"{go_quote(str(operator))} is not a valid pod selector operator")
        key = expr.get("key") or ""
        values = expr.get("values") or []
        if not isinstance(key, str) or not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise SelectorParseError("matchExpressions: Invalid value: key must be a string and values strings")
        requirements.append(new_requirement(key, op, list(values)))
    return LabelSelector(requirements)


# --- the parser (labels.Parse) -------------------------------------------------------------------------------------

# Tokens
_T_ERROR = 0
_T_EOS = 1
_T_CLOSED_PAR = 2
_T_COMMA = 3
_T_DOES_NOT_EXIST = 4
_T_DOUBLE_EQUALS = 5
_T_EQUALS = 6
_T_GREATER_THAN = 7
_T_IDENTIFIER = 8
_T_IN = 9
_T_LESS_THAN = 10
_T_NOT_EQUALS = 11
_T_NOT_IN = 12
_T_OPEN_PAR = 13

_STRING_TO_TOKEN = {
    ")": _T_CLOSED_PAR,
    ",": _T_COMMA,
    "!": _T_DOES_NOT_EXIST,
    "==": _T_DOUBLE_EQUALS,
    "=": _T_EQUALS,
    ">": _T_GREATER_THAN,
    "in": _T_IN,
    "<": _T_LESS_THAN,
    "!=": _T_NOT_EQUALS,
    "notin": _T_NOT_IN,
    "(": _T_OPEN_PAR,
}
_TOKEN_TO_OPERATOR = {
    _T_IN: IN,
    _T_EQUALS: EQUALS,
    _T_DOUBLE_EQUALS: DOUBLE_EQUALS,
    _T_GREATER_THAN: GREATER_THAN,
    _T_LESS_THAN: LESS_THAN,
    _T_NOT_IN: NOT_IN,
    _T_NOT_EQUALS: NOT_EQUALS,
}
_SPECIAL_SYMBOLS = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")
_END = "\0"  # upstream's lexer reads a 0 byte at the end of input (and treats a literal NUL the same way)

_Token = tuple[int, str]


class _RequirementError(Exception):
    """An error inside one requirement; parse() prefixes it with 'unable to parse requirement: '."""


def _lex(text: str) -> list[_Token]:
    """Tokenize up to and including the first end-of-string token."""
    tokens: list[_Token] = []
    n = len(text)
    pos = 0

    def read() -> str:
        nonlocal pos
        if pos < n:
            ch = text[pos]
            pos += 1
            return ch
        return _END

    while True:
        ch = read()
        while ch in _WHITESPACE:
            ch = read()
        if ch == _END:
            tokens.append((_T_EOS, ""))
            return tokens
        pos -= 1
        if ch in _SPECIAL_SYMBOLS:
            buffer = ""
            last: _Token | None = None
            while True:
                ch = read()
                if ch == _END:
                    break
                if ch in _SPECIAL_SYMBOLS:
                    buffer += ch
                    tok = _STRING_TO_TOKEN.get(buffer)
                    if tok is not None:
                        last = (tok, buffer)
                    elif last is not None:
                        pos -= 1
                        break
                else:
                    pos -= 1
                    break
            tokens.append(last if last is not None else (_T_ERROR, f"error expected: keyword found '{buffer}'"))
        else:
            i = pos
            while i < n:
                ch = text[i]
                if ch == _END:  # consumed, like the end of input
                    literal = text[pos:i]
                    pos = i + 1
                    break
                if ch in _SPECIAL_SYMBOLS or ch in _WHITESPACE:
                    literal = text[pos:i]
                    pos = i
                    break
                i += 1
            else:
                literal = text[pos:]
                pos = n
            tokens.append((_STRING_TO_TOKEN.get(literal, _T_IDENTIFIER), literal))


class _Parser:
    __slots__ = ("_tokens", "_position")

    def __init__(self, text: str) -> None:
        self._tokens = _lex(text)
        self._position = 0

    def _lookahead(self, values: bool = True) -> _Token:
        tok, lit = self._tokens[min(self._position, len(self._tokens) - 1)]
        if values and (tok == _T_IN or tok == _T_NOT_IN):
            tok = _T_IDENTIFIER
        return tok, lit

    def _consume(self, values: bool = True) -> _Token:
        token = self._lookahead(values)
        self._position += 1
        return token

    def parse(self) -> list[Requirement]:
        requirements: list[Requirement] = []
        while True:
            tok, lit = self._lookahead()
            if tok == _T_IDENTIFIER or tok == _T_DOES_NOT_EXIST:
                try:
                    requirements.append(self._parse_requirement())
                except _RequirementError as e:
                    raise SelectorParseError(f"unable to parse requirement: {e}") from None
                except SelectorParseError as e:
                    raise SelectorParseError(f"unable to parse requirement: {e}") from None
                tok, lit = self._consume()
                if tok == _T_EOS:
                    return requirements
                if tok == _T_COMMA:
                    tok2, lit2 = self._lookahead()
                    if tok2 != _T_IDENTIFIER and tok2 != _T_DOES_NOT_EXIST:
                        raise SelectorParseError(f"found '{lit2}', expected: identifier after ','")
                else:
                    raise SelectorParseError(f"found '{lit}', expected: ',' or 'end of string'")
            elif tok == _T_EOS:
                return requirements
            else:
                raise SelectorParseError(f"found '{lit}', expected: !, identifier, or 'end of string'")

    def _parse_requirement(self) -> Requirement:
        key, operator = self._parse_key_and_infer_operator()
        if operator == EXISTS or operator == DOES_NOT_EXIST:
            return new_requirement(key, operator, [])
        operator = self._parse_operator()
        if operator == IN or operator == NOT_IN:
            values = self._parse_values()
        else:
            values = self._parse_exact_value()
        return new_requirement(key, operator, sorted(values))

    def _parse_key_and_infer_operator(self) -> tuple[str, str]:
        operator = ""
        tok, literal = self._consume()
        if tok == _T_DOES_NOT_EXIST:
            operator = DOES_NOT_EXIST
            tok, literal = self._consume()
        if tok != _T_IDENTIFIER:
            raise _RequirementError(f"found '{literal}', expected: identifier")
        key_errs = label_key_errors(literal)
        if key_errs:
            raise _RequirementError(_field_invalid("<nil>", literal, "; ".join(key_errs)))
        tok, _ = self._lookahead()
        if (tok == _T_EOS or tok == _T_COMMA) and operator != DOES_NOT_EXIST:
            operator = EXISTS
        return literal, operator

    def _parse_operator(self) -> str:
        tok, lit = self._consume(values=False)
        operator = _TOKEN_TO_OPERATOR.get(tok)
        if operator is None:
            raise _RequirementError(f"found '{lit}', expected: {', '.join(_BINARY_OPERATORS)}")
        return operator

    def _parse_values(self) -> set[str]:
        tok, lit = self._consume()
        if tok != _T_OPEN_PAR:
            raise _RequirementError(f"found '{lit}' expected: '('")
        tok, lit = self._lookahead()
        if tok == _T_IDENTIFIER or tok == _T_COMMA:
            values = self._parse_identifiers_list()
            tok, _ = self._consume()
            if tok != _T_CLOSED_PAR:
                raise _RequirementError(f"found '{lit}', expected: ')'")
            return values
        if tok == _T_CLOSED_PAR:  # "()"
            self._consume()
            return {""}
        raise _RequirementError(f"found '{lit}', expected: ',', ')' or identifier")

    def _parse_identifiers_list(self) -> set[str]:
        values: set[str] = set()
        while True:
            tok, lit = self._consume()
            if tok == _T_IDENTIFIER:
                values.add(lit)
                tok2, lit2 = self._lookahead()
                if tok2 == _T_COMMA:
                    continue
                if tok2 == _T_CLOSED_PAR:
                    return values
                raise _RequirementError(f"found '{lit2}', expected: ',' or ')'")
            if tok == _T_COMMA:  # "(," ",," and ",)" stand for the empty value
                if not values:
                    values.add("")
                tok2, _ = self._lookahead()
                if tok2 == _T_CLOSED_PAR:
                    values.add("")
                    return values
                if tok2 == _T_COMMA:
                    values.add("")
            else:
                raise _RequirementError(f"found '{lit}', expected: ',', or identifier")

    def _parse_exact_value(self) -> set[str]:
        tok, _ = self._lookahead()
        if tok == _T_EOS or tok == _T_COMMA:
            return {""}
        tok, lit = self._consume()
        if tok == _T_IDENTIFIER:
            return {lit}
        raise _RequirementError(f"found '{lit}', expected: identifier")


@functools.lru_cache(maxsize=512)
def parse_label_selector(text: str) -> LabelSelector:
    """``labels.Parse``: parse the ``labelSelector`` query parameter; "" selects everything.

    Raises :class:`SelectorParseError` with upstream's message. Results are cached (selectors are immutable).
    """
    if not text:
        return _EVERYTHING
    return LabelSelector(_Parser(text).parse())
