"""String formats of k8s.io/apimachinery/pkg/util/validation (each returns the list of problems,
empty when the value is valid), and the field-error forms the group validators build from them."""

from __future__ import annotations

import re

from kube_apiserver.apis.validation_util import field
from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.validation.names import (
    is_qualified_name,
    max_len_error,
    regex_error,
)

DNS1123_SUBDOMAIN_MAX_LENGTH = 253
DNS1123_LABEL_MAX_LENGTH = 63
DNS1035_LABEL_MAX_LENGTH = 63

is_dns1123_label = metautil.is_dns1123_label
is_dns1123_subdomain = metautil.is_dns1123_subdomain
is_valid_path_segment_name = metautil.is_path_segment_name


_DNS1123_SUBDOMAIN_FMT = metautil.DNS1123_SUBDOMAIN_FMT
_WILDCARD_FMT = "\\*\\." + _DNS1123_SUBDOMAIN_FMT
_WILDCARD_RE = re.compile("^" + _WILDCARD_FMT + "$")
_WILDCARD_ERR = (
    "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of "
    "lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character"
)


def is_wildcard_dns1123_subdomain(value: str) -> list[str]:
    errs = []
    if len(value.encode()) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _WILDCARD_RE.match(value):
        errs.append(regex_error(_WILDCARD_ERR, _WILDCARD_FMT, "*.example.com"))
    return errs


_PERCENT_FMT = "[0-9]+%"
_PERCENT_RE = re.compile("^" + _PERCENT_FMT + "$")
_PERCENT_ERR = "a valid percent string must be a numeric string followed by an ending '%'"


def is_valid_percent(percent: str) -> list[str]:
    if not _PERCENT_RE.match(percent):
        return [regex_error(_PERCENT_ERR, _PERCENT_FMT, "1%", "93%")]
    return []


_HTTP_PATH_FMT = r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+"
_HTTP_PATH_RE = re.compile("^" + _HTTP_PATH_FMT + "$")


def is_domain_prefixed_path(path: str, value: str) -> list[StatusCause]:
    """IsDomainPrefixedPath: "acme.io/foo"."""
    if not value:
        return [field.required(path, "")]
    host, sep, rest = value.partition("/")
    if not sep or not host or not rest:
        return [field.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    errs = [field.invalid(path, host, msg) for msg in is_dns1123_subdomain(host)]
    if not _HTTP_PATH_RE.match(rest):
        errs.append(field.invalid(path, rest, regex_error("Invalid path", _HTTP_PATH_FMT)))
    return errs


def is_fully_qualified_domain_name(path: str, name: str) -> list[StatusCause]:
    if not name:
        return [field.required(path, "")]
    if name.endswith("."):
        name = name[:-1]
    errs = is_dns1123_subdomain(name)
    if errs:
        return [field.invalid(path, name, ",".join(errs))]
    labels = name.split(".")
    if len(labels) < 2:
        return [field.invalid(path, name, "should be a domain with at least two segments separated by dots")]
    for label in labels:
        errs = is_dns1123_label(label)
        if errs:
            return [field.invalid(path, label, ",".join(errs))]
    return []


def validate_qualified_name(value: str, path: str) -> list[StatusCause]:
    """apivalidation.ValidateQualifiedName."""
    return [field.invalid(path, value, msg) for msg in is_qualified_name(value)]


def validate_dns1123_label(value: str, path: str) -> list[StatusCause]:
    return [field.invalid(path, value, msg) for msg in is_dns1123_label(value)]


def validate_dns1123_subdomain(value: str, path: str) -> list[StatusCause]:
    return [field.invalid(path, value, msg) for msg in is_dns1123_subdomain(value)]
