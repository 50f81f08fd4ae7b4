"""A suite generated end to end by the embedded tiny model (Gemma 3 270M on vLLM CPU): three
inputs (a description, an MCP tool list, an OpenAPI document) through ``mcp-sim suite
generate``, then ``mcp-sim suite check``.

The tiny model is not expected to write good environments: the test demands that the run
finishes, that every input is accounted for (in the suite, quarantined with named reasons,
failed with its error, or dropped as a duplicate), that the check's table adds up and that the
stamps name the model; it prints what each gate caught (the figures for the note). No gate is
loosened for it: the check is the one a user runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from mcp_sim.suites.gates import GATES
from mcp_sim.suites.layout import SuiteLayout, read_json
from tests.processes import ROOT
from tests.suites.environment_drafts import openapi_input, tool_list_input

pytestmark = pytest.mark.real_model

INPUTS: list[dict[str, Any]] = [
    {"id": "ferry-desk", "description": "a small ferry company's booking API for two islands"},
    tool_list_input("parcel-lockers", "parcel"),
    openapi_input("water-meters", "meter"),
]
SMALL_DRAFTS = (
    ("--bounded-output", "--output-string-limit", "40", "--output-items-limit", "2"),
    ("--max-tokens", "1500", "--tries", "1", "--timeout", "2000", "--no-model-seeds"),
)
"""A compact world with two short tasks in at most 1,500 tokens, one try each: at a few tokens
a second on a loaded CPU, a longer draft (or a repair turn) is minutes more."""


def suite_command(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_sim", "suite", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
    )


def test_the_tiny_model_generates_a_three_world_suite_and_the_gates_say_what_it_got_wrong(
    real_model_url: str, real_model_name: str, tmp_path: Path
) -> None:
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text("".join(json.dumps(line) + "\n" for line in INPUTS))
    suite = tmp_path / "suite"
    started = time.monotonic()
    generated = suite_command(
        "generate", "--from", str(inputs), "--out", str(suite),
        "--model-url", real_model_url, *SMALL_DRAFTS[0], *SMALL_DRAFTS[1],
        "--concurrency", "3", "--seed", "7",
        timeout=2400,
    )  # fmt: skip
    generating = time.monotonic() - started
    assert generated.returncode in (0, 1), generated.stderr
    report = json.loads(generated.stdout)
    layout = SuiteLayout(suite)
    made = sorted(item.id for item in layout.items())
    failed, duplicates = report["failed"], report["duplicates"]
    assert report["made"] == len(made) + len(duplicates) and report["skipped"] == 0
    assert sorted([*made, *failed, *duplicates]) == sorted(i["id"] for i in INPUTS)
    assert generated.returncode == (1 if failed else 0)
    for item_id, error in failed.items():
        assert error and read_json(layout.failed(item_id))["error"] == error
    for item in layout.items():
        stamp = item.stamp()
        assert stamp["generator_model"] == real_model_name and stamp["seed"] >= 7
        assert len(stamp["input_sha256"]) == 64 and stamp["tries"] == 1

    started = time.monotonic()
    checked = suite_command("check", str(suite), timeout=600)
    checking = time.monotonic() - started
    findings = read_json(suite / "check.json")
    quarantined: dict[str, list[str]] = findings["quarantined"]
    assert checked.returncode == (1 if quarantined else 0), checked.stderr
    kept = sorted(w["id"] for w in read_json(layout.manifest)["worlds"])
    assert sorted([*kept, *quarantined]) == made, "every gated item is kept or quarantined"
    for item_id, reasons in quarantined.items():
        assert read_json(layout.quarantined(item_id) / "reasons.json")["reasons"] == reasons
        assert reasons and all(r.split(":", 1)[0] in GATES for r in reasons), reasons
    if made:
        rates = findings["pass_rates"]["all"]
        for gate in GATES:
            caught = sum(any(r.startswith(f"{gate}: ") for r in rs) for rs in quarantined.values())
            assert rates[gate] == pytest.approx(1 - caught / len(made)), gate
        table = {line.split()[0]: line.split()[1:] for line in checked.stdout.splitlines()}
        assert table["gate"][0] == "all" and table["environments"][0] == str(len(made))
    print(
        f"\nsuite on the tiny model: generate {generating:.0f} s, check {checking:.0f} s; "
        f"{len(made)} gated ({len(kept)} kept), {len(failed)} failed, "
        f"{len(duplicates)} duplicates\nfailed: {json.dumps(failed, indent=1)}\n"
        f"quarantined: {json.dumps(quarantined, indent=1)}\n{checked.stdout}",
        file=sys.stderr,
    )
