"""The examples in examples/harness/, each run against the real harness library, installed
from PyPI into its own virtual environment (tests/e2e/harness_venvs.py), with a stand-in world
model: openenv-core's client against ``serve --openenv``, an Inspect eval over episodes, TRL's
environment class read and driven as GRPOTrainer does, and a GRPO-style group rollout on the
Python API.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from mcp_sim.harness.inspect_shim import inspect_task_source
from mcp_sim.harness.trl_shim import trl_dataset_rows, trl_environment_source
from mcp_sim.spec.loading import load_world
from tests.conftest import BOOKSTORE, ROOT
from tests.e2e.harness_venvs import INSPECT, OPENENV, TRANSFORMERS, harness_python, run_example
from tests.openai_double import OpenAIDouble, RecordedRequest, Reply
from tests.processes import serving_http
from tests.server.test_episode_routes import book_order

pytestmark = pytest.mark.harness


@pytest.fixture(scope="module")
def world_model() -> Iterator[str]:
    """An OpenAI-compatible stand-in for the world model: every answer is a placed order
    that takes the ordered copies out of stock (the one call of these examples that reaches
    the model; searches are answered by the bookstore's fixtures), and every rubric it is
    asked to judge passes."""

    def answer(request: RecordedRequest) -> Reply:
        schema = request.body.get("response_format", {}).get("json_schema", {})
        if schema.get("name") == "verdict":
            return Reply(content=json.dumps({"passed": True, "reason": JUDGED}))
        return Reply(content=book_order())

    with OpenAIDouble() as double:
        double.respond_with(answer)
        yield double.base_url


JUDGED = "The agent said Paperlane does not ship to Antarctica."


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


def test_the_inspect_example_task_is_what_the_generator_writes() -> None:
    written = (ROOT / "examples" / "harness" / "inspect_task.py").read_text(encoding="utf-8")
    world = load_world(BOOKSTORE)
    assert written == inspect_task_source(
        world, world_file="worlds/bookstore.yaml", server_url="http://127.0.0.1:8765"
    ), "regenerate it: mcp-sim harness inspect worlds/bookstore.yaml -o examples/harness/..."


def test_inspect_eval_scores_every_sample_by_the_verdict_on_its_own_episode(
    tmp_path: Path, world_model: str
) -> None:
    python = harness_python("inspect", INSPECT)
    served = serving_http(BOOKSTORE, "--model-url", world_model, log=tmp_path / "serve.log")
    with served as url:
        server = url.removesuffix("/mcp")
        printed = run_example(
            python, "inspect_eval.py", MCP_SIM_URL=server, INSPECT_LOG_DIR=str(tmp_path)
        )
        left = httpx2.get(f"{server}/episodes", trust_env=False).json()["episodes"]
    *samples, metrics = (json.loads(line) for line in printed.splitlines())
    assert sorted((s["task"], s["epoch"]) for s in samples) == [
        ("gift-order", 1),
        ("gift-order", 2),
        ("no-antarctica", 1),
        ("no-antarctica", 2),
    ]
    assert len({s["episode"] for s in samples}) == 4 and left == []
    for sample in samples:
        assert sample["reason"] is None and sample["simulation"]["model_errors"] == 0
        assert set(sample["usage"]) == {"prompt_tokens", "completion_tokens", "model_seconds"}
        decided = [c for c in sample["checks"] if c["passed"] is not None]
        passed = sum(c["weight"] for c in decided if c["passed"])
        assert sample["reward"] == pytest.approx(passed / sum(c["weight"] for c in decided))
        failed = [c["name"] for c in sample["checks"] if not c["passed"]]
        if sample["task"] == "gift-order":
            assert failed == ["never tried the sold-out book"] and sample["reward"] == 0.8
            searched, refused, ordered = sample["tools"]
            assert "The Glass River" in searched[1] and "out_of_stock" in refused[1]
            assert ordered == ["place_order", '{"order_id": "ord_00042", "status": "placed"}']
        else:
            assert failed == [] and sample["reward"] == 1.0
            assert sample["checks"][0]["detail"] == f"judged: {JUDGED}"
    assert metrics["mean"] == pytest.approx(0.9)


def test_inspect_leaves_out_the_samples_a_world_model_outage_answered(tmp_path: Path) -> None:
    """With the world model down, gift-order's order (the one call it answers) fails: the
    verdict is invalid, the score unscored (NaN, reason scoring_failed), and Inspect's mean is
    no-antarctica's alone, whose calls the fixtures answered."""
    python = harness_python("inspect", INSPECT)
    served = serving_http(BOOKSTORE, "--model-url", UNREACHABLE, log=tmp_path / "serve.log")
    with served as url:
        printed = run_example(
            python,
            "inspect_eval.py",
            MCP_SIM_URL=url.removesuffix("/mcp"),
            INSPECT_LOG_DIR=str(tmp_path),
        )
    *samples, metrics = (json.loads(line) for line in printed.splitlines())
    for sample in samples:
        if sample["task"] == "gift-order":
            assert math.isnan(sample["reward"]) and sample["reason"] == "scoring_failed"
            assert sample["simulation"]["model_errors"] == 1
        else:
            assert sample["reward"] >= 0 and sample["simulation"]["model_errors"] == 0
    answered = [s["reward"] for s in samples if s["task"] == "no-antarctica"]
    assert metrics["mean"] == pytest.approx(sum(answered) / len(answered))


def test_the_trl_example_class_and_dataset_are_what_the_generator_writes() -> None:
    folder = ROOT / "examples" / "harness"
    written = (folder / "trl_environment.py").read_text(encoding="utf-8")
    world = load_world(BOOKSTORE)
    regenerate = (
        "regenerate them: mcp-sim harness trl --example bookstore --model-url "
        "http://127.0.0.1:8000/v1 -o examples/harness/trl_environment.py "
        "--dataset examples/harness/trl_tasks.jsonl"
    )
    assert written == trl_environment_source(
        world, "http://127.0.0.1:8000/v1", example="bookstore"
    ), regenerate
    rows = (folder / "trl_tasks.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(row) for row in rows] == trl_dataset_rows(world), regenerate


def test_trl_environment_class_is_driven_as_grpo_trainer_drives_it(world_model: str) -> None:
    python = harness_python("trl", TRANSFORMERS, with_mcp_sim=True)
    printed = run_example(python, "trl_rollout.py", MCP_SIM_MODEL_URL=world_model)
    first, second, untasked = (json.loads(line) for line in printed.splitlines())
    schemas = {s["function"]["name"]: s["function"] for s in first["schemas"]}
    assert sorted(schemas) == ["cancel_order", "get_book", "place_order", "search_books"]
    search = schemas["search_books"]["parameters"]
    assert search["required"] == ["query"]
    assert search["properties"]["max_results"]["type"] == "integer"
    assert schemas["place_order"]["description"].startswith("Place an order")
    # The dataset's prompt is the task's description: reset does not append it again.
    assert first["prompts"] == [load_world(BOOKSTORE).verify["gift-order"].description] * 4
    # The last rollout only looks: it orders nothing, and earns nothing for the sold-out
    # book it did not try (that check requires the order).
    assert first["rewards"] == [1.0, 1.0, 0.0, 0.0], second
    assert "out_of_stock" in second["observations"][2][0]
    # A row without a task column is scored on a task all the same (one rule for both).
    assert isinstance(untasked["untasked"]["reward"], float)


def test_trl_masks_the_rollouts_a_world_model_outage_answered() -> None:
    """TRL 1.16 turns a None from get_reward into NaN and leaves it out of the rollout's
    reward: rollouts whose calls the (unreachable) world model could not answer get None;
    the one answered by fixtures alone keeps its reward."""
    python = harness_python("trl", TRANSFORMERS, with_mcp_sim=True)
    printed = run_example(python, "trl_rollout.py", MCP_SIM_MODEL_URL=UNREACHABLE)
    first, second, _ = (json.loads(line) for line in printed.splitlines())
    assert first["rewards"] == [None, None, 0.0, None], second
    assert "could not simulate place_order" in second["observations"][0][1]


UNREACHABLE = "http://127.0.0.1:9/v1"
"""A world model that is down: nothing listens on the discard port."""


def test_the_trl_class_of_an_example_runs_in_a_fresh_folder_with_its_dataset(
    tmp_path: Path,
) -> None:
    """Written by the installed mcp-sim into an empty folder with `--example bookstore`, the
    class and its dataset need neither the checkout nor a world file beside them; the stand-in
    model answers, so the run needs no network."""
    python = harness_python("trl", TRANSFORMERS, with_mcp_sim=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.pop("MCP_SIM_MODEL_URL", None)
    write = [str(python), "-m", "mcp_sim", "harness", "trl", "--example", "bookstore"]
    write += ["--model-url", "stub:", "-o", "trl_environment.py", "--dataset", "trl_tasks.jsonl"]
    subprocess.run(write, cwd=tmp_path, env=env, check=True, capture_output=True, timeout=120)
    shutil.copy(ROOT / "examples" / "harness" / "trl_rollout.py", tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "trl_environment.py",
        "trl_rollout.py",
        "trl_tasks.jsonl",
    ]
    source = (tmp_path / "trl_environment.py").read_text(encoding="utf-8")
    assert str(ROOT) not in source and "yaml" not in source
    done = subprocess.run(
        [str(python), "trl_rollout.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    first, _, untasked = (json.loads(line) for line in done.stdout.splitlines())
    assert len(first["schemas"]) == 4 and len(first["rewards"]) == 4
    assert all(isinstance(r, float) for r in [*first["rewards"], untasked["untasked"]["reward"]])


def test_grpo_group_rollout_forks_one_snapshot_eight_ways_and_scores_each(
    world_model: str,
) -> None:
    printed = run_example(Path(sys.executable), "grpo_group_rollout.py", world_model)
    group = json.loads(printed)
    assert group["prefix_steps"] == 1 and len(set(group["branches"])) == 8
    rewards = group["rewards"]
    assert [rewards[i] for i in (0, 2, 4, 6)] == [1.0] * 4
    assert all(r < 1.0 for r in (rewards[1], rewards[3], rewards[5], rewards[7]))
    assert sum(group["advantages"]) == pytest.approx(0, abs=1e-5)
