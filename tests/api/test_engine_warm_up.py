"""The request a new embedded engine is warmed up with: shaped as the simulator asks the
embedded model (its prompt, sampling and answer schema), with a few tokens only."""

from __future__ import annotations

from mcp_sim.api.assembly import Resolved
from mcp_sim.api.engine_warm_up import WARM_UP_MAX_TOKENS, warm_up_request
from mcp_sim.settings import Settings


def test_the_warm_up_is_the_first_call_of_a_tiny_world_with_a_few_tokens() -> None:
    request = warm_up_request()
    embedded = Resolved.of(Settings()).default_sampling
    assert embedded is not None
    assert request.sampling.max_tokens == WARM_UP_MAX_TOKENS
    assert request.sampling.temperature == embedded.temperature
    assert request.schema_name == "greet" and request.response_schema is not None
    prompt = "\n".join(m["content"] for m in request.messages)
    assert "Greet someone by name." in prompt and "Ada" in prompt
