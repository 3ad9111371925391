"""Generic value checks (k8s.io/apimachinery/pkg/util/validation and api/validation's name functions).

Each is_* function returns the list of problems with a value (empty when valid), worded as upstream
words them; callers turn each into a field error. Label keys/values and DNS names are checked by the
functions already in runtime.labels and runtime.meta, re-exported here under their upstream names.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable

from kube_apiserver.runtime.errors import StatusCause, field_invalid
from kube_apiserver.runtime.labels import byte_len, label_key_errors, label_value_errors
from kube_apiserver.runtime.meta import is_dns1123_label, is_dns1123_subdomain, is_path_segment_name

__all__ = [
    "is_qualified_name",
    "is_valid_label_value",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_dns1035_label",
    "is_c_identifier",
    "is_valid_port_num",
    "is_valid_port_name",
    "is_env_var_name",
    "is_relaxed_env_var_name",
    "is_config_map_key",
    "is_http_header_name",
    "is_valid_user_id",
    "is_valid_group_id",
    "is_valid_ip",
    "is_valid_cidr",
    "inclusive_range_error",
    "max_len_error",
    "regex_error",
    "NameFn",
    "name_is_dns_subdomain",
    "name_is_dns_label",
    "name_is_dns1035_label",
    "validate_namespace_name",
    "validate_service_account_name",
    "name_is_path_segment",
]

# A label key every rule of IsQualifiedName accepts: an optional DNS-1123 subdomain prefix and '/', then a
# name of alphanumerics, '-', '_' and '.' that starts and ends alphanumeric. Up to 63 characters neither
# part can be too long, so such keys need no more checks; anything else gets the full, worded ones.
_PLAIN_QUALIFIED_NAME = re.compile(
    r"(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*/)?"
    r"[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?"
)


# Values already found valid: label keys and values repeat from object to object, and a set lookup
# is several times cheaper than the regex. Bounded, so that odd input cannot grow them without end.
_VALID_QUALIFIED_NAMES: set[str] = set()
_VALID_LABEL_VALUES: set[str] = set()
_VALID_CACHE_MAX = 8192


def is_qualified_name(value: str) -> list[str]:
    """IsQualifiedName: the problems with a label key (runtime.labels words them)."""
    if value in _VALID_QUALIFIED_NAMES:
        return []
    if len(value) <= 63 and _PLAIN_QUALIFIED_NAME.fullmatch(value):
        if len(_VALID_QUALIFIED_NAMES) < _VALID_CACHE_MAX:
            _VALID_QUALIFIED_NAMES.add(value)
        return []
    return label_key_errors(value)


# A label value every rule of IsValidLabelValue accepts (up to 63 characters, as for names).
_PLAIN_LABEL_VALUE = re.compile(r"(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?")


def is_valid_label_value(value: str) -> list[str]:
    """IsValidLabelValue: the problems with a label value (runtime.labels words them)."""
    if value in _VALID_LABEL_VALUES:
        return []
    if len(value) <= 63 and _PLAIN_LABEL_VALUE.fullmatch(value):
        if len(_VALID_LABEL_VALUES) < _VALID_CACHE_MAX:
            _VALID_LABEL_VALUES.add(value)
        return []
    return label_value_errors(value)


MAX_INT32 = 2**31 - 1


def max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """validation.RegexError: the message, its examples, then the regex."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{example}', " for example in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def inclusive_range_error(lo: int, hi: int) -> str:
    return f"must be between {lo} and {hi}, inclusive"


_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL_RE = re.compile(_DNS1035_LABEL_FMT)
_DNS1035_LABEL_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character"
)


def is_dns1035_label(value: str) -> list[str]:
    errs = []
    if byte_len(value) > 63:
        errs.append(max_len_error(63))
    if not _DNS1035_LABEL_RE.fullmatch(value):
        errs.append(regex_error(_DNS1035_LABEL_MSG, _DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


_C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*"
_C_IDENTIFIER_RE = re.compile(_C_IDENTIFIER_FMT)


def is_c_identifier(value: str) -> list[str]:
    if _C_IDENTIFIER_RE.fullmatch(value):
        return []
    msg = (
        "a valid C identifier must start with alphabetic character or '_', followed by a string of "
        "alphanumeric characters or '_'"
    )
    return [regex_error(msg, _C_IDENTIFIER_FMT, "my_name", "MY_NAME", "MyName")]


def is_valid_port_num(port: int) -> list[str]:
    return [] if 1 <= port <= 65535 else [inclusive_range_error(1, 65535)]


def is_valid_user_id(uid: int) -> list[str]:
    return [] if 0 <= uid <= MAX_INT32 else [inclusive_range_error(0, MAX_INT32)]


is_valid_group_id = is_valid_user_id

_PORT_NAME_CHARSET = re.compile("[-a-z0-9]+")
_PORT_NAME_LETTER = re.compile("[a-z]")


# A port name every rule of IsValidPortName accepts (when at most 15 long): a letter somewhere, runs of
# [a-z0-9] joined by single hyphens. The common case needs no more; anything else gets the worded checks.
_PLAIN_PORT_NAME = re.compile("(?=[-0-9]*[a-z])[a-z0-9]+(?:-[a-z0-9]+)*")


def is_valid_port_name(port: str) -> list[str]:
    """IANA_SVC_NAME: at most 15 of [-a-z0-9], at least one letter, no leading/trailing/double hyphen."""
    if len(port) <= 15 and _PLAIN_PORT_NAME.fullmatch(port):
        return []
    errs = []
    if byte_len(port) > 15:
        errs.append(max_len_error(15))
    if not _PORT_NAME_CHARSET.fullmatch(port):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _PORT_NAME_LETTER.search(port):
        errs.append("must contain at least one letter (a-z)")
    if "--" in port:
        errs.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


_ENV_VAR_NAME_FMT = "[-._a-zA-Z][-._a-zA-Z0-9]*"
_ENV_VAR_NAME_RE = re.compile(_ENV_VAR_NAME_FMT)


def _has_chdir_prefix(value: str) -> list[str]:
    if value == ".":
        return ["must not be '.'"]
    if value == "..":
        return ["must not be '..'"]
    if value.startswith(".."):
        return ["must not start with '..'"]
    return []


def is_env_var_name(value: str) -> list[str]:
    """The strict rule (RelaxedEnvironmentVariableValidation off)."""
    errs = []
    if not _ENV_VAR_NAME_RE.fullmatch(value):
        msg = (
            "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', "
            "and must not start with a digit"
        )
        errs.append(regex_error(msg, _ENV_VAR_NAME_FMT, "my.env-name", "MY_ENV.NAME", "MyEnvName1"))
    return errs + _has_chdir_prefix(value)


def is_relaxed_env_var_name(value: str) -> list[str]:
    """The rule of 1.33 (RelaxedEnvironmentVariableValidation on by default): printable ASCII but '='."""
    errs = []
    if not value:
        errs.append("environment variable name must be non-empty")
    # printable ASCII is 0x20-0x7E: isprintable() refuses the control characters, DEL included
    if not (value.isascii() and value.isprintable()) or "=" in value:
        errs.append("a valid environment variable name must consist only of printable ASCII characters other than '='")
    return errs


_CONFIG_MAP_KEY_FMT = "[-._a-zA-Z0-9]+"
_CONFIG_MAP_KEY_RE = re.compile(_CONFIG_MAP_KEY_FMT)


def is_config_map_key(value: str) -> list[str]:
    errs = []
    if byte_len(value) > 253:
        errs.append(max_len_error(253))
    if not _CONFIG_MAP_KEY_RE.fullmatch(value):
        msg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"
        errs.append(regex_error(msg, _CONFIG_MAP_KEY_FMT, "key.name", "KEY_NAME", "key-name"))
    return errs + _has_chdir_prefix(value)


_HTTP_HEADER_NAME_FMT = "[-A-Za-z0-9]+"
_HTTP_HEADER_NAME_RE = re.compile(_HTTP_HEADER_NAME_FMT)


def is_http_header_name(value: str) -> list[str]:
    if _HTTP_HEADER_NAME_RE.fullmatch(value):
        return []
    msg = "a valid HTTP header must consist of alphanumeric characters or '-'"
    return [regex_error(msg, _HTTP_HEADER_NAME_FMT, "X-Header-Name")]


def parse_ip_sloppy(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """netutils.ParseIPSloppy: like net.ParseIP, but IPv4 octets may carry leading zeros."""
    if not isinstance(value, str) or not value or "%" in value:
        return None
    parts = value.split(".")
    if len(parts) == 4 and ":" not in value:
        if not all(p.isdigit() and p.isascii() and len(p) <= 3 for p in parts):
            return None
        if any(int(p) > 255 for p in parts):
            return None
        return ipaddress.IPv4Address(".".join(str(int(p)) for p in parts))
    try:
        addr = ipaddress.ip_address(value)
    except ValueError:
        return None
    return addr if isinstance(addr, ipaddress.IPv6Address) else None


def is_valid_ip(path: str, value: str) -> list[StatusCause]:
    """IsValidIPForLegacyField without strict validation (StrictIPCIDRValidation is off in 1.33)."""
    if parse_ip_sloppy(value) is None:
        return [field_invalid(path, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")]
    return []


def is_valid_cidr(path: str, value: str) -> list[StatusCause]:
    """IsValidCIDRForLegacyField without strict validation."""
    ip, sep, bits = value.partition("/") if isinstance(value, str) else ("", "", "")
    addr = parse_ip_sloppy(ip) if sep else None
    width = 32 if isinstance(addr, ipaddress.IPv4Address) else 128
    if addr is None or not bits.isdigit() or not bits.isascii() or int(bits) > width:
        return [field_invalid(path, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")]
    return []


# --- name functions (apimachinery/pkg/api/validation ValidateNameFunc): (name, prefix) -> problems ---------------

NameFn = Callable[[str, bool], list[str]]


def mask_trailing_dash(name: str) -> str:
    """A generateName may end in '-': the generated suffix follows it."""
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool = False) -> list[str]:
    return is_dns1123_subdomain(mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool = False) -> list[str]:
    return is_dns1123_label(mask_trailing_dash(name) if prefix else name)


def name_is_dns1035_label(name: str, prefix: bool = False) -> list[str]:
    return is_dns1035_label(mask_trailing_dash(name) if prefix else name)


def name_is_path_segment(name: str, prefix: bool = False) -> list[str]:
    if prefix:
        # path.ValidatePathSegmentName with prefix: only the characters matter.
        return [msg for msg in is_path_segment_name(name) if msg.startswith("may not contain")]
    return is_path_segment_name(name)


validate_namespace_name = name_is_dns_label
validate_service_account_name = name_is_dns_subdomain
