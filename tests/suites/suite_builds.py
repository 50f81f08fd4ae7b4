"""A small suite built through the library with the scripted drafter, for the tests of what
comes after generation (check, export, serve)."""

from __future__ import annotations

import json
from pathlib import Path

from mcp_sim.suites.generation import GenerationPlan, generate_suite
from mcp_sim.suites.inputs import read_inputs
from mcp_sim.suites.layout import SuiteLayout
from tests.suites.environment_drafts import DraftsByKey, environment

NOUNS = ("ticket", "parcel", "booking", "invoice", "lease", "permit", "voucher", "badge")


async def small_suite(
    root: Path, nouns: tuple[str, ...] = NOUNS, flaw: str | None = None
) -> SuiteLayout:
    """A suite of one good environment per noun (plus one with ``flaw``, id ``flawed``)."""
    lines = [{"id": f"desk-{noun}", "description": f"desk-{noun}: {noun}s"} for noun in nouns]
    scripts = {f"desk-{noun}": [environment(noun)] for noun in nouns}
    if flaw is not None:
        lines.append({"id": "flawed", "description": "flawed: things"})
        scripts["flawed"] = [environment("thing", flaw)]
    inputs_file = root / "inputs.jsonl"
    inputs_file.write_text("".join(json.dumps(line) + "\n" for line in lines))
    await generate_suite(
        read_inputs(inputs_file), root / "suite", DraftsByKey(scripts), GenerationPlan()
    )
    return SuiteLayout(root / "suite")
