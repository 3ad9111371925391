"""Validation of admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration and
MutatingWebhookConfiguration (pkg/apis/admissionregistration/validation/validation.go, with
k8s.io/apiserver/pkg/util/webhook for the client config); the rules, match conditions and their CEL
compiler, shared with policies, are in common.py.

A create is strict; an update relaxes each rule its old object already broke, so that objects stored
under older, laxer releases stay updatable: side effects other than None/NoneOnDryRun, review versions
this server does not know, repeated webhook names and invalid selector label values. Match conditions
are compiled only when they changed.

The update validation replaces the create validation (UPDATE_REPLACES_OBJECT_VALIDATION): on update the
registry runs UPDATE_VALIDATORS, upstream's update variant in full, and not VALIDATORS.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kube_apiserver.apis.admissionregistration.validation.common import (
    CREATE_OPTIONS,
    SUPPORTED_FAILURE_POLICIES,
    SUPPORTED_MATCH_POLICIES,
    ValidationOptions,
    validate_match_conditions,
    validate_rule_with_operations,
)
from kube_apiserver.apis.validation_util import field, gorepr
from kube_apiserver.apis.validation_util.names import is_dns1123_subdomain
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.labels import go_quote
from kube_apiserver.runtime.validation.metav1 import validate_label_selector
from kube_apiserver.runtime.validation.names import is_dns1035_label, is_valid_port_num

# AcceptedAdmissionReviewVersions: what the prior release of the server understands.
ACCEPTED_ADMISSION_REVIEW_VERSIONS = ("v1", "v1beta1")

# the sets.String lists of upstream, sorted as .List() returns them (the shared ones are in common)
SUPPORTED_SIDE_EFFECT_CLASSES = ["None", "NoneOnDryRun", "Some", "Unknown"]
NO_SIDE_EFFECT_CLASSES = ["None", "NoneOnDryRun"]
SUPPORTED_REINVOCATION_POLICIES = ["IfNeeded", "Never"]

_URL_FORM = "; desired format: https://host[/path]"


def validate_admission_review_versions(versions: list[Any], require_recognized: bool, path: str) -> list[StatusCause]:
    accepted = ", ".join(ACCEPTED_ADMISSION_REVIEW_VERSIONS)
    if not versions:
        return [field.required(path, f"must specify one of {accepted}")]
    errs: list[StatusCause] = []
    seen: set[str] = set()
    has_accepted = False
    for i, v in enumerate(versions):
        v = field.as_str(v)
        if v in seen:
            errs.append(field.invalid(field.index(path, i), v, "duplicate version"))
            continue
        seen.add(v)
        errs.extend(field.invalid(field.index(path, i), v, msg) for msg in is_dns1035_label(v))
        has_accepted = has_accepted or v in ACCEPTED_ADMISSION_REVIEW_VERSIONS
    if require_recognized and not has_accepted:
        errs.append(field.invalid(path, gorepr.string_slice(versions), f"must include at least one of {accepted}"))
    return errs


def is_fully_qualified_name(path: str, name: str) -> list[StatusCause]:
    """utilvalidation.IsFullyQualifiedName: a DNS subdomain of at least three labels (no trailing dot)."""
    if not name:
        return [field.required(path, "")]
    msgs = is_dns1123_subdomain(name)
    if msgs:
        return [field.invalid(path, name, ",".join(msgs))]
    if len(name.split(".")) < 3:
        return [field.invalid(path, name, "should be a domain with at least three segments separated by dots")]
    return []


def validate_webhook_url(path: str, url: str, force_https: bool) -> list[StatusCause]:
    """webhook.ValidateWebhookURL, on Go's url.Parse."""
    parsed, problem = parse_go_url(url)
    if parsed is None:
        return [field.required(path, f"url must be a valid URL: {problem}{_URL_FORM}")]
    errs: list[StatusCause] = []
    if force_https and parsed.scheme != "https":
        errs.append(field.invalid(path, parsed.scheme, "'https' is the only allowed URL scheme" + _URL_FORM))
    if not parsed.host:
        errs.append(field.invalid(path, parsed.host, "host must be specified" + _URL_FORM))
    if parsed.user is not None:
        errs.append(field.invalid(path, parsed.user, "user information is not permitted in the URL"))
    if parsed.fragment:
        errs.append(field.invalid(path, parsed.fragment, "fragments are not permitted in the URL"))
    if parsed.raw_query:
        errs.append(field.invalid(path, parsed.raw_query, "query parameters are not permitted in the URL"))
    return errs


def validate_webhook_service(
    path: str, namespace: str, name: str, url_path: str | None, port: int
) -> list[StatusCause]:
    """webhook.ValidateWebhookService. Its callers pass the service's name as `namespace` and its
    namespace as `name` (kubernetes#141353), so an empty namespace is reported at service.name and an
    empty name at service.namespace; validate_client_config keeps that call."""
    errs: list[StatusCause] = []
    if not name:
        errs.append(field.required(field.child(path, "name"), ""))
    if not namespace:
        errs.append(field.required(field.child(path, "namespace"), ""))
    msgs = is_valid_port_num(port)
    if msgs:
        errs.append(field.invalid(field.child(path, "port"), port, "port is not valid: " + ", ".join(msgs)))
    if url_path is None or url_path in ("", "/"):
        return errs
    path_path = field.child(path, "path")
    if url_path == "//":
        return [*errs, field.invalid(path_path, url_path, "segment[0] may not be empty")]
    if not url_path.startswith("/"):
        errs.append(field.invalid(path_path, url_path, "must start with a '/'"))
    to_check = url_path[1:]
    if to_check.endswith("/"):
        to_check = to_check[:-1]
    for i, step in enumerate(to_check.split("/")):
        if not step:
            errs.append(field.invalid(path_path, url_path, f"segment[{i}] may not be empty"))
            continue
        errs.extend(field.invalid(path_path, url_path, f"segment[{i}]: {msg}") for msg in is_dns1123_subdomain(step))
    return errs


def validate_client_config(cc: dict[str, Any], path: str) -> list[StatusCause]:
    url, service = cc.get("url"), cc.get("service")
    if (url is None) == (service is None):
        return [field.required(path, "exactly one of url or service is required")]
    if url is not None:
        return validate_webhook_url(field.child(path, "url"), field.as_str(url), True)
    svc = field.as_dict(service)
    port = svc.get("port")
    return validate_webhook_service(
        field.child(path, "service"),
        field.as_str(svc.get("name")),  # passed as `namespace`, as upstream does
        field.as_str(svc.get("namespace")),
        svc.get("path") if isinstance(svc.get("path"), str) else None,
        port if field.is_int(port) else 443,  # SetDefaults_ServiceReference
    )


def _validate_selector(selector: Any, opts: ValidationOptions, path: str) -> list[StatusCause]:
    if selector is None:
        return []
    return validate_label_selector(selector, path, opts.allow_invalid_label_value_in_selector)


def validate_webhook(hook: dict[str, Any], opts: ValidationOptions, path: str, mutating: bool) -> list[StatusCause]:
    """validateValidatingWebhook / validateMutatingWebhook (the mutating one adds reinvocationPolicy)."""
    errs = is_fully_qualified_name(field.child(path, "name"), field.as_str(hook.get("name")))
    for i, rule in enumerate(field.as_list(hook.get("rules"))):
        errs.extend(validate_rule_with_operations(field.as_dict(rule), field.index(field.child(path, "rules"), i)))
    failure_policy = hook.get("failurePolicy")
    if failure_policy is not None and failure_policy not in SUPPORTED_FAILURE_POLICIES:
        errs.append(field.not_supported(field.child(path, "failurePolicy"), failure_policy, SUPPORTED_FAILURE_POLICIES))
    match_policy = hook.get("matchPolicy")
    if match_policy is not None and match_policy not in SUPPORTED_MATCH_POLICIES:
        errs.append(field.not_supported(field.child(path, "matchPolicy"), match_policy, SUPPORTED_MATCH_POLICIES))
    allowed = NO_SIDE_EFFECT_CLASSES if opts.require_no_side_effects else SUPPORTED_SIDE_EFFECT_CLASSES
    side_effects = hook.get("sideEffects")
    if side_effects is None:
        errs.append(field.required(field.child(path, "sideEffects"), f"must specify one of {', '.join(allowed)}"))
    elif side_effects not in allowed:
        errs.append(field.not_supported(field.child(path, "sideEffects"), side_effects, allowed))
    timeout = hook.get("timeoutSeconds")
    if field.is_int(timeout) and not 1 <= timeout <= 30:
        errs.append(
            field.invalid(
                field.child(path, "timeoutSeconds"), timeout, "the timeout value must be between 1 and 30 seconds"
            )
        )
    errs.extend(_validate_selector(hook.get("namespaceSelector"), opts, field.child(path, "namespaceSelector")))
    errs.extend(_validate_selector(hook.get("objectSelector"), opts, field.child(path, "objectSelector")))
    if mutating:
        policy = hook.get("reinvocationPolicy")
        if policy is not None and policy not in SUPPORTED_REINVOCATION_POLICIES:
            errs.append(
                field.not_supported(field.child(path, "reinvocationPolicy"), policy, SUPPORTED_REINVOCATION_POLICIES)
            )
    errs.extend(validate_client_config(field.as_dict(hook.get("clientConfig")), field.child(path, "clientConfig")))
    if not opts.ignore_match_conditions:
        errs.extend(
            validate_match_conditions(
                field.as_list(hook.get("matchConditions")), opts, field.child(path, "matchConditions")
            )
        )
    return errs


def validate_webhook_configuration(obj: dict[str, Any], opts: ValidationOptions, mutating: bool) -> list[StatusCause]:
    """validateValidatingWebhookConfiguration / validateMutatingWebhookConfiguration; the metadata is the
    registry's (validate_object_meta)."""
    errs: list[StatusCause] = []
    names: set[str] = set()
    for i, hook in enumerate(field.as_list(obj.get("webhooks"))):
        hook = field.as_dict(hook)
        path = field.index("webhooks", i)
        errs.extend(validate_webhook(hook, opts, path, mutating))
        errs.extend(
            validate_admission_review_versions(
                field.as_list(hook.get("admissionReviewVersions")),
                opts.require_recognized_admission_review_version,
                field.child(path, "admissionReviewVersions"),
            )
        )
        name = field.as_str(hook.get("name"))
        if opts.require_unique_webhook_names and name:
            if name in names:
                errs.append(field.duplicate(field.child(path, "name"), name))
            else:
                names.add(name)
    return errs


# --- Go's url.Parse, as far as ValidateWebhookURL sees it ---


@dataclass
class GoURL:
    scheme: str = ""
    host: str = ""
    user: str | None = None  # Userinfo.String(): the re-escaped "user[:password]"
    raw_query: str = ""
    fragment: str = ""


class _URLError(Exception):
    pass


_HOST_SUB_DELIMS = set("!$&'()*+,;=:[]<>\"")
_USERINFO_CHARS = set("-._:~!$&'()*+,;=%@")


def _should_escape(c: str, mode: str) -> bool:
    """shouldEscape for the modes Parse uses: host, zone, path, userPassword and fragment."""
    if c.isascii() and c.isalnum():
        return False
    if mode in ("host", "zone") and c in _HOST_SUB_DELIMS:
        return False
    if c in "-_.~":
        return False
    if c in "$&+,/:;=?@":
        if mode == "path":
            return c == "?"
        if mode == "userPassword":
            return c in "@/?:"
        if mode == "fragment":
            return False
    if mode == "fragment" and c in "!()*":
        return False
    return True


def _is_hex(c: str) -> bool:
    return c in "0123456789abcdefABCDEF"


def _unescape(s: str, mode: str) -> str:
    """unescape: %XX decoding; a host may only hold what a registered name or IP literal can."""
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c == "%":
            if i + 2 >= len(s) or not _is_hex(s[i + 1]) or not _is_hex(s[i + 2]):
                raise _URLError("invalid URL escape " + go_quote(s[i : i + 3]))
            value = int(s[i + 1 : i + 3], 16)
            if mode == "host" and value < 0x80 and s[i : i + 3] != "%25":
                raise _URLError("invalid URL escape " + go_quote(s[i : i + 3]))
            if mode == "zone" and s[i : i + 3] != "%25" and value != 0x20 and _should_escape(chr(value), "host"):
                raise _URLError("invalid URL escape " + go_quote(s[i : i + 3]))
            out.append(value)
            i += 3
            continue
        if mode in ("host", "zone") and c.isascii() and _should_escape(c, mode):
            raise _URLError(f"invalid character {go_quote(c)} in host name")
        out += c.encode()
        i += 1
    return out.decode(errors="replace")


def _escape(s: str, mode: str) -> str:
    return "".join(
        "".join(f"%{b:02X}" for b in c.encode()) if (not c.isascii() or _should_escape(c, mode)) else c for c in s
    )


def _get_scheme(raw: str) -> tuple[str, str]:
    for i, c in enumerate(raw):
        if c.isascii() and c.isalpha():
            continue
        if c.isascii() and (c.isdigit() or c in "+-."):
            if i == 0:
                return "", raw
            continue
        if c == ":":
            if i == 0:
                raise _URLError("missing protocol scheme")
            return raw[:i], raw[i + 1 :]
        return "", raw  # an invalid character: no scheme at all
    return "", raw


def _valid_optional_port(port: str) -> bool:
    return port == "" or (port[0] == ":" and all(c in "0123456789" for c in port[1:]))


def _parse_host(host: str) -> str:
    if host.startswith("["):
        i = host.rfind("]")
        if i < 0:
            raise _URLError("missing ']' in host")
        colon_port = host[i + 1 :]
        if not _valid_optional_port(colon_port):
            raise _URLError(f"invalid port {go_quote(colon_port)} after host")
        zone = host.find("%25", 0, i)
        if zone >= 0:
            return _unescape(host[:zone], "host") + _unescape(host[zone:i], "zone") + _unescape(host[i:], "host")
    else:
        i = host.rfind(":")
        if i >= 0 and not _valid_optional_port(host[i:]):
            raise _URLError(f"invalid port {go_quote(host[i:])} after host")
    return _unescape(host, "host")


def _parse_authority(authority: str) -> tuple[str | None, str]:
    i = authority.rfind("@")
    host = _parse_host(authority[i + 1 :] if i >= 0 else authority)
    if i < 0:
        return None, host
    userinfo = authority[:i]
    if not all((c.isascii() and c.isalnum()) or c in _USERINFO_CHARS for c in userinfo):
        raise _URLError("net/url: invalid userinfo")
    username, colon, password = userinfo.partition(":")
    user = _escape(_unescape(username, "userPassword"), "userPassword")
    if colon:
        user += ":" + _escape(_unescape(password, "userPassword"), "userPassword")
    return user, host


def _parse(raw: str) -> GoURL:
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in raw):
        raise _URLError("net/url: invalid control character in URL")
    url = GoURL()
    if raw == "*":
        return url
    scheme, rest = _get_scheme(raw)
    url.scheme = scheme.lower()
    if rest.endswith("?") and rest.count("?") == 1:
        rest = rest[:-1]
    else:
        rest, _, url.raw_query = rest.partition("?")
    if not rest.startswith("/"):
        if url.scheme:
            return url  # opaque: "https:host" has no host
        if ":" in rest.partition("/")[0]:
            raise _URLError("first path segment in URL cannot contain colon")
    if (url.scheme or not rest.startswith("///")) and rest.startswith("//"):
        authority, slash, tail = rest[2:].partition("/")
        url.user, url.host = _parse_authority(authority)
        rest = slash + tail
    _unescape(rest, "path")
    return url


def parse_go_url(raw: str) -> tuple[GoURL | None, str]:
    """url.Parse: the URL, or None and the error's text (`parse "<url>": <reason>`)."""
    before, hash_mark, fragment = raw.partition("#")
    try:
        url = _parse(before)
    except _URLError as e:
        return None, f"parse {go_quote(before)}: {e}"
    if hash_mark and fragment:
        try:
            url.fragment = _unescape(fragment, "fragment")
        except _URLError as e:
            return None, f"parse {go_quote(raw)}: {e}"
    return url, ""


# --- what an update lets through: the old object's own leniencies ---


def _hooks(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return [field.as_dict(h) for h in field.as_list(obj.get("webhooks"))]


def has_no_side_effects(hooks: list[dict[str, Any]]) -> bool:
    return all(h.get("sideEffects") in NO_SIDE_EFFECT_CLASSES for h in hooks)


def has_accepted_admission_review_versions(hooks: list[dict[str, Any]]) -> bool:
    """Every webhook lists a version this server accepts, or none at all."""
    for hook in hooks:
        versions = field.as_list(hook.get("admissionReviewVersions"))
        if versions and not any(v in ACCEPTED_ADMISSION_REVIEW_VERSIONS for v in versions):
            return False
    return True


def has_unique_webhook_names(hooks: list[dict[str, Any]]) -> bool:
    names = [field.as_str(h.get("name")) for h in hooks]
    return len(names) == len(set(names))


def has_invalid_label_value_in_selector(hooks: list[dict[str, Any]]) -> bool:
    for hook in hooks:
        for key in ("namespaceSelector", "objectSelector"):
            selector = hook.get(key)
            if selector is not None and validate_label_selector(selector, ""):
                return True
    return False


def ignore_match_conditions(new: list[dict[str, Any]], old: list[dict[str, Any]]) -> bool:
    """True when no webhook's matchConditions changed."""
    if len(new) != len(old):
        return False
    return all(n.get("matchConditions") == o.get("matchConditions") for n, o in zip(new, old, strict=True))


def update_options(new: dict[str, Any], old: dict[str, Any]) -> ValidationOptions:
    old_hooks = _hooks(old)
    return ValidationOptions(
        ignore_match_conditions=ignore_match_conditions(_hooks(new), old_hooks),
        require_no_side_effects=has_no_side_effects(old_hooks),
        require_recognized_admission_review_version=has_accepted_admission_review_versions(old_hooks),
        require_unique_webhook_names=has_unique_webhook_names(old_hooks),
        allow_invalid_label_value_in_selector=has_invalid_label_value_in_selector(old_hooks),
    )


def validate_validating_webhook_configuration(obj: dict[str, Any]) -> list[StatusCause]:
    return validate_webhook_configuration(obj, CREATE_OPTIONS, mutating=False)


def validate_mutating_webhook_configuration(obj: dict[str, Any]) -> list[StatusCause]:
    return validate_webhook_configuration(obj, CREATE_OPTIONS, mutating=True)


def validate_validating_webhook_configuration_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    return validate_webhook_configuration(new, update_options(new, old), mutating=False)


def validate_mutating_webhook_configuration_update(new: dict[str, Any], old: dict[str, Any]) -> list[StatusCause]:
    return validate_webhook_configuration(new, update_options(new, old), mutating=True)


VALIDATORS = {
    ("v1", "ValidatingWebhookConfiguration"): validate_validating_webhook_configuration,
    ("v1", "MutatingWebhookConfiguration"): validate_mutating_webhook_configuration,
}

UPDATE_VALIDATORS = {
    ("v1", "ValidatingWebhookConfiguration"): validate_validating_webhook_configuration_update,
    ("v1", "MutatingWebhookConfiguration"): validate_mutating_webhook_configuration_update,
}
# ValidateValidatingWebhookConfigurationUpdate and its mutating twin check the new object themselves
UPDATE_REPLACES_OBJECT_VALIDATION = {
    ("v1", "ValidatingWebhookConfiguration"),
    ("v1", "MutatingWebhookConfiguration"),
}
