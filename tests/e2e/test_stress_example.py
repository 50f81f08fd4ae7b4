"""``examples/stress_test``: its agent loop, run as its README says, against the
OpenAI-compatible double standing in for both the agent's model and the world model."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_sim.fidelity.journal_report import build_report
from mcp_sim.journal import read_journal
from mcp_sim.perturb.planner import Perturber
from mcp_sim.runtime.session import Session
from mcp_sim.spec.world import World
from tests.conftest import ROOT
from tests.openai_double import OpenAIDouble, RecordedRequest, Reply

AGENT = ROOT / "examples" / "stress_test" / "agent.py"
GET_B1 = {"tool": "get_book", "arguments": {"book_id": "b1"}}
FINISH = {"tool": "finish", "arguments": {"answer": "b1 costs 12.5 EUR"}}


def answer(request: RecordedRequest) -> Reply:
    """The agent asks for b1, retries after an error, and finishes once it has an answer; the
    world model answers whatever it is asked."""
    response_format = request.body.get("response_format") or {}
    if response_format.get("json_schema", {}).get("name") != "action":
        return Reply(
            content='<predicted_observation>{"id": "b1", "price": 12.5}</predicted_observation>'
        )
    observations = [
        m["content"] for m in request.body["messages"] if m["content"].startswith("Observation:")
    ]
    if observations and not observations[-1].startswith("Observation: Error"):
        return Reply(content=json.dumps(FINISH))
    return Reply(content=json.dumps(GET_B1))


@pytest.fixture
def double() -> Iterator[OpenAIDouble]:
    with OpenAIDouble() as d:
        d.respond_with(answer)
        yield d


def seed_failing_the_first_call(world: World) -> int:
    """A seed for which ``flaky`` answers episode-1's first call with its 503."""
    for seed in range(1000):
        plan = Perturber(active="flaky", seed=seed).plan(
            Session.start("episode-1", world), "get_book", "read", {"book_id": "b1"}
        )
        if plan.fault is not None and plan.fault.kind == "error":
            return seed
    raise AssertionError("no seed of 1000 makes flaky fail the first call")


def test_the_agent_runs_episodes_against_the_flaky_world_and_prints_the_report(
    double: OpenAIDouble, bookstore: World, tmp_path: Path
) -> None:
    journal = tmp_path / "journal.jsonl"
    seed = seed_failing_the_first_call(bookstore)
    done = subprocess.run(
        [
            sys.executable,
            str(AGENT),
            "--model-url",
            double.base_url,
            "--episodes",
            "2",
            "--max-steps",
            "6",
            "--seed",
            str(seed),
            "--journal",
            str(journal),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "episode-1: finished" in done.stderr
    records = read_journal(journal)
    first = next(r for r in records if r.session == "episode-1" and r.step == 1)
    assert [p["kind"] for p in first.perturbations] == ["error"]
    report = build_report(records)
    assert report.faults[0].reaction == "retried" and report.faults[0].recovered
    assert done.stdout.splitlines()[0].split()[:2] == ["tool", "calls"]
    assert "get_book" in done.stdout and f"journal: {journal}" in done.stdout
    agent_requests = [
        r
        for r in double.completion_requests
        if r.body.get("response_format", {}).get("json_schema", {}).get("name") == "action"
    ]
    assert agent_requests, "the agent asked its own model for actions"
