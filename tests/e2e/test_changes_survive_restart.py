"""Every kind of change made over HTTP to episodes on an SQLite store survives the server
being killed (SIGKILL) and started again: a reset by the episode API, a fork, and a snapshot
restored as a new episode each read, after the restart, exactly as before it (journal, state
and summary, the time waited on the model included). (The ``sim_*`` tools are not offered on
an episode's endpoint; their reset is covered in process by
tests/episodes/test_durable_changes.py.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx2

from tests.e2e.test_workers import CALLS, OPERATOR, Driven, create, digest_reply, drive, worker
from tests.openai_double import OpenAIDouble
from tests.processes import free_port


async def by_api(base: str, episode: Driven) -> Driven:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {OPERATOR}"}) as http:
        reset = await http.post(f"{base}/episodes/{episode.id}/reset", json={"seed": 4})
    assert reset.status_code == 200, reset.text
    return episode


async def by_fork(base: str, episode: Driven) -> Driven:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {OPERATOR}"}) as http:
        made = await http.post(f"{base}/episodes/{episode.id}/fork", json={"seed": 5})
    assert made.status_code == 201, made.text
    return Driven(made.json()["id"], made.json()["mcp_url"], made.json()["token"])


async def by_restore(base: str, episode: Driven) -> Driven:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {OPERATOR}"}) as http:
        taken = await http.post(f"{base}/episodes/{episode.id}/snapshot")
        made = await http.post(f"{base}/episodes", json={"snapshot": taken.json(), "seed": 6})
    assert made.status_code == 201, made.text
    return Driven(made.json()["id"], made.json()["mcp_url"], made.json()["token"])


async def read(base: str, episode: Driven) -> tuple[Any, ...]:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {OPERATOR}"}) as http:
        answers = [
            await http.get(f"{base}/episodes/{episode.id}{path}")
            for path in ("/journal", "/state", "")
        ]
    assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
    return answers[0].text, answers[1].json(), answers[2].json()


async def test_resets_forks_and_restores_survive_a_killed_server(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    store = ["--episode-store", f"sqlite:///{tmp_path / 'episodes.db'}"]
    changes = [by_api, by_fork, by_restore]
    with OpenAIDouble() as model, anyio.fail_after(120):
        model.respond_with(digest_reply)
        with worker(port, model.base_url, tmp_path / "log", *store) as first:
            changed = []
            for n, change in enumerate(changes):
                episode = await create(base, f"e{n}", n)
                await drive(episode, CALLS[:2])
                changed.append(await change(base, episode))
                await drive(changed[-1], CALLS[2:3])
            before = [await read(base, e) for e in changed]
            assert all(not e.failed for e in changed)
            first.kill()
            first.wait()
        with worker(port, model.base_url, tmp_path / "log", *store):
            after = [await read(base, e) for e in changed]
    assert after == before
    steps = [[json.loads(line)["step"] for line in j.splitlines()] for j, *_ in after]
    # A reset starts the journal over; a fork keeps its parent's calls; a restored snapshot
    # goes on counting from where it was taken.
    assert steps == [[1], [1, 2, 3], [3]]
