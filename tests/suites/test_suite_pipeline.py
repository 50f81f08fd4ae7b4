"""A 20-environment suite from mixed inputs (descriptions, MCP tool lists, OpenAPI documents)
through a scripted drafter that answers good, broken and duplicate drafts: the repair loop,
resume after a kill, dedupe, every gate and the quarantine."""

from __future__ import annotations

import io
import json
from pathlib import Path

import anyio
import pytest

from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback
from mcp_sim.suites.checking import check_suite
from mcp_sim.suites.gates import GATES
from mcp_sim.suites.generation import GenerationPlan, generate_suite
from mcp_sim.suites.inputs import read_inputs
from mcp_sim.suites.layout import SuiteLayout, read_json
from tests.suites.environment_drafts import (
    DraftsByKey,
    environment,
    openapi_input,
    tool_list_input,
)

pytestmark = pytest.mark.anyio

GOOD_DESCRIBED = ["ticket", "parcel", "booking", "invoice", "lease", "permit", "voucher"]
FLAWS = ["unsolvable", "free_reward", "no_output_schema", "bad_path", "leak"]
BROKEN = '{"world": {"title": "no id and no tools"}, "tasks": []}'


def _inputs() -> tuple[list[dict[str, object]], dict[str, list[str]]]:
    lines: list[dict[str, object]] = []
    scripts: dict[str, list[str]] = {}
    for i, noun in enumerate(GOOD_DESCRIBED):
        key = f"desk-{i:02d}"
        lines.append({"id": key, "description": f"{key}: a desk of {noun}s"})
        scripts[key] = [environment(noun)]
    for key, noun in [("kiosk-00", "kiosk"), ("kiosk-01", "locker"), ("kiosk-02", "pass")]:
        lines.append(tool_list_input(key, noun))
        scripts[key] = [environment(noun)]
    for key, noun in [("api-00", "meter"), ("api-01", "ferry")]:
        lines.append(openapi_input(key, noun))
        scripts[key] = [environment(noun)]
    lines.append({"id": "repaired", "description": "repaired: a desk of orders"})
    one_task = json.loads(environment("order"))
    one_task["tasks"] = one_task["tasks"][:1]
    scripts["repaired"] = ["not json at all", json.dumps(one_task), environment("order")]
    lines.append({"id": "hopeless", "description": "hopeless: a desk of nothing"})
    scripts["hopeless"] = [BROKEN, BROKEN, BROKEN]
    lines.append({"id": "twin", "description": "twin: a second desk of tickets"})
    scripts["twin"] = [environment("ticket")]
    for i, flaw in enumerate(FLAWS):
        key = f"flawed-{flaw}"
        lines.append({"id": key, "description": f"{key}: a desk of things"})
        scripts[key] = [environment(f"thing{i}", flaw)]
    return lines, scripts


def _write_inputs(path: Path) -> dict[str, list[str]]:
    lines, scripts = _inputs()
    assert len(lines) == 20
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return scripts


class KilledDrafter(DraftsByKey):
    """The scripted drafter whose run is killed (its cancel scope cancelled) as it is asked
    for its ``kill_at``-th draft: a generation process dying mid-run."""

    def __init__(
        self, scripts: dict[str, list[str]], scope: anyio.CancelScope, kill_at: int
    ) -> None:
        super().__init__(scripts)
        self.scope, self.kill_at = scope, kill_at

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        if len(self.requests) + 1 >= self.kill_at:
            self.scope.cancel()
            await anyio.sleep(1)
        return await super().complete(request, progress)


async def test_a_suite_from_mixed_inputs_is_generated_resumed_deduped_and_gated(
    tmp_path: Path,
) -> None:
    inputs_file, suite = tmp_path / "inputs.jsonl", tmp_path / "suite"
    scripts = _write_inputs(inputs_file)
    inputs = read_inputs(inputs_file)
    assert {i.kind for i in inputs} == {"description", "tools", "openapi"}
    plan = GenerationPlan(concurrency=3, seed=100)

    with anyio.CancelScope() as scope:
        await generate_suite(inputs, suite, KilledDrafter(scripts, scope, kill_at=7), plan)
    layout = SuiteLayout(suite)
    first_run = {item.id for item in layout.items()}
    assert 0 < len(first_run) < 20
    assert not list(layout.worlds.glob(".*")), "a killed run leaves no partial item"

    clock = iter(float(t) for t in range(1000))
    progress = io.StringIO()
    drafter = DraftsByKey(scripts)
    resumed = GenerationPlan(concurrency=3, seed=100, progress=progress, clock=lambda: next(clock))
    report = await generate_suite(inputs, suite, drafter, resumed)

    assert not first_run & set(drafter.asked()), "a rerun skips what the killed run finished"
    assert sorted(report.skipped) == sorted(first_run)
    assert drafter.asked().count("repaired") == 3
    repair = [r for key, r in drafter.requests if key == "repaired"][-1]
    assert "write 2 to 5 tasks, not 1" in repair.messages[-1]["content"]
    assert set(report.failed) == {"hopeless"}
    assert "no valid draft in 3 tries" in read_json(layout.failed("hopeless"))["error"]
    assert report.duplicates == {"twin": "desk-00"}
    assert read_json(layout.duplicate("twin"))["similarity"] == 1.0
    assert "ETA" in progress.getvalue() and "/s" in progress.getvalue()

    stamp = layout.item("repaired").stamp()
    assert stamp["tries"] == 3 and stamp["generator_model"] == "scripted-drafter"
    assert stamp["seed"] == 100 + [i.id for i in inputs].index("repaired")
    assert stamp["world_hash"] == layout.item("repaired").world().content_hash()
    assert json.loads(stamp["input"])["id"] == "repaired"
    imported = layout.item("kiosk-00").world()
    assert all(t.output_schema for t in imported.tools), "drafted outputs fill imported gaps"

    corrupted = layout.item("desk-03").folder / "world.yaml"
    corrupted.write_text(corrupted.read_text().replace("tools:", "tool_list:"))
    checked = await check_suite(layout, concurrency=2)

    expected_gate = {
        "flawed-unsolvable": "solvable",
        "flawed-free_reward": "empty_fails",
        "flawed-no_output_schema": "schemas",
        "flawed-bad_path": "checks_resolve",
        "flawed-leak": "no_leak",
        "desk-03": "validates",
    }
    assert set(checked.quarantined) == set(expected_gate)
    for item_id, gate in expected_gate.items():
        reasons = read_json(layout.quarantined(item_id) / "reasons.json")["reasons"]
        assert any(r.startswith(f"{gate}: ") for r in reasons), (item_id, reasons)
    assert len(layout.items()) == 12
    rates = checked.pass_rates()["all"]
    assert set(rates) == set(GATES) and rates["schemas"] == 16 / 18
    assert "solvable" in checked.table()
    manifest = read_json(layout.manifest)
    assert manifest["counts"]["worlds"] == 12 and manifest["counts"]["tasks"] == 24
    assert {w["split"] for w in manifest["worlds"]} <= {"train", "test"}


async def test_a_rerun_retries_the_failed_items(tmp_path: Path) -> None:
    inputs_file, suite = tmp_path / "inputs.jsonl", tmp_path / "suite"
    inputs_file.write_text(json.dumps({"id": "late", "description": "late: a desk"}) + "\n")
    inputs = read_inputs(inputs_file)
    await generate_suite(inputs, suite, DraftsByKey({"late": [BROKEN]}), GenerationPlan(tries=1))
    assert SuiteLayout(suite).failed("late").is_file()
    drafter = DraftsByKey({"late": [environment("ticket")]})
    report = await generate_suite(inputs, suite, drafter, GenerationPlan(tries=1))
    assert report.made == ["late"] and not SuiteLayout(suite).failed("late").exists()
