"""Renders a call into chat messages in the world model's native format, and extracts the
observation from its answer.

Layout (Qwen-AgentWorld's training format; see DESIGN.md):

- ``system``: role and conventions for the world's domain, the world (description, canon) in a
  headed section, then the tool definitions (``### N. name`` / ``#### **Description**:`` /
  ``#### **Parameters**:``). It depends on the world only, so it is byte-identical for every
  call of every session of a world, and vLLM's prefix cache reuses it.
- each earlier call: ``user`` ``### Turn N`` + ``**Action:**`` + fenced JSON, then ``assistant``
  ``**Environment Observation:**`` + the raw observation.
- the current call: the current world state in a headed section (it changes, so it goes last),
  the action block, and the instruction to answer inside ``<predicted_observation>`` tags.
  A perturbed call (see :mod:`mcp_sim.inject`) adds a ``# Simulation Instruction`` section
  after the action: it belongs to this turn only, so it never enters the history, the tool
  definitions or the static system prompt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcp_sim.backends.base import ChatMessage
from mcp_sim.spec import ToolSpec, World

OBSERVATION_MARKER = "**Environment Observation:**"
SIMULATION_INSTRUCTION_HEADING = "# Simulation Instruction"

_ROLES: dict[str, str] = {
    "mcp": (
        "You are a **Tool World Model**: a virtual environment that simulates the execution of "
        "tool calls faithfully, as the real service behind each tool would answer them, following "
        "the conventions of the Model Context Protocol (MCP)."
    ),
    "search": (
        "You are a **Search World Model**: you simulate a web search engine and the web pages it "
        "finds. Search results are numbered and each gives a URL, a title, a snippet and a date, "
        "formatted as `[N] url` then `Title:`, `Snippet:` and `Date:` lines, 10 results per query "
        "unless the tool says otherwise. An opened page is returned as Markdown text."
    ),
    "terminal": (
        "You are a **Terminal World Model**: a precise simulator of a Linux shell. For each "
        "command you print exactly what the terminal would show: the command's output and errors, "
        "as a real shell and real programs would write them, without commentary."
    ),
    "swe": (
        "You are a **Tool World Model** for a software repository: you simulate a realistic "
        "command-line and file-system environment used by a coding agent (reading and editing "
        "files, running commands and tests) and answer each tool call as the real tool would."
    ),
    "web": (
        "You are a **Web World Model**: a precise browser state simulator. After each browser "
        "action you return the page that results, as an accessibility tree: one node per line "
        "with its bracketed id, role and name, indented by depth."
    ),
    "os": (
        "You are a **Desktop World Model**: you simulate a desktop operating system. After each "
        "action you return the resulting desktop state as an accessibility tree of the windows "
        "and controls on screen."
    ),
    "android": (
        "You are an **Android World Model**: you simulate an Android phone. After each action you "
        "return the resulting screen as a list of UI elements, one per line: index, class, text "
        "or content description, and bounds."
    ),
}

_CONVENTIONS = """\
## Task Definition

You are given the world this environment belongs to, the history of earlier tool calls in this \
session with their observations, and the current tool call as a JSON object with `name` and \
`arguments`. Predict the **exact response** the tool would return.

## Environment Management

- The world state below is the truth at the start of the current call. Everything you return \
must agree with it, with the canon, and with every earlier observation in this session.
- Reuse identifiers, names and values that already appeared; never rename or renumber them.
- Tools marked as changing state (effect: write) change the world as a real service would; \
read-only tools never change it.

## Environment Execution

- Output priority: if the tool defines an output schema, the response is a JSON object that \
follows it exactly; otherwise use the format a real implementation of the tool would use.
- Do not wrap raw responses in extra JSON if the tool does not specify it.
- When a call cannot succeed (unknown id, violated precondition, a declared failure mode), \
return the error exactly as the real tool would report it, e.g. `status: error` with a message, \
or the tool's declared error code and message."""

_TURN_INSTRUCTION = """

Please analyze the input above and predict the realistic output/response that the environment \
would produce.

Requirements:
- Be precise and accurate in your prediction
- Consider edge cases and error conditions
- Maintain state consistency with previous interactions in this session
- Match the expected output format

First, think step by step to explain your reasoning. Then, provide the simulated environment \
observation wrapped strictly within the <predicted_observation></predicted_observation> tags."""

_STRUCTURED_INSTRUCTION = """

Please analyze the input above and predict the realistic response of this tool.

Requirements:
- Be precise and accurate in your prediction
- Maintain state consistency with the world state and previous interactions in this session
- The response is a JSON object that follows the tool's output schema exactly

Answer with the JSON object only."""


@dataclass(frozen=True)
class PastCall:
    """One earlier call of the session as the model sees it."""

    tool: str
    arguments: dict[str, Any]
    observation: str


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
    parts = ["# Role and Objective", "", _ROLES[world.domain], "", _CONVENTIONS, "", "# World", ""]
    parts.append(f"**{world.title}**")
    if world.description.strip():
        parts += ["", world.description.strip()]
    if world.canon:
        parts += ["", "## Canon", "", "Facts that are always true in this world:", ""]
        parts += [f"- {fact}" for fact in world.canon]
    parts += [
        "",
        "# Input Definitions & Action Space",
        "",
        "You can simulate the following tools:",
        "",
        "\n\n".join(render_tool(i, t) for i, t in enumerate(world.tools, 1)),
    ]
    return "\n".join(parts)


def render_action(turn: int, tool: str, arguments: dict[str, Any]) -> str:
    action = json.dumps({"name": tool, "arguments": arguments}, ensure_ascii=False, indent=2)
    return f"### Turn {turn}\n**Action:**\n```json\n{action}\n```"


def render_state(state: dict[str, Any]) -> str:
    body = json.dumps(state, ensure_ascii=False, sort_keys=True, indent=1)
    return f"**Current World State:**\n```json\n{body}\n```"


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
    structured: bool = False,
    simulation_instruction: str | None = None,
) -> list[ChatMessage]:
    """Chat messages for one call. ``structured`` asks for bare JSON (the request then also
    carries a ``response_format`` constraint, which leaves no room for tags);
    ``simulation_instruction`` bends this call's answer (see :mod:`mcp_sim.inject`)."""
    messages: list[ChatMessage] = [{"role": "system", "content": render_system(world)}]
    for turn, past in enumerate(history, 1):
        messages.append({"role": "user", "content": render_action(turn, past.tool, past.arguments)})
        messages.append(
            {"role": "assistant", "content": f"{OBSERVATION_MARKER}\n{past.observation}"}
        )
    current = render_action(len(history) + 1, tool.name, arguments)
    if simulation_instruction:
        current += f"\n\n{render_instruction(simulation_instruction)}"
    instruction = _STRUCTURED_INSTRUCTION if structured else _TURN_INSTRUCTION
    messages.append({"role": "user", "content": f"{render_state(state)}\n\n{current}{instruction}"})
    return messages


_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL)
_OBSERVATION_BLOCK = re.compile(
    r"<predicted_observation>(.*?)(?:</predicted_observation>|\Z)", re.DOTALL
)


def extract_observation(text: str) -> str:
    """The observation inside a model answer, following the official extraction rules: drop
    thinking, take the last ``<predicted_observation>`` block (or the whole text), strip the
    history marker."""
    text = _THINK_BLOCK.sub("", text)
    if "</think>" in text:
        text = text.rsplit("</think>", 1)[1]
    if "<think>" in text:
        head, tail = text.split("<think>", 1)
        tag = tail.find("<predicted_observation>")
        text = head + (tail[tag:] if tag >= 0 else "")
    blocks = _OBSERVATION_BLOCK.findall(text)
    observation = blocks[-1] if blocks else text
    observation = observation.strip()
    if observation.startswith(OBSERVATION_MARKER):
        observation = observation[len(OBSERVATION_MARKER) :]
    return observation.replace(OBSERVATION_MARKER, "").strip()
