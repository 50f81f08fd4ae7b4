"""Routing sessions over model replicas: stable, even, cheap to change, and quick to fail over.

The client-level tests run against real HTTP replicas (``tests/openai_double.py``); the whole
path from an MCP client through ``mcp-sim serve`` is in ``tests/e2e/test_model_endpoint.py``.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import anyio
import pytest

from mcp_sim.models.base import CompletionRequest
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
from mcp_sim.models.replicas import Replicas, read_url_file
from tests.openai_double import DEFAULT_MODEL, OpenAIDouble, Reply
from tests.processes import free_port

URLS = [f"http://replica-{i}:8000/v1" for i in range(4)]
KEYS = [f"episode-{i}" for i in range(4000)]


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def preferred(urls: list[str], keys: list[str] = KEYS) -> dict[str, str]:
    replicas = Replicas(urls, cooldown=10)
    return {key: replicas.ranked(key)[0] for key in keys}


def test_sessions_spread_evenly_over_the_replicas() -> None:
    counts = Counter(preferred(URLS).values())
    assert set(counts) == set(URLS)
    assert all(abs(n - len(KEYS) / 4) < len(KEYS) / 4 * 0.15 for n in counts.values())


def test_the_choice_does_not_depend_on_the_order_the_urls_are_given_in() -> None:
    assert preferred(URLS) == preferred(list(reversed(URLS)))


def test_the_choice_is_the_same_in_another_process() -> None:
    script = (
        "from mcp_sim.models.replicas import Replicas\n"
        f"r = Replicas({URLS!r}, cooldown=10)\n"
        f"print(','.join(r.ranked(k)[0] for k in {KEYS[:50]!r}))"
    )
    other = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "12345"},
    )
    assert other.stdout.strip().split(",") == [preferred(URLS)[k] for k in KEYS[:50]]


def test_adding_a_replica_moves_only_the_sessions_it_takes() -> None:
    before = preferred(URLS)
    grown = [*URLS, "http://replica-new:8000/v1"]
    after = preferred(grown)
    moved = [key for key in KEYS if before[key] != after[key]]
    assert all(after[key] == grown[-1] for key in moved)
    assert abs(len(moved) - len(KEYS) / 5) < len(KEYS) / 5 * 0.15


def test_the_sessions_of_a_replica_that_is_down_spread_over_the_others() -> None:
    clock = FakeClock()
    replicas = Replicas(URLS, cooldown=10, clock=clock)
    dead = URLS[0]
    orphans = [key for key in KEYS if replicas.ranked(key)[0] == dead]
    replicas.mark_down(dead)
    landing = Counter(replicas.order(key)[0] for key in orphans)
    assert set(landing) == set(URLS[1:])
    assert min(landing.values()) > len(orphans) / 3 * 0.75
    assert all(replicas.order(key)[-1] == dead for key in orphans)


def test_a_replica_marked_down_comes_first_again_after_the_cooldown() -> None:
    clock = FakeClock()
    replicas = Replicas(URLS, cooldown=10, clock=clock)
    key = next(k for k in KEYS if replicas.ranked(k)[0] == URLS[2])
    replicas.mark_down(URLS[2])
    clock.now += 9
    assert replicas.order(key)[0] != URLS[2] and replicas.down() == [URLS[2]]
    clock.now += 2
    assert replicas.order(key)[0] == URLS[2] and replicas.down() == []


def test_requests_without_a_key_go_round_robin_over_the_replicas_that_are_up() -> None:
    replicas = Replicas(URLS, cooldown=10, clock=FakeClock())
    replicas.mark_down(URLS[1])
    firsts = [replicas.order(None)[0] for _ in range(8)]
    assert URLS[1] not in firsts
    assert set(firsts) == {URLS[0], URLS[2], URLS[3]}


async def test_a_replica_that_refuses_connections_is_skipped_until_its_cooldown_ends() -> None:
    port = free_port()
    flaky_url = f"http://127.0.0.1:{port}/v1"
    answer = Reply(content="ok")
    with OpenAIDouble() as steady:
        steady.respond_with(lambda _: answer)
        settings = EndpointSettings(
            base_urls=[flaky_url, steady.base_url],
            model=DEFAULT_MODEL,
            retries=0,
            down_cooldown=0.5,
        )
        async with OpenAICompatibleModel(settings) as client:
            key = next(k for k in KEYS if client.preferred_endpoint(k) == flaky_url)
            request = CompletionRequest(
                messages=[{"role": "user", "content": "hi"}], routing_key=key
            )
            with anyio.fail_after(10):
                await client.complete(request)  # the flaky replica is not running yet
                assert client.replicas_down == [flaky_url]
                with OpenAIDouble(port=port) as flaky:
                    flaky.respond_with(lambda _: answer)
                    await client.complete(request)
                    assert flaky.completion_requests == []
                    await anyio.sleep(0.6)
                    await client.complete(request)
                    assert len(flaky.completion_requests) == 1
                    assert client.replicas_down == []
        served_by_steady = [r.headers["x-session-id"] for r in steady.completion_requests]
    assert served_by_steady == [key, key]


def test_the_url_file_lists_one_url_per_line_with_comments(tmp_path: Path) -> None:
    listed = tmp_path / "replicas.txt"
    listed.write_text(
        "# the vLLM fleet\nhttp://gpu-1:8000/v1\n\n  http://gpu-2:8000/v1  # rack 2\n",
        encoding="utf-8",
    )
    assert read_url_file(listed) == ["http://gpu-1:8000/v1", "http://gpu-2:8000/v1"]


def test_an_empty_or_missing_url_file_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing yet\n", encoding="utf-8")
    with pytest.raises(ValueError, match="lists no URL"):
        read_url_file(empty)
    with pytest.raises(ValueError, match="cannot read"):
        read_url_file(tmp_path / "absent.txt")
