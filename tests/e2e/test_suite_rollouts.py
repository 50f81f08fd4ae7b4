"""A suite's exported rows, loaded with the `datasets` library, each driving one rollout to a
reward: a TRL row through mcp-sim's TRL environment class (written by ``mcp-sim harness trl``
for the row's world, in a venv with transformers), an OpenEnv row through openenv-core's
client on ``mcp-sim serve SUITE/ --openenv``. The examples in examples/harness/ are what run.

The stand-in model (``stub:FILE``) answers each call as the task's reference solution pins it,
so the solution's calls must earn 1.0 and fewer calls less: what is tested is that the row reaches
the episode of its world and task and that the harness reads the verdict, not the model.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_sim.suites.export import export_suite
from mcp_sim.suites.layout import SuiteLayout
from tests.conftest import ROOT
from tests.e2e.harness_venvs import DATASETS, OPENENV, TRANSFORMERS, harness_python, run_example
from tests.processes import serving_http
from tests.suites.suite_builds import small_suite

pytestmark = pytest.mark.harness


class Rollout:
    """A suite with its rows exported in a format, the first train row's world and task, the
    calls of that task's reference solution, and a stand-in model script answering them."""

    def __init__(self, root: Path, fmt: str) -> None:
        self.layout: SuiteLayout = anyio.run(small_suite, root, ("ticket", "parcel"))
        self.rows = root / "rows" / "train.jsonl"
        export_suite(self.layout, "trl" if fmt == "trl" else "openenv", self.rows.parent)
        row = json.loads(self.rows.read_text().splitlines()[0])
        self.world: str = row["world"]
        self.task: str = row["task"]
        steps = self.layout.item(self.world).solutions()[self.task]
        self.calls = json.dumps([[s.tool, s.arguments] for s in steps])
        # A structured tool's pinned answer is its JSON text; the script takes the value.
        script = [
            {
                "tool": s.tool,
                "arguments": s.arguments,
                "answer": json.loads(s.answer),
                "patch": s.patch,
            }
            for s in steps
        ]
        self.script = root / "answers.json"
        self.script.write_text(json.dumps(script))

    @property
    def world_file(self) -> Path:
        return self.layout.item(self.world).folder / "world.yaml"


def _clean_env() -> dict[str, str]:
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "MCP_SIM_MODEL_URL")
    return {k: v for k, v in os.environ.items() if k not in drop}


def test_a_trl_row_drives_a_rollout_through_the_trl_class_of_its_world(tmp_path: Path) -> None:
    python = harness_python("trl-datasets", (*TRANSFORMERS, *DATASETS), with_mcp_sim=True)
    rollout = Rollout(tmp_path, "trl")
    folder = tmp_path / "trainer"
    folder.mkdir()
    write = [str(python), "-m", "mcp_sim", "harness", "trl", str(rollout.world_file)]
    write += ["--model-url", f"stub:{rollout.script}", "-o", "suite_environment.py"]
    env = _clean_env()
    subprocess.run(write, cwd=folder, env=env, check=True, capture_output=True, timeout=120)
    shutil.copy(ROOT / "examples" / "harness" / "suite_trl_rollout.py", folder)

    def run(calls: str) -> dict[str, Any]:
        args = [str(rollout.rows), rollout.world, rollout.task, calls]
        done = subprocess.run(
            [str(python), "suite_trl_rollout.py", *args],
            cwd=folder, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout.strip().splitlines()[-1]))

    solved, idle = run(rollout.calls), run("[]")
    world = rollout.layout.item(rollout.world).world()
    assert sorted(solved["tools"]) == sorted(t.name for t in world.tools)
    assert solved["prompt"] == world.verify[rollout.task].description
    assert len(solved["observations"]) == len(json.loads(rollout.calls))
    assert (solved["reward"], idle["reward"]) == (1.0, 0.0)


def test_an_openenv_row_drives_a_rollout_through_openenv_cores_client(tmp_path: Path) -> None:
    python = harness_python("openenv-datasets", (*OPENENV, *DATASETS))
    rollout = Rollout(tmp_path, "openenv")
    args = ("--openenv", "--model-url", f"stub:{rollout.script}")
    with serving_http(rollout.layout.root, *args, log=tmp_path / "serve.log") as url:
        base = url.removesuffix("/mcp")
        common = (base, str(rollout.rows), rollout.world, rollout.task)
        solved = json.loads(run_example(python, "suite_openenv_rollout.py", *common, rollout.calls))
        calls = json.loads(rollout.calls)
        looked = json.dumps(calls[:1])  # the listing alone: nothing cancelled
        partial = json.loads(run_example(python, "suite_openenv_rollout.py", *common, looked))
    assert solved["world"] == rollout.world and solved["steps"] == len(calls)
    assert len(solved["rewards"]) == len(calls) and solved["reward"] == pytest.approx(1.0)
    assert (
        solved["instruction"]
        == rollout.layout.item(rollout.world).world().verify[rollout.task].description
    )
    assert (partial["rewards"], partial["reward"]) == ([0.0], 0.0)
