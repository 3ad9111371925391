"""The audit filters in process, on what the e2e tests cannot provoke: a handler that raises (Panic stage), a
client that goes away, an error Status on a long-running request, a policy that omits every stage."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from kube_apiserver.audit.policy import PolicyRuleEvaluator, load_policy_from_bytes
from kube_apiserver.authentication.user import UserInfo
from kube_apiserver.endpoints.filters.audit import with_audit, with_audit_init
from kube_apiserver.endpoints.filters.request_info import with_request_info
from kube_apiserver.runtime.errors import new_forbidden
from kube_apiserver.server.filters.maxinflight import is_long_running
from kube_apiserver.server.filters.recovery import with_panic_recovery

ALICE = UserInfo("alice", groups=("system:authenticated",))


class Sink:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def process_events(self, events: list[dict[str, Any]]) -> bool:
        self.events.extend(events)
        return True


def evaluator(extra: str = "") -> PolicyRuleEvaluator:
    return PolicyRuleEvaluator(
        load_policy_from_bytes(
            b"apiVersion: audit.k8s.io/v1\nkind: Policy\n" + extra.encode() + b"rules:\n- level: Metadata\n"
        )
    )


def run(app: Any, path: str, query: bytes = b"", method: str = "GET") -> list[dict[str, Any]]:
    """Drive one request through recovery → audit init → request info → (user) → audit → app."""
    sent: list[dict[str, Any]] = []

    async def with_user(scope: dict[str, Any], receive: Any, send: Any) -> None:
        scope["k8s.user"] = ALICE
        await inner(scope, receive, send)

    inner = app
    chain = with_panic_recovery(with_audit_init(with_request_info(with_user)))
    scope = {"type": "http", "method": method, "path": path, "query_string": query, "headers": []}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(chain(scope, receive, send))
    return sent


def test_panic_stage():
    sink = Sink()

    async def boom(scope: dict[str, Any], receive: Any, send: Any) -> None:
        raise KeyError("spec")

    sent = run(with_audit(boom, sink, evaluator(), is_long_running), "/api/v1/namespaces/ns/pods/p")
    assert sent[0]["status"] == 500  # panic recovery still answers
    assert [e["stage"] for e in sink.events] == ["RequestReceived", "Panic"]
    assert sink.events[1]["responseStatus"] == {
        "metadata": {},
        "status": "Failure",
        "message": "APIServer panic'd: 'spec'",
        "reason": "InternalError",
        "code": 500,
    }
    assert (b"audit-id", sink.events[0]["auditID"].encode()) in sent[0]["headers"]


def test_client_gone_and_no_response():
    sink = Sink()

    async def silent(scope: dict[str, Any], receive: Any, send: Any) -> None:
        return None

    run(with_audit(silent, sink, evaluator(), is_long_running), "/api/v1/namespaces/ns/pods", b"watch=true")
    # a long-running request that never answered: ResponseStarted is faked, as kube does
    assert [e["stage"] for e in sink.events] == ["RequestReceived", "ResponseStarted", "ResponseComplete"]
    assert sink.events[2]["responseStatus"] == {
        "metadata": {},
        "status": "Success",
        "message": "Connection closed early",
        "code": 200,
    }


def test_error_status_on_a_watch_is_in_response_started():
    sink = Sink()

    async def forbid(scope: dict[str, Any], receive: Any, send: Any) -> None:
        err = new_forbidden("", "pods", "", "nope")
        await send({"type": "http.response.start", "status": 403, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": err.body()})

    run(with_audit(forbid, sink, evaluator(), is_long_running), "/api/v1/namespaces/ns/pods", b"watch=1")
    started = sink.events[1]
    assert started["stage"] == "ResponseStarted"
    assert started["responseStatus"]["code"] == 403 and started["responseStatus"]["reason"] == "Forbidden"
    assert orjson.dumps(started["responseStatus"]).startswith(b'{"metadata":{},"status":"Failure","message":')


def test_all_stages_omitted():
    sink = Sink()

    async def ok(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    ev = evaluator("omitStages: [RequestReceived, ResponseStarted, ResponseComplete, Panic]\n")
    sent = run(with_audit(ok, sink, ev, is_long_running), "/api/v1/namespaces/ns/pods", b"watch=1")
    assert sink.events == []
    assert sent[0]["status"] == 200


def test_no_policy_means_no_wrapper():
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        pass

    assert with_audit(app, None, evaluator()) is app
    assert with_audit(app, Sink(), None) is app


def test_blocking_strict_failure_fails_the_request():
    from kube_apiserver.audit.log import LogBackend

    class Broken:
        def write(self, data: bytes) -> int:
            raise OSError(28, "No space left on device")

        def flush(self) -> None:
            pass

    called = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        called.append(True)

    sink = LogBackend(Broken(), "json", "audit.k8s.io/v1")  # blocking-strict: the log backend itself
    sent = run(with_audit(app, sink, evaluator(), is_long_running), "/api/v1/namespaces/ns/pods", b"limit=1")
    assert called == []
    assert sent[0]["status"] == 500
    assert (b"content-type", b"text/plain; charset=utf-8") in sent[0]["headers"]
    assert sent[1]["body"] == (
        b'Internal Server Error: "/api/v1/namespaces/ns/pods?limit=1": failed to store audit event\n'
    )
