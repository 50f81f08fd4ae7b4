"""The commands that work with real tools: ``import``, ``record``, ``eval`` and ``export``
(:mod:`mcp_sim.authoring` and :mod:`mcp_sim.fidelity` do the work). Their flags are declared
in :mod:`mcp_sim.cli.fidelity_config`; each handler imports the MCP client, the simulator or
the importers when it runs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mcp_sim.cli.command import Command, Subcommands, add_command
from mcp_sim.cli.console import say
from mcp_sim.cli.fidelity_config import EvalConfig, ExportConfig, ImportConfig, RecordConfig
from mcp_sim.errors import SimError

if TYPE_CHECKING:
    from mcp_sim.journal import JournalRecord


def import_world(config: ImportConfig) -> int:
    import anyio

    from mcp_sim.authoring.mcp_import import import_server, write_text
    from mcp_sim.authoring.openapi_import import import_openapi

    if config.openapi is not None:
        text = import_openapi(config.openapi, world=config.world)
    else:
        text = anyio.run(lambda: import_server(config.upstream.upstream(), world=config.world))
    write_text(config.output, text)
    say(f"wrote {config.output}")
    return 0


def record_real_calls(config: RecordConfig) -> int:
    from contextlib import closing

    import anyio

    from mcp_sim.fidelity.upstream_recorder import record
    from mcp_sim.journal import Journal

    with closing(Journal(config.journal)) as journal:
        anyio.run(
            lambda: record(
                config.upstream.upstream(),
                journal,
                http=config.http,
                timing=config.journal_timing,
                world_out=config.world_out,
                say=say,
            )
        )
    return 0


def _read(path: Path) -> list[JournalRecord]:
    from mcp_sim.journal import read_journal

    try:
        return read_journal(path)
    except (OSError, ValueError) as exc:
        raise SimError(f"cannot read the journal {path}: {exc}") from None


def evaluate(config: EvalConfig) -> int:
    import anyio

    from mcp_sim.fidelity.eval_report import table, write_reports
    from mcp_sim.fidelity.journal_eval import evaluate_journal, selected_calls
    from mcp_sim.fidelity.judge import JudgeSettings

    records = selected_calls(_read(config.journal), config.session, config.max_calls)
    if not records:
        say("the journal has no calls to evaluate")
        return 1
    judge = config.judge
    report = anyio.run(
        lambda: evaluate_journal(
            config.world,
            records,
            config.settings,
            journal=str(config.journal),
            predictions=config.predictions,
            judge=judge.endpoint(),
            judge_settings=JudgeSettings.limited(judge.max_tokens, structured=judge.structured),
            say=say,
        )
    )
    print(table(report))
    json_path, html_path = write_reports(report, config.journal, config.json, config.html)
    say(f"wrote {json_path} and {html_path}")
    return 0


def export(config: ExportConfig) -> int:
    from mcp_sim.fidelity.trajectory_export import export_journal
    from mcp_sim.spec.loading import load_world

    world, records = load_world(config.world), _read(config.journal)
    count = export_journal(
        world,
        records,
        config.format,
        config.output,
        sources=config.source,
        settings=config.settings,
    )
    print(f"wrote {count} rows to {config.output}", file=sys.stderr)
    return 0


def register(subcommands: Subcommands) -> None:
    add_command(subcommands, "import", Command(ImportConfig, import_world))
    recording = add_command(subcommands, "record", Command(RecordConfig, record_real_calls))
    recording.set_defaults(address_flag="--http")  # named when the address is taken
    add_command(subcommands, "eval", Command(EvalConfig, evaluate))
    add_command(subcommands, "export", Command(ExportConfig, export))
