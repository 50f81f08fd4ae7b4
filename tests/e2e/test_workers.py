"""Workers behind a real load balancer, with real stores: two ``mcp-sim serve`` processes
sharing a Redis episode store behind HAProxy (the shipped configuration), 200 episodes
driven through their URLs with the SDK's client, and one worker killed with SIGKILL in the
middle: every episode goes on from its last committed call on the other worker. And one
server on an SQLite store, killed and started again, resumes all its episodes.

"Goes on exactly" is checked against a server that was never interrupted: its model answers
are a function of the prompt (a digest of everything the model is shown, and the seed), so
the same journal means the same state, history, clock, ids and randomness at every call.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from prometheus_client.parser import text_string_to_metric_families

from tests.openai_double import OpenAIDouble, RecordedRequest, Reply
from tests.processes import ROOT, free_port, stop, wait_for_port
from tests.scripted_model import ScriptedModel
from tests.services import haproxy, redis_server

SHOP = ROOT / "worlds" / "shop.yaml"
OPERATOR = "operator-s3cret"
EPISODES = 200
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("create_order", {"customer": "ola@example.no", "sku": "p-tent2", "quantity": 1}),
    ("list_orders", {}),
    ("update_order", {"order_id": "ord_1001", "status": "shipped"}),
    ("get_order", {"order_id": "ord_1001"}),
]


def digest_reply(request: RecordedRequest) -> Reply:
    """The model's answer: a function of the prompt and the seed (see the module docstring);
    write calls also commit it to the state."""
    text = json.dumps([request.body["messages"], request.body.get("seed")], sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    stock = int(digest, 16) % 9
    patch = [{"op": "replace", "path": "/products/1/stock", "value": stock}]
    return Reply(content=ScriptedModel.answer({"digest": digest, "stock": stock}, patch))


@pytest.fixture
def model() -> Iterator[OpenAIDouble]:
    with OpenAIDouble() as double:
        double.respond_with(digest_reply)
        yield double


@contextmanager
def worker(port: int, model_url: str, log: Path, *store: str) -> Iterator[subprocess.Popen[bytes]]:
    """``mcp-sim serve`` of the shop world on ``port`` (every worker the same --seed)."""
    command = [sys.executable, "-m", "mcp_sim", "serve", str(SHOP), "--http", f"127.0.0.1:{port}"]
    command += ["--model-url", model_url, "--seed", "11", "--auth-token", OPERATOR, *store]
    with log.open("ab") as stderr:  # the child keeps its own copy
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr, cwd=ROOT)
    try:
        wait_for_port(port, process, f"mcp-sim serve on {port}")
        yield process
    finally:
        stop(process)


@dataclass
class Driven:
    """One episode as its client saw it."""

    id: str
    url: str
    token: str
    answered: int = 0
    failed: list[str] = field(default_factory=list)


async def create(base: str, episode_id: str, seed: int) -> Driven:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {OPERATOR}"}) as http:
        made = await http.post(f"{base}/episodes", json={"id": episode_id, "seed": seed})
    assert made.status_code == 201, made.text
    body = made.json()
    return Driven(episode_id, body["mcp_url"], body["token"])


async def drive(episode: Driven, calls: list[tuple[str, dict[str, Any]]]) -> None:
    """Make ``calls`` on the episode's URL; a call that fails is noted, and the next one goes
    on with a new client (the worker it spoke to may be gone)."""
    remaining = list(calls)
    while remaining:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {episode.token}"})
        try:
            async with Client(streamable_http_client(episode.url, http_client=http)) as client:
                while remaining:
                    tool, arguments = remaining.pop(0)
                    result = await client.call_tool(tool, arguments)
                    assert not result.is_error, result
                    episode.answered += 1
        except Exception as exc:
            episode.failed.append(described(exc))


def described(exc: BaseException) -> str:
    """What went wrong, past the task groups' exception groups."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"


async def journal(base: str, episode: Driven) -> list[dict[str, Any]]:
    # The journal is the operator's: an episode's own token opens only its MCP endpoint.
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {OPERATOR}"}) as http:
        got = await http.get(f"{base}/episodes/{episode.id}/journal")
    assert got.status_code == 200, got.text
    return [json.loads(line) for line in got.text.splitlines()]


async def uninterrupted(
    model_url: str, log: Path, episodes: dict[str, list[dict[str, Any]]]
) -> dict[str, list[dict[str, Any]]]:
    """The journals a server that was never interrupted writes for the same episodes (same ids
    and seeds) and the same calls, made in the order of ``episodes``' journals."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with worker(port, model_url, log):
        made = {i: await create(base, i, seed) for seed, i in enumerate(episodes)}

        limiter = anyio.CapacityLimiter(40)

        async def replay(episode_id: str) -> None:
            calls = [(r["tool"], r["arguments"]) for r in episodes[episode_id]]
            async with limiter:
                await drive(made[episode_id], calls)

        async with anyio.create_task_group() as tg:
            for episode_id in episodes:
                tg.start_soon(replay, episode_id)
        assert [e.failed for e in made.values() if e.failed] == []
        return {i: await journal(base, e) for i, e in made.items()}


def differences(got: list[dict[str, Any]], expected: list[dict[str, Any]]) -> str:
    """Where two journals part: the first step that differs, field by field."""
    for step, (a, b) in enumerate(zip(got, expected, strict=False), 1):
        if a != b:
            return f"step {step}: " + str(
                {k: (a.get(k), b.get(k)) for k in a | b if a.get(k) != b.get(k)}
            )
    return f"{len(got)} steps against {len(expected)}"


async def test_200_episodes_survive_a_worker_killed_behind_haproxy(
    tmp_path: Path, model: OpenAIDouble
) -> None:
    log = tmp_path / "workers.log"
    ports = [free_port(), free_port()]
    lease = ["--episode-lease", "2"]
    with anyio.fail_after(240), redis_server(tmp_path) as store:
        with (
            worker(ports[0], model.base_url, log, "--episode-store", store, *lease) as doomed,
            worker(ports[1], model.base_url, log, "--episode-store", store, *lease),
            haproxy(tmp_path, ports) as base,
        ):
            await anyio.sleep(1.5)  # HAProxy's first health checks
            episodes = [await create(base, f"ep-{i:03d}", i) for i in range(EPISODES)]
            assert len({e.url.split("/episodes/")[0] for e in episodes}) == 1  # the balancer's
            limiter = anyio.CapacityLimiter(40)

            async def run(episode: Driven, calls: list[tuple[str, dict[str, Any]]]) -> None:
                async with limiter:
                    await drive(episode, calls)

            async with anyio.create_task_group() as tg:
                for episode in episodes:
                    tg.start_soon(run, episode, CALLS[:2])
            assert [e.failed for e in episodes if e.failed] == []
            async with anyio.create_task_group() as tg:
                for episode in episodes:
                    tg.start_soon(run, episode, CALLS[2:])
                while sum(e.answered for e in episodes) < 2 * EPISODES + EPISODES * 3 // 4:
                    await anyio.sleep(0.01)
                doomed.kill()  # SIGKILL, mid-run: calls are in flight on it
            journals = {e.id: await journal(base, e) for e in episodes}
        expected = await uninterrupted(model.base_url, log, journals)

    failed = [e for e in episodes if e.failed]
    for episode in episodes:
        steps = [r["step"] for r in journals[episode.id]]
        # Every answered call is in the journal; a failed one (in flight at the kill) may be,
        # if the dead worker committed it before it died, or not.
        assert steps == list(range(1, len(steps) + 1)), episode.id
        assert episode.answered <= len(steps) <= episode.answered + len(episode.failed)
        assert len(episode.failed) <= 1, episode.failed
        assert journals[episode.id] == expected[episode.id], differences(
            journals[episode.id], expected[episode.id]
        )
    # Only calls in flight on the dead worker can fail, and their clients hear why. Whether
    # the kill catches any in flight is down to timing (CI once saw none), so none is allowed.
    assert len(failed) < EPISODES // 2
    assert all(message.strip() for e in failed for message in e.failed)
    assert all(len(j) >= 3 for j in journals.values())


async def test_a_restarted_sqlite_server_resumes_all_its_episodes(
    tmp_path: Path, model: OpenAIDouble
) -> None:
    log = tmp_path / "server.log"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    store = ["--episode-store", f"sqlite:///{tmp_path / 'episodes.db'}"]
    with anyio.fail_after(180):
        with worker(port, model.base_url, log, *store) as first:
            episodes = [await create(base, f"ep-{i:02d}", i) for i in range(20)]
            async with anyio.create_task_group() as tg:
                for episode in episodes:
                    tg.start_soon(drive, episode, CALLS[:2])
            first.kill()
            first.wait()
        with worker(port, model.base_url, log, *store):
            async with anyio.create_task_group() as tg:
                for episode in episodes:
                    tg.start_soon(drive, episode, CALLS[2:])
            journals = {e.id: await journal(base, e) for e in episodes}
        expected = await uninterrupted(model.base_url, log, journals)
    assert all(e.answered == len(CALLS) and not e.failed for e in episodes)
    for episode in episodes:
        assert journals[episode.id] == expected[episode.id], differences(
            journals[episode.id], expected[episode.id]
        )
    assert all([r["step"] for r in j] == [1, 2, 3, 4] for j in journals.values())


async def test_metrics_of_two_workers_add_up_to_the_calls_made(
    tmp_path: Path, model: OpenAIDouble
) -> None:
    """Each worker exposes only its own calls; Prometheus sums the workers' histogram buckets
    and counters, so summed they must count every call made through the balancer."""
    log = tmp_path / "workers.log"
    ports = [free_port(), free_port()]
    episodes_made, calls = 12, CALLS[:3]
    with (
        anyio.fail_after(120),
        redis_server(tmp_path) as store,
        worker(ports[0], model.base_url, log, "--episode-store", store),
        worker(ports[1], model.base_url, log, "--episode-store", store),
        haproxy(tmp_path, ports) as base,
    ):
        await anyio.sleep(1.5)  # HAProxy's first health checks
        episodes = [await create(base, f"m-{i:02d}", i) for i in range(episodes_made)]
        for episode in episodes:
            await drive(episode, calls)
        assert [e.failed for e in episodes if e.failed] == []
        scraped = [await scrape(port) for port in ports]
    made = episodes_made * len(calls)
    count = "mcp_sim_call_latency_seconds_count"
    assert sum(s[count] for s in scraped) == made
    assert sum(s['mcp_sim_call_latency_seconds_bucket{le="+Inf"}'] for s in scraped) == made
    assert all(s[count] > 0 for s in scraped), "the balancer sent every call to one worker"
    by_bucket: dict[str, float] = {}
    for samples in scraped:
        for name, value in samples.items():
            if name.startswith("mcp_sim_call_latency_seconds_bucket"):
                by_bucket[name] = by_bucket.get(name, 0) + value
    assert max(by_bucket.values()) == made
    answered = [k for k in scraped[0] if k.startswith("mcp_sim_tool_calls_total")]
    assert sum(s.get(k, 0) for s in scraped for k in answered) == made


async def scrape(port: int) -> dict[str, float]:
    """One worker's /metrics (not through the balancer), read by prometheus_client's parser."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {OPERATOR}"}) as http:
        got = await http.get(f"http://127.0.0.1:{port}/metrics")
    assert got.status_code == 200, got.text
    samples: dict[str, float] = {}
    for family in text_string_to_metric_families(got.text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            samples[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return samples
