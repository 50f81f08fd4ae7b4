"""The shape of the answer a call asks the model for, worked out once per call (see
:attr:`mcp_sim.simulator.context.CallContext.shape`) and read by every step that asks or reads:
the prompt's closing instruction, the request's output constraint, unwrapping the answer, the
repair and regeneration requests, and the page store's questions.

There are three shapes: a JSON value that follows the tool's output schema (a structured tool),
free text inside ``<predicted_observation>`` tags (a write call's state patch may ride along in
its own tag), or, with output bounds for a small model, free text inside a one-field JSON
envelope (see :mod:`mcp_sim.prompting.bounds`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from mcp_sim.prompting.bounds import OutputBounds, bounded_schema, envelope_schema
from mcp_sim.spec.world import ToolSpec


@dataclass(frozen=True)
class AnswerShape:
    """What one call's answer must look like."""

    structured: bool
    """A JSON value that follows the tool's output schema."""
    envelope: bool
    """Free text inside the JSON envelope (a free-text tool of a world with output bounds)."""
    writes: bool
    """The call may change the state: it is offered fresh ids, and its change is asked for."""
    response_schema: dict[str, Any] | None
    """What the request constrains the model's output to: the tool's output schema (bounded
    when there are bounds), the envelope's, or nothing for tagged text."""
    error: bool = False
    """The answer is an injected error: the tool's error text, not its output schema, and it
    changes nothing (see :mod:`mcp_sim.perturb.injection`)."""
    bounds: OutputBounds | None = None
    """The output bounds of an envelope."""

    @classmethod
    def of(cls, tool: ToolSpec, bounds: OutputBounds | None, *, error: bool = False) -> AnswerShape:
        """The shape of a call of ``tool`` in a world with output ``bounds`` (``None``: none);
        ``error`` when a perturbation makes the answer an injected error."""
        writes = tool.effect == "write" and not error
        schema = None if error else tool.output_schema
        if schema is not None:
            bounded = schema if bounds is None else bounded_schema(schema, bounds)
            return cls(True, False, writes, bounded, error)
        if bounds is not None:
            # The grammar still rules the empty text out for the small models bounds are for:
            # they answer blank when lost (Gemma 270M does), and a repair is worth more than
            # an empty answer that a "think" tool alone would give. An empty envelope a model
            # writes anyway is taken (see may_be_empty).
            return cls(False, True, writes, envelope_schema(bounds), error, bounds)
        return cls(False, False, writes, None, error)

    @property
    def tagged(self) -> bool:
        """Free text in ``<predicted_observation>`` tags."""
        return not self.structured and not self.envelope

    @property
    def may_be_empty(self) -> bool:
        """Whether the empty text is an answer: it is for a free-text tool (a "think" tool's
        real answer is nothing), not for an injected error, which must say what went wrong.
        A structured answer is empty only as JSON its schema accepts (``{}``, ``[]``,
        ``null``); the empty text is not JSON."""
        return not self.structured and not self.error

    @property
    def ask_patch(self) -> bool:
        """Whether the state change is asked for with the answer, in ``<state_patch>`` tags;
        otherwise a write call's change is a follow-up request (see
        :mod:`mcp_sim.simulator.transition`)."""
        return self.writes and self.tagged

    def for_question(self, schema: dict[str, Any] | None) -> AnswerShape:
        """The shape of a page store's question about the call (see :mod:`mcp_sim.web.pages`):
        JSON following the question's own ``schema`` when it has one, else the call's free
        text (tagged for a structured tool, whose schema is not the question's)."""
        if schema is not None:
            return replace(self, structured=True, envelope=False, response_schema=schema)
        if self.bounds is not None and self.envelope:
            # A page is never empty: the grammar keeps the envelope's text from being so.
            return replace(self, structured=False, response_schema=envelope_schema(self.bounds))
        return replace(self, structured=False, response_schema=None)
