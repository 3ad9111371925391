"""Field selectors: parsing, escaping, error messages and matching as upstream (k8s.io/apimachinery fields)."""

from __future__ import annotations

import pytest

from kube_apiserver.runtime import labels
from kube_apiserver.runtime.fields import (
    EQUALS,
    NOT_EQUALS,
    FieldRequirement,
    FieldSelector,
    SelectorParseError,
    escape_value,
    parse_field_selector,
    unescape_value,
    unknown_field_selector_message,
    unsupported_field_error,
    unsupported_field_message,
)


def test_shares_the_error_type_with_labels() -> None:
    assert SelectorParseError is labels.SelectorParseError


# --- parsing ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", []),
        (",,,", []),
        ("a=b", [("a", EQUALS, "b")]),
        ("a==b", [("a", EQUALS, "b")]),
        ("a!=b", [("a", NOT_EQUALS, "b")]),
        ("a=", [("a", EQUALS, "")]),
        ("a!=", [("a", NOT_EQUALS, "")]),
        ("=b", [("", EQUALS, "b")]),
        ("a=!b", [("a", EQUALS, "!b")]),
        ("a!b!=c", [("a!b", NOT_EQUALS, "c")]),
        (" a = b ", [(" a ", EQUALS, " b ")]),  # no whitespace trimming
        ("metadata.name=foo,", [("metadata.name", EQUALS, "foo")]),
        # sorted (by the raw term text)
        (
            "status.phase!=Running,metadata.namespace=default,spec.nodeName=",
            [
                ("metadata.namespace", EQUALS, "default"),
                ("spec.nodeName", EQUALS, ""),
                ("status.phase", NOT_EQUALS, "Running"),
            ],
        ),
        # escaping
        ("a=b\\,c", [("a", EQUALS, "b,c")]),
        ("a=b\\=c", [("a", EQUALS, "b=c")]),
        ("a=b\\\\c", [("a", EQUALS, "b\\c")]),
        ("a=b\\,c,d=e", [("a", EQUALS, "b,c"), ("d", EQUALS, "e")]),
        ("a=\\\\,b=c", [("a", EQUALS, "\\"), ("b", EQUALS, "c")]),
        ("x=\\,\\=\\\\", [("x", EQUALS, ",=\\")]),
        ("a=é", [("a", EQUALS, "é")]),
        ("a=b\\,", [("a", EQUALS, "b,")]),  # an escaped trailing comma belongs to the value
    ],
)
def test_parse(text: str, expected: list[tuple[str, str, str]]) -> None:
    sel = parse_field_selector(text)
    assert sel.requirements == expected
    assert all(isinstance(r, FieldRequirement) for r in sel.requirements)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("", ""),
        ("a==b", "a=b"),
        ("b=1,a!=2", "a!=2,b=1"),
        ("a=b\\,c", "a=b\\,c"),
        ("x=\\,\\=\\\\", "x=\\,\\=\\\\"),
        ("a=,", "a="),
    ],
)
def test_canonical_string(text: str, canonical: str) -> None:
    sel = parse_field_selector(text)
    assert str(sel) == canonical
    assert parse_field_selector(str(sel)) == sel


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a", "invalid selector: 'a'; can't understand 'a'"),
        ("a!b", "invalid selector: 'a!b'; can't understand 'a!b'"),
        ("a<b", "invalid selector: 'a<b'; can't understand 'a<b'"),
        # parts are sorted before parsing: the first bad one in sorted order is reported
        ("z,b=1,a", "invalid selector: 'z,b=1,a'; can't understand 'a'"),
        ("a=b=c", "invalid field selector: unescaped character in value: 61"),
        ("a!==b", "invalid field selector: unescaped character in value: 61"),
        ("a===b", "invalid field selector: unescaped character in value: 61"),
        ("a=b\\", "invalid field selector: invalid escape sequence: \\"),
        ("a=b\\!", "invalid field selector: invalid escape sequence: \\!"),
        ("a=b\\n", "invalid field selector: invalid escape sequence: \\n"),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(SelectorParseError) as info:
        parse_field_selector(text)
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)


# --- escaping -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("", ""),
        ("abc", "abc"),
        ("a,b", "a\\,b"),
        ("a=b", "a\\=b"),
        ("a\\b", "a\\\\b"),
        ("\\,=", "\\\\\\,\\="),
        ("a!b", "a!b"),
    ],
)
def test_escape_round_trip(raw: str, escaped: str) -> None:
    assert escape_value(raw) == escaped
    assert unescape_value(escaped) == raw
    sel = parse_field_selector("f=" + escaped)
    assert sel.requirements == [("f", EQUALS, raw)]
    assert str(sel) == "f=" + escaped


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("a,b", "invalid field selector: unescaped character in value: 44"),
        ("a=b", "invalid field selector: unescaped character in value: 61"),
        ("\\x", "invalid field selector: invalid escape sequence: \\x"),
        ("x\\", "invalid field selector: invalid escape sequence: \\"),
    ],
)
def test_unescape_errors(value: str, message: str) -> None:
    with pytest.raises(SelectorParseError) as info:
        unescape_value(value)
    assert str(info.value) == message


# --- matching -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fields", "expected"),
    [
        ("", {"a": "b"}, True),
        ("a=b", {"a": "b"}, True),
        ("a=b", {"a": "c"}, False),
        ("a=b", {}, False),
        ("a=", {}, True),  # a missing field is ""
        ("a==", {"a": ""}, True),
        ("a!=", {}, False),
        ("a!=b", {}, True),
        ("a!=b", {"a": "b"}, False),
        ("a!=b", {"a": "c"}, True),
        ("a=b,c!=d", {"a": "b", "c": "e"}, True),
        ("a=b,c!=d", {"a": "b", "c": "d"}, False),
        ("metadata.name=x\\,y", {"metadata.name": "x,y"}, True),
        ("a=b,a=c", {"a": "b"}, False),
    ],
)
def test_matches(text: str, fields: dict[str, str], expected: bool) -> None:
    assert parse_field_selector(text).matches(fields) is expected


def test_many_objects() -> None:
    sel = parse_field_selector("metadata.namespace=ns1,status.phase!=Running")
    objects = [
        {
            "metadata.name": f"p{i}",
            "metadata.namespace": f"ns{i % 4}",
            "status.phase": "Running" if i % 3 else "Pending",
        }
        for i in range(10_000)
    ]
    selected = [o for o in objects if sel.matches(o)]
    assert selected
    assert all(o["metadata.namespace"] == "ns1" and o["status.phase"] != "Running" for o in selected)
    assert len(selected) == sum(1 for i in range(10_000) if i % 4 == 1 and i % 3 == 0)


def test_empty_and_everything() -> None:
    assert parse_field_selector("").empty
    assert parse_field_selector("") == FieldSelector.everything()
    assert FieldSelector.everything().matches({})
    assert not parse_field_selector("a=b").empty


# --- introspection and transformation -----------------------------------------------------------------------------


def test_requires_exact_match() -> None:
    sel = parse_field_selector("metadata.name=foo,metadata.namespace=bar")
    assert sel.requires_exact_match("metadata.name") == "foo"
    assert sel.requires_exact_match("metadata.namespace") == "bar"
    assert sel.requires_exact_match("spec.nodeName") is None
    assert parse_field_selector("metadata.name==foo").requires_exact_match("metadata.name") == "foo"
    assert parse_field_selector("metadata.name=").requires_exact_match("metadata.name") == ""
    assert parse_field_selector("metadata.name!=foo").requires_exact_match("metadata.name") is None
    # the first equality term on the field wins, != terms are skipped
    assert parse_field_selector("a!=x,a=y").requires_exact_match("a") == "y"
    assert parse_field_selector("a=x,a=y").requires_exact_match("a") == "x"
    assert FieldSelector.everything().requires_exact_match("a") is None


def test_transform() -> None:
    sel = parse_field_selector("spec.host=n1,metadata.name!=x")

    def rename(field: str, value: str) -> tuple[str, str]:
        return ("spec.nodeName", value) if field == "spec.host" else (field, value)

    out = sel.transform(rename)
    assert out.requirements == [("metadata.name", NOT_EQUALS, "x"), ("spec.nodeName", EQUALS, "n1")]
    assert sel.requirements == [("metadata.name", NOT_EQUALS, "x"), ("spec.host", EQUALS, "n1")]  # unchanged


def test_transform_drops_terms_mapped_to_empty() -> None:
    sel = parse_field_selector("a=1,b=2")
    out = sel.transform(lambda f, v: ("", "") if f == "a" else (f, v))
    assert str(out) == "b=2"
    assert sel.transform(lambda f, v: ("", "")).empty


def test_transform_error_propagates() -> None:
    def convert(field: str, value: str) -> tuple[str, str]:
        if field not in ("metadata.name", "metadata.namespace"):
            raise SelectorParseError(unknown_field_selector_message(field))
        return field, value

    with pytest.raises(SelectorParseError) as info:
        parse_field_selector("metadata.name=a,spec.foo=b").transform(convert)
    assert str(info.value) == '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"'


def test_check_fields() -> None:
    pod_fields = {"metadata.name", "metadata.namespace", "spec.nodeName", "status.phase"}
    sel = parse_field_selector("spec.nodeName=n1,status.phase!=Failed")
    assert sel.check_fields(pod_fields) is sel
    with pytest.raises(SelectorParseError) as info:
        parse_field_selector("foo=bar").check_fields(pod_fields)
    assert str(info.value) == "field label not supported: foo"
    # reported in canonical (sorted) order
    with pytest.raises(SelectorParseError) as info:
        parse_field_selector("zzz=1,bbb=2").check_fields(pod_fields)
    assert str(info.value) == "field label not supported: bbb"
    with pytest.raises(SelectorParseError) as info:
        parse_field_selector("spec.x=1").check_fields(
            {"metadata.name", "metadata.namespace"}, unknown_field_selector_message
        )
    assert str(info.value) == '"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"'
    assert FieldSelector.everything().check_fields(()).empty


def test_messages() -> None:
    assert unsupported_field_message("foo") == "field label not supported: foo"
    assert unknown_field_selector_message('a"b') == (
        '"a\\"b" is not a known field selector: only "metadata.name", "metadata.namespace"'
    )
    err = unsupported_field_error("spec.foo", "Pod")
    assert isinstance(err, SelectorParseError)
    assert str(err) == "field label not supported: spec.foo"


# --- construction helpers -----------------------------------------------------------------------------------------


def test_constructors() -> None:
    assert str(FieldSelector.one_term_equal("metadata.name", "a,b")) == "metadata.name=a\\,b"
    assert FieldSelector.one_term_equal("metadata.name", "a").requires_exact_match("metadata.name") == "a"
    assert str(FieldSelector.from_set({"b": "2", "a": "1"})) == "a=1,b=2"
    assert FieldSelector.from_set(None).empty
    assert FieldSelector.from_set({}).empty
    assert str(FieldSelector([("a", "==", "1")])) == "a=1"
    with pytest.raises(ValueError):
        FieldSelector([("a", "<", "1")])
    both = parse_field_selector("a=1").and_selector(FieldSelector.one_term_equal("metadata.name", "x"))
    assert str(both) == "a=1,metadata.name=x"
    assert both.matches({"a": "1", "metadata.name": "x"})
    assert not both.matches({"a": "1", "metadata.name": "y"})


def test_equality_and_hash() -> None:
    a = parse_field_selector("b=2,a=1")
    b = parse_field_selector("a=1,b==2")
    assert a == b
    assert hash(a) == hash(b)
    assert a != parse_field_selector("a=1")
    assert a != "a=1,b=2"
    assert repr(a) == "FieldSelector('a=1,b=2')"
