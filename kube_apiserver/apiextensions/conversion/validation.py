"""Validation of a CRD's spec.conversion and its defaults, and the upkeep of status.storedVersions
(apiextensions validation.go validateCustomResourceConversion; k8s.io/apiserver/pkg/util/webhook
validation.go; the v1 defaulters; the CRD strategy's PrepareForCreate/PrepareForUpdate). The rules on
storedVersions themselves are checked with the rest of the CRD (crd_validation.py).

Field paths are those of the internal type kube validates after converting from v1:
spec.conversion.webhook.clientConfig is reported as spec.conversion.webhookClientConfig, and
spec.conversion.webhook.conversionReviewVersions as spec.conversion.conversionReviewVersions.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from kube_apiserver.apiextensions.conversion.client import decode_ca_bundle, parse_ca_bundle
from kube_apiserver.runtime import errors
from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.errors import GoRepr, StatusCause
from kube_apiserver.runtime.validation.names import is_dns1035_label, is_valid_port_num
from kube_apiserver.runtime.validation.objectmeta import go_string_slice

ACCEPTED_REVIEW_VERSIONS = ("v1", "v1beta1")
_FORM = "; desired format: https://host[/path]"


def set_defaults_conversion(spec: dict[str, Any]) -> None:
    """SetDefaults_CustomResourceDefinitionSpec (strategy None) and SetDefaults_ServiceReference (port 443)."""
    conversion = spec.get("conversion")
    if not isinstance(conversion, dict):
        spec["conversion"] = {"strategy": "None"}
        return
    webhook = conversion.get("webhook")
    cc = webhook.get("clientConfig") if isinstance(webhook, dict) else None
    svc = cc.get("service") if isinstance(cc, dict) else None
    if isinstance(svc, dict) and svc.get("port") is None:
        svc["port"] = 443


def _conversion_view(spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None, list[Any] | None]:
    """The internal type's fields: (conversion, webhookClientConfig or None, conversionReviewVersions)."""
    conversion = spec.get("conversion") if isinstance(spec.get("conversion"), dict) else {}
    webhook = conversion.get("webhook") if isinstance(conversion.get("webhook"), dict) else None
    cc = webhook.get("clientConfig") if webhook is not None and isinstance(webhook.get("clientConfig"), dict) else None
    versions = webhook.get("conversionReviewVersions") if webhook is not None else None
    return conversion, cc, versions if isinstance(versions, list) else None


def has_valid_review_version_or_empty(spec: dict[str, Any]) -> bool:
    _, _, versions = _conversion_view(spec)
    return not versions or any(v in ACCEPTED_REVIEW_VERSIONS for v in versions)


def validate_custom_resource_conversion(
    spec: dict[str, Any], *, require_recognized_version: bool, allow_invalid_ca_bundle: bool
) -> list[StatusCause]:
    path = "spec.conversion"
    if not isinstance(spec.get("conversion"), dict):
        return []
    conversion, cc, review_versions = _conversion_view(spec)
    causes: list[StatusCause] = []
    strategy = conversion.get("strategy")
    preserve = spec.get("preserveUnknownFields")
    if strategy and strategy != "None" and preserve is True:
        causes.append(
            errors.field_invalid(f"{path}.strategy", strategy, "must be None if spec.preserveUnknownFields is true")
        )
    if not strategy:
        causes.append(errors.field_required(f"{path}.strategy"))
    elif strategy not in ("None", "Webhook"):
        causes.append(errors.field_not_supported(f"{path}.strategy", strategy, ["None", "Webhook"]))
    if strategy == "Webhook":
        cc_path = f"{path}.webhookClientConfig"
        if cc is None:
            causes.append(errors.field_required(cc_path, "required when strategy is set to Webhook"))
        else:
            has_url, has_service = cc.get("url") is not None, cc.get("service") is not None
            if has_url == has_service:
                causes.append(errors.field_required(cc_path, "exactly one of url or service is required"))
            elif has_url:
                causes += validate_webhook_url(f"{cc_path}.url", cc.get("url"), force_https=True)
            else:
                svc = cc.get("service") if isinstance(cc.get("service"), dict) else {}
                causes += validate_webhook_service(f"{cc_path}.service", svc)
            ca = decode_ca_bundle(cc.get("caBundle"))
            if ca and not allow_invalid_ca_bundle:
                causes += validate_ca_bundle(f"{cc_path}.caBundle", ca)
        causes += validate_conversion_review_versions(
            review_versions, require_recognized_version, f"{path}.conversionReviewVersions"
        )
    else:
        if cc is not None:
            causes.append(
                errors.field_forbidden(
                    f"{path}.webhookClientConfig", "should not be set when strategy is not set to Webhook"
                )
            )
        if review_versions:
            causes.append(
                errors.field_forbidden(
                    f"{path}.conversionReviewVersions", "should not be set when strategy is not set to Webhook"
                )
            )
    return causes


def validate_conversion_review_versions(
    versions: list[Any] | None, require_recognized: bool, path: str
) -> list[StatusCause]:
    if not versions:
        return [errors.field_required(path)]
    causes: list[StatusCause] = []
    seen: set[Any] = set()
    accepted = False
    for i, v in enumerate(versions):
        if not isinstance(v, str):
            continue
        if v in seen:
            causes.append(errors.field_invalid(f"{path}[{i}]", v, "duplicate version"))
            continue
        seen.add(v)
        causes += [errors.field_invalid(f"{path}[{i}]", v, msg) for msg in is_dns1035_label(v)]
        accepted = accepted or v in ACCEPTED_REVIEW_VERSIONS
    if require_recognized and not accepted:
        causes.append(errors.field_invalid(path, go_string_slice(versions), "must include at least one of v1, v1beta1"))
    return causes


def validate_webhook_url(path: str, url: Any, force_https: bool) -> list[StatusCause]:
    """ValidateWebhookURL."""
    text = url if isinstance(url, str) else ""
    problem = _go_url_parse_error(text)
    if problem is not None:
        return [errors.field_required(path, f'url must be a valid URL: parse "{text}": {problem}{_FORM}')]
    try:
        parts = urlsplit(text)
        host = parts.netloc.rpartition("@")[2]
    except ValueError as e:
        return [errors.field_required(path, f'url must be a valid URL: parse "{text}": {e}{_FORM}')]
    causes: list[StatusCause] = []
    if force_https and parts.scheme != "https":
        causes.append(errors.field_invalid(path, parts.scheme, "'https' is the only allowed URL scheme" + _FORM))
    if not host:
        causes.append(errors.field_invalid(path, host, "host must be provided" + _FORM))
    if "@" in parts.netloc:
        causes.append(
            errors.field_invalid(path, parts.netloc.rpartition("@")[0], "user information is not permitted in the URL")
        )
    if parts.fragment:
        causes.append(errors.field_invalid(path, parts.fragment, "fragments are not permitted in the URL"))
    if parts.query:
        causes.append(errors.field_invalid(path, parts.query, "query parameters are not permitted in the URL"))
    return causes


def _go_url_parse_error(text: str) -> str | None:
    """The errors of Go's url.Parse that urlsplit does not have: a scheme is letters first, then letters,
    digits, "+", "-" or "."; without one, the first path segment may not hold a colon."""
    has_scheme = False
    for i, c in enumerate(text):
        if c.isascii() and c.isalpha():
            continue
        if c.isascii() and (c.isdigit() or c in "+-."):
            if i == 0:
                break
            continue
        if c == ":":
            if i == 0:
                return "missing protocol scheme"
            has_scheme = True
        break
    if not has_scheme and ":" in text.split("/", 1)[0]:
        return "first path segment in URL cannot contain colon"
    return None


def validate_webhook_service(path: str, svc: dict[str, Any]) -> list[StatusCause]:
    """ValidateWebhookService."""
    causes: list[StatusCause] = []
    if not svc.get("name"):
        causes.append(errors.field_required(f"{path}.name", "service name is required"))
    if not svc.get("namespace"):
        causes.append(errors.field_required(f"{path}.namespace", "service namespace is required"))
    port = svc.get("port")
    if isinstance(port, int) and not isinstance(port, bool):
        msgs = is_valid_port_num(port)
        if msgs:
            causes.append(errors.field_invalid(f"{path}.port", port, "port is not valid: " + ", ".join(msgs)))
    url_path = svc.get("path")
    if not isinstance(url_path, str) or url_path in ("", "/"):
        return causes
    if url_path == "//":
        return [*causes, errors.field_invalid(f"{path}.path", url_path, "segment[0] may not be empty")]
    if not url_path.startswith("/"):
        causes.append(errors.field_invalid(f"{path}.path", url_path, "must start with a '/'"))
    check = url_path[1:]
    if check.endswith("/"):
        check = check[:-1]
    for i, step in enumerate(check.split("/")):
        if not step:
            causes.append(errors.field_invalid(f"{path}.path", url_path, f"segment[{i}] may not be empty"))
            continue
        for msg in metautil.is_dns1123_subdomain(step):
            causes.append(errors.field_invalid(f"{path}.path", url_path, f"segment[{i}]: {msg}"))
    return causes


def validate_ca_bundle(path: str, ca: bytes) -> list[StatusCause]:
    """ValidateCABundle: client-go must be able to build a TLS configuration from it."""
    _, problem = parse_ca_bundle(ca)
    if problem is None:
        return []
    shown = GoRepr("[]byte{" + ", ".join(f"0x{b:x}" for b in ca) + "}")
    return [errors.field_invalid(path, shown, f"unable to load root certificates: {problem}")]


def allow_invalid_ca_bundle(old: dict[str, Any]) -> bool:
    """An invalid caBundle is let through on update only while the CRD is not established, or when
    the one it replaces was invalid already."""
    conds = (old.get("status") or {}).get("conditions") or []
    established = any(
        isinstance(c, dict) and c.get("type") == "Established" and c.get("status") == "True" for c in conds
    )
    if not established:
        return True
    _, cc, _ = _conversion_view(old.get("spec") if isinstance(old.get("spec"), dict) else {})
    ca = decode_ca_bundle(cc.get("caBundle")) if cc is not None else b""
    if not ca:
        return False
    return parse_ca_bundle(ca)[1] is not None


def add_storage_version(crd: dict[str, Any]) -> None:
    """PrepareForCreate/PrepareForUpdate: the (first) storage version joins status.storedVersions."""
    spec = crd.get("spec") if isinstance(crd.get("spec"), dict) else {}
    for v in spec.get("versions") or []:
        if isinstance(v, dict) and v.get("storage"):
            status = crd.setdefault("status", {})
            if not isinstance(status, dict):
                return
            stored = status.get("storedVersions")
            stored = list(stored) if isinstance(stored, list) else []
            if v.get("name") not in stored:
                status["storedVersions"] = [*stored, v.get("name")]
            return


def _spec_versions(crd: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    spec = crd.get("spec") if isinstance(crd.get("spec"), dict) else {}
    return spec, [v for v in spec.get("versions") or [] if isinstance(v, dict)]


def validate_conversion_on_create(crd: dict[str, Any]) -> list[StatusCause]:
    """ValidateCustomResourceDefinition's conversion rules (storedVersions: crd_validation)."""
    spec, _ = _spec_versions(crd)
    return validate_custom_resource_conversion(spec, require_recognized_version=True, allow_invalid_ca_bundle=True)


def validate_conversion_on_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    """ValidateCustomResourceDefinitionUpdate's conversion rules. A status update keeps the spec, and
    kube's status strategy does not check them: nothing to check when the spec is the same."""
    spec, _ = _spec_versions(new)
    old_spec, _ = _spec_versions(old)
    if spec == old_spec:
        return []
    return validate_custom_resource_conversion(
        spec,
        require_recognized_version=not isinstance(old_spec.get("conversion"), dict)
        or has_valid_review_version_or_empty(old_spec),
        allow_invalid_ca_bundle=allow_invalid_ca_bundle(old),
    )
