"""openenv-core's own harness (``CollectRunner``) against ``serve --openenv`` with the world
model failing one episode's order: the rollout reaches the harness's failure path and is left
out of the dataset, the others are collected with their reward."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from tests.conftest import BOOKSTORE
from tests.e2e.harness_venvs import OPENENV, harness_python, run_example
from tests.openai_double import OpenAIDouble, RecordedRequest, Reply
from tests.processes import serving_http
from tests.server.test_episode_routes import book_order

pytestmark = pytest.mark.harness


def test_collect_runner_drops_the_rollout_the_world_model_failed(tmp_path: Path) -> None:
    python = harness_python("openenv", OPENENV)
    orders = 0
    lock = threading.Lock()

    def answer(request: RecordedRequest) -> Reply:
        """The world model is down for the first order only (503, and no retries)."""
        nonlocal orders
        with lock:
            orders += 1
            first = orders == 1
        return Reply(status=503, error="overloaded") if first else Reply(content=book_order())

    output = tmp_path / "rollouts"
    with OpenAIDouble() as double:
        double.respond_with(answer)
        served = serving_http(
            BOOKSTORE,
            "--openenv",
            "--model-url",
            double.base_url,
            "--retries",
            "0",
            log=tmp_path / "serve.log",
        )
        with served as url:
            printed = run_example(
                python, "openenv_collect.py", url.removesuffix("/mcp"), str(output), "3"
            )
    # The runner's progress goes to stdout too; the counts are the last line.
    counts = json.loads(printed.splitlines()[-1])
    assert (counts["collected"], counts["failed"]) == (2, 1)
    assert "failed ep-000000: ValueError: rollout did not produce an environment reward" in printed
    records = [json.loads(line) for line in (output / "results.jsonl").read_text().splitlines()]
    assert [r["reward"] for r in records] == [1.0, 1.0]
