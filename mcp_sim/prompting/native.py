"""Renders a call into chat messages in the world model's native format, and extracts the
observation from its answer.

Layout (Qwen-AgentWorld's training format; see DESIGN.md):

- ``system``: role and conventions for the world's domain (for search, the search world model's
  input definitions, content priority and output formats), the world's description, its canon
  as the Simulation Instruction (see :mod:`mcp_sim.prompting.canon`), then the tool definitions
  (``### N. name`` / ``#### **Description**:`` / ``#### **Parameters**:``). It depends on the
  world only, so it is byte-identical for every call of every session of a world, and vLLM's
  prefix cache reuses it.
- each call is a ``user`` turn: ``### Turn N``, the turn's sections, then ``**Action:**`` and the
  call as fenced JSON (the native skeleton; the terminal and GUI domains put a ``**Current
  State:**`` section there too). Its answer is an ``assistant`` turn,
  ``**Environment Observation:**`` + the raw observation.
- the turn's sections say what changed since the model last saw the state, so the model always
  knows the current state while every earlier turn stays byte-identical: the *anchor* turn
  carries the whole current state (or a view of a large one, see :mod:`mcp_sim.prompting.state_view`), each
  later turn the state changes committed since the turn before (a JSON Patch) and the records
  its arguments refer to, with their JSON pointers. Then the virtual time and fresh ids, when
  the world has them.
- the current turn ends, after the action, with what belongs to it alone and is not kept when
  it becomes history: a perturbation's ``# Simulation Instruction for This Call`` (see
  :mod:`mcp_sim.perturb.injection`), sections about this call (the page store's known pages, a Target
  Query), and the instruction to answer inside ``<predicted_observation>`` tags (for a write
  call, followed by the state change inside ``<state_patch>`` tags; see :mod:`mcp_sim.runtime.state`).

So the prompt of a call is the previous call's prompt without that closing part, plus the
previous observation and the new turn: vLLM's prefix cache reuses all the rest. Re-rendering the
whole state into every call instead (tried first) left some 2,400 characters a call unshared on
the shop world, and a large world's view (up to the state budget) on every call.

Compaction (rare, in large cuts: see :mod:`mcp_sim.simulator.compaction`) keeps the anchor turn
when it can and folds the turns after it away: the first turn after them says so and shows
their changes, so the prefix up to the anchor stays cached. Otherwise it drops the oldest turns,
numbering the rest as before, and the turn after it anchors the state again. Follow-up requests (a patch, a corrected patch, a
regenerated answer) append to the messages of the call, so they share its whole prefix.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_sim.models.base import ChatMessage
from mcp_sim.prompting.answer_shape import AnswerShape
from mcp_sim.prompting.canon import render_canon
from mcp_sim.prompting.search_formats import search_conventions
from mcp_sim.prompting.shown_changes import bounded_changes, op_line
from mcp_sim.prompting.wording import (
    CONVENTIONS,
    ENVELOPE_INSTRUCTION,
    PATCH_INSTRUCTION,
    ROLES,
    STATE_CHANGES,
    STRUCTURED_INSTRUCTION,
    TURN_INSTRUCTION,
)
from mcp_sim.spec.world import ToolSpec, World

OBSERVATION_MARKER = "**Environment Observation:**"
SIMULATION_INSTRUCTION_HEADING = "# Simulation Instruction for This Call"
"""Distinct from the world's standing ``# Simulation Instruction`` (its canon, in the system
prompt): this one bends one call and never enters the history."""


@dataclass(frozen=True)
class TurnContext:
    """The dynamic extras of the current call, all after the static prefix."""

    state_view: str | None = None
    """The turn's state section (the whole state, a view, or the changes since the previous
    turn); ``None`` renders the whole state, ``""`` shows none."""
    now: str | None = None
    """The virtual time of the call."""
    fresh_ids: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """Unused ids per entity, offered for records the call creates."""
    first_turn: int = 1
    """The number of the first history turn shown (greater than 1 after compaction)."""
    sections: Sequence[str] = ()
    """Further headed sections about this call (the page store's known pages, a Target Query
    with its Reference Answer), after the action; they do not stay in the history."""
    head: str | None = None
    """The turn as it stays in the history (:func:`render_action` with its preamble), when the
    caller has rendered it already; otherwise it is rendered from the fields above."""


@dataclass(frozen=True)
class PastCall:
    """One earlier call of the session as the model sees it."""

    tool: str
    arguments: dict[str, Any]
    observation: str
    action: str | None = None
    """The action's JSON as :func:`action_json` renders it, when already known."""
    head: str | None = None
    """The turn exactly as the model was shown it (without the closing part that belonged to
    the call alone); ``None`` shows the bare action."""
    number: int | None = None
    """The turn's number, when the turns shown skip some (folded behind the anchor)."""


def _json_type(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        return "|".join(str(k) for k in kind)
    if kind:
        return str(kind)
    if "enum" in schema:
        return "enum"
    for combinator in ("anyOf", "oneOf"):
        if combinator in schema:
            return "|".join(_json_type(s) for s in schema[combinator] if isinstance(s, dict))
    return "any"


def _describe_parameter(schema: dict[str, Any]) -> str:
    text = str(schema.get("description", "")).strip()
    if "enum" in schema:
        choices = ", ".join(json.dumps(v) for v in schema["enum"])
        text = f"{text} (one of: {choices})" if text else f"One of: {choices}"
    return text


def render_tool(number: int, tool: ToolSpec) -> str:
    schema = tool.input_schema
    properties: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    lines = [
        f"### {number}. {tool.name}",
        "#### **Description**:",
        tool.description.strip(),
        "",
        "#### **Parameters**:",
    ]
    for name, prop in properties.items():
        prop = prop if isinstance(prop, dict) else {}
        flag = "REQUIRED" if name in required else "Optional"
        lines.append(f"- **{name}** `{_json_type(prop)}` ({flag}): {_describe_parameter(prop)}")
    if not properties:
        lines.append("- (no parameters)")
    lines += ["", f"#### **Effect**: {tool.effect}"]
    if tool.errors:
        lines += ["", "#### **Declared errors**:"] + [f"- {e}" for e in tool.errors]
    if tool.output_schema is not None:
        lines += [
            "",
            "#### **Output Schema**:",
            "```json",
            json.dumps(tool.output_schema, ensure_ascii=False, sort_keys=True),
            "```",
        ]
    return "\n".join(lines)


def render_system(world: World) -> str:
    """The static part of every prompt for ``world``: identical for every call and session."""
    conventions = CONVENTIONS
    if world.domain == "search":
        web = world.web()
        conventions = search_conventions(web.results_per_query if web else 10)
    parts = ["# Role and Objective", "", ROLES[world.domain], "", conventions, "", "# World", ""]
    parts.append(f"**{world.title}**")
    if world.description.strip():
        parts += ["", world.description.strip()]
    instruction = render_canon(world)
    if instruction is not None:
        parts += ["", instruction]
    if any(t.effect == "write" for t in world.tools):
        parts += ["", STATE_CHANGES]
    parts += [
        "",
        "# Input Definitions & Action Space",
        "",
        "You can simulate the following tools:",
        "",
        "\n\n".join(render_tool(i, t) for i, t in enumerate(world.tools, 1)),
    ]
    return "\n".join(parts)


def action_json(tool: str, arguments: dict[str, Any]) -> str:
    """The JSON of a call's action block. Every later prompt of the session shows it again, and
    indented JSON is encoded in pure Python (several times slower than compact JSON), so a
    session's turns keep theirs once rendered."""
    return json.dumps({"name": tool, "arguments": arguments}, ensure_ascii=False, indent=2)


def render_action(
    turn: int,
    tool: str,
    arguments: dict[str, Any],
    rendered: str | None = None,
    preamble: str = "",
) -> str:
    """Turn ``turn`` up to the end of its action block: ``preamble`` holds the turn's sections
    (state, time, fresh ids); ``rendered`` is the action's :func:`action_json`, if known."""
    action = rendered if rendered is not None else action_json(tool, arguments)
    sections = f"{preamble}\n\n" if preamble else ""
    return f"### Turn {turn}\n{sections}**Action:**\n```json\n{action}\n```"


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate: about 3 characters per token for JSON-heavy prompt text, a
    deliberate overestimate (English prose runs nearer 4), so a budget is not overshot."""
    return len(text) // 3 + 1


_INLINE_CHARS = 100
"""Containers up to this size (and everything below the second level) stay on one line."""


def _layout(value: Any, depth: int = 0) -> str:
    """JSON that opens the top two levels one item per line (one record per line in a
    collection) and keeps the rest compact: as readable as indented JSON at about two thirds of
    the characters, which every call pays for."""
    flat = json.dumps(value, ensure_ascii=False, sort_keys=True)
    if not isinstance(value, dict | list) or not value or depth >= 2 or len(flat) <= _INLINE_CHARS:
        return flat
    pad = " " * (depth + 1)
    if isinstance(value, dict):
        items = [
            f"{pad}{json.dumps(k, ensure_ascii=False)}: {_layout(v, depth + 1)}"
            for k, v in sorted(value.items())
        ]
        return "{\n" + ",\n".join(items) + "\n" + " " * depth + "}"
    items = [f"{pad}{_layout(v, depth + 1)}" for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * depth + "]"


def render_changes(patch: Sequence[dict[str, Any]], room: int | None = None) -> str:
    """The state changes committed since the previous turn, as one JSON Patch; within
    ``room`` characters when given (see :func:`~mcp_sim.prompting.shown_changes.bounded_changes`)."""
    if room is None:
        lines, left_out = [op_line(op) for op in patch], ""
    else:
        lines, left_out = bounded_changes(patch, room)
    operations = ",\n".join(lines)
    section = (
        "**State Changes** (committed since the previous turn, as a JSON Patch on the world "
        f"state):\n```json\n[\n{operations}\n]\n```"
    )
    return f"{section}\n{left_out}" if left_out else section


def render_preamble(state: dict[str, Any], context: TurnContext) -> str:
    """The sections of the current turn before its action."""
    state_section = context.state_view if context.state_view is not None else render_state(state)
    extras = render_context(context.now, context.fresh_ids)
    return "\n\n".join(part for part in (state_section, extras) if part)


def render_state(state: dict[str, Any]) -> str:
    """The state section of the current call: the whole state, laid out by :func:`_layout`."""
    return f"**Current World State:**\n```json\n{_layout(state)}\n```"


def render_context(now: str | None, fresh_ids: Mapping[str, Sequence[str]]) -> str:
    lines = []
    if now is not None:
        lines.append(f"**Current Time:** {now}")
    offered = [f"{name}: {', '.join(ids)}" for name, ids in fresh_ids.items() if ids]
    if offered:
        lines.append(
            "**Fresh Identifiers:** a record this call creates takes the next unused id of its "
            "kind, in this order: " + "; ".join(offered)
        )
    return "\n".join(lines)


def render_instruction(text: str) -> str:
    return (
        f"{SIMULATION_INSTRUCTION_HEADING}\n\n"
        f"This instruction applies to the current call only.\n\n{text.strip()}"
    )


def build_messages(
    world: World,
    history: Sequence[PastCall],
    tool: ToolSpec,
    arguments: dict[str, Any],
    state: dict[str, Any],
    *,
    shape: AnswerShape,
    context: TurnContext | None = None,
    simulation_instruction: str | None = None,
) -> list[ChatMessage]:
    """Chat messages for one call, closing with the request for an answer of ``shape`` (see
    :mod:`mcp_sim.prompting.answer_shape`): bare JSON (the request then also carries a
    ``response_format`` constraint, which leaves no room for tags), a free-text observation
    wrapped in ``{"observation": ...}``, or one in tags, its state patch after it when the
    shape asks for one. ``simulation_instruction`` bends this call's answer (see
    :mod:`mcp_sim.perturb.injection`)."""
    context = context or TurnContext()
    messages: list[ChatMessage] = [{"role": "system", "content": render_system(world)}]
    omitted = ""
    if context.first_turn > 1:
        omitted = (
            f"*(Turns 1 to {context.first_turn - 1} are not shown; the current world state "
            "reflects their effects.)*\n\n"
        )
    for turn, past in enumerate(history, context.first_turn):
        shown = past.head
        if shown is None:
            shown = render_action(past.number or turn, past.tool, past.arguments, past.action)
        messages.append({"role": "user", "content": omitted + shown})
        messages.append(
            {"role": "assistant", "content": f"{OBSERVATION_MARKER}\n{past.observation}"}
        )
        omitted = ""
    head = context.head
    if head is None:
        number = context.first_turn + len(history)
        head = render_action(number, tool.name, arguments, preamble=render_preamble(state, context))
    # Everything after the head belongs to this call alone: the history keeps only the head,
    # so the next call's prompt repeats this one up to here.
    closing = [render_instruction(simulation_instruction)] if simulation_instruction else []
    closing += [section for section in context.sections if section]
    if shape.structured:
        instruction = STRUCTURED_INSTRUCTION
    elif shape.envelope:
        instruction = ENVELOPE_INSTRUCTION
    else:
        instruction = TURN_INSTRUCTION
    if shape.ask_patch:
        instruction += PATCH_INSTRUCTION
    tail = "".join(f"\n\n{part}" for part in closing)
    messages.append({"role": "user", "content": f"{omitted}{head}{tail}{instruction}"})
    return messages
