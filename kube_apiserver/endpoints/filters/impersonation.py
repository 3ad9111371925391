"""WithImpersonation (k8s.io/apiserver/pkg/endpoints/filters/impersonation.go): Impersonate-User, -Group, -Uid
and -Extra-<key> headers, each authorized for the requesting user with the verb impersonate:
  a user                             users "<name>"                 group ""
  a service account (system:serviceaccount:<ns>:<name>)  serviceaccounts "<name>" in <ns>   group ""
  a group                            groups "<name>"                group ""
  an extra value                     userextras/<key> "<value>"     group authentication.k8s.io
  a UID                              uids "<uid>"                   group authentication.k8s.io
The first refusal answers 403 with kube's message. The new user gets system:authenticated unless the
impersonated groups already say authenticated or unauthenticated (system:unauthenticated for
system:anonymous); a service account without explicit groups gets its fixed groups. The requesting user is kept
on the scope as "k8s.impersonator" (the audit filter records it as the event's user, the impersonated one as
impersonatedUser), and the impersonation headers are removed before the request goes on."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from kube_apiserver.authentication.user import ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS, UserInfo
from kube_apiserver.authorization.authorizer import ALLOW, Attributes, authorize
from kube_apiserver.endpoints.filters.authorization import forbidden_message
from kube_apiserver.endpoints.request import send_status_error
from kube_apiserver.runtime.errors import StatusError, new_bad_request

ASGIApp = Any
SA_PREFIX = "system:serviceaccount:"
AUTHENTICATION_GROUP = "authentication.k8s.io"
_EXTRA_PREFIX = b"impersonate-extra-"
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def split_service_account_username(username: str) -> tuple[str, str] | None:
    """serviceaccount.SplitUsername: (namespace, name), or None when it is not a valid service account name."""
    if not username.startswith(SA_PREFIX):
        return None
    parts = username[len(SA_PREFIX) :].split(":")
    if len(parts) != 2:
        return None
    namespace, name = parts
    if len(namespace) > 63 or not _DNS_LABEL.match(namespace):
        return None
    if len(name) > 253 or not _DNS_SUBDOMAIN.match(name):
        return None
    return namespace, name


class _Request:
    """One thing to impersonate (kube builds a v1.ObjectReference per header value)."""

    __slots__ = ("kind", "namespace", "name", "api_version", "field_path")

    def __init__(self, kind: str, name: str, namespace: str = "", api_version: str = "", field_path: str = "") -> None:
        self.kind, self.name, self.namespace = kind, name, namespace
        self.api_version, self.field_path = api_version, field_path

    def __str__(self) -> str:
        # Go's %v of an ObjectReference: its seven fields in order, space separated
        fields = (self.kind, self.namespace, self.name, "", self.api_version, "", self.field_path)
        return "{" + " ".join(fields) + "}"


def build_impersonation_requests(headers: list[tuple[bytes, bytes]]) -> tuple[list[_Request], str]:
    """buildImpersonationRequests: (requests, error)."""
    user = uid = None
    groups: list[str] = []
    extras: dict[str, list[str]] = {}
    for k, v in headers:
        if not k.startswith(b"impersonate-"):
            continue
        value = v.decode("latin-1")
        if k == b"impersonate-user":
            user = value if user is None else user
        elif k == b"impersonate-group":
            groups.append(value)
        elif k == b"impersonate-uid":
            uid = value if uid is None else uid
        elif k.startswith(_EXTRA_PREFIX):
            extras.setdefault(unquote(k[len(_EXTRA_PREFIX) :].decode("latin-1").lower()), []).append(value)
    requests: list[_Request] = []
    if user:
        sa = split_service_account_username(user)
        requests.append(_Request("ServiceAccount", sa[1], sa[0]) if sa else _Request("User", user))
    requests += [_Request("Group", g) for g in groups]
    for key, values in extras.items():
        requests += [_Request("UserExtra", v, api_version="authentication.k8s.io/v1", field_path=key) for v in values]
    if uid:
        requests.append(_Request("UID", uid, api_version="authentication.k8s.io/v1"))
    if (groups or extras or uid) and not user:
        return [], "requested [" + " ".join(str(r) for r in requests) + "] without impersonating a user"
    return requests, ""


def _impersonates(headers: Any) -> bool:
    for name, _ in headers:  # a loop: any() over a generator costs several times as much
        if name[:12] == b"impersonate-":
            return True
    return False


def with_impersonation(app: ASGIApp, authorizer: Any) -> ASGIApp:
    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        headers = scope.get("headers", ())
        if not _impersonates(headers):
            return await app(scope, receive, send)
        requests, error = build_impersonation_requests(headers)
        if error:
            # upstream answers this with InternalError (a plain-text 500); the request is what is wrong
            await send_status_error(send, new_bad_request(error))
            return
        if not requests:
            return await app(scope, receive, send)
        requester: UserInfo = scope["k8s.user"]
        groups_specified = any(r.kind == "Group" for r in requests)
        username, uid = "", ""
        groups: list[str] = []
        extra: dict[str, list[str]] = {}
        for r in requests:
            attrs = Attributes(requester, "impersonate", True, namespace=r.namespace, name=r.name)
            if r.kind == "ServiceAccount":
                attrs.resource = "serviceaccounts"
                username = f"{SA_PREFIX}{r.namespace}:{r.name}"
                if not groups_specified:
                    groups = ["system:serviceaccounts", f"system:serviceaccounts:{r.namespace}"]
            elif r.kind == "User":
                attrs.resource = "users"
                username = r.name
            elif r.kind == "Group":
                attrs.resource = "groups"
                groups.append(r.name)
            elif r.kind == "UserExtra":
                attrs.api_group, attrs.api_version = AUTHENTICATION_GROUP, "v1"
                attrs.resource, attrs.subresource = "userextras", r.field_path
                extra.setdefault(r.field_path, []).append(r.name)
            else:  # UID
                attrs.api_group, attrs.api_version = AUTHENTICATION_GROUP, "v1"
                attrs.resource = "uids"
                uid = r.name
            decision, reason, _ = await authorize(authorizer, attrs)
            if decision != ALLOW:
                msg = forbidden_message(attrs, reason)
                await send_status_error(
                    send, StatusError(403, "Forbidden", msg, r.name, attrs.api_group, attrs.resource)
                )
                return
        if username != ANONYMOUS:
            if ALL_AUTHENTICATED not in groups and ALL_UNAUTHENTICATED not in groups:
                groups.append(ALL_AUTHENTICATED)
        elif ALL_UNAUTHENTICATED not in groups:
            groups.append(ALL_UNAUTHENTICATED)
        scope["k8s.impersonator"] = requester
        scope["k8s.user"] = UserInfo(username, uid, tuple(groups), {k: tuple(v) for k, v in extra.items()})
        scope["headers"] = [(k, v) for k, v in headers if not k.startswith(b"impersonate-")]
        await app(scope, receive, send)

    return handler
