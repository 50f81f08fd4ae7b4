"""A world drafted from Python by the model that settings name, as ``mcp-sim world new`` drafts
it: the model launched for the draft, asked with the settings' sampling."""

from __future__ import annotations

import json

from mcp_sim.api.world_drafting import draft_with_settings
from mcp_sim.authoring.drafting import DRAFT_MAX_TOKENS
from mcp_sim.settings import Settings
from tests.authoring.test_drafting import DRAFT
from tests.openai_double import OpenAIDouble, Reply


async def test_a_world_is_drafted_by_the_model_the_settings_name() -> None:
    said: list[str] = []
    with OpenAIDouble() as double:
        double.script(Reply(content=json.dumps(DRAFT)))
        settings = Settings.of(model_url=[double.base_url], temperature=0.2)
        draft = await draft_with_settings("a pharmacy", "mcp", settings, said.append)
        (sent,) = double.completion_requests
    assert draft.world.world == "harbour-pharmacy"
    assert (
        sent.body["temperature"] == 0.2 and sent.body["max_completion_tokens"] == DRAFT_MAX_TOKENS
    )
    assert "drafting a mcp world" in said
