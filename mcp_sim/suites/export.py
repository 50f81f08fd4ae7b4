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
"""The suite's tasks for TRL's GRPOTrainer: each row's world and task reach the environment's
reset(**row), which opens that episode (POST /episodes {"world", "task"}) on `mcp-sim serve SUITE/`."""
from datasets import load_dataset

rows = load_dataset("json", data_files={"train": "train.jsonl", "test": "test.jsonl"})
print(rows["train"][0]["prompt"], rows["train"][0]["world"], rows["train"][0]["task"])
# trainer = GRPOTrainer(..., train_dataset=rows["train"], environment_factory=YourSuiteEnv)
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
"""The suite's tasks for an OpenEnv launcher: each row is the body of POST /episodes on
`mcp-sim serve SUITE/` ({"world", "task"}) and the instruction the agent is given."""
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
