"""OpenEnv's wire format, as ``openenv-core`` 0.3 defines it, for the world's tools.

OpenEnv steps an environment with actions and answers each with an observation, a reward
and a done flag. Its MCP environments take two actions, ``list_tools`` and ``call_tool``; this
module holds their models (with OpenEnv's field names, unknown fields refused as there), the
observations they produce, and the JSON Schemas ``GET /schema`` reports. The episode logic is
in :mod:`mcp_sim.server.openenv_session`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from mcp_sim.api.tool_results import ToolResult
from mcp_sim.spec.world import World


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid")

    metadata: dict[str, Any] = Field(default_factory=dict)


class ListToolsAction(_Message):
    """Ask for the world's tools (no reset needed first)."""

    type: Literal["list_tools"] = "list_tools"


class CallToolAction(_Message):
    """Call one of the world's tools."""

    type: Literal["call_tool"] = "call_tool"
    tool_name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


Action = Annotated[ListToolsAction | CallToolAction, Field(discriminator="type")]
ACTION: TypeAdapter[ListToolsAction | CallToolAction] = TypeAdapter(Action)


class Observation(BaseModel):
    """What every step answers: OpenEnv's observation fields; the wire carries ``reward`` and
    ``done`` beside the rest (see :func:`wire`)."""

    done: bool = False
    reward: float | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    tools: list[dict[str, Any]] | None = Field(
        default=None, description="list_tools: each tool's name, description and input_schema."
    )
    tool_name: str | None = Field(default=None, description="call_tool: the tool called.")
    result: dict[str, Any] | None = Field(
        default=None,
        description="call_tool: the tool result (content, structured_content, meta, is_error, "
        "and data: the structured content, or the text of a tool without an output schema).",
    )
    error: dict[str, Any] | None = Field(
        default=None,
        description="call_tool: {error_type, message} when the call could not be made at all "
        "(an unknown tool); a tool's own errors are results with is_error.",
    )


class EpisodeState(BaseModel):
    """OpenEnv's ``State`` (episode id, step count) with the episode's world, task and state
    version; not the world state, which is hidden from the agent (the episode API serves it
    to the operator)."""

    model_config = ConfigDict(extra="allow")

    episode_id: str | None = None
    step_count: int = 0
    world: str | None = None
    task: str | None = None
    done: bool = False
    valid: bool = True
    """No call so far was a model error or a timeout (see :attr:`mcp_sim.scoring.verdict.Verdict.valid`)."""
    version: int = 0


def wire(observation: Observation) -> dict[str, Any]:
    """An observation as OpenEnv sends it: ``{"observation", "reward", "done"}``, the fields
    that do not apply left out."""
    fields = observation.model_dump(exclude={"reward", "done"}, exclude_none=True)
    return {"observation": fields, "reward": observation.reward, "done": observation.done}


def tool_listing(world: World) -> list[dict[str, Any]]:
    """The world's tools in OpenEnv's ``Tool`` shape."""
    return [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema}
        for t in world.tools
    ]


def call_result(result: ToolResult) -> dict[str, Any]:
    """A tool result in the shape OpenEnv's MCP environments send (FastMCP's
    ``CallToolResult``): ``data`` is what ``MCPToolClient.call_tool`` returns. Its ``meta``
    holds nothing of mcp-sim's: the observation goes to the policy, which must not learn where
    an answer came from (an injected fault, a fixture); the operator reads that in the
    journal."""
    data = result.as_dict()
    data["meta"] = {}
    data["data"] = result.structured if result.structured is not None else result.text
    return data


def mcp_result(result: ToolResult) -> dict[str, Any]:
    """A tool result as MCP's ``tools/call`` sends it (camelCase), for the ``mcp`` message,
    without mcp-sim's provenance (see :func:`call_result`)."""
    plain = result.as_dict()
    reply: dict[str, Any] = {
        "content": plain["content"],
        "isError": plain["is_error"],
    }
    if plain["structured_content"] is not None:
        reply["structuredContent"] = plain["structured_content"]
    return reply


def schemas() -> dict[str, Any]:
    """``GET /schema``: the JSON Schemas of actions, observations and state."""
    return {
        "action": ACTION.json_schema(),
        "observation": Observation.model_json_schema(),
        "state": EpisodeState.model_json_schema(),
    }
