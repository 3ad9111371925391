"""Field selectors, as k8s.io/apimachinery/pkg/fields parses, prints and matches them.

Grammar (``fields.ParseSelector``): comma-separated terms ``field=value``, ``field==value`` or ``field!=value``.
The field is everything before the first operator (no escaping, no whitespace trimming); in the value ``\\``,
``,`` and ``=`` must be escaped with a backslash (``fields.EscapeValue``). The empty string selects everything.
A field missing from the object's field set compares as "" (upstream's ``fields.Set.Get``).

How kube-apiserver rejects a field it does not support (``ListResource`` calls ``Selector.Transform`` with the
scheme's field label conversion and answers the error as a 400 BadRequest whose message is the error text):

* kinds with their own conversion function (core kinds such as pods, nodes, events, secrets, namespaces ..., and
  custom resources): ``field label not supported: <field>`` (:func:`unsupported_field_message`);
* kinds without one fall back to ``runtime.DefaultMetaV1FieldSelectorConversion``:
  ``"<field>" is not a known field selector: only "metadata.name", "metadata.namespace"``
  (:func:`unknown_field_selector_message`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from typing import NamedTuple

from kube_apiserver.runtime.labels import SelectorParseError, go_quote

__all__ = [
    "EQUALS",
    "NOT_EQUALS",
    "FieldRequirement",
    "FieldSelector",
    "SelectorParseError",
    "escape_value",
    "parse_field_selector",
    "unescape_value",
    "unknown_field_selector_message",
    "unsupported_field_error",
    "unsupported_field_message",
]

EQUALS = "="  # selection.Equals; "==" parses to it too
NOT_EQUALS = "!="  # selection.NotEquals

TransformFunc = Callable[[str, str], tuple[str, str]]


class FieldRequirement(NamedTuple):
    """One term of a field selector (``fields.Requirement``); ``operator`` is "=" or "!="."""

    field: str
    operator: str
    value: str


def escape_value(value: str) -> str:
    """``fields.EscapeValue``: escape ``\\``, ``,`` and ``=`` for use as a field selector value."""
    if "\\" not in value and "," not in value and "=" not in value:
        return value
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def unescape_value(value: str) -> str:
    """``fields.UnescapeValue``: the literal value of an escaped field selector value.

    Only ``\\\\``, ``\\,`` and ``\\=`` are escape sequences; any other, a trailing backslash, or an unescaped ``,`` or
    ``=`` raises :class:`SelectorParseError` with upstream's message.
    """
    if "\\" not in value and "," not in value and "=" not in value:
        return value
    out: list[str] = []
    in_slash = False
    for ch in value:
        if in_slash:
            if ch == "\\" or ch == "," or ch == "=":
                out.append(ch)
            else:
                raise SelectorParseError(f"invalid field selector: invalid escape sequence: \\{ch}")
            in_slash = False
        elif ch == "\\":
            in_slash = True
        elif ch == "," or ch == "=":
            # upstream formats the rune with %v, which prints its code point
            raise SelectorParseError(f"invalid field selector: unescaped character in value: {ord(ch)}")
        else:
            out.append(ch)
    if in_slash:
        raise SelectorParseError("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def unsupported_field_message(field: str) -> str:
    """The message of kinds with a field label conversion function (core kinds, custom resources).

    E.g. ``kubectl get pods --field-selector foo=bar`` -> ``field label not supported: foo`` (400 BadRequest).
    """
    return f"field label not supported: {field}"


def unknown_field_selector_message(field: str) -> str:
    """The message of ``runtime.DefaultMetaV1FieldSelectorConversion``, for kinds without their own conversion."""
    return f'{go_quote(field)} is not a known field selector: only "metadata.name", "metadata.namespace"'


def unsupported_field_error(field: str, resource_kind: str | None = None) -> SelectorParseError:
    """The error for an unsupported field; upstream's message does not name the kind (``resource_kind`` is unused)."""
    del resource_kind
    return SelectorParseError(unsupported_field_message(field))


class FieldSelector:
    """A parsed field selector: the AND of its terms (immutable, hashable)."""

    __slots__ = ("_requirements", "_checks")

    _requirements: tuple[FieldRequirement, ...]
    _checks: tuple[tuple[str, bool, str], ...]

    def __init__(self, requirements: Iterable[FieldRequirement | tuple[str, str, str]] = ()) -> None:
        reqs: list[FieldRequirement] = []
        for field, operator, value in requirements:
            if operator == "==":
                operator = EQUALS
            elif operator != EQUALS and operator != NOT_EQUALS:
                raise ValueError(f"unsupported field selector operator {operator!r}")
            reqs.append(FieldRequirement(field, operator, value))
        self._requirements = tuple(reqs)
        self._checks = tuple((r.field, r.operator == EQUALS, r.value) for r in reqs)

    @classmethod
    def everything(cls) -> FieldSelector:
        """The selector that matches everything (``fields.Everything()``)."""
        return _EVERYTHING

    @classmethod
    def one_term_equal(cls, field: str, value: str) -> FieldSelector:
        """``fields.OneTermEqualSelector``: ``field=value``."""
        return cls(((field, EQUALS, value),))

    @classmethod
    def from_set(cls, fields: Mapping[str, str] | None) -> FieldSelector:
        """``fields.SelectorFromSet``: all ``field=value`` terms of the mapping (sorted by field)."""
        if not fields:
            return _EVERYTHING
        return cls((f, EQUALS, v) for f, v in sorted(fields.items()))

    @property
    def requirements(self) -> list[FieldRequirement]:
        """The terms as (field, operator, value) tuples, operator "=" or "!="."""
        return list(self._requirements)

    @property
    def empty(self) -> bool:
        """True when the selector does not restrict the selection."""
        return not self._requirements

    def matches(self, fields: Mapping[str, str]) -> bool:
        """Whether an object with these selectable fields is selected; a missing field compares as ""."""
        get = fields.get
        for field, equal, value in self._checks:
            if (get(field, "") == value) is not equal:
                return False
        return True

    def requires_exact_match(self, field: str) -> str | None:
        """The value of the first ``field=value`` term, else None (``RequiresExactMatch``).

        Used for single-object watches on ``metadata.name`` and for ``metadata.namespace``.
        """
        for req in self._requirements:
            if req.field == field and req.operator == EQUALS:
                return req.value
        return None

    def transform(self, fn: TransformFunc) -> FieldSelector:
        """``Selector.Transform``: map every (field, value) through ``fn``.

        ``fn`` raises to reject a term (the server answers the exception's message as a 400 BadRequest); a term
        that ``fn`` maps to ("", "") is dropped.
        """
        reqs: list[FieldRequirement] = []
        for field, operator, value in self._requirements:
            new_field, new_value = fn(field, value)
            if not new_field and not new_value:
                continue
            reqs.append(FieldRequirement(new_field, operator, new_value))
        return FieldSelector(reqs)

    def check_fields(
        self, supported: Collection[str], message: Callable[[str], str] = unsupported_field_message
    ) -> FieldSelector:
        """Reject the first term (in canonical order, as upstream) whose field is not in ``supported``.

        Raises :class:`SelectorParseError` with ``message(field)``; pass :func:`unknown_field_selector_message` for
        kinds that use upstream's default metadata-only conversion. Returns ``self`` when all fields are supported.
        """
        for req in self._requirements:
            if req.field not in supported:
                raise SelectorParseError(message(req.field))
        return self

    def and_selector(self, other: FieldSelector) -> FieldSelector:
        """The AND of two selectors (``fields.AndSelectors``)."""
        return FieldSelector(self._requirements + other._requirements)

    def __str__(self) -> str:
        return ",".join(f"{r.field}{r.operator}{escape_value(r.value)}" for r in self._requirements)

    def __repr__(self) -> str:
        return f"FieldSelector({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldSelector):
            return NotImplemented
        return self._requirements == other._requirements

    def __hash__(self) -> int:
        return hash(self._requirements)


_EVERYTHING = FieldSelector()


def _split_terms(text: str) -> list[str]:
    """Split on commas that are not backslash-escaped (escapes are kept in the terms)."""
    if "\\" not in text:
        return text.split(",")
    terms: list[str] = []
    start = 0
    in_slash = False
    for i, ch in enumerate(text):
        if in_slash:
            in_slash = False
        elif ch == "\\":
            in_slash = True
        elif ch == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    """(field, operator, raw value) split at the first operator, or None when the term has none."""
    eq = term.find("=")
    if eq < 0:
        return None  # "!=" and "==" both contain "="
    if eq > 0 and term[eq - 1] == "!":  # the first operator is "!=" only when its "=" is the first "="
        return term[: eq - 1], NOT_EQUALS, term[eq + 1 :]
    if term.startswith("=", eq + 1):
        return term[:eq], "==", term[eq + 2 :]
    return term[:eq], EQUALS, term[eq + 1 :]


def parse_field_selector(text: str) -> FieldSelector:
    """``fields.ParseSelector``: parse the ``fieldSelector`` query parameter; "" selects everything.

    Terms are sorted (as upstream, which also decides which bad term is reported first). Raises
    :class:`SelectorParseError` with upstream's message, e.g. ``invalid selector: 'a'; can't understand 'a'``.
    """
    if not text:
        return _EVERYTHING
    parts = _split_terms(text)
    parts.sort()
    reqs: list[FieldRequirement] = []
    for part in parts:
        if not part:
            continue
        split = _split_term(part)
        if split is None:
            raise SelectorParseError(f"invalid selector: '{text}'; can't understand '{part}'")
        field, operator, raw_value = split
        reqs.append(
            FieldRequirement(field, NOT_EQUALS if operator == NOT_EQUALS else EQUALS, unescape_value(raw_value))
        )
    return FieldSelector(reqs)
