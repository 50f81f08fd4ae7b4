"""``mcp-sim world new``: drafting a world spec with the world model, schema-constrained, and
writing it only when it is a valid world."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcp_sim.authoring.drafting import COMPACT, DRAFT_MAX_TOKENS, draft_schema, draft_world
from mcp_sim.errors import DraftError, ModelOutputInvalid
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback
from mcp_sim.prompting.bounds import OutputBounds
from mcp_sim.spec.loading import load_world
from tests.openai_double import OpenAIDouble, Reply
from tests.processes import run_cli
from tests.scripted_model import ScriptedModel

DRAFT: dict[str, Any] = {
    "world": "harbour-pharmacy",
    "title": "Harbour Pharmacy",
    "domain": "mcp",
    "description": "A small pharmacy in Port Ysolde with an ordering API.",
    "canon": ["The pharmacy closes at 19:00.", "Prescriptions need a doctor's code."],
    "canon_entities": {"people": [{"name": "Ines Galt", "role": "pharmacist"}]},
    "reference_answers": [{"question": "When does it close?", "answer": "At 19:00."}],
    "state": {"stock": [{"id": "m1", "name": "Calmex", "count": 4}]},
    "tools": [
        {
            "name": "check_stock",
            "description": "Stock of a medicine.",
            "input_schema": {
                "type": "object",
                "properties": {"medicine_id": {"type": "string", "description": "The id"}},
                "required": ["medicine_id"],
            },
            "effect": "read",
        }
    ],
}


def twice(tools: list[dict[str, Any]]) -> dict[str, Any]:
    broken = copy.deepcopy(DRAFT)
    broken["tools"] = tools * 2
    return broken


@pytest.mark.parametrize("domain", ["mcp", "search", "terminal", "swe", "web", "os", "android"])
def test_the_draft_schema_is_a_json_schema_cut_from_the_world_schema(domain: str) -> None:
    schema = draft_schema(domain)  # type: ignore[arg-type]
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["domain"] == {"const": domain}
    assert {"world", "title", "tools", "canon"} <= set(schema["required"])
    assert ("search" in schema["properties"]) == (domain == "search")


async def test_a_small_model_drafts_under_a_compact_bounded_schema() -> None:
    model = ScriptedModel(json.dumps(DRAFT))
    await draft_world("a pharmacy", "mcp", model, bounds=OutputBounds())
    schema = model.requests[0].response_schema
    assert schema is not None
    assert schema["properties"]["tools"]["maxItems"] == COMPACT.tools
    assert schema["properties"]["canon"]["items"]["maxLength"] == OutputBounds().max_string


def test_a_valid_draft_satisfies_the_draft_schema() -> None:
    jsonschema.validate(DRAFT, draft_schema("mcp"))


async def test_a_valid_draft_is_returned_as_a_world_file() -> None:
    model = ScriptedModel(json.dumps(DRAFT))
    draft = await draft_world("a pharmacy's ordering API", "mcp", model)
    assert draft.world.world == "harbour-pharmacy"
    assert draft.text.startswith(
        "# Drafted by `mcp-sim world new` from: a pharmacy's ordering API\n"
    )
    (request,) = model.requests
    assert request.response_schema == draft_schema("mcp")
    assert request.sampling.max_tokens == DRAFT_MAX_TOKENS
    assert "a pharmacy's ordering API" in request.messages[-1]["content"]


async def test_an_invalid_draft_is_sent_back_once_with_its_problems() -> None:
    model = ScriptedModel(json.dumps(twice(DRAFT["tools"])), json.dumps(DRAFT))
    draft = await draft_world("a pharmacy", "mcp", model)
    assert draft.world.tool("check_stock") is not None
    correction = model.requests[1].messages
    assert correction[-2]["role"] == "assistant"
    assert "tool name 'check_stock' is used twice" in correction[-1]["content"]


async def test_two_invalid_drafts_are_a_clear_error() -> None:
    model = ScriptedModel(json.dumps(twice(DRAFT["tools"])), '{"world": "cut off')
    with pytest.raises(DraftError) as info:
        await draft_world("a pharmacy", "mcp", model)
    assert "could not draft a valid world spec" in str(info.value)
    assert "not JSON" in str(info.value)


class CutOff(ScriptedModel):
    """Its first ``cut`` answers run past the token limit."""

    def __init__(self, *answers: str, cut: int = 1) -> None:
        super().__init__(*answers)
        self.cut = cut

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        if len(self.requests) < self.cut:
            self.requests.append(request)
            raise ModelOutputInvalid("the answer was truncated at max tokens (1500)")
        return await super().complete(request, progress)


async def test_a_draft_cut_off_at_the_token_limit_is_drafted_afresh() -> None:
    model = CutOff(json.dumps(DRAFT))
    draft = await draft_world("a pharmacy", "mcp", model)
    assert draft.world.world == "harbour-pharmacy"
    assert model.requests[1].messages == model.requests[0].messages


async def test_two_drafts_cut_off_are_a_clear_error() -> None:
    model = CutOff(cut=2)
    with pytest.raises(DraftError, match="truncated at max tokens"):
        await draft_world("a pharmacy", "mcp", model)


async def test_an_empty_description_is_refused_before_asking() -> None:
    model = ScriptedModel()
    with pytest.raises(DraftError, match="describe the world"):
        await draft_world("  ", "mcp", model)
    assert model.requests == []


def run_new(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("world", "new", *args)


def test_world_new_writes_a_valid_world_file(tmp_path: Path) -> None:
    out = tmp_path / "pharmacy.yaml"
    with OpenAIDouble() as double:
        double.script(Reply(content=json.dumps(DRAFT)))
        done = run_new("a pharmacy", "--model-url", double.base_url, "-o", str(out))
        sent = double.completion_requests[0].body
    assert done.returncode == 0, done.stderr
    assert load_world(out).world == "harbour-pharmacy"
    assert sent["response_format"]["json_schema"]["schema"] == draft_schema("mcp")


def test_world_new_writes_nothing_when_the_drafts_are_invalid(tmp_path: Path) -> None:
    out = tmp_path / "pharmacy.yaml"
    with OpenAIDouble() as double:
        double.script(*[Reply(content=json.dumps(twice(DRAFT["tools"])))] * 2)
        done = run_new("a pharmacy", "--model-url", double.base_url, "-o", str(out))
    assert done.returncode == 1
    assert "could not draft a valid world spec" in done.stderr
    assert "used twice" in done.stderr
    assert not out.exists()


def test_world_new_keeps_an_existing_file(tmp_path: Path) -> None:
    out = tmp_path / "mine.yaml"
    out.write_text("keep me")
    done = run_new("a pharmacy", "--model-url", "http://127.0.0.1:9/v1", "-o", str(out))
    assert done.returncode == 2 and "--force" in done.stderr
    assert out.read_text() == "keep me"
