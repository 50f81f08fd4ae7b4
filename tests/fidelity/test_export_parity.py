"""``mcp-sim export`` of a journal gives exactly the prompts the simulator sent for its calls,
compaction, re-anchoring and state views included."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_sim.authoring.world_yaml import world_yaml
from mcp_sim.errors import ModelUnavailable
from mcp_sim.fidelity.trajectory_export import exported_rows
from mcp_sim.journal import Journal, read_journal
from mcp_sim.models.base import ChatMessage, Completion, CompletionRequest, ProgressCallback
from mcp_sim.settings import Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import parse_world
from mcp_sim.spec.world import World
from tests.conftest import ROOT
from tests.openai_double import OpenAIDouble, Reply
from tests.world_generator import RecordedCall, make_world, record_calls

STATE_HEADING = "**Current World State"
FOLD_NOTICE = " not shown; "


def model_answer(call: RecordedCall) -> str:
    """What a model that knew the real tool would answer: its response, and its patch."""
    answer = f"Thinking.\n<predicted_observation>\n{call.response}\n</predicted_observation>"
    return answer + f"\n<state_patch>{json.dumps(call.patch)}</state_patch>"


def long_session(size_mb: float, episodes: int) -> tuple[dict[str, Any], list[RecordedCall]]:
    spec = make_world("ferry", size_mb, seed=11)
    calls = record_calls("ferry", spec["state"], seed=11, episodes=episodes, carry_state=True)
    return spec, calls


def first_turn_number(messages: list[ChatMessage]) -> int:
    first_user = next(m["content"] for m in messages if m["role"] == "user")
    found = re.search(r"^### Turn (\d+)$", first_user, re.MULTILINE)
    assert found is not None
    return int(found.group(1))


def assert_compacted_and_reanchored(prompts: list[list[ChatMessage]]) -> None:
    """The session outgrew its history budget. Either a later prompt starts past turn 1 and
    the turn after the jump showed the state again, or it keeps the anchor turn and folds the
    turns after it, and the turn after the fold showed their changes."""
    firsts = [first_turn_number(p) for p in prompts]
    assert firsts[0] == 1
    folds = [i for i, p in enumerate(prompts) if FOLD_NOTICE in p[-1]["content"].split("\n")[1]]
    assert max(firsts) > 1 or folds
    if folds:
        fold = folds[0]
        assert prompts[fold][:2] == prompts[fold - 1][:2]
    if max(firsts) > 1:
        jump = next(i for i, n in enumerate(firsts) if n > 1)
        assert STATE_HEADING in prompts[jump][-1]["content"]
        assert STATE_HEADING not in prompts[jump - 1][-1]["content"]


class RecordingModel:
    """An in-process world model that answers from a script and keeps each request's messages
    exactly as the simulator sent them; ``None`` in the script is a failed request."""

    def __init__(self, answers: list[str | None]) -> None:
        self.answers = answers
        self.sent: list[list[ChatMessage]] = []

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        answer = self.answers.pop(0)
        if answer is None:
            raise ModelUnavailable("the replica is down")
        self.sent.append(json.loads(json.dumps(request.messages)))
        return Completion(content=answer, model="recording")

    async def aclose(self) -> None:
        pass


async def test_export_gives_the_prompts_sent_under_small_budgets(tmp_path: Path) -> None:
    spec, calls = long_session(0.05, episodes=3)
    world = World.model_validate(spec)
    options = Settings.of(history_budget=1500, keep_turns=3, state_budget=600, reference_turns=2)
    failing = 4  # this call's model request fails: a step, but no turn of the history
    answers: list[str | None] = [model_answer(c) for c in calls]
    answers.insert(failing, None)
    model = RecordingModel(answers)
    journal = Journal(tmp_path / "journal.jsonl")
    simulator = Simulator(world, model, journal=journal, settings=options)
    for i, call in enumerate([*calls[:failing], calls[failing], *calls[failing:]]):
        result = await simulator.call("s", call.tool, call.arguments)
        assert result.source == ("model_error" if i == failing else "model")
    journal.close()
    assert_compacted_and_reanchored(model.sent)

    records = read_journal(tmp_path / "journal.jsonl")
    rows = await exported_rows(world, records, "sft", settings=options)
    assert [row["messages"][:-1] for row in rows] == model.sent
    assert [
        r["turn_idx"] for r in await exported_rows(world, records, "agentworld", None, options)
    ] == list(range(1, len(calls) + 1))


BUDGETS = ("--state-budget", "6000", "--history-budget", "12000", "--turn-budget", "3000")


async def test_export_of_a_served_journal_gives_the_prompts_serve_sent(tmp_path: Path) -> None:
    # Served over stdio with the default budgets: a 0.2 MB state is larger than the state
    # budget, and about forty calls outgrow the history budget.
    spec, calls = long_session(0.2, episodes=4)
    world_path = tmp_path / "world.yaml"
    world_path.write_text(world_yaml(spec), encoding="utf-8")
    journal_path = tmp_path / "journal.jsonl"
    with OpenAIDouble() as double:
        double.script(*(Reply(content=model_answer(c)) for c in calls))
        params = StdioServerParameters(
            command=sys.executable,
            args=[
                "-m",
                "mcp_sim",
                "serve",
                str(world_path),
                "--model-url",
                double.base_url,
                *BUDGETS,
                "--journal",
                str(journal_path),
                "--retries",
                "0",
                "--timeout",
                "30",
            ],
            cwd=str(ROOT),
        )
        with (tmp_path / "stderr.txt").open("w") as errlog, anyio.fail_after(120):
            async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
                for call in calls:
                    result = await client.call_tool(call.tool, call.arguments)
                    assert not result.is_error or call.is_error
        sent = [r.body["messages"] for r in double.completion_requests]
    assert len(sent) == len(calls)
    assert_compacted_and_reanchored(sent)

    out = tmp_path / "sft.jsonl"
    export = [sys.executable, "-m", "mcp_sim", "export", "--journal", str(journal_path)]
    export += ["--world", str(world_path), "--format", "sft", "-o", str(out)]
    # The model options serve ran with: the prompts are rebuilt with its budgets (the model
    # server is not asked anything).
    export += ["--model-url", double.base_url, *BUDGETS]
    with anyio.fail_after(120):
        await anyio.run_process(export, cwd=ROOT)
    exported = [json.loads(line)["messages"][:-1] for line in out.read_text().splitlines()]
    assert len(exported) == len(sent)
    for number, (mine, theirs) in enumerate(zip(exported, sent, strict=True), 1):
        assert json.dumps(mine, ensure_ascii=False) == json.dumps(theirs, ensure_ascii=False), (
            f"call {number}"
        )
    parse_world(world_path.read_text(), str(world_path))
