"""Generic value checks and meta/v1 validation (labels, annotations, label selectors), worded as
k8s.io/apimachinery words them."""

from __future__ import annotations

from kube_apiserver.runtime.errors import new_invalid
from kube_apiserver.runtime.validation import names
from kube_apiserver.runtime.validation.metav1 import validate_annotations, validate_label_selector, validate_labels

QUALIFIED_NAME_ERR = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def texts(causes):
    return [(c.field, c.message) for c in causes]


def test_dns1035_label():
    assert names.is_dns1035_label("my-svc") == []
    assert names.is_dns1035_label("1abc") == [
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
        "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
        "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
    ]


def test_port_name():
    assert names.is_valid_port_name("http") == []
    assert names.is_valid_port_name("8080") == ["must contain at least one letter (a-z)"]
    assert names.is_valid_port_name("-a--b-") == [
        "must not contain consecutive hyphens",
        "must not begin or end with a hyphen",
    ]
    assert names.is_valid_port_name("a-very-long-port-name") == ["must be no more than 15 characters"]
    assert names.is_valid_port_name("HTTP") == [
        "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
        "must contain at least one letter (a-z)",
    ]


def test_port_number_and_ids():
    assert names.is_valid_port_num(65535) == []
    assert names.is_valid_port_num(0) == ["must be between 1 and 65535, inclusive"]
    assert names.is_valid_user_id(-1) == ["must be between 0 and 2147483647, inclusive"]


def test_env_var_names():
    assert names.is_relaxed_env_var_name("1_FOO.bar-x") == []
    assert names.is_relaxed_env_var_name("A=B") == [
        "a valid environment variable name must consist only of printable ASCII characters other than '='"
    ]
    assert names.is_env_var_name("1abc")[0].startswith(
        "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', "
        "and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1'"
    )


def test_config_map_key():
    assert names.is_config_map_key("key.name") == []
    assert names.is_config_map_key("..x") == ["must not start with '..'"]
    assert names.is_config_map_key("a/b") == [
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
        "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
    ]


def test_ip_and_cidr():
    assert names.is_valid_ip("x", "10.0.0.1") == []
    assert names.is_valid_ip("x", "010.000.000.001") == []  # legacy fields accept leading zeros
    assert names.is_valid_ip("x", "fe80::1") == []
    assert texts(names.is_valid_ip("spec.ip", "10.0.0")) == [
        ("spec.ip", 'Invalid value: "10.0.0": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')
    ]
    assert names.is_valid_cidr("x", "10.0.0.0/8") == []
    assert texts(names.is_valid_cidr("c", "10.0.0.0/33")) == [
        ("c", 'Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')
    ]


def test_generate_name_prefix_may_end_in_dash():
    assert names.name_is_dns_subdomain("web-", True) == []
    assert names.name_is_dns_subdomain("web-", False) != []


def test_labels():
    assert validate_labels({"app": "web", "example.com/tier": ""}, "metadata.labels") == []
    assert texts(validate_labels({"a b": "x"}, "metadata.labels")) == [
        ("metadata.labels", f'Invalid value: "a b": {QUALIFIED_NAME_ERR}')
    ]
    causes = validate_labels({"app": "x" * 64}, "metadata.labels")
    assert texts(causes) == [("metadata.labels", f'Invalid value: "{"x" * 64}": must be no more than 63 characters')]
    assert texts(validate_labels({"app": "-bad"}, "l")) == [("l", f'Invalid value: "-bad": {LABEL_VALUE_ERR}')]


def test_annotations():
    assert validate_annotations({"Example.COM/Key": "v"}, "metadata.annotations") == []
    big = {"a": "x" * (256 * 1024)}
    assert texts(validate_annotations(big, "metadata.annotations")) == [
        ("metadata.annotations", "Too long: may not be more than 262144 bytes")
    ]
    assert validate_annotations({"a": "x" * (256 * 1024 - 1)}, "metadata.annotations") == []
    err = new_invalid("", "ConfigMap", "c", validate_annotations(big, "metadata.annotations"))
    assert err.message == 'ConfigMap "c" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes'


def test_label_selector():
    selector = {
        "matchLabels": {"app": "web"},
        "matchExpressions": [
            {"key": "tier", "operator": "In"},
            {"key": "env", "operator": "Exists", "values": ["x"]},
            {"key": "zone", "operator": "Gt", "values": ["1"]},
            {"key": "ok", "operator": "NotIn", "values": ["-bad"]},
        ],
    }
    assert texts(validate_label_selector(selector, "spec.selector")) == [
        (
            "spec.selector.matchExpressions[0].values",
            "Required value: must be specified when `operator` is 'In' or 'NotIn'",
        ),
        (
            "spec.selector.matchExpressions[1].values",
            "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        ),
        ("spec.selector.matchExpressions[2].operator", 'Invalid value: "Gt": not a valid selector operator'),
        ("spec.selector.matchExpressions[3].values[0]", f'Invalid value: "-bad": {LABEL_VALUE_ERR}'),
    ]
    assert validate_label_selector(None, "spec.selector") == []
    assert validate_label_selector("junk", "spec.selector") == []
