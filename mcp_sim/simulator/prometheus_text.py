"""The metrics in Prometheus' text format, written by ``prometheus_client``: counters and
gauges, and latencies as histograms. A histogram's buckets are counts, so Prometheus adds them
up across the workers of one deployment (``sum by (le) (rate(..._bucket[5m]))``) and takes
quantiles of the sum; the quantiles of a summary, which each worker works out alone, cannot be
added."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from prometheus_client import CollectorRegistry, ProcessCollector, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

from mcp_sim.runtime.session import SessionStore
from mcp_sim.simulator.metrics import Latencies, Metrics, session_figures

CONTENT_TYPE = CONTENT_TYPE_LATEST


def prometheus_text(metrics: Metrics, sessions: SessionStore | Sequence[SessionStore]) -> bytes:
    """Every figure of ``metrics`` (sessions read from ``sessions`` now), and the process's
    own (resident memory, CPU seconds, open files), in the text exposition format."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Figures(metrics, sessions))
    ProcessCollector(registry=registry)
    return generate_latest(registry)


class _Figures(Collector):
    """The figures of one :class:`Metrics` as metric families, read at the moment of the
    scrape."""

    def __init__(self, metrics: Metrics, sessions: SessionStore | Sequence[SessionStore]) -> None:
        self.metrics = metrics
        self.sessions = sessions

    def collect(self) -> Iterable[Metric]:
        m = self.metrics
        figures = session_figures(self.sessions)
        yield _gauge("sessions", "Live sessions.", figures["live"])
        yield _counter("sessions_started", "Sessions started so far.", figures["started"])
        yield _counter("sessions_expired", "Sessions dropped for being idle.", figures["expired"])
        yield _gauge("calls_in_flight", "Calls being answered now.", figures["busy"])
        yield _gauge("calls_queued", "Calls waiting for their session's call.", figures["queued"])
        yield _counter_by(
            "calls", "Answered calls, by where the answer came from.", "source", m.calls
        )
        yield _counter_by("tool_calls", "Answered calls, by tool.", "tool", m.calls_by_tool)
        yield _histogram("call_latency_seconds", "Time to answer a call.", m.call_latency)
        yield _counter("model_requests", "Requests sent to the world model.", m.model_requests)
        yield _counter(
            "model_request_failures", "World model requests that failed.", m.model_failures
        )
        yield _histogram(
            "model_latency_seconds", "Time of one world model request.", m.model_latency
        )
        tokens = {
            "prompt": m.prompt_tokens,
            "completion": m.completion_tokens,
            "cached_prompt": m.cached_prompt_tokens,
        }
        yield _counter_by("model_tokens", "Tokens of the world model's requests.", "kind", tokens)
        yield _counter("cache_hits", "Answers served from the answer cache.", m.cache_hits)
        yield _counter("cache_misses", "Answer cache lookups that missed.", m.cache_misses)
        yield _counter_by("errors", "Calls that failed, by kind.", "kind", m.errors)
        yield _counter(
            "patches_rejected", "Write calls whose state change was refused.", m.patches_rejected
        )
        yield _counter(
            "consistency_violations",
            "Contradictions with the state left in answers.",
            m.violations,
        )


def _gauge(name: str, help_text: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(f"mcp_sim_{name}", help_text, value=value)


def _counter(name: str, help_text: str, value: float) -> CounterMetricFamily:
    # The family's name goes without _total: the client adds it to the sample.
    return CounterMetricFamily(f"mcp_sim_{name}", help_text, value=value)


def _counter_by(
    name: str, help_text: str, label: str, values: Mapping[str, int]
) -> CounterMetricFamily:
    family = CounterMetricFamily(f"mcp_sim_{name}", help_text, labels=[label])
    for key, value in sorted(values.items()):
        family.add_metric([key], value)
    return family


def _histogram(name: str, help_text: str, latencies: Latencies) -> HistogramMetricFamily:
    buckets = [(_bound(le), count) for le, count in latencies.cumulative_buckets()]
    return HistogramMetricFamily(
        f"mcp_sim_{name}", help_text, buckets=buckets, sum_value=latencies.total
    )


def _bound(le: float) -> str:
    return "+Inf" if le == float("inf") else repr(le)
