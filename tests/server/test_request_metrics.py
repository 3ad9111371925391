"""apiserver_request_total and apiserver_request_duration_seconds in the Prometheus text format."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from kube_apiserver.server.metrics import RequestMetrics

NAMES = ("verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component")
POST = ("POST", "", "", "v1", "configmaps", "", "namespace", "apiserver")
WATCH = ("WATCH", "", "", "v1", "configmaps", "", "namespace", "apiserver")


def _samples(metrics: RequestMetrics) -> tuple[str, dict[tuple[str, frozenset[tuple[str, str]]], float]]:
    registry = CollectorRegistry()
    registry.register(metrics)  # type: ignore[arg-type]
    text = generate_latest(registry).decode()
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return text, out


def _key(name: str, labels: tuple[str, ...], **extra: str) -> tuple[str, frozenset[tuple[str, str]]]:
    return name, frozenset({**dict(zip(NAMES, labels, strict=True)), **extra}.items())


def test_requests_are_counted_by_code_and_timed_in_cumulative_buckets():
    m = RequestMetrics()
    m.observe(POST, "201", 0.001)
    m.observe(POST, "201", 0.005)  # on a bound: counted in it (le)
    m.observe(POST, "409", 0.03)
    m.observe(POST, "201", 100.0)  # past the last bound: only in +Inf
    m.observe(WATCH, "200", None)  # counted, not timed
    text, samples = _samples(m)
    assert "# TYPE apiserver_request_total counter" in text
    assert "# TYPE apiserver_request_duration_seconds histogram" in text
    assert samples[_key("apiserver_request_total", POST, code="201")] == 3
    assert samples[_key("apiserver_request_total", POST, code="409")] == 1
    assert samples[_key("apiserver_request_total", WATCH, code="200")] == 1
    bucket = "apiserver_request_duration_seconds_bucket"
    assert samples[_key(bucket, POST, le="0.005")] == 2
    assert samples[_key(bucket, POST, le="0.025")] == 2
    assert samples[_key(bucket, POST, le="0.05")] == 3
    assert samples[_key(bucket, POST, le="60.0")] == 3
    assert samples[_key(bucket, POST, le="+Inf")] == 4
    assert samples[_key("apiserver_request_duration_seconds_count", POST)] == 4
    assert abs(samples[_key("apiserver_request_duration_seconds_sum", POST)] - 100.036) < 1e-9
    assert not any(name.startswith("apiserver_request_duration") and ("verb", "WATCH") in lb for name, lb in samples)
