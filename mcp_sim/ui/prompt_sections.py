"""A prompt as the designer reads it: the system message, the history, the call's own turn cut
into its sections (the state section marked), and whatever followed it (a repair, the request
for a patch, a regeneration)."""

from __future__ import annotations

import re
from typing import Any

from mcp_sim.models.base import ChatMessage
from mcp_sim.simulator.context import ModelExchange

_HEADING = re.compile(r"^\*\*[^*\n]+\*\*", re.MULTILINE)
STATE_HEADINGS = ("World State", "Records this call", "Collections", "State Changes")
"""Headings of the sections that show the model the state (see
:mod:`mcp_sim.prompting.native` and :mod:`mcp_sim.prompting.state_view`)."""


def sections(text: str) -> list[dict[str, Any]]:
    """``text`` cut at its ``**Heading**`` lines: ``{"heading", "text", "state"}`` each; the
    text before the first heading is a section with an empty heading."""
    cuts = [m.start() for m in _HEADING.finditer(text)]
    if not cuts or cuts[0] != 0:
        cuts.insert(0, 0)
    found = []
    for start, end in zip(cuts, [*cuts[1:], len(text)], strict=True):
        part = text[start:end].strip("\n")
        if not part:
            continue
        heading = m.group(0).strip("*") if (m := _HEADING.match(part)) else ""
        found.append(
            {"heading": heading, "text": part, "state": any(h in heading for h in STATE_HEADINGS)}
        )
    return found


def _shows_state(message: ChatMessage) -> bool:
    return message["role"] == "user" and any(s["state"] for s in sections(str(message["content"])))


def _turn_index(messages: list[ChatMessage]) -> int:
    """Where the call's own turn is: the last user message showing the state, else the first
    user message after the history (the messages before any follow-up)."""
    showing = [i for i, m in enumerate(messages) if _shows_state(m)]
    if showing:
        return showing[-1]
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    return users[-1] if users else len(messages) - 1


def exchange_view(exchange: ModelExchange) -> dict[str, Any]:
    """One model request as the page shows it."""
    messages = exchange.messages
    system = [m for m in messages[:1] if m["role"] == "system"]
    turn = _turn_index(messages)
    history = messages[len(system) : turn]
    return {
        "system": str(system[0]["content"]) if system else "",
        "history": [{"role": m["role"], "content": str(m["content"])} for m in history],
        "turn": sections(str(messages[turn]["content"])) if messages else [],
        "after": [{"role": m["role"], "content": str(m["content"])} for m in messages[turn + 1 :]],
        "answer": exchange.content,
        "reasoning": exchange.reasoning,
        "cached": exchange.cached,
        "purpose": exchange.purpose,
    }
