"""A suite served by two ``mcp-sim serve SUITE/`` workers sharing a real Redis episode store
behind HAProxy (the shipped configuration): episodes are made through the balancer on every
world, each one's calls go to both workers (so each loads worlds it never made an episode
of), forks and resets made on one worker are seen on the other, and every verdict is what
the reference solution earns. The stand-in model answers as the solutions pin it (a
``stub:`` script), so a verdict says whether the calls and their state changes were kept."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from tests.processes import ROOT, free_port, stop, wait_for_port
from tests.server.test_episode_routes import mcp_client
from tests.services import haproxy, redis_server
from tests.suites.suite_builds import small_suite
from tests.suites.test_suite_workers import solving_script

pytestmark = pytest.mark.anyio
OPERATOR = "operator-s3cret"
NOUNS = ("ticket", "parcel", "booking", "invoice", "lease", "permit")
EPISODES = 12


@contextmanager
def suite_worker(suite: Path, port: int, *options: str) -> Iterator[str]:
    """``mcp-sim serve SUITE/`` on ``port``; yields its base URL."""
    command = [sys.executable, "-m", "mcp_sim", "serve", str(suite), "--http", f"127.0.0.1:{port}"]
    command += ["--auth-token", OPERATOR, *options]
    with (suite.parent / f"worker-{port}.log").open("ab") as stderr:  # the child keeps a copy
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr, cwd=ROOT)
    try:
        wait_for_port(port, process, f"mcp-sim serve on {port}")
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)


async def call(base: str, episode: dict[str, Any], tool: str, arguments: dict[str, Any]) -> None:
    """One call on the episode's MCP endpoint at worker (or balancer) ``base``."""
    async with mcp_client(f"{base}/episodes/{episode['id']}/mcp", episode["token"]) as client:
        result = await client.call_tool(tool, arguments)
    assert not result.is_error, result


async def reward(http: httpx2.AsyncClient, base: str, episode_id: str) -> float:
    verdict = await http.post(f"{base}/episodes/{episode_id}/verify")
    assert verdict.status_code == 200, verdict.text
    return float(verdict.json()["reward"])


async def test_two_workers_on_redis_serve_a_suite_behind_haproxy(tmp_path: Path) -> None:
    layout = await small_suite(tmp_path, NOUNS)
    script = tmp_path / "script.json"
    script.write_text(json.dumps(solving_script(layout)), encoding="utf-8")
    worlds = sorted(item.folder.name for item in layout.items())
    ports = [free_port(), free_port()]
    with (
        redis_server(tmp_path) as store,
        suite_worker(
            layout.root, ports[0], "--episode-store", store, "--model-url", f"stub:{script}"
        ) as first,
        suite_worker(
            layout.root, ports[1], "--episode-store", store, "--model-url", f"stub:{script}"
        ) as second,
        haproxy(tmp_path, ports) as balancer,
    ):
        workers = (first, second)
        headers = {"Authorization": f"Bearer {OPERATOR}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            with anyio.fail_after(120):
                made = []
                for i in range(EPISODES):
                    noun = NOUNS[i % len(NOUNS)]
                    task = f"cancel-{noun[0]}{1 + i // len(NOUNS)}"
                    body = {"world": f"desk-{noun}", "task": task}
                    created = await http.post(f"{balancer}/episodes", json=body)
                    assert created.status_code == 201, created.text
                    made.append((noun, task, created.json()))
                for i, (noun, task, episode) in enumerate(made):
                    # The first call on one worker, the second on the other.
                    here, there = workers[i % 2], workers[1 - i % 2]
                    await call(here, episode, f"list_{noun}s", {})
                    await call(there, episode, f"cancel_{noun}", {f"{noun}_id": task[7:]})
                for worker in workers:
                    listed = (await http.get(f"{worker}/episodes")).json()
                    assert sorted(listed["worlds"]) == worlds, "each worker loaded every world"
                rewards = [await reward(http, balancer, e["id"]) for _, _, e in made]
                assert rewards == [1.0] * EPISODES
                _, _, episode = made[0]
                forked = await http.post(f"{first}/episodes/{episode['id']}/fork", json={})
                assert forked.status_code == 201, forked.text
                assert await reward(http, second, forked.json()["id"]) == 1.0
                reset = await http.post(f"{second}/episodes/{episode['id']}/reset", json={})
                assert reset.status_code == 200, reset.text
                assert await reward(http, first, episode["id"]) == 0.0
                assert await reward(http, first, forked.json()["id"]) == 1.0
