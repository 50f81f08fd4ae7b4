"""The commands that work with real tools: ``import``, ``record``, ``eval`` and ``export``.
Their flags are declared in :mod:`mcp_sim.cli.fidelity_config`; the work is in
:mod:`mcp_sim.cli.fidelity_runs`, imported when one of them runs."""

from __future__ import annotations

from mcp_sim.cli.command import Command, Subcommands, add_command
from mcp_sim.cli.fidelity_config import EvalConfig, ExportConfig, ImportConfig, RecordConfig


def import_world(config: ImportConfig) -> int:
    from mcp_sim.cli import fidelity_runs  # the MCP client and importers, for this command only

    return fidelity_runs.import_world(config)


def record(config: RecordConfig) -> int:
    from mcp_sim.cli import fidelity_runs

    return fidelity_runs.record_real_calls(config)


def evaluate(config: EvalConfig) -> int:
    from mcp_sim.cli import fidelity_runs

    return fidelity_runs.evaluate_journal(config)


def export(config: ExportConfig) -> int:
    from mcp_sim.cli import fidelity_runs

    return fidelity_runs.export_journal(config)


def register(subcommands: Subcommands) -> None:
    add_command(subcommands, "import", Command(ImportConfig, import_world))
    recording = add_command(subcommands, "record", Command(RecordConfig, record))
    recording.set_defaults(address_flag="--http")  # named when the address is taken
    add_command(subcommands, "eval", Command(EvalConfig, evaluate))
    add_command(subcommands, "export", Command(ExportConfig, export))
