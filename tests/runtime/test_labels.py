"""Label selectors: parsing, canonical form, error messages and matching as upstream (k8s.io/apimachinery labels)."""

from __future__ import annotations

import pytest

from kube_apiserver.runtime.labels import (
    DOES_NOT_EXIST,
    DOUBLE_EQUALS,
    EQUALS,
    EXISTS,
    GREATER_THAN,
    IN,
    LESS_THAN,
    NOT_EQUALS,
    NOT_IN,
    LabelSelector,
    Requirement,
    SelectorParseError,
    go_quote,
    label_key_errors,
    label_value_errors,
    new_requirement,
    parse_label_selector,
    selector_from_label_selector_dict,
    selector_from_set,
    validated_selector_from_set,
)

NAME_PART_REGEX = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
VALUE_REGEX = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
SUBDOMAIN_REGEX = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def reqs(text: str) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(r.key, r.operator, r.values) for r in parse_label_selector(text).requirements]


# --- parsing ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"],
)
def test_good_strings_round_trip_without_spaces(text: str) -> None:
    # upstream TestSelectorParse: String() is the input with spaces removed
    assert str(parse_label_selector(text)) == text.replace(" ", "")


@pytest.mark.parametrize("text", ["x=a||y=b", "x==a==b", "!x=a", "x<a"])
def test_bad_strings(text: str) -> None:
    with pytest.raises(SelectorParseError):
        parse_label_selector(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", []),
        ("a=b", [("a", EQUALS, ("b",))]),
        ("a==b", [("a", DOUBLE_EQUALS, ("b",))]),
        ("a!=b", [("a", NOT_EQUALS, ("b",))]),
        ("a in (x,y)", [("a", IN, ("x", "y"))]),
        ("a notin (x,y)", [("a", NOT_IN, ("x", "y"))]),
        ("a", [("a", EXISTS, ())]),
        ("!a", [("a", DOES_NOT_EXIST, ())]),
        ("a>5", [("a", GREATER_THAN, ("5",))]),
        ("a<5", [("a", LESS_THAN, ("5",))]),
        ("a=", [("a", EQUALS, ("",))]),
        ("a in ()", [("a", IN, ("",))]),
        ("a notin ()", [("a", NOT_IN, ("",))]),
        ("a in (x,)", [("a", IN, ("", "x"))]),
        ("a in (,x)", [("a", IN, ("", "x"))]),
        ("a in (x,,y)", [("a", IN, ("", "x", "y"))]),
        ("a in (y,x,x)", [("a", IN, ("x", "y"))]),  # a set: sorted, de-duplicated
        ("\rx", [("x", EXISTS, ())]),
        ("foo  in\t (abc)", [("foo", IN, ("abc",))]),
        ("x notin\n (abc)", [("x", NOT_IN, ("abc",))]),
        ("  a  =  b  ,  c  ", [("a", EQUALS, ("b",)), ("c", EXISTS, ())]),
        ("in in (in)", [("in", IN, ("in",))]),  # keywords are identifiers where a key or value is expected
        ("notin=in", [("notin", EQUALS, ("in",))]),
        ("x=notin", [("x", EQUALS, ("notin",))]),
        (
            "this-is-a-dns.domain.com/key-with-dash",
            [("this-is-a-dns.domain.com/key-with-dash", EXISTS, ())],
        ),
        (
            "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
            [("0.1.2.domain/99", NOT_IN, ("10.10.100.1", "tick.tack.clock"))],
        ),
        # sorted by key, stable
        (
            "x notin (abc,def),bar,z in (),w",
            [("bar", EXISTS, ()), ("w", EXISTS, ()), ("x", NOT_IN, ("abc", "def")), ("z", IN, ("",))],
        ),
        ("z=1,a=2,z!=3", [("a", EQUALS, ("2",)), ("z", EQUALS, ("1",)), ("z", NOT_EQUALS, ("3",))]),
        ("app.kubernetes.io/name=web", [("app.kubernetes.io/name", EQUALS, ("web",))]),
        ("A_b.C-d=E_f.G-h", [("A_b.C-d", EQUALS, ("E_f.G-h",))]),
    ],
)
def test_parse(text: str, expected: list[tuple[str, str, tuple[str, ...]]]) -> None:
    assert reqs(text) == expected


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("x in (abc,def),y notin (jkl),z", "x in (abc,def),y notin (jkl),z"),
        ("z,y!=jkl,!z,x notin (def,abc)", "x notin (abc,def),y!=jkl,z,!z"),
        ("x notin (abc),y in (mno,jkl),z notin ()", "x notin (abc),y in (jkl,mno),z notin ()"),
        ("x=abc,y==jkl,z!=a,z", "x=abc,y==jkl,z!=a,z"),
        ("x>2,y<8,z", "x>2,y<8,z"),
        ("x=a,a=x", "a=x,x=a"),
        ("  b in ( y , x )  ,  a  ", "a,b in (x,y)"),
    ],
)
def test_canonical_string(text: str, canonical: str) -> None:
    assert str(parse_label_selector(text)) == canonical


def test_deterministic_parse() -> None:
    assert parse_label_selector("x=a,a=x") == parse_label_selector("a=x,x=a")


def test_empty_selects_everything() -> None:
    sel = parse_label_selector("")
    assert sel.empty
    assert sel == LabelSelector.everything()
    assert sel.matches({"x": "y"})
    assert sel.matches({})
    assert sel.matches(None)
    assert str(sel) == ""
    assert not parse_label_selector("a").empty


# --- errors -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
        ("a=b c", "found 'c', expected: ',' or 'end of string'"),
        ("!a=b", "found '=', expected: ',' or 'end of string'"),
        ("x==a==b", "found '==', expected: ',' or 'end of string'"),
        ("a,", "found '', expected: identifier after ','"),
        ("a,,b", "found ',', expected: identifier after ','"),
        ("a,=b", "found '=', expected: identifier after ','"),
        (",a", "found ',', expected: !, identifier, or 'end of string'"),
        ("=a", "found '=', expected: !, identifier, or 'end of string'"),
        ("(a)", "found '(', expected: !, identifier, or 'end of string'"),
        ("!", "unable to parse requirement: found '', expected: identifier"),
        ("!!a", "unable to parse requirement: found '!', expected: identifier"),
        ("a=!b", "unable to parse requirement: found '!', expected: identifier"),
        ("a=(b)", "unable to parse requirement: found '(', expected: identifier"),
        ("a in", "unable to parse requirement: found '' expected: '('"),
        ("a in x", "unable to parse requirement: found 'x' expected: '('"),
        ("a in (", "unable to parse requirement: found '', expected: ',', ')' or identifier"),
        ("a in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"),
        ("a in (x y)", "unable to parse requirement: found 'y', expected: ',' or ')'"),
        ("a notin (x", "unable to parse requirement: found '', expected: ',' or ')'"),
        ("a in (x,=)", "unable to parse requirement: found '=', expected: ',', or identifier"),
        ("a in (x),", "found '', expected: identifier after ','"),
        ("a in (x) b", "found 'b', expected: ',' or 'end of string'"),
        ("x=a||y=b", "unable to parse requirement: " + f'values[0][x]: Invalid value: "a||y": {VALUE_REGEX}'),
        ("-a", f'unable to parse requirement: <nil>: Invalid value: "-a": {NAME_PART_REGEX}'),
        ("a:b=c", f'unable to parse requirement: <nil>: Invalid value: "a:b": {NAME_PART_REGEX}'),
        ("app: nginx", f'unable to parse requirement: <nil>: Invalid value: "app:": {NAME_PART_REGEX}'),
        ("*bar", f'unable to parse requirement: <nil>: Invalid value: "*bar": {NAME_PART_REGEX}'),
        (
            "a/b/c ?=? def",
            'unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name must consist of '
            "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
            "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' "
            "(e.g. 'example.com/MyName')",
        ),
        (
            "app.kubernetes_io/name=x",
            'unable to parse requirement: <nil>: Invalid value: "app.kubernetes_io/name": prefix part '
            + SUBDOMAIN_REGEX,
        ),
        ("/a", 'unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty'),
        (
            "a/",
            f'unable to parse requirement: <nil>: Invalid value: "a/": name part must be non-empty; {NAME_PART_REGEX}',
        ),
        (
            "k" * 64,
            f'unable to parse requirement: <nil>: Invalid value: "{"k" * 64}": name part must be no more than 63 '
            "characters",
        ),
        ("a=-b", f'unable to parse requirement: values[0][a]: Invalid value: "-b": {VALUE_REGEX}'),
        (
            "a=" + "v" * 64,
            f'unable to parse requirement: values[0][a]: Invalid value: "{"v" * 64}": must be no more than 63 characters',
        ),
        (
            "a=-" + "v" * 63,
            f'unable to parse requirement: values[0][a]: Invalid value: "-{"v" * 63}": must be no more than 63 '
            f"characters; {VALUE_REGEX}",
        ),
        # the index is into the sorted value set
        ("a in (b,-c)", f'unable to parse requirement: values[0][a]: Invalid value: "-c": {VALUE_REGEX}'),
        (
            "a in (z,-c,-d)",
            f'unable to parse requirement: [values[0][a]: Invalid value: "-c": {VALUE_REGEX}, '
            f'values[1][a]: Invalid value: "-d": {VALUE_REGEX}]',
        ),
        (
            "x<a",
            "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value "
            "must be an integer",
        ),
        (
            "x>",
            "unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value "
            "must be an integer",
        ),
        (
            "x>99999999999999999999",
            "unable to parse requirement: values[0]: Invalid value: \"99999999999999999999\": for 'Gt', 'Lt' "
            "operators, the value must be an integer",
        ),
        (
            "x>1.5",
            "unable to parse requirement: values[0]: Invalid value: \"1.5\": for 'Gt', 'Lt' operators, the "
            "value must be an integer",
        ),
        ("a\x00b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(SelectorParseError) as info:
        parse_label_selector(text)
    assert str(info.value) == message
    assert info.value.message == message
    assert isinstance(info.value, ValueError)


def test_errors_are_not_cached_as_results() -> None:
    for _ in range(2):
        with pytest.raises(SelectorParseError):
            parse_label_selector("a b")


def test_non_ascii_is_rejected() -> None:
    with pytest.raises(SelectorParseError) as info:
        parse_label_selector("a=é")
    assert str(info.value).startswith('unable to parse requirement: values[0][a]: Invalid value: "é": ')


# --- validation helpers ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    ["a", "A", "1", "a.b", "a-b_c.d", "example.com/MyName", "a/b", "k" * 63, ("s" * 253) + "/" + ("n" * 63)],
)
def test_valid_keys(key: str) -> None:
    assert label_key_errors(key) == []


@pytest.mark.parametrize(
    "key", ["", "-a", "a-", "a b", "a/b/c", "/a", "a/", "k" * 64, "Example.com/a", "ex_ample.com/a", ("s" * 254) + "/n"]
)
def test_invalid_keys(key: str) -> None:
    assert label_key_errors(key)


def test_prefix_too_long_message() -> None:
    assert label_key_errors(("s" * 254) + "/n") == ["prefix part must be no more than 253 characters"]


@pytest.mark.parametrize("value", ["", "a", "A-b_c.d", "1", "v" * 63])
def test_valid_values(value: str) -> None:
    assert label_value_errors(value) == []


@pytest.mark.parametrize("value", ["-a", "a-", "a b", "a/b", "v" * 64, "é"])
def test_invalid_values(value: str) -> None:
    assert label_value_errors(value)


def test_length_is_counted_in_bytes() -> None:
    assert label_value_errors("é" * 32)[0] == "must be no more than 63 characters"


def test_go_quote() -> None:
    assert go_quote("abc") == '"abc"'
    assert go_quote('a"b\\c') == '"a\\"b\\\\c"'
    assert go_quote("\n\t\x01\x7f") == '"\\n\\t\\x01\\x7f"'
    assert go_quote("é\u2028") == '"é\\u2028"'
    assert go_quote("\U000e0001") == '"\\U000e0001"'


# --- new_requirement ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "op", "values", "ok"),
    [
        ("x", IN, [], False),
        ("x", NOT_IN, [], False),
        ("x", IN, ["foo"], True),
        ("x", NOT_IN, ["foo"], True),
        ("x", EXISTS, [], True),
        ("x", DOES_NOT_EXIST, [], True),
        ("1foo", IN, ["bar"], True),
        ("1234", IN, ["bar"], True),
        ("y", GREATER_THAN, ["1"], True),
        ("z", LESS_THAN, ["6"], True),
        ("foo", GREATER_THAN, ["bar"], False),
        ("barz", LESS_THAN, ["blah"], False),
        ("a" * 254, EXISTS, [], False),
        ("x", EQUALS, ["a", "b"], False),
        ("x", EXISTS, ["a"], False),
        ("x", "~", [], False),
    ],
)
def test_new_requirement(key: str, op: str, values: list[str], ok: bool) -> None:
    if ok:
        assert new_requirement(key, op, values) == Requirement(key, op, values)
    else:
        with pytest.raises(SelectorParseError):
            new_requirement(key, op, values)


def test_new_requirement_messages() -> None:
    with pytest.raises(SelectorParseError) as info:
        new_requirement("x", EQUALS, ["a", "b"])
    assert (
        str(info.value)
        == 'values: Invalid value: []string{"a", "b"}: exact-match compatibility requires one single value'
    )
    with pytest.raises(SelectorParseError) as info:
        new_requirement("x", GREATER_THAN, [])
    assert (
        str(info.value)
        == "values: Invalid value: []string(nil): for 'Gt', 'Lt' operators, exactly one value is required"
    )
    with pytest.raises(SelectorParseError) as info:
        new_requirement("x", "~", [])
    assert str(info.value) == (
        'operator: Unsupported value: "~": supported values: "in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"'
    )
    assert new_requirement("x", IN, ["a"], path="spec.selector") == Requirement("x", IN, ["a"])
    with pytest.raises(SelectorParseError) as info:
        new_requirement("-x", IN, [], path="spec.selector")
    assert str(info.value) == (
        f'[spec.selector.key: Invalid value: "-x": {NAME_PART_REGEX}, spec.selector.values: Invalid value: '
        "[]string(nil): for 'in', 'notin' operators, values set can't be empty]"
    )


def test_requirement_is_immutable_and_hashable() -> None:
    r = Requirement("a", IN, ["x"])
    with pytest.raises(AttributeError):
        r.key = "b"  # type: ignore[misc]
    assert {r, Requirement("a", IN, ("x",))} == {r}
    assert repr(r) == "Requirement('a', 'in', ('x',))"


# --- matching -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "labels", "expected"),
    [
        ("", {"x": "y"}, True),
        ("x=y", {"x": "y"}, True),
        ("x=y,z=w", {"x": "y", "z": "w"}, True),
        ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
        ("notin=in", {"notin": "in"}, True),
        ("x", {"x": "z"}, True),
        ("!x", {"y": "z"}, True),
        ("x>1", {"x": "2"}, True),
        ("x<1", {"x": "0"}, True),
        ("x=z", {}, False),
        ("x=y", {"x": "z"}, False),
        ("x=y,z=w", {"x": "w", "z": "w"}, False),
        ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
        ("x", {"y": "z"}, False),
        ("!x", {"x": "z"}, False),
        ("x>1", {"x": "0"}, False),
        ("x<1", {"x": "2"}, False),
        ("foo=bar,baz=blah", {"foo": "bar", "baz": "blah"}, True),
        ("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}, False),
        ("x==y", {"x": "y"}, True),
        ("x in (a,b)", {"x": "b"}, True),
        ("x in (a,b)", {"x": "c"}, False),
        ("x in (a,b)", {}, False),
        ("x notin (a,b)", {"x": "c"}, True),
        ("x notin (a,b)", {"x": "a"}, False),
        ("x notin (a,b)", {}, True),  # notin / != match when the key is absent
        ("x!=a", {}, True),
        ("x=", {"x": ""}, True),
        ("x=", {}, False),
        ("x in ()", {"x": ""}, True),
        ("x notin ()", {"y": ""}, True),
        ("x notin (),y", {"y": ""}, True),
        ("!x,y", {"y": ""}, True),
        ("x notin (),!y", {"y": ""}, False),
        ("x in ()", {"y": "baz"}, False),
        ("z>1", {"z": "2"}, True),
        ("z>1", {"z": "v2"}, False),
        ("z>1", {}, False),
        ("z<10", {"z": "-5"}, True),  # object label values are compared as int64, sign allowed
        ("z<10", {"z": "+5"}, True),
        ("z>0", {"z": "99999999999999999999"}, False),  # out of int64 range: no match
        ("z>0", {"z": " 5"}, False),
    ],
)
def test_matches(text: str, labels: dict[str, str], expected: bool) -> None:
    assert parse_label_selector(text).matches(labels) is expected


def test_matches_none_labels() -> None:
    assert parse_label_selector("!a").matches(None)
    assert parse_label_selector("a notin (x)").matches(None)
    assert not parse_label_selector("a").matches(None)


def test_gt_lt_unparseable_bound_never_matches() -> None:
    # only reachable without validation
    sel = LabelSelector([Requirement("z", GREATER_THAN, ["x"])])
    assert not sel.matches({"z": "5"})
    assert not LabelSelector([Requirement("z", LESS_THAN, ["1", "2"])]).matches({"z": "0"})
    assert not LabelSelector([Requirement("z", "bogus", [])]).matches({"z": "0"})


def test_requirement_matches() -> None:
    assert Requirement("a", IN, ["x"]).matches({"a": "x"})
    assert not Requirement("a", IN, ["x"]).matches(None)
    assert Requirement("a", DOES_NOT_EXIST).matches(None)


def test_nothing() -> None:
    nothing = LabelSelector.nothing()
    assert not nothing.matches({})
    assert not nothing.matches({"a": "b"})
    assert not nothing.empty
    assert nothing.matches_nothing
    assert str(nothing) == ""
    assert nothing.requires_exact_match("a") is None
    assert nothing.add(Requirement("a", EXISTS)) is nothing
    assert nothing != LabelSelector.everything()
    assert not LabelSelector.everything().matches_nothing


def test_requires_exact_match() -> None:
    assert parse_label_selector("a=b").requires_exact_match("a") == "b"
    assert parse_label_selector("a==b").requires_exact_match("a") == "b"
    assert parse_label_selector("a in (b)").requires_exact_match("a") == "b"
    assert parse_label_selector("a=").requires_exact_match("a") == ""
    assert parse_label_selector("a in (b,c)").requires_exact_match("a") is None
    assert parse_label_selector("a!=b").requires_exact_match("a") is None
    assert parse_label_selector("a").requires_exact_match("a") is None
    assert parse_label_selector("c=d").requires_exact_match("a") is None
    # only the first requirement on the key counts (requirements are sorted stably by key)
    assert parse_label_selector("a!=x,a=y").requires_exact_match("a") is None
    assert parse_label_selector("a=y,a!=x").requires_exact_match("a") == "y"


def test_add() -> None:
    sel = parse_label_selector("b=1").add(Requirement("a", EXISTS))
    assert str(sel) == "a,b=1"
    assert sel.matches({"a": "", "b": "1"})
    assert not sel.matches({"b": "1"})


def test_many_objects() -> None:
    sel = parse_label_selector("app=web,tier in (fe,be),!canary,version>2")
    objects = [{"app": "web", "tier": "fe" if i % 2 else "db", "version": str(i % 5)} for i in range(10_000)]
    selected = [o for o in objects if sel.matches(o)]
    assert len(selected) == 2000
    assert all(o["tier"] == "fe" and int(o["version"]) > 2 for o in selected)


# --- sets and metav1.LabelSelector ----------------------------------------------------------------------------------


def test_selector_from_set() -> None:
    assert selector_from_set(None).empty
    assert selector_from_set({}).empty
    sel = selector_from_set({"b": "2", "a": "1"})
    assert str(sel) == "a=1,b=2"
    assert sel.matches({"a": "1", "b": "2", "c": "3"})
    assert not sel.matches({"a": "1"})
    assert sel.requires_exact_match("b") == "2"
    # no validation
    assert str(selector_from_set({"-bad": "x y"})) == "-bad=x y"


def test_validated_selector_from_set() -> None:
    assert str(validated_selector_from_set({"b": "2", "a": "1"})) == "a=1,b=2"
    with pytest.raises(SelectorParseError) as info:
        validated_selector_from_set({"a": "x y"})
    assert str(info.value) == f'values[0][a]: Invalid value: "x y": {VALUE_REGEX}'


def test_label_selector_dict_none_and_empty() -> None:
    assert selector_from_label_selector_dict(None) == LabelSelector.nothing()
    assert not selector_from_label_selector_dict(None).matches({})
    assert selector_from_label_selector_dict({}).empty
    assert selector_from_label_selector_dict({"matchLabels": {}, "matchExpressions": []}).empty
    assert selector_from_label_selector_dict({"matchLabels": None, "matchExpressions": None}).matches({"a": "b"})


def test_label_selector_dict() -> None:
    sel = selector_from_label_selector_dict(
        {
            "matchLabels": {"tier": "web", "app": "x"},
            "matchExpressions": [
                {"key": "env", "operator": "In", "values": ["prod", "dev"]},
                {"key": "zone", "operator": "NotIn", "values": ["z1"]},
                {"key": "owner", "operator": "Exists"},
                {"key": "canary", "operator": "DoesNotExist", "values": []},
            ],
        }
    )
    assert str(sel) == "app=x,!canary,env in (dev,prod),owner,tier=web,zone notin (z1)"
    assert sel.matches({"app": "x", "tier": "web", "env": "dev", "owner": "me"})
    assert not sel.matches({"app": "x", "tier": "web", "env": "dev", "owner": "me", "canary": "1"})
    assert not sel.matches({"app": "x", "tier": "web", "env": "qa", "owner": "me"})
    assert not sel.matches({"app": "x", "tier": "web", "env": "dev", "owner": "me", "zone": "z1"})
    assert sel.requires_exact_match("app") == "x"


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        (
            {"matchExpressions": [{"key": "env", "operator": "In", "values": []}]},
            "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
        ),
        (
            {"matchExpressions": [{"key": "env", "operator": "NotIn"}]},
            "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
        ),
        (
            {"matchExpressions": [{"key": "env", "operator": "Exists", "values": ["a"]}]},
            'values: Invalid value: []string{"a"}: values set must be empty for exists and does not exist',
        ),
        (
            {"matchExpressions": [{"key": "env", "operator": "Equals", "values": ["a"]}]},
            '"Equals" is not a valid pod selector operator',
        ),
        ({"matchExpressions": [{"key": "env"}]}, '"" is not a valid pod selector operator'),
        ({"matchExpressions": [{"key": "env", "operator": "in"}]}, '"in" is not a valid pod selector operator'),
        ({"matchLabels": {"-a": "b"}}, f'key: Invalid value: "-a": {NAME_PART_REGEX}'),
        ({"matchLabels": {"a": "b c"}}, f'values[0][a]: Invalid value: "b c": {VALUE_REGEX}'),
        (
            {"matchExpressions": [{"key": "-env", "operator": "In", "values": ["ok", "-a"]}]},
            f'[key: Invalid value: "-env": {NAME_PART_REGEX}, values[1][-env]: Invalid value: "-a": {VALUE_REGEX}]',
        ),
        (
            {"matchExpressions": [{"operator": "Exists"}]},
            'key: Invalid value: "": name part must be non-empty; ' + NAME_PART_REGEX,
        ),
    ],
)
def test_label_selector_dict_errors(selector: dict[str, object], message: str) -> None:
    with pytest.raises(SelectorParseError) as info:
        selector_from_label_selector_dict(selector)
    assert str(info.value) == message


@pytest.mark.parametrize(
    "selector",
    [
        {"matchLabels": ["a"]},
        {"matchLabels": {"a": 1}},
        {"matchExpressions": {"key": "a"}},
        {"matchExpressions": ["a"]},
        {"matchExpressions": [{"key": "a", "operator": "In", "values": "abc"}]},
        {"matchExpressions": [{"key": "a", "operator": "In", "values": [1]}]},
        {"matchExpressions": [{"key": 1, "operator": "Exists"}]},
    ],
)
def test_label_selector_dict_malformed(selector: dict[str, object]) -> None:
    with pytest.raises(SelectorParseError):
        selector_from_label_selector_dict(selector)


def test_selector_equality_and_hash() -> None:
    a = parse_label_selector("a=1,b")
    b = LabelSelector([Requirement("b", EXISTS), Requirement("a", EQUALS, ["1"])])
    assert a == b
    assert hash(a) == hash(b)
    assert a != parse_label_selector("a=1")
    assert a != "a=1,b"
    assert repr(a) == "LabelSelector('a=1,b')"
    assert repr(LabelSelector.nothing()) == "LabelSelector.nothing()"
