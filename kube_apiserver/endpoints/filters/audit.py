"""The audit filters (endpoints/filters/audit.go, audit_init.go, authn_audit.go).

with_audit_init (outermost, inside panic recovery): every request gets an audit ID (the client's Audit-ID
header, else a new UUID) sent back as the Audit-Id response header, and its receive time.
with_audit (after authentication): the policy picks a level from the authenticated user and the request
info; unless None, the request's AuditContext goes on the scope (other filters add annotations to it) and its
event goes to the backend at each stage: RequestReceived; ResponseStarted for long-running requests (watch)
when the response starts; ResponseComplete when the handler is done, or Panic. The request and response
bodies are recorded as they pass (Request and RequestResponse levels).
with_failed_authentication_audit (around authentication): a 401 is audited at ResponseStarted, without user.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import orjson

from kube_apiserver.audit.backend import Backend
from kube_apiserver.audit.context import SCOPE_KEY, AuditContext
from kube_apiserver.audit.policy import (
    LEVEL_NONE,
    LEVEL_REQUEST,
    LEVEL_REQUEST_RESPONSE,
    STAGE_PANIC,
    STAGE_REQUEST_RECEIVED,
    STAGE_RESPONSE_COMPLETE,
    STAGE_RESPONSE_STARTED,
    PolicyRuleEvaluator,
)
from kube_apiserver.endpoints.request import Request, send_status_error, send_text
from kube_apiserver.runtime.errors import StatusError
from kube_apiserver.runtime.labels import go_quote
from kube_apiserver.runtime.meta import new_uid
from kube_apiserver.runtime.serializer import decode_body
from kube_apiserver.server.filters.recovery import response_state

ASGIApp = Any
LongRunningCheck = Callable[[dict[str, Any]], bool]

_STATUS_PREFIX = b'{"kind":"Status"'
PROTOBUF = "application/vnd.kubernetes.protobuf"
# Verbs whose handler decodes the body into an object kube logs with LogRequestObject (its metadata fills the
# objectRef even at the Metadata level), and those whose body is only recorded from the Request level on.
_OBJECT_VERBS = frozenset({"create", "update"})
_BODY_VERBS = frozenset({"patch", "delete", "deletecollection"})
_FAKED_SUCCESS = {"metadata": {}, "status": "Success", "message": "Connection closed early", "code": 200}


def _client_audit_id(headers: Any) -> bytes | None:
    for name, value in headers:  # a loop: next() over a generator costs several times as much
        if name == b"audit-id":
            return value  # type: ignore[no-any-return]
    return None


def with_audit_init(app: ASGIApp) -> ASGIApp:
    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        scope["k8s.request_received"] = time.time()
        audit_id = _client_audit_id(scope.get("headers", ())) or new_uid().encode()
        scope["k8s.audit_id"] = audit_id
        response_state(scope).headers.append((b"audit-id", audit_id))
        await app(scope, receive, send)

    return handler


def _new_context(scope: dict[str, Any], evaluator: PolicyRuleEvaluator, user: Any) -> AuditContext | None:
    """evaluatePolicyAndCreateAuditEvent: None when the level is None. The policy sees the request as the
    authorizer would (GetAuthorizerAttributes): the RequestInfo has the same attribute names."""
    info = scope["k8s.request_info"]
    config = evaluator.evaluate(user, info)
    if config.level == LEVEL_NONE:
        return None
    audit_id = scope.get("k8s.audit_id") or new_uid().encode()
    ac = AuditContext(config, audit_id.decode("latin-1"), scope.get("k8s.request_received") or time.time())
    ac.log_request_metadata(scope, user, info)
    return ac


def _decode(body: bytes, content_type: str) -> Any:
    """A body (JSON, YAML or protobuf) as the JSON kube re-encodes objects to; None when it cannot be read."""
    media = content_type.split(";", 1)[0].strip().lower()
    if media.endswith("json"):  # application/json, merge-patch+json, json-patch+json, ...
        media = "application/json"
    elif media.endswith("yaml"):
        media = "application/yaml"
    elif media != PROTOBUF:
        return None
    try:
        return decode_body(body, media)
    except (StatusError, ValueError, TypeError, RecursionError):
        return None


class _AuditedRequest:
    """The response writer decoration of kube's WithAudit, as ASGI send/receive wrappers."""

    __slots__ = (
        "ac",
        "scope",
        "sink",
        "long_running",
        "inner_send",
        "inner_receive",
        "started",
        "first_body",
        "pending_started",
        "response_type",
        "response_chunks",
        "request_chunks",
        "request_done",
        "request_verb",
        "request_logged",
    )

    def __init__(self, ac: AuditContext, scope: dict[str, Any], sink: Backend, long_running: bool) -> None:
        self.ac = ac
        self.scope = scope
        self.sink = sink
        self.long_running = long_running
        self.started = False
        self.first_body = True
        self.pending_started = False
        self.response_type = ""
        resource = ac.object_ref is not None
        self.response_chunks: list[bytes] | None = (
            [] if resource and not long_running and ac.at_least(LEVEL_REQUEST_RESPONSE) else None
        )
        verb = ac.verb
        wants_body = resource and (verb in _OBJECT_VERBS or (verb in _BODY_VERBS and ac.at_least(LEVEL_REQUEST)))
        self.request_chunks: list[bytes] | None = [] if wants_body else None
        self.request_done = False
        self.request_verb = verb
        self.request_logged = False

    # -- the wrappers ---------------------------------------------------------------------------------------------

    async def receive(self) -> dict[str, Any]:
        message = await self.inner_receive()
        chunks = self.request_chunks
        if chunks is not None and not self.request_done and message["type"] == "http.request":
            chunks.append(message.get("body", b""))
            self.request_done = not message.get("more_body")
        return message

    async def send(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            if not self.started:
                self._response_started(message)
        elif kind == "http.response.body":
            body = message.get("body", b"")
            if self.first_body:
                self.first_body = False
                if body.startswith(_STATUS_PREFIX) and not message.get("more_body"):
                    try:
                        status = orjson.loads(body)
                    except orjson.JSONDecodeError:
                        status = None
                    if isinstance(status, dict) and status.get("kind") == "Status":
                        self.ac.log_response_status(status)
                if self.pending_started:
                    self.pending_started = False
                    self.emit(STAGE_RESPONSE_STARTED)
            if self.response_chunks is not None:
                self.response_chunks.append(body)
        await self.inner_send(message)

    def _response_started(self, message: dict[str, Any]) -> None:
        """processCode: the code goes into the event; a long-running request's ResponseStarted event is sent
        now, or with the first body when that is the Status of an error."""
        self.started = True
        code = message["status"]
        self.ac.set_response_code(code)
        self.ac.stage = STAGE_RESPONSE_STARTED
        if self.response_chunks is not None or code >= 300:
            self.response_type = next(
                (v.decode("latin-1") for k, v in message.get("headers", ()) if k == b"content-type"), ""
            )
        if self.long_running:
            if code >= 300 and self.response_type.startswith("application/json"):
                self.pending_started = True
            else:
                self.emit(STAGE_RESPONSE_STARTED)

    # -- events ---------------------------------------------------------------------------------------------------

    def _fill(self) -> None:
        """What later filters and the handler left for the event: the impersonated user, the request body."""
        ac = self.ac
        user = self.scope.get("k8s.user")
        if user is not None and user is not ac.authenticated and ac.impersonated_user is None:
            ac.log_impersonated_user(user)
        if not self.request_logged and self.request_done and self.request_chunks:
            self.request_logged = True
            req: Request | None = self.scope.get("k8s.request")
            content_type = req.header("content-type", "application/json") if req is not None else "application/json"
            obj = _decode(b"".join(self.request_chunks), content_type)
            if obj is not None:
                ac.log_request_object(obj, patch=self.request_verb == "patch")

    def emit(self, stage: str) -> bool:
        """processAuditEvent."""
        ac = self.ac
        ac.stage = stage
        if stage in ac.config.omit_stages:
            return True
        if stage == STAGE_REQUEST_RECEIVED:
            ac.stage_timestamp = ac.request_received
        else:
            self._fill()
            ac.stage_timestamp = time.time()
        return self.sink.process_events([ac.snapshot()])

    def complete(self) -> None:
        ac = self.ac
        if ac.response_status is None and self.long_running:
            ac.response_status = _FAKED_SUCCESS
            self.emit(STAGE_RESPONSE_STARTED)
        elif self.pending_started:  # an error response that never sent its body
            self.pending_started = False
            self.emit(STAGE_RESPONSE_STARTED)
        if ac.response_status is None:
            ac.response_status = _FAKED_SUCCESS
        if self.response_chunks:
            obj = _decode(b"".join(self.response_chunks), self.response_type)
            if obj is not None:
                ac.log_response_object(obj)
        self.emit(STAGE_RESPONSE_COMPLETE)

    def panicked(self, err: BaseException) -> None:
        self.ac.response_status = {
            "metadata": {},
            "status": "Failure",
            "message": f"APIServer panic'd: {err}",
            "reason": "InternalError",
            "code": 500,
        }
        self.emit(STAGE_PANIC)


def with_audit(
    app: ASGIApp,
    sink: Backend | None = None,
    evaluator: PolicyRuleEvaluator | None = None,
    long_running_check: LongRunningCheck | None = None,
) -> ASGIApp:
    """No policy or no backend: no auditing, and no wrapper at all (the Audit-Id comes from with_audit_init)."""
    if sink is None or evaluator is None:
        return app

    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        ac = _new_context(scope, evaluator, scope.get("k8s.user"))
        if ac is None:
            return await app(scope, receive, send)
        scope[SCOPE_KEY] = ac
        audited = _AuditedRequest(ac, scope, sink, bool(long_running_check and long_running_check(scope)))
        if not audited.emit(STAGE_REQUEST_RECEIVED):
            # responsewriters.InternalError (blocking-strict only: the other modes never report a failure)
            await send_text(
                send, 500, f"Internal Server Error: {go_quote(ac.request_uri)}: failed to store audit event\n"
            )
            return
        # the handlers answer through the Request; the filters below through `send`: both go through the audit
        req = scope.get("k8s.request")
        audited.inner_send = req.send if req is not None else send
        audited.inner_receive = req.receive if req is not None else receive
        # the body is only looked at for verbs that send one; everything else reads `receive` untouched
        audit_receive = audited.receive if audited.request_chunks is not None else audited.inner_receive
        if req is not None:
            req.send = audited.send
            req.receive = audit_receive
        try:
            await app(scope, audit_receive, audited.send)
        except StatusError as e:
            if not audited.started:  # what panic recovery would answer, written through the audit
                await send_status_error(audited.send, e)
        except OSError:  # the client went away
            audited.complete()
            raise
        except Exception as e:
            audited.panicked(e)
            raise
        except BaseException:  # cancelled (a timeout, the shutdown): the response is over all the same
            audited.complete()
            raise
        audited.complete()

    return handler


def with_failed_authentication_audit(
    app: ASGIApp, sink: Backend | None = None, evaluator: PolicyRuleEvaluator | None = None
) -> ASGIApp:
    """Around the authentication filter: its 401 is audited (ResponseStarted only, user empty)."""
    if sink is None or evaluator is None:
        return app

    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        audited: _AuditedRequest | None = None

        async def failed_send(message: dict[str, Any]) -> None:
            nonlocal audited
            if audited is not None:
                return await audited.send(message)
            if message["type"] == "http.response.start" and message["status"] == 401 and "k8s.user" not in scope:
                ac = _new_context(scope, evaluator, None)
                if ac is not None:
                    audited = _AuditedRequest(ac, scope, sink, True)
                    audited.inner_send = send
                    return await audited.send(message)
            await send(message)

        await app(scope, receive, failed_send)
        if audited is not None and audited.pending_started:
            audited.pending_started = False
            audited.emit(STAGE_RESPONSE_STARTED)

    return handler
