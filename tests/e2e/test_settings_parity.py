"""The Python API and ``mcp-sim serve`` build the same system from the same settings: a
10-call episode with a journal, an answer cache and perturbation profiles on gives identical
journals and identical prompts through :meth:`mcp_sim.api.Worlds.open` in process and through
a served world's episode URL (real HTTP, the SDK's client), answered by one OpenAI-compatible
double over real HTTP."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcp_sim.api import Worlds
from mcp_sim.authoring.world_yaml import world_yaml
from mcp_sim.journal import read_journal
from mcp_sim.settings import Settings
from tests.fidelity.test_export_parity import model_answer
from tests.openai_double import OpenAIDouble, RecordedRequest, Reply
from tests.processes import serving_http
from tests.world_generator import RecordedCall, make_world, record_calls

EPISODE = "parity-1"
SEED = 5
PROFILES = ["stale", "adversarial"]


def scenario(tmp_path: Path) -> tuple[Path, list[RecordedCall]]:
    spec = make_world("ferry", 0.05, seed=3)
    calls = record_calls("ferry", spec["state"], seed=3, episodes=2, carry_state=True)[:10]
    world = tmp_path / "ferry.yaml"
    world.write_text(world_yaml(spec), encoding="utf-8")
    return world, calls


def answering(double: OpenAIDouble, calls: list[RecordedCall]) -> Iterator[int]:
    """The double answers the n-th request with the n-th call's real answer (each call here
    asks the model once); the counter starts again for each run."""
    counter = itertools.count()

    def reply(request: RecordedRequest) -> Reply:
        return Reply(content=model_answer(calls[min(next(counter), len(calls) - 1)]))

    double.respond_with(reply)
    return counter


def prompts(double: OpenAIDouble) -> list[Any]:
    return [r.body["messages"] for r in double.completion_requests]


def journal_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(record.to_json()) for record in read_journal(path)]


async def through_python(world: Path, calls: list[RecordedCall], folder: Path, url: str) -> None:
    settings = Settings.of(
        model_url=[url],
        journal=folder / "journal.jsonl",
        cache=folder / "cache.sqlite",
        perturb=PROFILES,
        seed=SEED,
    )
    async with await Worlds.open(world, settings=settings) as worlds:
        episode = await worlds.episode(episode_id=EPISODE)
        for call in calls:
            await episode.call(call.tool, call.arguments)


async def through_serve(world: Path, calls: list[RecordedCall], folder: Path, url: str) -> None:
    argv = [
        *("--model-url", url, "--journal", str(folder / "journal.jsonl")),
        *("--cache", str(folder / "cache.sqlite"), "--seed", str(SEED)),
        *(f"--perturb={name}" for name in PROFILES),
    ]
    with serving_http(world, *argv, log=folder / "serve.log") as mcp_url:
        base = mcp_url.removesuffix("/mcp")
        async with httpx2.AsyncClient(base_url=base) as http:
            created = (await http.post("/episodes", json={"id": EPISODE})).json()
        headers = {"Authorization": f"Bearer {created['token']}"}
        transport = streamable_http_client(
            created["mcp_url"], http_client=httpx2.AsyncClient(headers=headers)
        )
        async with Client(transport) as client:
            for call in calls:
                await client.call_tool(call.tool, call.arguments)


async def test_worlds_open_and_serve_give_the_same_journal_and_prompts(tmp_path: Path) -> None:
    world, calls = scenario(tmp_path)
    runs: dict[str, tuple[list[dict[str, Any]], list[Any]]] = {}
    with OpenAIDouble() as double:
        for name, run in (("python", through_python), ("serve", through_serve)):
            folder = tmp_path / name
            folder.mkdir()
            double.reset()
            answering(double, calls)
            with anyio.fail_after(120):
                await run(world, calls, folder, double.base_url)
            runs[name] = (journal_lines(folder / "journal.jsonl"), prompts(double))
    (python_journal, python_prompts), (served_journal, served_prompts) = runs.values()
    assert len(python_journal) == len(calls) == 10
    assert any(record["perturbations"] for record in python_journal), "no profile fired"
    assert {record["cache"] for record in python_journal} == {"miss"}
    assert json.dumps(python_journal) == json.dumps(served_journal)
    assert python_prompts == served_prompts
    assert len(python_prompts) >= len(calls) - 1
