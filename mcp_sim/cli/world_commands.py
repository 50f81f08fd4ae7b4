"""The commands about world files and what they produced: ``validate``, ``schema``,
``perturbations``, ``report``, and ``world new`` / ``world export``.

Each handler imports what it needs when it runs, so that ``mcp-sim validate`` loads the spec
models and nothing else; ``world new`` and ``world export`` do their work in
:mod:`mcp_sim.cli.world_authoring`.
"""

from __future__ import annotations

import json

from mcp_sim.cli.command import Command, HelpExample, Subcommands, add_command, add_group
from mcp_sim.cli.console import say, write_output
from mcp_sim.cli.world_config import (
    ExportWorldConfig,
    NewWorldConfig,
    PerturbationsConfig,
    ReportConfig,
    SchemaConfig,
    ValidateConfig,
)


def validate(config: ValidateConfig) -> int:
    from mcp_sim.errors import SpecError
    from mcp_sim.spec.loading import load_world

    failed = 0
    for path in config.files:
        try:
            world = load_world(path)
        except SpecError as exc:
            failed += 1
            for problem in exc.problems:
                print(problem)
        else:
            print(f"{path}: ok ({world.world}, {len(world.tools)} tools, domain {world.domain})")
    return 1 if failed else 0


def schema(config: SchemaConfig) -> int:
    from mcp_sim.spec.world import world_json_schema

    write_output(config.output, json.dumps(world_json_schema(), indent=2) + "\n")
    return 0


def perturbations(config: PerturbationsConfig) -> int:
    from mcp_sim.cli import world_authoring

    return world_authoring.list_profiles(config.world, as_json=config.json)


def report(config: ReportConfig) -> int:
    from mcp_sim.fidelity.journal_report import build_report, render_table
    from mcp_sim.journal import read_journal

    path = config.journal
    try:
        records = read_journal(path)
    except OSError as exc:
        say(f"cannot read journal {path}: {exc.strerror}")
        return 1
    except ValueError as exc:
        say(f"{path} is not an mcp-sim journal: {exc}")
        return 1
    built = build_report(records)
    print(json.dumps(built.as_dict(), indent=2) if config.json else render_table(built))
    return 0


def new_world(config: NewWorldConfig) -> int:
    from mcp_sim.cli import world_authoring

    return world_authoring.draft(config)


def export_world(config: ExportWorldConfig) -> int:
    from mcp_sim.cli import world_authoring

    return world_authoring.export(config)


def register(subcommands: Subcommands) -> None:
    add_command(subcommands, "validate", Command(ValidateConfig, validate))
    add_command(subcommands, "perturbations", Command(PerturbationsConfig, perturbations))
    add_command(subcommands, "report", Command(ReportConfig, report))
    add_command(subcommands, "schema", Command(SchemaConfig, schema))
    actions = add_group(
        subcommands,
        "world",
        help="draft a world, or export what a world has learnt",
        metavar="ACTION",
        description="Write world files: draft a new one with the world model (new), or write "
        "one back with what its world memory learnt (export).",
        examples=[
            HelpExample('mcp-sim world new "a ferry booking API" -o ferry.yaml', "draft a world"),
            HelpExample(
                "mcp-sim world export --example web --world-memory web.db -o grown.yaml",
                "the web example with the pages and facts its memory learnt",
            ),
        ],
    )
    add_command(actions, "new", Command(NewWorldConfig, new_world))
    add_command(actions, "export", Command(ExportWorldConfig, export_world))
