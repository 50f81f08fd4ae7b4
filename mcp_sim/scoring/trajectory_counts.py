"""Whether every call of a trajectory was simulated, and what the world model spent on it: the
two things besides its checks that a verdict carries, so that a trainer can mask a rollout an
outage answered and a launcher can see what an episode cost.

A call the world model could not answer (it failed, or was not there) is still a call the agent
made, with "could not simulate ..." as its answer: its verdict scores an outage, not the agent,
and is marked invalid. A fault the server injected (a perturbation plan) is the operator's
choice and leaves the verdict valid.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mcp_sim.journal import JournalRecord

TIMEOUT_FAILURES = frozenset({"model_timeout"})
"""The journal's ``failure`` kinds that are the world model not answering in time."""


@dataclass(frozen=True)
class SimulationCounts:
    """How the calls of a trajectory were answered. ``model_errors`` and ``timeouts`` are
    disjoint: together they are the calls that were not simulated."""

    calls: int = 0
    model_errors: int = 0
    """Calls the world model failed to answer, other than by timing out (or no model)."""
    timeouts: int = 0
    """Calls whose model request timed out."""
    injected_faults: int = 0
    """Calls a perturbation plan bent or failed on purpose."""

    @property
    def simulated(self) -> bool:
        """Whether every call was answered: no model error and no timeout."""
        return self.model_errors == 0 and self.timeouts == 0

    def as_dict(self) -> dict[str, int]:
        return {
            "calls": self.calls,
            "model_errors": self.model_errors,
            "timeouts": self.timeouts,
            "injected_faults": self.injected_faults,
        }

    @classmethod
    def of(cls, records: Iterable[JournalRecord]) -> SimulationCounts:
        calls = errors = timeouts = faults = 0
        for record in records:
            calls += 1
            if record.source == "model_error":
                if record.failure in TIMEOUT_FAILURES:
                    timeouts += 1
                else:
                    errors += 1
            if record.perturbations:
                faults += 1
        return cls(calls, errors, timeouts, faults)


@dataclass(frozen=True)
class ModelUsage:
    """What the world model spent on a trajectory: tokens (from its calls' journal records)
    and seconds waited on it (``None`` when not measured: a journal written without
    ``--journal-timing``)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_seconds: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "model_seconds": self.model_seconds,
        }

    @classmethod
    def of(
        cls, records: Iterable[JournalRecord], *, model_seconds: float | None = None
    ) -> ModelUsage:
        """The usage of ``records``; ``model_seconds`` when the caller measured it (a live
        episode), else summed from the records' ``model_ms`` where they have it."""
        prompt = completion = 0
        timed: float | None = None
        for record in records:
            prompt += record.prompt_tokens
            completion += record.completion_tokens
            if record.model_ms is not None:
                timed = (timed or 0.0) + record.model_ms / 1000
        seconds = model_seconds if model_seconds is not None else timed
        return cls(prompt, completion, None if seconds is None else round(seconds, 6))


@dataclass(frozen=True)
class TrajectoryUsage:
    """An episode's calls as counted so far: whether they were all simulated, and their cost
    (what ``GET /episodes/{id}`` and :meth:`mcp_sim.api.Episode.usage` report, before any
    verdict)."""

    simulation: SimulationCounts
    model: ModelUsage

    @property
    def valid(self) -> bool:
        return self.simulation.simulated

    def as_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "simulation": self.simulation.as_dict(),
            "usage": self.model.as_dict(),
        }

    @classmethod
    def of(
        cls, records: Iterable[JournalRecord], *, model_seconds: float | None = None
    ) -> TrajectoryUsage:
        kept = list(records)
        return cls(SimulationCounts.of(kept), ModelUsage.of(kept, model_seconds=model_seconds))
