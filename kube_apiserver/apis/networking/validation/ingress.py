"""Ingress and IngressClass validation (ValidateIngressCreate, ValidateIngressSpec,
ValidateIngressClass)."""

from __future__ import annotations

from typing import Any

from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.names import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_domain_prefixed_path,
    is_valid_path_segment_name,
    is_wildcard_dns1123_subdomain,
)
from kube_apiserver.apis.validation_util.net import parse_ip_sloppy
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.validation.names import is_dns1035_label, is_valid_port_name, is_valid_port_num

ANNOTATION_INGRESS_CLASS = "kubernetes.io/ingress.class"
MAX_LEN_INGRESS_CLASS_CONTROLLER = 250
SUPPORTED_PATH_TYPES = ["Exact", "ImplementationSpecific", "Prefix"]
INVALID_PATH_SEQUENCES = ("//", "/./", "/../", "%2f", "%2F")
INVALID_PATH_SUFFIXES = ("/..", "/.")
PARAMETER_SCOPES = ["Cluster", "Namespace"]


def validate_ingress(obj: dict[str, Any]) -> list[StatusCause]:
    spec = field.spec_of(obj)
    errs = validate_ingress_spec(spec, "spec")
    annotations = field.as_dict(field.meta_of(obj).get("annotations"))
    class_name = spec.get("ingressClassName")
    if ANNOTATION_INGRESS_CLASS in annotations and class_name is not None:
        value = annotations[ANNOTATION_INGRESS_CLASS]
        if value != class_name:
            errs.append(
                field.invalid(
                    f"annotations.{ANNOTATION_INGRESS_CLASS}",
                    value,
                    "must match `ingressClassName` when both are specified",
                )
            )
    return errs


def validate_ingress_spec(spec: dict[str, Any], path: str) -> list[StatusCause]:
    errs: list[StatusCause] = []
    rules = spec.get("rules")
    default_backend = spec.get("defaultBackend")
    if not rules and default_backend is None:
        shown = gorepr.string_slice(rules, "[]networking.IngressRule")
        errs.append(field.invalid(path, shown, "either `defaultBackend` or `rules` must be specified"))
    if default_backend is not None:
        errs.extend(validate_ingress_backend(field.as_dict(default_backend), field.child(path, "defaultBackend")))
    if rules:
        errs.extend(_validate_rules(field.as_list(rules), field.child(path, "rules")))
    tls = field.as_list(spec.get("tls"))
    if tls:
        errs.extend(_validate_tls(tls, field.child(path, "tls")))
    class_name = spec.get("ingressClassName")
    if isinstance(class_name, str):
        for msg in is_dns1123_subdomain(class_name):
            errs.append(field.invalid(field.child(path, "ingressClassName"), class_name, msg))
    return errs


def _validate_host(host: str, path: str) -> list[StatusCause]:
    errs = []
    if parse_ip_sloppy(host) is not None:
        errs.append(field.invalid(path, host, "must be a DNS name, not an IP address"))
    check = is_wildcard_dns1123_subdomain if "*" in host else is_dns1123_subdomain
    errs.extend(field.invalid(path, host, msg) for msg in check(host))
    return errs


def _validate_rules(rules: list[Any], path: str) -> list[StatusCause]:
    errs = []
    for i, rule in enumerate(rules):
        rule = field.as_dict(rule)
        rule_path = field.index(path, i)
        host = field.as_str(rule.get("host"))
        if host:
            errs.extend(_validate_host(host, field.child(rule_path, "host")))
        http = rule.get("http")
        if http is not None:
            errs.extend(_validate_http_rule(field.as_dict(http), field.child(rule_path, "http")))
    return errs


def _validate_http_rule(http: dict[str, Any], path: str) -> list[StatusCause]:
    paths = field.as_list(http.get("paths"))
    paths_path = field.child(path, "paths")
    errs = [] if paths else [field.required(paths_path, "")]
    for i, p in enumerate(paths):
        errs.extend(validate_http_ingress_path(field.as_dict(p), field.index(paths_path, i)))
    return errs


def validate_http_ingress_path(p: dict[str, Any], path: str) -> list[StatusCause]:
    path_type = p.get("pathType")
    if path_type is None:
        return [field.required(field.child(path, "pathType"), "pathType must be specified")]
    value = field.as_str(p.get("path"))
    value_path = field.child(path, "path")
    errs = []
    if path_type in ("Exact", "Prefix"):
        if not value.startswith("/"):
            errs.append(field.invalid(value_path, value, "must be an absolute path"))
        if value:
            errs.extend(
                field.invalid(value_path, value, f"must not contain '{seq}'")
                for seq in INVALID_PATH_SEQUENCES
                if seq in value
            )
            errs.extend(
                field.invalid(value_path, value, f"cannot end with '{suffix}'")
                for suffix in INVALID_PATH_SUFFIXES
                if value.endswith(suffix)
            )
    elif path_type == "ImplementationSpecific":
        if value and not value.startswith("/"):
            errs.append(field.invalid(value_path, value, "must be an absolute path"))
    else:
        errs.append(field.not_supported(field.child(path, "pathType"), path_type, SUPPORTED_PATH_TYPES))
    errs.extend(validate_ingress_backend(field.as_dict(p.get("backend")), field.child(path, "backend")))
    return errs


def validate_ingress_backend(backend: dict[str, Any], path: str) -> list[StatusCause]:
    resource, service = backend.get("resource"), backend.get("service")
    if resource is not None and service is not None:
        return [field.invalid(path, "", "cannot set both resource and service backends")]
    if resource is not None:
        return _validate_typed_local_object_reference(field.as_dict(resource), field.child(path, "resource"))
    if service is None:
        return [field.invalid(path, "", "resource or service backend is required")]
    service = field.as_dict(service)
    errs = []
    name = field.as_str(service.get("name"))
    name_path = field.child(path, "service", "name")
    if not name:
        errs.append(field.required(name_path, ""))
    else:
        errs.extend(field.invalid(name_path, name, msg) for msg in is_dns1035_label(name))
    port = field.as_dict(service.get("port"))
    port_name = field.as_str(port.get("name"))
    number = port.get("number", 0)
    has_number = field.is_int(number) and number != 0
    if port_name and has_number:
        errs.append(field.invalid(path, "", "cannot set both port name & port number"))
    elif port_name:
        errs.extend(
            field.invalid(field.child(path, "service", "port", "name"), port_name, msg)
            for msg in is_valid_port_name(port_name)
        )
    elif has_number:
        errs.extend(
            field.invalid(field.child(path, "service", "port", "number"), number, msg)
            for msg in is_valid_port_num(number)
        )
    else:
        errs.append(field.required(path, "port name or number is required"))
    return errs


def _validate_typed_local_object_reference(ref: dict[str, Any], path: str) -> list[StatusCause]:
    errs = []
    group = ref.get("apiGroup")
    if isinstance(group, str):
        errs.extend(field.invalid(field.child(path, "apiGroup"), group, msg) for msg in is_dns1123_subdomain(group))
    for name in ("kind", "name"):
        value = field.as_str(ref.get(name))
        if not value:
            errs.append(field.required(field.child(path, name), f"{name} is required"))
        else:
            errs.extend(field.invalid(field.child(path, name), value, msg) for msg in is_valid_path_segment_name(value))
    return errs


def _validate_tls(tls: list[Any], path: str) -> list[StatusCause]:
    errs = []
    for i, entry in enumerate(tls):
        entry = field.as_dict(entry)
        entry_path = field.index(path, i)
        for j, host in enumerate(field.as_list(entry.get("hosts"))):
            host = field.as_str(host)
            check = is_wildcard_dns1123_subdomain if "*" in host else is_dns1123_subdomain
            errs.extend(
                field.invalid(field.index(field.child(entry_path, "hosts"), j), host, msg) for msg in check(host)
            )
        secret = field.as_str(entry.get("secretName"))
        if secret:
            errs.extend(
                field.invalid(field.child(entry_path, "secretName"), secret, msg)
                for msg in is_dns1123_subdomain(secret)
            )
    return errs


def validate_ingress_class(obj: dict[str, Any]) -> list[StatusCause]:
    spec = field.spec_of(obj)
    controller = field.as_str(spec.get("controller"))
    controller_path = "spec.controller"
    errs = []
    if len(controller.encode()) > MAX_LEN_INGRESS_CLASS_CONTROLLER:
        errs.append(field.too_long(controller_path, "", MAX_LEN_INGRESS_CLASS_CONTROLLER))
    errs.extend(is_domain_prefixed_path(controller_path, controller))
    params = spec.get("parameters")
    if params is not None:
        errs.extend(_validate_parameters(field.as_dict(params), "spec.parameters"))
    return errs


def _validate_parameters(params: dict[str, Any], path: str) -> list[StatusCause]:
    errs = _validate_typed_local_object_reference(params, path)
    scope = params.get("scope")
    if scope is None:
        errs.append(field.required(field.child(path, "scope"), ""))
        return errs
    namespace = params.get("namespace")
    if scope not in PARAMETER_SCOPES:
        errs.append(field.not_supported(field.child(path, "scope"), scope, PARAMETER_SCOPES))
    elif scope == "Namespace":
        if namespace is None:
            errs.append(field.required(field.child(path, "namespace"), "`parameters.scope` is set to 'Namespace'"))
        else:
            ns = field.as_str(namespace)
            errs.extend(field.invalid(field.child(path, "namespace"), ns, msg) for msg in is_dns1123_label(ns))
    elif namespace is not None:
        errs.append(field.forbidden(field.child(path, "namespace"), "`parameters.scope` is set to 'Cluster'"))
    return errs


def validate_ingress_class_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    controller = field.spec_of(new).get("controller")
    return field.validate_immutable_field(controller, field.spec_of(old).get("controller"), "spec.controller")


VALIDATORS = {
    ("v1", "Ingress"): validate_ingress,
    ("v1", "IngressClass"): validate_ingress_class,
}
UPDATE_VALIDATORS = {("v1", "IngressClass"): validate_ingress_class_update}
