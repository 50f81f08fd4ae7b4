"""What one call of an episode gives back to a harness, and whether the episode is over."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcp_sim.journal import JournalRecord
from mcp_sim.scoring.checks import matches
from mcp_sim.simulator.context import CallResult
from mcp_sim.spec.episode_rules import EpisodeRules


@dataclass(frozen=True)
class ToolResult:
    """One tool call's answer: the observation as the agent sees it, and where it came from.

    ``text`` is the observation; ``structured`` the JSON object of a tool with an output schema
    (``None`` otherwise); ``content`` the MCP content blocks a client would receive. ``step``
    is the call's number in its episode (from 1), ``version`` the state version it was answered
    against, ``source`` where the answer came from (``model``, ``fixture``, ``validation``,
    ``model_error``, ``replay``, ``memory`` or ``perturbation``) and ``patch_status`` what a
    write did to the state. ``done`` says whether the world's ``episode`` rules end the episode
    with this call (always ``False`` in a world without them)."""

    tool: str
    text: str
    structured: Any
    is_error: bool
    content: tuple[dict[str, Any], ...]
    step: int
    version: int
    source: str
    patch_status: str
    done: bool

    @classmethod
    def of(cls, tool: str, result: CallResult, *, done: bool) -> ToolResult:
        blocks = result.content or [{"type": "text", "text": result.text}]
        return cls(
            tool=tool,
            text=result.text,
            structured=result.structured,
            is_error=result.is_error,
            content=tuple(blocks),
            step=result.step,
            version=result.version,
            source=result.source,
            patch_status=result.patch_status,
            done=done,
        )

    def as_dict(self) -> dict[str, Any]:
        """The result as JSON, with the same ``_meta`` keys the MCP front sends."""
        meta: dict[str, Any] = {
            "mcp-sim/source": self.source,
            "mcp-sim/step": self.step,
            "mcp-sim/version": self.version,
        }
        if self.patch_status != "none":
            meta["mcp-sim/patch"] = self.patch_status
        return {
            "content": list(self.content),
            "structured_content": self.structured if isinstance(self.structured, dict) else None,
            "is_error": self.is_error,
            "meta": meta,
        }


def episode_over(rules: EpisodeRules | None, steps: int, records: Sequence[JournalRecord]) -> bool:
    """Whether an episode that made ``steps`` calls, ``records`` among them, is over by
    ``rules``: past its step limit, or after a call that ends it."""
    if rules is None:
        return False
    if rules.max_steps is not None and steps >= rules.max_steps:
        return True
    return any(matches(record, pattern) for record in records for pattern in rules.done_when)
