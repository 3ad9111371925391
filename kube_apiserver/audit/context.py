"""The audit event of one request as it is built (audit.AuditContext) and the helpers other code calls to add
to it (audit.LogRequestMetadata, LogImpersonatedUser, LogRequestObject, LogResponseObject, AddAuditAnnotation).

The context lives on the ASGI scope under "k8s.audit" for the request's lifetime; snapshot() makes the
audit.k8s.io/v1 Event of the current stage as a dict in the order kube serializes its fields.
"""

from __future__ import annotations

import functools
import ipaddress
import logging
from datetime import UTC, datetime
from typing import Any

from kube_apiserver.audit.policy import LEVEL_ORDER, LEVEL_REQUEST, LEVEL_REQUEST_RESPONSE, RequestAuditConfig

log = logging.getLogger("kube_apiserver.audit")

SCOPE_KEY = "k8s.audit"
MAX_USER_AGENT_LENGTH = 1024
USER_AGENT_TRUNCATE_SUFFIX = "...TRUNCATED"
_UNSET: Any = object()


_second: list[Any] = [-1, ""]


def micro_time(t: float) -> str:
    """metav1.MicroTime as JSON: RFC 3339 in UTC with exactly six fractional digits (the seconds part is
    formatted once per second: every audited request asks several times)."""
    micros = int(t * 1_000_000)
    second, fraction = divmod(micros, 1_000_000)
    if _second[0] != second:
        _second[0], _second[1] = second, datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{_second[1]}.{fraction:06d}Z"


def user_info(user: Any) -> dict[str, Any]:
    """authentication/v1 UserInfo of the event's user ({} before authentication)."""
    return {} if user is None else user.to_api()


def source_ips(scope: dict[str, Any]) -> list[str]:
    """utilnet.SourceIPs: X-Forwarded-For, then X-Real-Ip unless already listed, then the connection's address
    unless it is the last one listed."""
    forwarded = real = ""
    for k, v in scope.get("headers", ()):
        if k == b"x-forwarded-for" and not forwarded:
            forwarded = v.decode("latin-1")
        elif k == b"x-real-ip" and not real:
            real = v.decode("latin-1")
    client = scope.get("client")
    if not forwarded and not real:  # the common case: only the connection's address
        return [_parse_ip(str(client[0]))] if client else []
    ips: list[str] = []
    if forwarded:
        ips.extend(ip for part in forwarded.split(",") if (ip := _parse_ip(part.strip())))
    if real and (ip := _parse_ip(real.strip())) and ip not in ips:
        ips.append(ip)
    if client and (remote := _parse_ip(str(client[0]))) and (not ips or ips[-1] != remote):
        ips.append(remote)
    return ips


@functools.lru_cache(maxsize=1024)
def _parse_ip(text: str) -> str:
    """net.ParseIP(...).String(): the canonical form, "" when not an address."""
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return ""


def request_uri(scope: dict[str, Any]) -> str:
    """url.RequestURI(): the escaped path as the client sent it, and the raw query."""
    raw = scope.get("raw_path")
    path = raw.decode("latin-1") if raw else scope.get("path", "/")
    qs = scope.get("query_string", b"")
    return f"{path}?{qs.decode('latin-1')}" if qs else path


def strip_managed_fields(obj: Any) -> Any:
    """copyWithoutManagedFields: a copy without metadata.managedFields, for an object, a list's items or a
    Table's row objects; anything else unchanged."""
    if not isinstance(obj, dict):
        return obj

    def strip(o: Any) -> Any:
        if isinstance(o, dict) and isinstance(o.get("metadata"), dict) and "managedFields" in o["metadata"]:
            o = dict(o)
            o["metadata"] = {k: v for k, v in o["metadata"].items() if k != "managedFields"}
        return o

    out = strip(obj)
    if isinstance(out.get("items"), list):
        out = dict(out) if out is obj else out
        out["items"] = [strip(i) for i in out["items"]]
    if out.get("kind") == "Table" and isinstance(out.get("rows"), list):
        out = dict(out) if out is obj else out
        out["rows"] = [
            {**row, "object": strip(row["object"])} if isinstance(row, dict) and "object" in row else row
            for row in out["rows"]
        ]
    return out


class AuditContext:
    """The event of one request; mutated as the request goes through the chain, snapshotted per stage."""

    __slots__ = (
        "config",
        "level",
        "audit_id",
        "stage",
        "request_uri",
        "verb",
        "user",
        "authenticated",
        "impersonated_user",
        "source_ips",
        "user_agent",
        "object_ref",
        "response_status",
        "request_object",
        "response_object",
        "request_received",
        "stage_timestamp",
        "annotations",
        "received_text",
    )

    def __init__(self, config: RequestAuditConfig, audit_id: str, received: float) -> None:
        self.config = config
        self.level = config.level
        self.audit_id = audit_id
        self.stage = ""
        self.request_uri = ""
        self.verb = ""
        self.user: dict[str, Any] = {}
        self.authenticated: Any = None  # the UserInfo the request authenticated as
        self.impersonated_user: dict[str, Any] | None = None
        self.source_ips: list[str] = []
        self.user_agent = ""
        self.object_ref: dict[str, str] | None = None
        self.response_status: dict[str, Any] | None = None
        self.request_object: Any = _UNSET
        self.response_object: Any = _UNSET
        self.request_received = received
        self.received_text = micro_time(received)
        self.stage_timestamp = received
        self.annotations: dict[str, str] | None = None

    def at_least(self, level: str) -> bool:
        return LEVEL_ORDER[self.level] >= LEVEL_ORDER[level]

    # -- audit.LogRequestMetadata ---------------------------------------------------------------------------------

    def log_request_metadata(self, scope: dict[str, Any], user: Any, attrs: Any) -> None:
        """attrs: the request's RequestInfo (or authorizer Attributes); user: the authenticated user or None."""
        self.verb = attrs.verb
        self.request_uri = request_uri(scope)
        agent = b""
        proxied = False
        for k, v in scope.get("headers", ()):
            if k == b"user-agent":
                agent = v
            elif k == b"x-forwarded-for" or k == b"x-real-ip":
                proxied = True
        if agent:
            text = agent.decode("latin-1")
            if len(text) > MAX_USER_AGENT_LENGTH:
                text = text[:MAX_USER_AGENT_LENGTH] + USER_AGENT_TRUNCATE_SUFFIX
            self.user_agent = text
        client = scope.get("client")
        if proxied:
            self.source_ips = source_ips(scope)
        elif client:
            self.source_ips = [_parse_ip(str(client[0]))]
        self.authenticated = user
        self.user = user_info(user)
        if attrs.is_resource_request:
            ref = {"resource": attrs.resource}
            if attrs.namespace:
                ref["namespace"] = attrs.namespace
            if attrs.name:
                ref["name"] = attrs.name
            if attrs.api_group:
                ref["apiGroup"] = attrs.api_group
            if attrs.api_version:
                ref["apiVersion"] = attrs.api_version
            if attrs.subresource:
                ref["subresource"] = attrs.subresource
            self.object_ref = ref

    # -- audit.LogImpersonatedUser --------------------------------------------------------------------------------

    def log_impersonated_user(self, user: Any) -> None:
        self.impersonated_user = user_info(user)

    # -- audit.LogRequestObject / LogRequestPatch ----------------------------------------------------------------

    def log_request_object(self, obj: Any, patch: bool = False) -> None:
        """The decoded request body. Its metadata fills the objectRef's empty fields (a create names its object
        only in the body); the object itself is kept from the Request level on. A patch only records its body."""
        if not patch and isinstance(obj, dict) and isinstance(obj.get("metadata"), dict):
            meta = obj["metadata"]
            ref = dict(self.object_ref) if self.object_ref is not None else {}  # snapshots share the old one
            for key in ("namespace", "name", "uid", "resourceVersion"):
                value = meta.get(key)
                if value and isinstance(value, str) and not ref.get(key):
                    ref[key] = value
            self.object_ref = _ordered_ref(ref)
        if self.at_least(LEVEL_REQUEST):
            self.request_object = strip_managed_fields(obj) if self.config.omit_managed_fields and not patch else obj

    # -- audit.LogResponseObject ----------------------------------------------------------------------------------

    def log_response_status(self, status: dict[str, Any]) -> None:
        """A Status response: its bounded fields become the responseStatus (the code is set when the response
        starts)."""
        out: dict[str, Any] = {"metadata": {}}
        for key in ("status", "message", "reason", "details", "code"):
            value = status.get(key)
            if value:
                out[key] = value
        if self.response_status and "code" in self.response_status:
            out["code"] = self.response_status["code"]
        self.response_status = out

    def log_response_object(self, obj: Any) -> None:
        if self.at_least(LEVEL_REQUEST_RESPONSE):
            self.response_object = strip_managed_fields(obj) if self.config.omit_managed_fields else obj

    def set_response_code(self, code: int) -> None:
        if self.response_status is None:
            self.response_status = {"metadata": {}, "code": code}
        else:
            self.response_status = {**self.response_status, "code": code}

    # -- annotations ----------------------------------------------------------------------------------------------

    def add_annotation(self, key: str, value: str) -> None:
        if self.annotations is None:
            self.annotations = {}
        current = self.annotations.get(key)
        if current is not None and current != value:
            log.warning(
                "Failed to set annotations[%r] to %r for audit:%r, it has already been set to %r",
                key,
                value,
                self.audit_id,
                current,
            )
            return
        self.annotations[key] = value

    # -- the event of the current stage ---------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The audit.k8s.io/v1 Event without its TypeMeta, fields in the Go struct's order. Everything mutable is
        copied, so that a buffered backend may hold it while the request goes on."""
        ev: dict[str, Any] = {
            "level": self.level,
            "auditID": self.audit_id,
            "stage": self.stage,
            "requestURI": self.request_uri,
            "verb": self.verb,
            "user": self.user,
        }
        if self.impersonated_user is not None:
            ev["impersonatedUser"] = self.impersonated_user
        if self.source_ips:
            ev["sourceIPs"] = self.source_ips
        if self.user_agent:
            ev["userAgent"] = self.user_agent
        if self.object_ref is not None:
            ev["objectRef"] = self.object_ref  # replaced, never mutated
        if self.response_status is not None:
            ev["responseStatus"] = self.response_status  # replaced, never mutated
        if self.request_object is not _UNSET:
            ev["requestObject"] = self.request_object
        if self.response_object is not _UNSET:
            ev["responseObject"] = self.response_object
        ev["requestReceivedTimestamp"] = self.received_text
        ev["stageTimestamp"] = micro_time(self.stage_timestamp)
        if self.annotations:
            ev["annotations"] = {k: self.annotations[k] for k in sorted(self.annotations)}
        return ev


_REF_ORDER = ("resource", "namespace", "name", "uid", "apiGroup", "apiVersion", "resourceVersion", "subresource")


def _ordered_ref(ref: dict[str, str]) -> dict[str, str]:
    """ObjectReference's fields in the Go struct's order."""
    return {k: ref[k] for k in _REF_ORDER if ref.get(k)}


def audit_context(scope: dict[str, Any]) -> AuditContext | None:
    return scope.get(SCOPE_KEY)


def add_audit_annotations(scope: dict[str, Any], *keys_and_values: str) -> None:
    """audit.AddAuditAnnotations: key, value, key, value... on the request's event, if it is audited."""
    ac = scope.get(SCOPE_KEY)
    if ac is None:
        return
    for i in range(0, len(keys_and_values) - 1, 2):
        ac.add_annotation(keys_and_values[i], keys_and_values[i + 1])


# The annotations the authorization filter records (filters/authorization.go).
DECISION_ANNOTATION_KEY = "authorization.k8s.io/decision"
REASON_ANNOTATION_KEY = "authorization.k8s.io/reason"
DECISION_ALLOW, DECISION_FORBID = "allow", "forbid"
REASON_ERROR = "internal error"
