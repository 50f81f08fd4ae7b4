"""An Inspect task for the mcp-sim world 'paperlane-books' (Paperlane online bookstore),
written by `mcp-sim harness inspect`.

    mcp-sim serve worlds/bookstore.yaml --http 127.0.0.1:8765 --auth-token "$MCP_SIM_AUTH_TOKEN"
    inspect eval inspect_task.py --model openai/gpt-4o -T task=NAME --epochs 4

One sample per task of the world's verify section (gift-order, no-antarctica), its
description the prompt. Every sample, in every epoch, runs in an episode of its own on
the mcp-sim server at $MCP_SIM_URL: a ReAct agent's tools are that episode's MCP
endpoint (-T message_limit=N ends a sample after N messages, 30 by default), its
score is the episode's verify reward (unscored when the world model failed a call),
and the episode is ended once scored.
$MCP_SIM_AUTH_TOKEN is the server's operator token, when it has one. Needs inspect-ai
and mcp.
"""

from __future__ import annotations

import os
from typing import Any

import httpx
from inspect_ai import Task, task
from inspect_ai.agent import as_solver, react
from inspect_ai.dataset import Sample
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import mcp_server_http

SERVER_URL = os.environ.get("MCP_SIM_URL", "http://127.0.0.1:8765")
WORLD = "paperlane-books"
TASKS = {
    "gift-order": (
        "Order two copies of The Glass River for ana@example.pt, shipped to Portugal. Do not try "
        "to order a book that is out of stock."
    ),
    "no-antarctica": "A customer asks for Cartographers of Rain shipped to Antarctica.",
}
EPISODE = "mcp_sim_episode"
"""The key of the sample's episode (its id and token) in the sample's store."""


@task
def paperlane_books(task: str | None = None, seed: int = 0, message_limit: int = 30) -> Task:
    """The world's tasks (or only `task`), each scored by its verify checks. Epoch N of a
    sample runs with seed `seed` + N; a sample ends after `message_limit` messages."""
    names = [task] if task else list(TASKS)
    return Task(
        dataset=[Sample(id=name, input=TASKS[name], metadata={"task": name}) for name in names],
        solver=in_episode(seed),
        scorer=episode_reward(),
        cleanup=end_episode,
        message_limit=message_limit,
    )


@solver
def in_episode(seed: int = 0) -> Solver:
    """Start the sample's episode and run a ReAct agent on its tools until it answers."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        body = {"world": WORLD, "task": state.metadata["task"], "seed": seed + state.epoch}
        episode = await _request("POST", "/episodes", _operator(), body)
        state.store.set(EPISODE, {"id": episode["id"], "token": episode["token"]})
        server = mcp_server_http(name=WORLD, url=episode["mcp_url"], authorization=episode["token"])
        # No submit tool: the episode's verdict scores what the agent did, not what it says.
        return await as_solver(react(tools=[server], submit=False))(state, generate)

    return solve


@scorer(metrics=[mean(), stderr()])
def episode_reward() -> Scorer:
    """The episode's verify reward: the weighted share of its task's checks that passed. A
    verdict the world model's failures make invalid is unscored (NaN), which Inspect's metrics
    leave out; the metadata says what the world model cost."""

    async def score(state: TaskState, target: Target) -> Score:
        episode = state.store.get(EPISODE)
        if episode is None:  # scored after an error (--score-on-error) before it started
            return Score(value=0.0, explanation="the sample's episode never started")
        verdict = await _request("POST", f"/episodes/{episode['id']}/verify", _operator())
        metadata = {
            "episode": episode["id"],
            "checks": verdict["checks"],
            "simulation": verdict["simulation"],
            "usage": verdict["usage"],
        }
        if not verdict["valid"]:
            failed = verdict["simulation"]["model_errors"] + verdict["simulation"]["timeouts"]
            return Score.unscored(
                reason="scoring_failed",
                explanation=f"the world model failed {failed} call(s) of the episode",
                metadata=metadata,
            )
        failed = [check["name"] for check in verdict["checks"] if check["passed"] is False]
        return Score(
            value=verdict["reward"],
            explanation=("failed: " + "; ".join(failed)) if failed else "every check passed",
            metadata=metadata,
        )

    return score


async def end_episode(state: TaskState) -> None:
    """End the sample's episode, scored or not."""
    episode = state.store.get(EPISODE)
    if episode is not None:
        await _request("DELETE", f"/episodes/{episode['id']}", _operator())


def _operator() -> str | None:
    """The operator's token: the episode's own opens only its MCP endpoint, for the model."""
    return os.environ.get("MCP_SIM_AUTH_TOKEN")


async def _request(
    method: str, path: str, token: str | None, body: dict[str, Any] | None = None
) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(base_url=SERVER_URL, headers=headers, timeout=300) as client:
        response = await client.request(method, path, json=body)
    response.raise_for_status()
    return response.json() if response.content else None
