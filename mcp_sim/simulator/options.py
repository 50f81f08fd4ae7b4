"""How a simulator is configured: sampling given on the command line, and how it keeps state
and prompts. Plain values, checked when built; the pipeline reads them and never changes them."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from mcp_sim.models.base import Sampling
from mcp_sim.prompting.bounds import OutputBounds
from mcp_sim.spec.world import World


@dataclass(frozen=True)
class SamplingOverrides:
    """Sampling values given on the command line; ``None`` leaves the world's or the default."""

    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    max_tokens: int | None = None
    thinking: bool | None = None
    seed: int | None = None


def resolve_sampling(
    world: World, overrides: SamplingOverrides, defaults: Sampling | None = None
) -> Sampling:
    """Command line beats the world's ``model:`` section, which beats ``defaults`` (the
    model-card defaults unless the backend needs others, e.g. the tiny embedded model)."""
    values: dict[str, Any] = {}
    for name in ("temperature", "top_p", "top_k", "max_tokens", "thinking"):
        chosen = getattr(overrides, name)
        if chosen is None:
            chosen = getattr(world.model, name)
        if chosen is not None:
            values[name] = chosen
    if overrides.seed is not None:
        values["seed"] = overrides.seed
    return replace(defaults or Sampling(), **values)


@dataclass(frozen=True)
class SimOptions:
    """How the simulator keeps state and prompts (command-line flags)."""

    journal_timing: bool = False
    """Record wall-clock latency in the journal (it makes replayed journals differ)."""
    history_budget_tokens: int = 16_000
    """When the shown history outgrows this, it is compacted to the last ``keep_turns``."""
    keep_turns: int = 8
    history_keep_share: float = 0.5
    """A compaction keeps at most this share of the history budget (less the room for the
    turn that shows the state again), so the history then grows append-only for many calls
    before the next one (see :mod:`mcp_sim.simulator.compaction`)."""
    state_budget_tokens: int = 8_000
    """A state larger than this is shown as a view (see :mod:`mcp_sim.prompting.state_view`)."""
    turn_budget_tokens: int = 1_500
    """A later turn's state section of a large state: the changes and the records it needs."""
    context_tokens: int | None = None
    """The model's context window, when known: the prompt leaves room in it for the answer's
    max tokens (see :mod:`mcp_sim.simulator.prompt_budget`)."""
    reference_turns: int = 3
    """How many recent turns, besides the call itself, pick the records a view shows."""
    model_seeds: bool = True
    """Send each model request a sampling seed drawn from the session's RNG, so a seeded
    session replays exactly on a deterministic backend. vLLM's CPU build crashes on seeded
    requests longer than one prefill chunk, so the embedded model runs without them."""
    bounds: OutputBounds | None = None
    """Size limits on what the model may write, for small models (see :mod:`mcp_sim.prompting.bounds`)."""

    def __post_init__(self) -> None:
        budgets = (self.history_budget_tokens, self.state_budget_tokens, self.turn_budget_tokens)
        if self.keep_turns < 1 or min(budgets) < 1:
            raise ValueError("keep_turns and the token budgets must be at least 1")
        if not 0 <= self.history_keep_share <= 1:
            raise ValueError("history_keep_share must be between 0 and 1")
