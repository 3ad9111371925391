"""Kubernetes' CEL libraries on cel-expr-python: results and error messages as kube's libraries give."""

from __future__ import annotations

import pytest
from cel_expr_python import cel

from kube_apiserver.runtime.cel.environment import CompileError, EvalError, checker_env, compile_program
from kube_apiserver.runtime.cel.types import shared_pool


@pytest.fixture(scope="module")
def run():
    env = checker_env(shared_pool(), {"x": cel.Type.DYN})

    def run(source: str, **data):
        return compile_program(env, source).eval(data)

    return run


@pytest.mark.parametrize(
    "source, expected",
    [
        ("quantity('1Gi').isGreaterThan(quantity('1000Mi'))", True),
        ("quantity('1') == quantity('1000m')", True),
        ("quantity('500m').isLessThan(quantity('1'))", True),
        ("quantity('2').add(3).asInteger()", 5),
        ("quantity('2Ki').sub(quantity('1Ki')).compareTo(quantity('1024'))", 0),
        ("quantity('-1').sign()", -1),
        ("quantity('1.5').isInteger()", False),
        ("quantity('1.5').asApproximateFloat()", 1.5),
        ("isQuantity('1x')", False),
        ("isQuantity('10Gi')", True),
        ("url('https://example.com:8080/a/b?x=1&x=2').getHostname()", "example.com"),
        ("url('https://example.com:8080/a/b').getPort()", "8080"),
        ("url('https://[::1]:80/').getHost()", "[::1]:80"),
        ("url('https://example.com/a%20b').getEscapedPath()", "/a%20b"),
        ("url('https://example.com/?x=1&x=2').getQuery()['x']", ["1", "2"]),
        ("url('/healthz').getScheme()", ""),
        ("isURL('not a url')", False),
        ("ip('10.0.0.1').family()", 4),
        ("ip('::1').isLoopback()", True),
        ("ip('fe80::1').isLinkLocalUnicast()", True),
        ("isIP('1.2.3')", False),
        ("ip.isCanonical('2001:db8:0:0:0:0:0:1')", False),
        ("string(ip('2001:db8:0:0:0:0:0:1'))", "2001:db8::1"),
        ("cidr('10.0.0.0/8').containsIP('10.1.2.3')", True),
        ("cidr('10.0.0.0/8').containsIP(ip('11.0.0.1'))", False),
        ("cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", True),
        ("string(cidr('10.1.2.3/8').masked())", "10.0.0.0/8"),
        ("cidr('192.168.0.0/24').prefixLength()", 24),
        ("string(cidr('10.1.2.3/8').ip())", "10.1.2.3"),
        ("isCIDR('10.0.0.0/33')", False),
        ("[1, 2, 3].isSorted()", True),
        ("['b', 'a'].isSorted()", False),
        ("[1, 2, 3].sum()", 6),
        ("[1.5, 2.0].sum()", 3.5),
        ("['b', 'a', 'c'].min()", "a"),
        ("[3, 9, 1].max()", 9),
        ("[1, 2, 1].indexOf(1)", 0),
        ("[1, 2, 1].lastIndexOf(1)", 2),
        ("'abc123def456'.find('[0-9]+')", "123"),
        ("'abc123def456'.findAll('[0-9]+')", ["123", "456"]),
        ("'a1b2c3'.findAll('[0-9]', 2)", ["1", "2"]),
        ("'Hello'.lowerAscii()", "hello"),
        ("'a,b,c'.split(',')", ["a", "b", "c"]),
        ("['a', 'b'].join('-')", "a-b"),
        ("'hello'.charAt(1)", "e"),
        ("'  x '.trim()", "x"),
        ("'hello'.substring(1, 3)", "el"),
        ("'hello'.replace('l', 'L')", "heLLo"),
        ("strings.quote('a\"b')", '"a\\"b"'),
        ("'%s is %d'.format(['x', 3])", "x is 3"),
        ("sets.contains([1, 2, 3], [1, 3])", True),
        ("sets.equivalent([1, 2], [2, 1, 1])", True),
        ("sets.intersects([1, 2], [3])", False),
        ("!format.dns1123Label().validate('my-name').hasValue()", True),
        ("format.dns1123Label().validate('My_Name').hasValue()", True),
        ("optional.of(1).orValue(2)", 1),
        ("optional.none().orValue(2)", 2),
        ("{'a': 1}.?b.orValue(5)", 5),
        ("cel.bind(v, 2, v * v)", 4),
        ("type(quantity('1')) == kubernetes.Quantity", True),
    ],
)
def test_functions(run, source, expected):
    assert run(source) == expected


@pytest.mark.parametrize(
    "source, message",
    [
        (
            "quantity('zz')",
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
        ("quantity('1.5').asInteger()", "cannot convert value to integer"),
        ("url('abc')", 'URL parse error during conversion from string: parse "abc": invalid URI for request'),
        (
            "ip('::ffff:1.2.3.4')",
            'IP Address "::ffff:1.2.3.4" parse error during conversion from string: IPv4-mapped IPv6 address is not allowed',
        ),
        ("[].max()", "max(list) called on empty list"),
        ("{'a': 1}['b']", "no such key: b"),
        ("1 / 0", "division by zero"),
        ("[1][3]", "index out of bounds: 3"),
        ("9223372036854775807 + 1", "integer overflow"),
    ],
)
def test_errors(run, source, message):
    with pytest.raises(EvalError) as e:
        run(source)
    assert str(e.value) == message


def test_compile_error_layout():
    env = checker_env(shared_pool(), {"x": cel.Type.DYN})
    with pytest.raises(CompileError) as e:
        compile_program(env, "x.a >")
    assert str(e.value) == (
        "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', "
        "'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | x.a >\n | .....^"
    )
    with pytest.raises(CompileError) as e:
        compile_program(env, "nope(1)")
    assert str(e.value) == "ERROR: <input>:1:5: undeclared reference to 'nope' (in container '')\n | nope(1)\n | ....^"


def test_result_types():
    env = checker_env(shared_pool(), {})
    assert compile_program(env, "[1, 2].max()").result_type == "int"
    assert compile_program(env, "quantity('1').isInteger()").result_type == "bool"
    assert compile_program(env, "'a'.find('a')").result_type == "string"
