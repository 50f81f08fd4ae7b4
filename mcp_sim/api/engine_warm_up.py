"""The request a new embedded engine is warmed up with (``mcp-sim engine start``): the first
call of a tiny world, shaped as the simulator shapes a call to the embedded model (the native
prompt, the embedded sampling, the output bounds' JSON-schema envelope), with a small token
limit.

Only its shape matters, so that vLLM runs the paths a call runs; its answer is thrown away.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mcp_sim.api.assembly import Resolved
from mcp_sim.models.base import CompletionRequest, Sampling
from mcp_sim.prompting.answer_shape import AnswerShape
from mcp_sim.prompting.native import build_messages
from mcp_sim.settings.combined import Settings
from mcp_sim.spec.world import World

WARM_UP_MAX_TOKENS = 16
"""Enough decoding steps to run the sampler and the grammar a few times, few enough to end in
a second or two on a CPU."""

WARM_UP_WORLD: dict[str, Any] = {
    "world": "engine-warm-up",
    "title": "Engine warm-up",
    "description": "A one-tool world whose first call warms a new engine up.",
    "state": {"greetings": []},
    "tools": [
        {
            "name": "greet",
            "description": "Greet someone by name.",
            "input_schema": {
                "type": "object",
                "properties": {"name": {"type": "string", "description": "Who to greet"}},
                "required": ["name"],
            },
            "effect": "read",
        }
    ],
}


def warm_up_request() -> CompletionRequest:
    """The first call of :data:`WARM_UP_WORLD`, as the embedded model is asked it."""
    world = World.model_validate(WARM_UP_WORLD)
    tool = world.tools[0]
    embedded = Resolved.of(Settings())
    shape = AnswerShape.of(tool, embedded.settings.prompt.bounds)
    arguments = {"name": "Ada"}
    messages = build_messages(world, [], tool, arguments, world.state, shape=shape)
    sampling = embedded.default_sampling or Sampling()
    return CompletionRequest(
        messages=messages,
        sampling=replace(sampling, max_tokens=WARM_UP_MAX_TOKENS),
        response_schema=shape.response_schema,
        schema_name=tool.name,
    )
