"""The commands about world files and what they produced: ``validate``, ``schema``,
``perturbations``, ``report``, and ``world new`` / ``world export``.

Each handler imports what it needs when it runs, so that ``mcp-sim validate`` loads the spec
models and nothing else; ``world new`` and ``world export`` do their work in
:mod:`mcp_sim.cli.world_authoring`.
"""

from __future__ import annotations

import json
import sys

from mcp_sim.cli.command import Command, Subcommands, add_command, add_group
from mcp_sim.cli.config import (
    ExportWorldConfig,
    ListingConfig,
    NewWorldConfig,
    SchemaConfig,
    ValidateConfig,
)
from mcp_sim.cli.console import say
from mcp_sim.cli.example_worlds import add_example_option
from mcp_sim.cli.settings_flags import REBUILDING, add_settings
from mcp_sim.settings import values

DOMAINS = ("mcp", "search", "terminal", "swe", "web", "os", "android")
"""The world domains (``mcp_sim.spec.world.Domain``; a test keeps the two equal): listed here
so that parsing does not import the spec models."""


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

    text = json.dumps(world_json_schema(), indent=2) + "\n"
    if config.output:
        config.output.parent.mkdir(parents=True, exist_ok=True)
        config.output.write_text(text, encoding="utf-8")
        say(f"wrote {config.output}")
    else:
        sys.stdout.write(text)
    return 0


def perturbations(config: ListingConfig) -> int:
    from mcp_sim.cli import world_authoring

    return world_authoring.list_profiles(config.path, as_json=config.as_json)


def report(config: ListingConfig) -> int:
    from mcp_sim.fidelity.journal_report import build_report, render_table
    from mcp_sim.journal import read_journal

    path = str(config.path)
    try:
        records = read_journal(path)
    except OSError as exc:
        say(f"cannot read journal {path}: {exc.strerror}")
        return 1
    except ValueError as exc:
        say(f"{path} is not an mcp-sim journal: {exc}")
        return 1
    built = build_report(records)
    print(json.dumps(built.as_dict(), indent=2) if config.as_json else render_table(built))
    return 0


def new_world(config: NewWorldConfig) -> int:
    from mcp_sim.cli import world_authoring

    return world_authoring.draft(config)


def export_world(config: ExportWorldConfig) -> int:
    from mcp_sim.cli import world_authoring

    return world_authoring.export(config)


def register(subcommands: Subcommands) -> None:
    _add_file_commands(subcommands)
    _add_world_group(subcommands)


def _add_file_commands(subcommands: Subcommands) -> None:
    p = add_command(
        subcommands,
        "validate",
        Command(ValidateConfig.from_args, validate),
        help="check world specs; report FILE:LINE:COL problems",
    )
    p.add_argument("files", nargs="*", metavar="FILE")
    add_example_option(p, several=True, help="also check this example world (repeatable)")

    p = add_command(
        subcommands,
        "perturbations",
        Command(ListingConfig.of_world, perturbations),
        help="list the perturbation profiles (built in, and a world's own)",
    )
    p.add_argument("world", nargs="?", help="world spec (YAML) with its own profiles")
    add_example_option(p)
    p.add_argument("--json", action="store_true", help="print the profiles as JSON")

    p = add_command(
        subcommands,
        "report",
        Command(ListingConfig.of_journal, report),
        help="summarize a journal: injected faults and how the agent reacted, per tool",
    )
    p.add_argument("journal", help="journal file (JSONL) written by --journal")
    p.add_argument("--json", action="store_true", help="print the report as JSON")

    p = add_command(
        subcommands,
        "schema",
        Command(SchemaConfig.from_args, schema),
        help="print the JSON Schema of world specs",
    )
    p.add_argument("-o", "--output", type=values.output_file, help="write it to this file instead")


def _add_world_group(subcommands: Subcommands) -> None:
    actions = add_group(
        subcommands,
        "world",
        help="draft a world, or export what a world has learnt",
        metavar="ACTION",
    )
    new = add_command(
        actions,
        "new",
        Command(NewWorldConfig.from_args, new_world),
        help="draft a world spec with the world model",
    )
    add_settings(new, REBUILDING)
    new.add_argument(
        "description",
        type=values.text,
        help='what the world is, e.g. "a ferry booking API"',
    )
    new.add_argument("--domain", choices=DOMAINS, default="mcp", help="default: mcp")
    new.add_argument(
        "-o", "--output", type=values.output_file, required=True, help="the world file to write"
    )
    new.add_argument("--force", action="store_true", help="overwrite an existing file")

    export = add_command(
        actions,
        "export",
        Command(ExportWorldConfig.from_args, export_world),
        help="write a world file with the pages and facts its memory learnt",
    )
    export.add_argument("world", nargs="?", help="world spec (YAML); or give --example NAME")
    add_example_option(export)
    export.add_argument(
        "--world-memory",
        type=values.existing_file("world memory"),
        required=True,
        metavar="PATH",
        help="the memory file",
    )
    export.add_argument(
        "-o", "--output", type=values.output_file, help="write it to this file instead of stdout"
    )
