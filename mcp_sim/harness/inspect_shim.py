"""``mcp-sim harness inspect WORLD``: an Inspect task for a world, as Python source. One sample
per task of the world's ``verify`` section, its description the prompt; each sample runs in
an episode of its own on an mcp-sim server, whose MCP endpoint gives a ReAct agent
(inspect-ai's ``react``) its tools (``mcp_server_http``), within a message limit, and is scored
by ``POST /episodes/{id}/verify``: its reward, or unscored (NaN, which Inspect's metrics leave
out) when the verdict is invalid, with the world model's cost in the score's metadata.

The module talks to the server over HTTP only, so an Inspect environment needs inspect-ai and
mcp, not mcp-sim. What is particular to the world is its id, its tasks and the task's name; the
solver, scorer and cleanup are the same for every world (:data:`SHARED`).
"""

from __future__ import annotations

import json
import textwrap
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from mcp_sim.harness.python_names import python_name

if TYPE_CHECKING:
    from mcp_sim.spec.world import World

DEFAULT_SERVER_URL = "http://127.0.0.1:8765"
"""The mcp-sim server an Inspect task uses when neither it nor ``$MCP_SIM_URL`` names one
(``mcp-sim serve --http``'s address in the examples)."""

TASK_FUNCTION = '''

@task
def TASK_FUNCTION(task: str | None = None, seed: int = 0, message_limit: int = 30) -> Task:
    """The world's tasks (or only `task`), each scored by its verify checks. Epoch N of a
    sample runs with seed `seed` + N; a sample ends after `message_limit` messages."""
    names = [task] if task else list(TASKS)
    return Task(
        dataset=[Sample(id=name, input=TASKS[name], metadata={"task": name}) for name in names],
        solver=in_episode(seed),
        scorer=episode_reward(),
        cleanup=end_episode,
        message_limit=message_limit,
    )'''
"""The world's task, named ``TASK_FUNCTION`` here."""

SHARED = '''

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
'''
"""The module's solver, scorer, episode cleanup and HTTP helper, and the names they take."""

TAKEN = frozenset(
    {"annotations", "os", "httpx", "task", "solver", "scorer", "mean", "stderr", "Any"}
    | {"Task", "Sample", "Score", "Scorer", "Target", "Generate", "Solver", "TaskState"}
    | {"as_solver", "react", "mcp_server_http", "SERVER_URL", "WORLD", "TASKS", "EPISODE"}
    | {"in_episode", "episode_reward", "end_episode", "_request", "_operator"}
)
"""Names the module defines or imports: the task function gets a ``_`` after any of them."""

_WIDTH = 100


def inspect_task_source(
    world: World, *, world_file: str, server_url: str, file_name: str = "inspect_task.py"
) -> str:
    """The module (to be saved as ``file_name``): the world's Inspect task, for the mcp-sim
    server at ``$MCP_SIM_URL`` (``server_url`` when that is unset). ``world_file`` is the
    world its docstring tells ``mcp-sim serve``. The world must have verify tasks."""
    if not world.verify:
        raise ValueError(f"the world {world.world!r} has no verify tasks to score")
    function = python_name(world.world, TAKEN)
    return "\n".join(
        [
            *_docstring(world, world_file, server_url, file_name),
            "",
            "from __future__ import annotations",
            "",
            "import os",
            "from typing import Any",
            "",
            "import httpx",
            "from inspect_ai import Task, task",
            "from inspect_ai.agent import as_solver, react",
            "from inspect_ai.dataset import Sample",
            "from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr",
            "from inspect_ai.solver import Generate, Solver, TaskState, solver",
            "from inspect_ai.tool import mcp_server_http",
            "",
            f'SERVER_URL = os.environ.get("MCP_SIM_URL", {_literal(server_url)})',
            f"WORLD = {_literal(world.world)}",
            "TASKS = {",
            *(_task_entry(name, task.description or name) for name, task in world.verify.items()),
            "}",
            'EPISODE = "mcp_sim_episode"',
            '"""The key of the sample\'s episode (its id and token) in the sample\'s store."""',
            TASK_FUNCTION.replace("TASK_FUNCTION", function),
            SHARED,
        ]
    )


def _docstring(world: World, world_file: str, server_url: str, file_name: str) -> list[str]:
    address = urlsplit(server_url).netloc
    return [
        f'"""An Inspect task for the mcp-sim world {world.world!r} ({_one_line(world.title)}),',
        "written by `mcp-sim harness inspect`.",
        "",
        f'    mcp-sim serve {world_file} --http {address} --auth-token "$MCP_SIM_AUTH_TOKEN"',
        f"    inspect eval {file_name} --model openai/gpt-4o -T task=NAME --epochs 4",
        "",
        f"One sample per task of the world's verify section ({', '.join(world.verify)}), its",
        "description the prompt. Every sample, in every epoch, runs in an episode of its own on",
        "the mcp-sim server at $MCP_SIM_URL: a ReAct agent's tools are that episode's MCP",
        "endpoint (-T message_limit=N ends a sample after N messages, 30 by default), its",
        "score is the episode's verify reward (unscored when the world model failed a call),",
        "and the episode is ended once scored.",
        "$MCP_SIM_AUTH_TOKEN is the server's operator token, when it has one. Needs inspect-ai",
        "and mcp.",
        '"""',
    ]


def _one_line(text: str) -> str:
    return " ".join(text.split()).replace("\\", "\\\\").replace('"""', "'''")


def _task_entry(name: str, description: str) -> str:
    """``"name": "description",`` on one line where it fits, else the description as a
    parenthesized run of strings, as ``ruff format`` leaves it."""
    text = " ".join(description.split())
    line = f"    {_literal(name)}: {_literal(text)},"
    if len(line) <= _WIDTH:
        return line
    pieces = textwrap.wrap(text, _WIDTH - 12, break_long_words=False, break_on_hyphens=False)
    quoted = [_literal(p + " ") for p in pieces[:-1]] + [_literal(pieces[-1])]
    return "\n".join([f"    {_literal(name)}: (", *(f"        {q}" for q in quoted), "    ),"])


def _literal(text: str) -> str:
    """``text`` as a Python string literal in double quotes (JSON's string syntax is
    Python's), its letters as they are."""
    return json.dumps(text, ensure_ascii=False)
