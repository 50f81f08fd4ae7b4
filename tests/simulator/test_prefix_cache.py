"""Prompts a prefix cache can reuse: each call's prompt extends the previous call's prompt
(its messages, up to the part that belonged to that call alone), except at the rare
compaction points, and no prompt exceeds its budget."""

from __future__ import annotations

import itertools
import json
from typing import Any

from mcp_sim.fidelity.grounding_recall import TeacherModel
from mcp_sim.models.base import ChatMessage
from mcp_sim.prompting.native import estimate_tokens, render_system
from mcp_sim.settings import Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.world_generator import make_world, record_calls

CALLS = 30
OPTIONS = Settings.of(state_budget=3000, turn_budget=800, history_budget=8000)
"""Tight budgets, so that a 30-call episode of a large world reaches its history budget."""


def extends(previous: list[ChatMessage], current: list[ChatMessage]) -> bool:
    """Whether ``current`` repeats ``previous`` up to its last message, and that message's
    turn (without the closing part that belonged to the call alone), then appends."""
    head = len(previous) - 1
    if len(current) != len(previous) + 2 or current[:head] != previous[:head]:
        return False
    return previous[head]["content"].startswith(current[head]["content"])


async def episode_prompts(world: World, calls: list[dict[str, Any]]) -> list[list[ChatMessage]]:
    model = TeacherModel()
    simulator = Simulator(world, model, settings=OPTIONS)
    prompts: list[list[ChatMessage]] = []
    for call in calls:
        answer = f"<predicted_observation>\n{call['response']}\n</predicted_observation>"
        if world.tool(call["tool"]).effect == "write":  # type: ignore[union-attr]
            answer += f"\n<state_patch>{json.dumps(call['patch'])}</state_patch>"
        model.answer, model.prompts = answer, []
        await simulator.call("episode", call["tool"], call["arguments"])
        prompts.append(model.prompts[0])
    return prompts


async def test_a_long_episode_of_a_large_world_appends_to_its_prompt() -> None:
    spec = make_world("ferry", 0.5, 5)
    world = World.model_validate(spec)
    recorded = record_calls("ferry", spec["state"], 5, 12, carry_state=True)
    calls = [c.to_json() for c in recorded[:CALLS]]
    assert len(calls) == CALLS and any(c["patch"] for c in calls)
    prompts = await episode_prompts(world, calls)
    system = estimate_tokens(render_system(world))
    bound = system + Simulator(world, TeacherModel(), settings=OPTIONS).budget.bound
    for prompt in prompts:
        assert prompt[0]["content"] == prompts[0][0]["content"]
        assert estimate_tokens("".join(m["content"] for m in prompt)) <= bound
    breaks = [i for i in range(1, CALLS) if not extends(prompts[i - 1], prompts[i])]
    # The history reached its budget (a compaction) but only rarely, each time after many
    # calls that only appended; a compaction keeps the start of the prompt: the system part
    # and the anchor turn, and folds the turns after it into the changes the next one shows.
    assert 1 <= len(breaks) <= 3, breaks
    assert all(b - a >= 6 for a, b in itertools.pairwise([0, *breaks])), breaks
    for i in breaks:
        assert prompts[i][:2] == prompts[i - 1][:2] and len(prompts[i]) == 4
        assert f"### Turn {i + 1}\n*(Turns 2 to {i} are not shown" in prompts[i][-1]["content"]
