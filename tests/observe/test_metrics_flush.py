"""Calls are counted in plain Python and flushed into the metrics (``metrics.request`` and
``metrics.flush``): what a scrape shows must be exactly what observing each call would have shown.
The flush adds a bucket's calls through prometheus-client's internals, so this test is also what
fails if those change."""

from __future__ import annotations

import math
import secrets

from prometheus_client import CollectorRegistry, Histogram

from lawspeaker.observe import (
    metrics,  # Below the first bucket, exactly on bounds, between them, past the last (+Inf), zero.
)

VALUES = [0.0, 0.00005, 0.0001, 0.00010001, 0.0004, 0.001, 0.0011, 0.3, 2.5, 9.99, 10.0, 10.01, 120.0]


def _samples(registry: CollectorRegistry, name: str, labels: dict[str, str]) -> dict[tuple[str, str], float]:
    out = {}
    for family in registry.collect():
        for sample in family.samples:
            if sample.name.startswith(name) and all(sample.labels.get(k) == v for k, v in labels.items()):
                out[(sample.name, sample.labels.get("le", ""))] = sample.value
    return out


def test_a_flush_shows_what_observing_each_call_would_have() -> None:
    transport = "test-" + secrets.token_hex(4)  # labels of this test's own
    labels = {"transport": transport, "service": "RulesService", "method": "ApplyMove", "game": "valhalla"}
    for value in VALUES:
        metrics.request(transport, "RulesService", "ApplyMove", "valhalla", "OK", value)
    metrics.request(transport, "RulesService", "ApplyMove", "valhalla", "INVALID_ARGUMENT", 0.002)
    metrics.request(transport, "SessionService", "WatchSession", "valhalla", "OK", None)  # a stream
    metrics.flush()

    expected_registry = CollectorRegistry()
    expected = Histogram("expected", "", buckets=metrics.LATENCY_BUCKETS, registry=expected_registry)
    for value in [*VALUES, 0.002]:
        expected.observe(value)

    got = _samples(metrics.REGISTRY, "lawspeaker_request_duration_seconds", labels)
    want = {
        (name.replace("expected", "lawspeaker_request_duration_seconds"), le): value
        for (name, le), value in _samples(expected_registry, "expected", {}).items()
        if not name.endswith("_created")
    }
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert math.isclose(got[key], value, rel_tol=1e-12), key

    counted = {
        (s.labels["service"], s.labels["method"], s.labels["code"]): s.value
        for family in metrics.REGISTRY.collect()
        for s in family.samples
        if s.name == "lawspeaker_requests_total" and s.labels.get("transport") == transport
    }
    assert counted == {
        ("RulesService", "ApplyMove", "OK"): len(VALUES),
        ("RulesService", "ApplyMove", "INVALID_ARGUMENT"): 1,
        ("SessionService", "WatchSession", "OK"): 1,  # counted, but a stream is not observed
    }


def test_a_flush_with_nothing_counted_changes_nothing_and_a_second_flush_adds_nothing() -> None:
    transport = "test-" + secrets.token_hex(4)
    metrics.request(transport, "RulesService", "NewGame", "penki", "OK", 0.0003)
    metrics.flush()
    before = _samples(metrics.REGISTRY, "lawspeaker_request", {"transport": transport})
    metrics.flush()
    assert _samples(metrics.REGISTRY, "lawspeaker_request", {"transport": transport}) == before
    assert before[("lawspeaker_requests_total", "")] == 1.0


def test_without_the_histogram_internals_each_call_is_observed_at_its_bucket_s_bound() -> None:
    """Should prometheus-client rename what the flush uses, the buckets stay exact (the sum becomes
    approximate) instead of the flush failing."""
    registry = CollectorRegistry()
    histogram = Histogram("fallback", "", buckets=metrics.LATENCY_BUCKETS, registry=registry)

    class Public:  # only the public API
        observe = staticmethod(histogram.observe)

    timing = [0.0] * (len(metrics.LATENCY_BUCKETS) + 2)
    for value in VALUES:
        timing[0] += value
        timing[1 + sum(1 for bound in metrics.LATENCY_BUCKETS if bound < value)] += 1
    metrics._add_observations(Public(), timing)

    expected_registry = CollectorRegistry()
    expected = Histogram("fallback", "", buckets=metrics.LATENCY_BUCKETS, registry=expected_registry)
    for value in VALUES:
        expected.observe(value)
    buckets = {k: v for k, v in _samples(registry, "fallback_bucket", {}).items()}
    assert buckets == _samples(expected_registry, "fallback_bucket", {})
    assert _samples(registry, "fallback_count", {}) == _samples(expected_registry, "fallback_count", {})
