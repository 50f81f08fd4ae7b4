"""``mcp-sim suite generate|check|export``: environment suites (:mod:`mcp_sim.suites`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mcp_sim.cli.arguments import option, positional, settings_of
from mcp_sim.cli.command import (
    Command,
    CommandConfig,
    HelpExample,
    Subcommands,
    add_command,
    add_group,
)
from mcp_sim.cli.console import UsageError, say
from mcp_sim.cli.settings_flags import REBUILDING
from mcp_sim.settings import values
from mcp_sim.settings.combined import Settings

if TYPE_CHECKING:
    from mcp_sim.suites.layout import SuiteLayout

_FORMATS = ("trl", "verifiers", "openenv")


class GenerateConfig(CommandConfig):
    """Draft an environment (world, 2-5 tasks with verify checks, reference solutions) for
    each line of a JSONL file: a description, an MCP tool list or an OpenAPI document. A rerun
    skips finished items and retries failed ones; near-duplicate worlds are dropped."""

    summary = "draft a suite of environments with tasks from a JSONL file of inputs"
    examples = (
        HelpExample(
            "mcp-sim suite generate --from inputs.jsonl --out suite/ --model-url "
            "http://gpu-box:8000/v1 --concurrency 16",
            "a suite drafted by a model server of yours",
        ),
        HelpExample(
            "mcp-sim suite generate --from inputs.jsonl --out suite/",
            "the same run again: finished items are skipped, failed ones retried",
        ),
    )

    settings: Settings = settings_of(REBUILDING)
    inputs: Path = option(
        "--from",
        parse=values.existing_file("inputs"),
        metavar="INPUT.jsonl",
        required=True,
        help='one environment a line: {"description": ...}, {"tools": [...]} or {"openapi": {...}}',
    )
    out: Path = option(
        parse=values.output_folder, metavar="SUITE", required=True, help="the suite's folder"
    )
    concurrency: int = option(
        parse=values.integer(1, 1024), default=4, help="drafts in flight at once (default 4)"
    )
    tries: int = option(
        parse=values.integer(1, 10), default=3, help="drafts per item, problems sent back (3)"
    )


class CheckConfig(CommandConfig):
    """Run every environment of a suite through the gates (validates, serves, schemas,
    solvable, empty_fails, checks_resolve, no_leak); failures move to SUITE/quarantine/ with
    their reasons; print each gate's pass rate per domain."""

    summary = "gate a suite's environments; quarantine the failures; print pass rates"
    examples = (
        HelpExample("mcp-sim suite check suite/", "gate every environment"),
        HelpExample("mcp-sim suite check suite/ --concurrency 16", "on a larger machine"),
    )

    suite: Path = positional(parse=Path, help="the suite's folder")
    concurrency: int = option(parse=values.integer(1, 1024), default=4, help="items at once")


class ExportConfig(CommandConfig):
    """Write the suite's tasks as dataset rows (train.jsonl, test.jsonl as the manifest
    splits them) for a harness, with a loader example."""

    summary = "write a suite's tasks as dataset rows for TRL, verifiers or OpenEnv"
    examples = (
        HelpExample("mcp-sim suite export suite/ --format trl --out rows/", "rows for GRPOTrainer"),
        HelpExample("mcp-sim suite export suite/ --format openenv", "POST /episodes bodies"),
    )

    suite: Path = positional(parse=Path, help="the suite's folder")
    format: str = option(choices=_FORMATS, required=True, help="the harness the rows are for")
    out: Path | None = option(
        parse=values.output_folder,
        metavar="DIR",
        help="where to write (default SUITE/export/FORMAT)",
    )


def generate(config: GenerateConfig) -> int:
    import anyio

    from mcp_sim.suites.generation import GenerationPlan, generate_with_settings
    from mcp_sim.suites.inputs import read_inputs

    inputs = read_inputs(config.inputs)
    seed = config.settings.sampling.seed or 0  # item i is drafted with seed + i
    plan = GenerationPlan(config.concurrency, seed, config.tries, progress=sys.stderr)
    report = anyio.run(generate_with_settings, inputs, config.out, config.settings, plan, say)
    print(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    return 1 if report.failed else 0


def check(config: CheckConfig) -> int:
    import anyio

    from mcp_sim.suites.checking import check_suite

    layout = _suite(config.suite)
    report = anyio.run(lambda: check_suite(layout, concurrency=config.concurrency))
    print(report.table())
    for item_id, reasons in report.quarantined.items():
        say(f"quarantined {item_id}: {'; '.join(reasons)}")
    return 1 if report.quarantined else 0


def export(config: ExportConfig) -> int:
    from mcp_sim.suites.export import EXPORT_FORMATS, export_suite

    fmt = next(f for f in EXPORT_FORMATS if f == config.format)
    out = config.out or config.suite / "export" / fmt
    counts = export_suite(_suite(config.suite), fmt, out)
    say(f"wrote {counts['train']} train and {counts['test']} test rows to {out}")
    return 0


def _suite(folder: Path) -> SuiteLayout:
    from mcp_sim.suites.layout import SuiteLayout

    layout = SuiteLayout(folder)
    if not layout.manifest.is_file():
        raise UsageError("suite", f"{folder} is not a suite (no manifest.json; see suite generate)")
    return layout


def register(subcommands: Subcommands) -> None:
    actions = add_group(
        subcommands,
        "suite",
        help="generate, gate and export suites of environments",
        metavar="ACTION",
        description="Environment suites: many generated worlds with tasks checked solvable "
        "(generate, check), served by `mcp-sim serve SUITE/` and exported as datasets (export).",
        examples=[
            HelpExample("mcp-sim suite generate --from inputs.jsonl --out suite/", "draft"),
            HelpExample("mcp-sim suite check suite/", "gate"),
        ],
    )
    add_command(actions, "generate", Command(GenerateConfig, generate))
    add_command(actions, "check", Command(CheckConfig, check))
    add_command(actions, "export", Command(ExportConfig, export))
