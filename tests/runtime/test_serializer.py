"""Request bodies as the server decodes them: YAML as sigs.k8s.io/yaml converts it to JSON, and the
nesting limit that keeps deep documents from crashing the process or failing later."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kube_apiserver.runtime.errors import StatusError
from kube_apiserver.runtime.serializer import (
    MAX_NESTING_DEPTH,
    decode_json,
    decode_yaml,
    nesting_exceeds,
)
from kube_apiserver.runtime.strategicpatch import gojson


def _message(fn, data: bytes) -> str:  # noqa: ANN001
    with pytest.raises(StatusError) as e:
        fn(data)
    assert e.value.code == 400
    return e.value.message


def _nested_list(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_nesting_is_counted_from_the_outermost_container():
    assert not nesting_exceeds({"a": [[]]}, 3)
    assert nesting_exceeds({"a": [[[]]]}, 3)
    assert not nesting_exceeds("scalar", 0)
    loop: list = []
    loop.append(loop)  # a YAML alias of itself composes into a cycle
    assert nesting_exceeds(loop, 10)


def test_json_bodies_deeper_than_the_limit_are_refused():
    ok = f'{{"a":{_nested_list(MAX_NESTING_DEPTH - 1)}}}'.encode()
    assert isinstance(decode_json(ok)["a"], list)  # the object and its 99 lists: 100 levels
    deep = f'{{"a":{_nested_list(MAX_NESTING_DEPTH)}}}'.encode()
    assert (
        _message(decode_json, deep) == f"error decoding request body as JSON: exceeded max depth of {MAX_NESTING_DEPTH}"
    )
    with pytest.raises(gojson.GoJSONError, match="exceeded max depth"):
        gojson.loads(deep)  # patch bodies


def test_yaml_bodies_deeper_than_the_limit_are_refused():
    expected = f"error converting YAML to JSON: yaml: exceeded max depth of {MAX_NESTING_DEPTH}"
    assert _message(decode_yaml, f"a: {_nested_list(MAX_NESTING_DEPTH)}".encode()) == expected
    block = "a:\n" + "".join(" " * i + "- \n" for i in range(1, MAX_NESTING_DEPTH + 1))
    assert _message(decode_yaml, block.encode()) == expected


def test_a_yaml_document_deep_enough_to_overflow_libyaml_is_refused_without_composing_it():
    # libyaml's composer recurses in C: composing this document would kill the process (SIGSEGV), so
    # the check runs in a child interpreter.
    code = (
        "from kube_apiserver.runtime.serializer import decode_yaml\n"
        "from kube_apiserver.runtime.errors import StatusError\n"
        "try:\n    decode_yaml(b'a: ' + b'[' * 200000 + b']' * 200000)\n"
        "except StatusError as e:\n    print(e.code, e.message)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"400 error converting YAML to JSON: yaml: exceeded max depth of {MAX_NESTING_DEPTH}"


def test_yaml_aliases_that_expand_far_past_the_document_are_refused():
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    bomb = "\n".join(lines).encode()
    assert _message(decode_yaml, bomb) == "error converting YAML to JSON: yaml: document contains excessive aliasing"
    # modest reuse is fine, and each alias is its own copy, as in the JSON the document stands for
    doc = decode_yaml(b"base: &b {x: 1}\none: *b\ntwo: *b\n")
    assert doc == {"base": {"x": 1}, "one": {"x": 1}, "two": {"x": 1}}
    assert doc["one"] is not doc["two"]


def test_yaml_values_become_what_yaml_to_json_makes_of_them():
    doc = decode_yaml(b"1: int\n1.5: float\nbig: 99999999999999999999999999999999\nbin: !!binary aGk=\n")
    assert doc == {"1": "int", "1.5": "float", "big": 1e32, "bin": "hi"}
    assert decode_yaml(b"true: bool\n") == {"true": "bool"}
    assert isinstance(doc["big"], float)
    assert decode_yaml(b"s: !!set {a, b}\n") == {"s": {"a": None, "b": None}}
    assert decode_yaml(b"t: 2001-12-14t21:59:43.10-05:00\n") == {"t": "2001-12-14t21:59:43.10-05:00"}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # go-yaml v2's booleans include y and n (keys too), PyYAML's do not
        (b"y", True),
        (b"N", False),
        (b"Off", False),
        # strconv.ParseInt(s, 0, 64) of the text less its underscores
        (b"0o17", 15),
        (b"017", 15),
        (b"0x1F", 31),
        (b"-0b101", -5),
        (b"1_000", 1000),
        (b"+5", 5),
        (b"18446744073709551615", 2**64 - 1),
        # no sexagesimal numbers
        (b"1:20", "1:20"),
        # an exponent needs neither a dot nor a sign; an integral float is written as an integer
        (b"1e0", 1),
        (b"1.0e5", 100000),
        (b"1.5", 1.5),
        (b".5", 0.5),
        (b"09", 9),
        # strings stay strings
        (b"1.2.3", "1.2.3"),
        (b"'1'", "1"),
        (b"yes please", "yes please"),
    ],
)
def test_plain_scalars_resolve_as_go_yaml_does(text: bytes, value):
    assert decode_yaml(b"v: " + text + b"\n") == {"v": value}
    assert type(decode_yaml(b"v: " + text + b"\n")["v"]) is type(value)


def test_yaml_keys_resolve_as_go_yaml_does():
    assert decode_yaml(b"y: 1\nn: 2\n2e0: 3\n") == {"true": 1, "false": 2, "2": 3}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"x: .nan\n", "json: unsupported value: NaN"),
        (b"x: -.inf\n", "json: unsupported value: -Inf"),
        (b"~: x\n", "unsupported map key of type: <nil>, key: None"),
    ],
)
def test_yaml_without_a_json_form_is_refused(text: bytes, message: str):
    assert _message(decode_yaml, text) == f"error converting YAML to JSON: {message}"
