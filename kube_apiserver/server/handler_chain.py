"""The handler chain, built in one function as DefaultBuildHandlerChain builds it.

Outermost first: panic recovery → audit init (Audit-Id) → request info → timeout → CORS → authentication
→ audit → impersonation → priority and fairness (or max in flight) → authorization → APIServerHandler (the
director of the first server). As in kube, the in-flight limits come after authentication: priority and
fairness classifies requests by their (impersonated) user.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from kube_apiserver.audit.backend import Backend
from kube_apiserver.audit.policy import PolicyRuleEvaluator
from kube_apiserver.authentication.request import RequestAuthenticator
from kube_apiserver.authorization.authorizer import Authorizer
from kube_apiserver.endpoints import negotiation
from kube_apiserver.endpoints.filters.audit import with_audit, with_audit_init, with_failed_authentication_audit
from kube_apiserver.endpoints.filters.authentication import with_authentication
from kube_apiserver.endpoints.filters.authorization import with_authorization
from kube_apiserver.endpoints.filters.impersonation import with_impersonation
from kube_apiserver.endpoints.filters.pretty import with_pretty_print
from kube_apiserver.endpoints.filters.request_info import with_request_info
from kube_apiserver.endpoints.request import Request, send_status_error
from kube_apiserver.endpoints.request_info import RequestInfo
from kube_apiserver.runtime.errors import StatusError
from kube_apiserver.server.filters.cors import with_cors
from kube_apiserver.server.filters.maxinflight import is_long_running, with_max_in_flight
from kube_apiserver.server.filters.priority_and_fairness import with_priority_and_fairness
from kube_apiserver.server.filters.recovery import response_state, with_panic_recovery
from kube_apiserver.server.filters.timeout import with_timeout
from kube_apiserver.server.flowcontrol.apf_filter import PriorityAndFairness
from kube_apiserver.server.genericapiserver import GenericAPIServer
from kube_apiserver.server.metrics import REQUESTS, reported_verb, request_labels

ASGIApp = Any


@dataclass
class ChainConfig:
    authenticator: RequestAuthenticator
    authorizer: Authorizer
    max_requests_inflight: int = 400
    max_mutating_requests_inflight: int = 200
    # --enable-priority-and-fairness: the APF state that replaces the max-in-flight filter
    flow_control: PriorityAndFairness | None = None
    request_timeout: float = 60.0
    cors_allowed_origins: list[str] = field(default_factory=list)
    # --audit-policy-file and the audit backends; None: nothing is audited (every response has an Audit-Id)
    audit_policy: PolicyRuleEvaluator | None = None
    audit_backend: Backend | None = None


def api_server_handler(root: GenericAPIServer) -> ASGIApp:
    """The end of the chain: the director, with request metrics as kube's route instrumentation."""

    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        req: Request = scope["k8s.request"]
        info = scope["k8s.request_info"]
        state = response_state(scope)
        start = time.perf_counter()
        try:
            await root.handle(req, info)
        except StatusError as e:
            if not state.started:
                await send_status_error(req.send, e, yaml=_negotiates_yaml(req, info))
        finally:
            code = str(state.status or 500)
            if info.is_resource_request:
                REQUESTS.observe(request_labels(req, info), code, time.perf_counter() - start)
            elif req.path in _INSTRUMENTED_HEALTH_PATHS:
                # the health endpoints' root handlers are instrumented with the path as the subresource
                labels = (reported_verb(req, info, ""), "", "", "", "", req.path, "", "")
                REQUESTS.observe(labels, code, time.perf_counter() - start)

    return handler


def _negotiates_yaml(req: Request, info: RequestInfo) -> bool:
    """ErrorNegotiated: an API request's error is written in the media type its Accept negotiates, YAML when
    it asks for YAML (a YAML Table too); JSON when its Accept names nothing that can be written."""
    if not info.is_resource_request:
        return False
    try:
        return negotiation.negotiate(req.header("accept"), table=True, pom=True).content_type == negotiation.YAML
    except StatusError:
        return False


_INSTRUMENTED_HEALTH_PATHS = frozenset({"/healthz", "/livez", "/readyz"})


def build_handler_chain(root: GenericAPIServer, config: ChainConfig) -> ASGIApp:
    handler = api_server_handler(root)
    handler = with_authorization(handler, config.authorizer)
    if config.flow_control is not None:
        handler = with_priority_and_fairness(handler, config.flow_control, config.request_timeout)
    else:
        handler = with_max_in_flight(handler, config.max_requests_inflight, config.max_mutating_requests_inflight)
    handler = with_impersonation(handler, config.authorizer)
    handler = with_audit(handler, config.audit_backend, config.audit_policy, is_long_running)
    handler = with_authentication(handler, config.authenticator)
    handler = with_failed_authentication_audit(handler, config.audit_backend, config.audit_policy)
    handler = with_cors(handler, config.cors_allowed_origins)
    handler = with_timeout(handler, config.request_timeout)
    handler = with_request_info(handler)
    handler = with_audit_init(handler)
    handler = with_panic_recovery(handler)
    return with_pretty_print(handler)  # (outermost: errors of every filter are indented too)
