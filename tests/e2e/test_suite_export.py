"""A suite's exported rows, read by the `datasets` library (from PyPI, in its own venv) as
TRL, verifiers and an OpenEnv launcher read them, and each format's loader example run."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import pytest

from mcp_sim.suites.export import EXPORT_FORMATS, export_suite
from mcp_sim.suites.layout import read_json
from tests.e2e.harness_venvs import DATASETS, harness_python
from tests.suites.suite_builds import NOUNS, small_suite

pytestmark = pytest.mark.harness

_READ = """
import json, sys
from datasets import load_dataset
rows = load_dataset("json", data_files={"train": "train.jsonl", "test": "test.jsonl"})
print(json.dumps({split: {"rows": rows[split].num_rows, "columns": sorted(rows[split].column_names), "first": rows[split][0] if rows[split].num_rows else None} for split in rows}))
"""


def test_exported_rows_load_with_datasets_in_every_format(tmp_path: Path) -> None:
    python = harness_python("datasets", DATASETS)
    layout = anyio.run(small_suite, tmp_path, (*NOUNS, "order"))
    manifest = read_json(layout.manifest)
    splits = {w["id"]: w["split"] for w in manifest["worlds"]}
    assert set(splits.values()) == {"train", "test"}, "a suite this size has both splits"
    for fmt in EXPORT_FORMATS:
        out = tmp_path / fmt
        counts = export_suite(layout, fmt, out)
        done = subprocess.run(
            [str(python), "-c", _READ], cwd=out, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr
        loaded = json.loads(done.stdout.strip().splitlines()[-1])
        assert {s: loaded[s]["rows"] for s in ("train", "test")} == counts
        first = loaded["train"]["first"]
        world = first["info"]["world"] if fmt == "verifiers" else first["world"]
        assert splits[world] == "train"
        example = subprocess.run(
            [str(python), f"load_{fmt}.py"], cwd=out, capture_output=True, text=True, timeout=300
        )
        assert example.returncode == 0, example.stderr
        assert world in example.stdout or fmt == "trl"
