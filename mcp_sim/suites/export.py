"""``mcp-sim suite export``: a suite's tasks as dataset rows a harness reads as they are, one
row per task (world, task id, instruction), in ``train.jsonl`` and ``test.jsonl`` as the
manifest splits them, with a loader example beside them.

- ``trl``: ``prompt`` (the instruction as the user's message), ``world`` and ``task``, the
  columns GRPOTrainer passes to an environment's ``reset``;
- ``verifiers``: ``question`` and ``info`` (``{"world", "task"}``), as a verifiers environment's
  dataset has them;
- ``openenv``: ``world``, ``task`` and ``instruction``: the body of ``POST /episodes`` and what
  the agent is told.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from mcp_sim.suites.layout import SuiteLayout
from mcp_sim.suites.manifest import read_manifest

ExportFormat = Literal["trl", "verifiers", "openenv"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("trl", "verifiers", "openenv")
SPLITS = ("train", "test")

_LOADERS: dict[ExportFormat, str] = {
    "trl": '''\
"""The suite's tasks for TRL's GRPOTrainer: a row's world and task reach reset(**row) of
mcp-sim's environment class for that world (mcp-sim harness trl SUITE/worlds/WORLD/world.yaml),
which opens an episode of the task; the class's methods are the world's tools, so a trainer
on one world reads that world's rows."""
from datasets import load_dataset

rows = load_dataset("json", data_files={"train": "train.jsonl", "test": "test.jsonl"})
print(rows["train"][0]["prompt"], rows["train"][0]["world"], rows["train"][0]["task"])
# world = rows["train"].filter(lambda row: row["world"] == "WORLD")
# trainer = GRPOTrainer(..., train_dataset=world, environment_factory=TheWorldsClass)
''',
    "verifiers": '''\
"""The suite's tasks for a verifiers environment: `question` is the prompt, `info` names the
world and task the rollout opens an episode of on `mcp-sim serve SUITE/`."""
from datasets import load_dataset

rows = load_dataset("json", data_files={"train": "train.jsonl", "test": "test.jsonl"})
print(rows["train"][0]["question"], rows["train"][0]["info"])
# env = vf.ToolEnv(dataset=rows["train"], eval_dataset=rows["test"], ...)
''',
    "openenv": '''\
"""The suite's tasks for an OpenEnv launcher: each row's world and task are the options of
OpenEnv's reset on `mcp-sim serve SUITE/ --openenv` (or the body of POST /episodes), and its
instruction is what the agent is given."""
from datasets import load_dataset

rows = load_dataset("json", data_files={"train": "train.jsonl", "test": "test.jsonl"})
row = rows["train"][0]
print({"world": row["world"], "task": row["task"]}, row["instruction"])
''',
}


def task_row(fmt: ExportFormat, world: str, task: str, instruction: str) -> dict[str, Any]:
    if fmt == "trl":
        return {"prompt": [{"role": "user", "content": instruction}], "world": world, "task": task}
    if fmt == "verifiers":
        return {"question": instruction, "info": {"world": world, "task": task}}
    return {"world": world, "task": task, "instruction": instruction}


def export_suite(layout: SuiteLayout, fmt: ExportFormat, out: Path) -> dict[str, int]:
    """Write the rows and the loader example to ``out``; the number of rows per split."""
    rows: dict[str, list[dict[str, Any]]] = {split: [] for split in SPLITS}
    for world in read_manifest(layout)["worlds"]:
        for task in world["tasks"]:
            instruction = task["instruction"] or task["id"]
            rows[world["split"]].append(task_row(fmt, world["id"], task["id"], instruction))
    out.mkdir(parents=True, exist_ok=True)
    for split, split_rows in rows.items():
        lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in split_rows)
        (out / f"{split}.jsonl").write_text(lines, encoding="utf-8")
    (out / f"load_{fmt}.py").write_text(_LOADERS[fmt], encoding="utf-8")
    return {split: len(split_rows) for split, split_rows in rows.items()}
