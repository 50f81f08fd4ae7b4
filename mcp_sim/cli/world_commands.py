"""The commands about world files and what they produced: ``validate``, ``schema``,
``perturbations``, ``report``, and ``world new`` / ``world export``.

Each handler imports what it needs when it runs, so that ``mcp-sim validate`` loads the spec
models and nothing else; ``world new`` and ``world export`` do their work in
:mod:`mcp_sim.cli.world_authoring`.
"""

from __future__ import annotations

import json
import sys

from mcp_sim.cli.command import Command, HelpExample, Subcommands, add_command, add_group
from mcp_sim.cli.config import (
    ExportWorldConfig,
    NewWorldConfig,
    PerturbationsConfig,
    ReportConfig,
    SchemaConfig,
    ValidateConfig,
)
from mcp_sim.cli.console import say


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
    _add_world_file_commands(subcommands)
    _add_report_and_schema(subcommands)
    _add_world_group(subcommands)


def _add_world_file_commands(subcommands: Subcommands) -> None:
    add_command(
        subcommands,
        "validate",
        Command(ValidateConfig, validate),
        help="check world specs; report FILE:LINE:COL problems",
        description="Check world specs as serve would load them, and print one line per "
        "file that is ok, or one FILE:LINE:COL line per problem; the exit status is 1 if any "
        "file has problems.",
        examples=[
            HelpExample("mcp-sim validate worlds/*.yaml", "every world of a folder"),
            HelpExample(
                "mcp-sim validate my_world.yaml --example bookstore",
                "a world of yours, and an example world beside it",
            ),
        ],
    )

    add_command(
        subcommands,
        "perturbations",
        Command(PerturbationsConfig, perturbations),
        help="list the perturbation profiles (built in, and a world's own)",
        description="List the perturbation profiles --perturb can name: the built-in ones and "
        "those a world file declares, each with its rules (faults, latency, rate limits, stale "
        "or paginated answers).",
        examples=[
            HelpExample("mcp-sim perturbations", "the built-in profiles"),
            HelpExample("mcp-sim perturbations --example shop --json", "and the shop's, as JSON"),
        ],
    )


def _add_report_and_schema(subcommands: Subcommands) -> None:
    add_command(
        subcommands,
        "report",
        Command(ReportConfig, report),
        help="summarize a journal: injected faults and how the agent reacted, per tool",
        description="Summarize a journal written by --journal: per tool, the calls, the "
        "faults that were injected and what the agent did next (retried, changed its "
        "arguments, moved on or stopped).",
        examples=[
            HelpExample("mcp-sim report calls.jsonl", "a table"),
            HelpExample("mcp-sim report calls.jsonl --json", "the same as JSON, for a script"),
        ],
    )

    add_command(
        subcommands,
        "schema",
        Command(SchemaConfig, schema),
        help="print the JSON Schema of world specs",
        description="Print the JSON Schema of world specs, for an editor to check and complete "
        "world files as they are typed (point its YAML language server at the file).",
        examples=[
            HelpExample("mcp-sim schema -o schemas/world.schema.json", "write it to a file"),
            HelpExample("mcp-sim schema | head -20", "look at its start"),
        ],
    )


def _add_world_group(subcommands: Subcommands) -> None:
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
    add_command(
        actions,
        "new",
        Command(NewWorldConfig, new_world),
        help="draft a world spec with the world model",
        description="Draft a world spec from a sentence with the world model: tools with their "
        "schemas, a starting state and fixtures, validated like any world file before it is "
        "written.",
        examples=[
            HelpExample('mcp-sim world new "a ferry booking API" -o ferry.yaml', "an MCP world"),
            HelpExample(
                'mcp-sim world new "a Linux box whose nginx will not start" --domain os '
                "-o nginx.yaml --model-url http://127.0.0.1:8000/v1",
                "an os world, drafted by a larger model of yours",
            ),
        ],
    )

    add_command(
        actions,
        "export",
        Command(ExportWorldConfig, export_world),
        help="write a world file with the pages and facts its memory learnt",
        description="Write a world file back with what its world memory (serve --world-memory) "
        "learnt: shown pages as starting pages, learnt facts in the canon, answered queries as "
        "fixtures, so that serving it starts from everything explorers saw.",
        examples=[
            HelpExample(
                "mcp-sim world export --example web --world-memory web.db -o grown.yaml",
                "the web example, grown",
            ),
            HelpExample(
                "mcp-sim world export worlds/search.yaml --world-memory search.db",
                "a world of yours, printed on stdout",
            ),
        ],
    )
