"""How many tokens each part of a prompt may take, so that no prompt exceeds the model's window.

A prompt is the system part (the world and its tools: fixed per world), the history, the
current turn (its state section and action) and a closing instruction. Each dynamic part has
a budget (:class:`~mcp_sim.settings.prompt.PromptSettings`): the anchor turn's state section (the whole state or its view, in
the history or in the current turn) the state budget, a later turn's section the turn budget,
and the rest of the history the history budget, so the anchor never crowds the history out
(that forced a compaction every few calls, each recomputing the whole prompt). When the model's context window is known
(vLLM reports ``max_model_len`` in ``/v1/models``; ``--context-window`` sets it otherwise), the
prompt must also leave room for the answer's ``max_tokens``: then the parts' budgets shrink
in proportion until system + parts + closing fit. The view and the compaction keep to the
budgets they are given (see :mod:`mcp_sim.prompting.state_view`), so the sum is a hard bound.
"""

from __future__ import annotations

from dataclasses import dataclass

CLOSING_TOKENS = 1_200
"""Room for what closes a call and is not kept in the history: the answer instruction, a
perturbation's instruction, a repair request and a page store's sections."""
MIN_PART_TOKENS = 200


@dataclass(frozen=True)
class PromptBudget:
    state_tokens: int
    """The anchor turn's state section."""
    turn_tokens: int
    """A later turn's state section (changes and the records the call needs)."""
    history_tokens: int
    """The earlier turns shown, together, less the state section of the newest anchor turn
    among them, which the state budget bounds (compaction keeps to it)."""
    total_tokens: int | None = None
    """The whole prompt, when the model's window is known."""
    action_tokens: int = 0
    """The current call's action: a call whose arguments take more is refused before it is
    shown (:mod:`mcp_sim.simulator.answer_sources`). Earlier calls' actions are the history's."""

    @property
    def bound(self) -> int:
        """Tokens no prompt's dynamic parts exceed: the anchor turn's state section (in the
        history or now), a later turn's section, the rest of the history, the current action
        and the closing part."""
        return (
            self.state_tokens
            + self.turn_tokens
            + self.history_tokens
            + self.action_tokens
            + CLOSING_TOKENS
        )


def fit_budget(
    state_tokens: int,
    turn_tokens: int,
    history_tokens: int,
    *,
    system_tokens: int,
    context_tokens: int | None,
    max_tokens: int,
    action_tokens: int = 0,
) -> PromptBudget:
    """The budgets to use: as given, or shrunk in proportion so that the system part, the
    parts, the largest action and the answer's ``max_tokens`` fit ``context_tokens``. Raises
    ``ValueError`` when not even the smallest parts fit (a window too small for this world's
    tools)."""
    if context_tokens is None:
        return PromptBudget(state_tokens, turn_tokens, history_tokens, None, action_tokens)
    # The largest call shrinks with the other parts: a fixed one would leave a small window
    # no room at all.
    room = context_tokens - max_tokens - system_tokens - CLOSING_TOKENS
    wanted = state_tokens + turn_tokens + history_tokens + action_tokens
    total = context_tokens - max_tokens
    if room >= wanted:
        return PromptBudget(state_tokens, turn_tokens, history_tokens, total, action_tokens)
    if room < 2 * MIN_PART_TOKENS:
        raise ValueError(
            f"a context window of {context_tokens} tokens leaves no room for the world: its "
            f"tools and description take about {system_tokens} tokens and the answer "
            f"{max_tokens}; lower --max-tokens or serve the model with a longer context"
        )
    scale = room / wanted
    return PromptBudget(
        max(MIN_PART_TOKENS, int(state_tokens * scale)),
        max(MIN_PART_TOKENS, int(turn_tokens * scale)),
        max(MIN_PART_TOKENS, int(history_tokens * scale)),
        total,
        max(MIN_PART_TOKENS, int(action_tokens * scale)) if action_tokens else 0,
    )
