"""How the simulator keeps state and shows it, with the history, to the model: the budgets
that keep every prompt within the model's context window."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from mcp_sim.prompting.bounds import OutputBounds
from mcp_sim.settings.declare import Flag, declared
from mcp_sim.settings.model import FROZEN


class PromptSettings(BaseModel):
    """Budgets and shapes of what the model is shown. A field left unset takes its
    ``embedded`` default when the embedded tiny model answers (:meth:`for_model`): its
    context window is 8192 tokens and it does not think."""

    model_config = FROZEN

    history_budget: Annotated[
        int,
        Field(ge=1),
        Flag(
            "TOKENS",
            "compact the history shown to the model beyond this many tokens",
            embedded=3000,
        ),
    ] = 16_000
    keep_turns: Annotated[
        int, Field(ge=1), Flag("N", "turns kept when the history is compacted")
    ] = 8
    history_keep_share: Annotated[
        float,
        Field(ge=0, le=1),
        Flag(
            "SHARE",
            "a compaction cuts the history down to this share of its budget, so that it then "
            "grows append-only (a prefix cache reuses it) for many calls before the next cut",
        ),
    ] = 0.5
    state_budget: Annotated[
        int,
        Field(ge=1),
        Flag(
            "TOKENS",
            "show a larger state as the records the call needs plus an outline",
            embedded=2000,
        ),
    ] = 8_000
    turn_budget: Annotated[
        int,
        Field(ge=1),
        Flag(
            "TOKENS",
            "a later turn's share of a large state: its changes and the records it needs",
            embedded=1000,
        ),
    ] = 2_000
    action_budget: Annotated[
        int,
        Field(ge=1),
        Flag(
            "TOKENS",
            "the largest call the model is shown: a call whose arguments take more is refused "
            "as invalid input, for the model could neither read it within the prompt's bound "
            "nor write it into the state",
            embedded=600,
        ),
    ] = 4_000
    context_window: Annotated[
        int | None,
        Field(ge=1),
        Flag(
            "TOKENS",
            "the model's context window: prompts leave room in it for --max-tokens (default: "
            "what the server reports as max_model_len in /v1/models, else no limit beyond the "
            "budgets)",
            embedded=8192,
        ),
    ] = None
    reference_turns: Annotated[
        int,
        Field(ge=0),
        Flag("N", "how many recent turns, besides the call itself, pick the records a view shows"),
    ] = 3
    model_seeds: Annotated[
        bool,
        Flag(
            None,
            "send each model request a sampling seed derived from its session's seed (vLLM's "
            "CPU build crashes on seeded requests longer than one prefill chunk)",
            embedded=False,
            negatable=True,
        ),
    ] = True
    warm_tables: Annotated[
        bool,
        Flag(
            None,
            "build a large world's lookup tables in the background once its index is built, so "
            "that its first calls find them ready (some 2-3 times the index's memory)",
            negatable=True,
        ),
    ] = True
    bounded_output: Annotated[
        bool,
        Flag(
            None,
            "bound the size of strings and arrays the model may write and wrap text "
            "observations in JSON, for small models",
            embedded=True,
            negatable=True,
        ),
    ] = False

    output_string_limit: Annotated[
        int,
        Field(ge=1),
        Flag("CHARS", "with --bounded-output: the longest string the model may write"),
    ] = 400
    output_items_limit: Annotated[
        int,
        Field(ge=1),
        Flag("N", "with --bounded-output: the longest array the model may write"),
    ] = 8

    @property
    def bounds(self) -> OutputBounds | None:
        """Size limits on what the model may write (see :mod:`mcp_sim.prompting.bounds`)."""
        if not self.bounded_output:
            return None
        return OutputBounds(self.output_string_limit, self.output_items_limit)

    def for_model(self, *, embedded: bool) -> PromptSettings:
        """These settings with the embedded model's defaults where none was given."""
        if not embedded:
            return self
        chosen: dict[str, Any] = {
            d.name: d.flag.embedded
            for d in declared(PromptSettings)
            if d.flag.has_embedded_default and d.name not in self.model_fields_set
        }
        return self.model_copy(update=chosen)
