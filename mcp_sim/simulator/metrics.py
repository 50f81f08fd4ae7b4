"""What one server has done so far: sessions, calls, latency, model requests and tokens, cache
hits and errors. Served as JSON at ``/control/metrics`` and as Prometheus text at ``/metrics``
(:mod:`mcp_sim.simulator.prometheus_text`).

Counting costs a few additions per call. Latencies are counted in histogram buckets over the
whole uptime (for Prometheus, which adds buckets up across workers); the JSON's percentiles
are worked out only when the metrics are read, from the last ``window`` latencies (a sliding
window, so they describe the present load, not the whole uptime). Session figures are read
from the :class:`SessionStore` at that moment.

Which errors are counted (``errors`` by kind, once per failed call): ``invalid_arguments``,
``unknown_tool``, ``no_model`` and the :class:`~mcp_sim.errors.ModelError` that ended the call
(``model_unavailable``, ``model_timeout``, ``model_output_invalid``, ``model_error``). Answers
in which the simulated tool itself fails are results, not errors, and are not counted here.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_sim.errors import ModelError
from mcp_sim.models.base import Completion
from mcp_sim.runtime.session import SessionStore

QUANTILES = (0.5, 0.9, 0.99)
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
"""Upper bounds, in seconds, of the latency histograms' buckets: from a pinned answer (a few
ms) to a slow model on a CPU (minutes); the last bucket, +Inf, holds the rest."""


def error_kind(error: ModelError) -> str:
    """``ModelUnavailable`` → ``model_unavailable``: the label a failed call is counted under."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(error).__name__).lower()


@dataclass
class Latencies:
    """Durations in seconds: count, sum and histogram buckets since the start, quantiles over
    the last few."""

    window: int
    recent: deque[float] = field(init=False)
    count: int = 0
    total: float = 0.0
    bounds: tuple[float, ...] = LATENCY_BUCKETS
    in_bucket: list[int] = field(init=False)
    """How many durations fell in each bucket: up to ``bounds[i]``, above the one before."""

    def __post_init__(self) -> None:
        self.recent = deque(maxlen=self.window)
        self.in_bucket = [0] * (len(self.bounds) + 1)

    def observe(self, seconds: float) -> None:
        self.count += 1
        self.total += seconds
        self.recent.append(seconds)
        self.in_bucket[bisect.bisect_left(self.bounds, seconds)] += 1

    def cumulative_buckets(self) -> list[tuple[float, int]]:
        """``(upper bound, durations up to it)`` for each bucket, the last one ``inf``."""
        return list(
            zip((*self.bounds, math.inf), itertools.accumulate(self.in_bucket), strict=True)
        )

    def quantiles(self) -> dict[float, float | None]:
        """Nearest-rank quantiles of the recent durations (None before the first one)."""
        ordered = sorted(self.recent)
        if not ordered:
            return dict.fromkeys(QUANTILES)
        return {q: ordered[max(0, math.ceil(q * len(ordered)) - 1)] for q in QUANTILES}

    def as_dict(self) -> dict[str, Any]:
        def ms(seconds: float | None) -> float | None:
            return None if seconds is None else round(seconds * 1000, 3)

        quantiles = self.quantiles()
        return {
            "count": self.count,
            "mean_ms": ms(self.total / self.count) if self.count else None,
            **{f"p{round(q * 100)}_ms": ms(v) for q, v in quantiles.items()},
            "window": len(self.recent),
        }


class Metrics:
    """The counters of one simulator (see the module docstring for what each one means)."""

    def __init__(self, window: int = 10_000, clock: Callable[[], float] = time.monotonic) -> None:
        if window < 1:
            raise ValueError(f"the latency window must hold at least 1 call, got {window}")
        self._clock = clock
        self.started_at = clock()
        self.calls: Counter[str] = Counter()
        """Answered calls by where the answer came from (the journal's ``source``)."""
        self.calls_by_tool: Counter[str] = Counter()
        self.call_latency = Latencies(window)
        """From the moment a call has its session to itself until its answer is ready."""
        self.errors: Counter[str] = Counter()
        self.model_requests = 0
        self.model_failures = 0
        self.model_latency = Latencies(window)
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cached_prompt_tokens = 0
        """Prompt tokens the endpoint served from its prefix cache, when it says (vLLM does with
        ``--enable-prompt-tokens-details``)."""
        self.cache_hits = 0
        self.cache_misses = 0
        """Lookups in mcp-sim's own answer cache: counted through :meth:`observe_cache`."""
        self.patches_rejected = 0
        self.violations = 0

    # --- counting ----------------------------------------------------------------------------

    def observe_call(
        self, tool: str, source: str, seconds: float, *, patch_status: str, violations: int
    ) -> None:
        self.calls[source] += 1
        self.calls_by_tool[tool] += 1
        self.call_latency.observe(seconds)
        if source == "validation":
            self.errors["invalid_arguments"] += 1
        if patch_status == "rejected":
            self.patches_rejected += 1
        self.violations += violations

    def observe_unknown_tool(self) -> None:
        self.errors["unknown_tool"] += 1

    def observe_failure(self, kind: str) -> None:
        """A call that could not be simulated, by :func:`error_kind` (or ``no_model``)."""
        self.errors[kind] += 1

    def observe_model_request(self, seconds: float, completion: Completion | None) -> None:
        """One request to the world model; ``completion`` is None when it failed."""
        self.model_requests += 1
        self.model_latency.observe(seconds)
        if completion is None:
            self.model_failures += 1
            return
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        self.cached_prompt_tokens += completion.cached_tokens

    def observe_cache(self, hit: bool) -> None:
        """One lookup in an answer cache: the hook for a cache in front of the world model."""
        if hit:
            self.cache_hits += 1
        else:
            self.cache_misses += 1

    # --- reading -----------------------------------------------------------------------------

    def report(self, sessions: SessionStore | Sequence[SessionStore]) -> dict[str, Any]:
        """Everything, as the JSON of ``/control/metrics``."""
        return {
            "uptime_seconds": round(self._clock() - self.started_at, 3),
            "sessions": session_figures(sessions),
            "calls": {
                "total": sum(self.calls.values()),
                "by_source": dict(sorted(self.calls.items())),
                "by_tool": dict(sorted(self.calls_by_tool.items())),
                "latency": self.call_latency.as_dict(),
            },
            "model": {
                "requests": self.model_requests,
                "failed": self.model_failures,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "cached_prompt_tokens": self.cached_prompt_tokens,
                "latency": self.model_latency.as_dict(),
            },
            "cache": {"hits": self.cache_hits, "misses": self.cache_misses},
            "errors": {
                "total": sum(self.errors.values()),
                "by_kind": dict(sorted(self.errors.items())),
            },
            "state": {"patches_rejected": self.patches_rejected, "violations": self.violations},
        }


def session_figures(sessions: SessionStore | Sequence[SessionStore]) -> dict[str, int]:
    """Session counts over one world's store, or summed over several worlds'."""
    stores = [sessions] if isinstance(sessions, SessionStore) else list(sessions)
    busy = queued = 0
    for store in stores:
        for session in store:
            if session.lock.locked():
                busy += 1
                queued += session.lock.statistics().tasks_waiting
    return {
        "live": sum(len(store) for store in stores),
        "started": sum(store.started for store in stores),
        "expired": sum(store.expired for store in stores),
        "busy": busy,
        "queued": queued,
    }
