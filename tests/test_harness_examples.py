"""The examples in examples/harness/, each run against the real harness library, installed
from PyPI into its own virtual environment (tests/harness_venvs.py), with a stand-in world
model: openenv-core's client against ``serve --openenv``, an Inspect eval, TRL's environment
class read and driven as GRPOTrainer does, and a GRPO-style group rollout on the Python API.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import BOOKSTORE
from tests.harness_venvs import OPENENV, harness_python, run_example
from tests.openai_double import OpenAIDouble, Reply
from tests.processes import serving_http
from tests.test_episodes_http import book_order

pytestmark = pytest.mark.harness


@pytest.fixture(scope="module")
def world_model() -> Iterator[str]:
    """An OpenAI-compatible stand-in for the world model: every answer is a placed order
    that takes the ordered copies out of stock (the one call of these examples that reaches
    the model; searches are answered by the bookstore's fixtures)."""
    with OpenAIDouble() as double:
        double.respond_with(lambda request: Reply(content=book_order()))
        yield double.base_url


def test_openenv_core_client_rolls_out_two_episodes_at_once(
    tmp_path: Path, world_model: str
) -> None:
    python = harness_python("openenv", OPENENV)
    served = serving_http(
        BOOKSTORE, "--openenv", "--model-url", world_model, log=tmp_path / "serve.log"
    )
    with served as url:
        printed = run_example(python, "openenv_client.py", url.removesuffix("/mcp"))
    rollouts = [json.loads(line) for line in printed.splitlines()]
    assert [r["seed"] for r in rollouts] == [1, 2]
    assert rollouts[0]["episode"] != rollouts[1]["episode"]
    for rollout in rollouts:
        assert rollout["tools"] == ["search_books", "get_book", "place_order", "cancel_order"]
        assert rollout["found"] == ["b1", "b2"]
        assert (rollout["done"], rollout["reward"], rollout["steps"]) == (True, 1.0, 2)
