"""APIService validation (k8s.io/kube-aggregator/pkg/apis/apiregistration/validation: ValidateAPIService,
ValidateAPIServiceUpdate, ValidateAPIServiceStatus).

An APIService is named after what it serves, "<spec.version>.<spec.group>" ("v1." for the legacy
core group), and only has to be a valid path segment otherwise. The path-segment part is the
generic metadata check's (RESTStrategy.name_validator), so only the "must be version.group" rule
is added here, and only for a name that passed it, as upstream's name function returns early.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from kube_apiserver.apis.validation_util import field
from kube_apiserver.apis.validation_util.names import is_dns1123_subdomain, is_valid_path_segment_name
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.labels import go_quote
from kube_apiserver.runtime.validation.names import is_dns1035_label, is_valid_port_num

# Upstream's bounds (documented on the fields as "should be" ranges; the checks are 1..N inclusive).
MAX_GROUP_PRIORITY_MINIMUM = 20000
MAX_VERSION_PRIORITY = 1000
# v1 SetDefaults_ServiceReference: a service without a port is served on 443.
DEFAULT_SERVICE_PORT = 443
CONDITION_STATUSES = ["True", "False", "Unknown"]


def required_name(spec: dict[str, Any]) -> str:
    """The only name an APIService may have: version + "." + group."""
    return f"{field.as_str(spec.get('version'))}.{field.as_str(spec.get('group'))}"


def _name_errors(meta: dict[str, Any], spec: dict[str, Any]) -> list[StatusCause]:
    """The version.group rule of ValidateAPIService's name function, for generateName and name.
    Upstream passes generateName to the same function (its prefix flag is ignored), so a
    generateName other than the required name is refused as well."""
    want = required_name(spec)
    msg = f'must be `spec.version+"."+spec.group`: {go_quote(want)}'
    errs = []
    for key in ("generateName", "name"):
        value = meta.get(key)
        # an empty or non-string name is the generic check's; path-segment failures stop here
        if not isinstance(value, str) or not value or is_valid_path_segment_name(value):
            continue
        if value != want:
            errs.append(field.invalid(field.child("metadata", key), value, msg))
    return errs


def _bytes_len(value: Any) -> int:
    """The length of a []byte field as Go sees it: JSON carries it base64 encoded."""
    if not isinstance(value, str):
        return 0
    try:
        return len(base64.b64decode(value, validate=True))
    except (binascii.Error, ValueError):
        return len(value.encode())


def validate_api_service(obj: dict[str, Any]) -> list[StatusCause]:
    """ValidateAPIService, plus the conditions of ValidateAPIServiceStatus (a status write runs the
    object validation too; the main resource's updates keep the stored status)."""
    spec = field.spec_of(obj)
    errs = _name_errors(field.meta_of(obj), spec)
    errs += validate_api_service_spec(spec, "spec")
    errs += validate_api_service_status(field.as_dict(obj.get("status")), "status")
    return errs


def validate_api_service_spec(spec: dict[str, Any], path: str) -> list[StatusCause]:
    errs: list[StatusCause] = []
    group, version = field.as_str(spec.get("group")), field.as_str(spec.get("version"))
    group_path = field.child(path, "group")
    # only the legacy core group, served as v1, has no group name
    if not group and version != "v1":
        errs.append(field.required(group_path, "only v1 may have an empty group and it better be legacy kube"))
    if group:
        errs += [field.invalid(group_path, group, msg) for msg in is_dns1123_subdomain(group)]
    errs += [field.invalid(field.child(path, "version"), version, msg) for msg in is_dns1035_label(version)]

    # int32 fields without omitempty: a missing one is Go's zero, out of range like any other
    group_priority = _int_or_zero(spec.get("groupPriorityMinimum"))
    if group_priority is not None and not 0 < group_priority <= MAX_GROUP_PRIORITY_MINIMUM:
        errs.append(
            field.invalid(
                field.child(path, "groupPriorityMinimum"),
                group_priority,
                f"must be positive and less than {MAX_GROUP_PRIORITY_MINIMUM}",
            )
        )
    version_priority = _int_or_zero(spec.get("versionPriority"))
    if version_priority is not None and not 0 < version_priority <= MAX_VERSION_PRIORITY:
        errs.append(
            field.invalid(
                field.child(path, "versionPriority"),
                version_priority,
                f"must be positive and less than {MAX_VERSION_PRIORITY}",
            )
        )

    ca_bundle_len = _bytes_len(spec.get("caBundle"))
    insecure = spec.get("insecureSkipTLSVerify") is True
    service = spec.get("service")
    if not isinstance(service, dict):
        # a local APIService is served by this server: there is no TLS connection to configure
        if ca_bundle_len:
            errs.append(
                field.invalid(
                    field.child(path, "caBundle"), f"{ca_bundle_len} bytes", "local APIServices may not have a caBundle"
                )
            )
        if insecure:
            errs.append(
                field.invalid(
                    field.child(path, "insecureSkipTLSVerify"),
                    True,
                    "local APIServices may not have insecureSkipTLSVerify",
                )
            )
        return errs

    service_path = field.child(path, "service")
    if not field.as_str(service.get("namespace")):
        errs.append(field.required(field.child(service_path, "namespace"), ""))
    if not field.as_str(service.get("name")):
        errs.append(field.required(field.child(service_path, "name"), ""))
    port = service.get("port")
    if port is None:
        port = DEFAULT_SERVICE_PORT  # what v1 defaulting would have set
    if field.is_int(port):
        problems = is_valid_port_num(port)
        if problems:
            errs.append(
                field.invalid(field.child(service_path, "port"), port, "port is not valid: " + ", ".join(problems))
            )
    if insecure and ca_bundle_len:
        errs.append(
            field.invalid(field.child(path, "insecureSkipTLSVerify"), True, "may not be true if caBundle is present")
        )
    return errs


def _int_or_zero(value: Any) -> int | None:
    """A missing or null int32 is 0; another type is the decoder's to refuse (None: not checked)."""
    if value is None:
        return 0
    return value if field.is_int(value) else None


def validate_api_service_status(status: dict[str, Any], path: str) -> list[StatusCause]:
    """ValidateAPIServiceStatus: each condition's status is True, False or Unknown."""
    errs = []
    for i, condition in enumerate(field.as_list(status.get("conditions"))):
        value = field.as_dict(condition).get("status")
        value = value if isinstance(value, str) else ""
        if value not in CONDITION_STATUSES:
            cond_path = field.child(field.index(field.child(path, "conditions"), i), "status")
            errs.append(field.not_supported(cond_path, value, CONDITION_STATUSES))
    return errs


VALIDATORS = {("v1", "APIService"): validate_api_service}
# ValidateAPIServiceUpdate is ValidateObjectMetaUpdate plus ValidateAPIService on the new object,
# both of which the store already runs on every update: there is nothing left for an update table.
UPDATE_VALIDATORS: dict[tuple[str, str], Any] = {}
