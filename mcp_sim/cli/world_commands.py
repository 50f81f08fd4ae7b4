"""The commands about world files and what they produced: ``validate``, ``schema``,
``perturbations``, ``report``, and ``world new`` / ``world export``.

Each handler imports what it needs when it runs, so that ``mcp-sim validate`` loads the spec
models and nothing else.
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
    """The built-in perturbation profiles and the world's own, as JSON or one line a rule."""
    from mcp_sim.perturb.planner import profiles_for
    from mcp_sim.spec.loading import load_world
    from mcp_sim.spec.perturbations import describe

    world = load_world(config.world) if config.world else None
    profiles = profiles_for(world.perturbations if world else {})
    if config.json:
        listing = {name: profile.as_json() for name, profile in profiles.items()}
        print(json.dumps(listing, indent=2, ensure_ascii=False))
        return 0
    for name, profile in profiles.items():
        print(
            f"{name} ({profile.source})"
            + (f": {profile.description}" if profile.description else "")
        )
        for i, rule in enumerate(profile.rules):
            print(f"  {i}. {describe(rule)}")
    return 0


def report(config: ReportConfig) -> int:
    from mcp_sim.fidelity.journal_report import build_report, render_table
    from mcp_sim.journal import load_journal

    built = build_report(load_journal(config.journal))
    print(json.dumps(built.as_dict(), indent=2) if config.json else render_table(built))
    return 0


def new_world(config: NewWorldConfig) -> int:
    import anyio

    from mcp_sim.api.world_drafting import draft_with_settings

    if config.output.exists() and not config.force:
        say(f"{config.output} exists; choose another file or pass --force")
        return 2
    drafted = anyio.run(
        draft_with_settings, config.description, config.domain, config.settings, say
    )
    config.output.parent.mkdir(parents=True, exist_ok=True)
    config.output.write_text(drafted.text, encoding="utf-8")
    world = drafted.world
    say(f"wrote {config.output} ({world.world}, {len(world.tools)} tools, domain {world.domain})")
    return 0


def export_world(config: ExportWorldConfig) -> int:
    from mcp_sim.authoring.world_export import export_world_memory
    from mcp_sim.spec.loading import load_world

    write_output(config.output, export_world_memory(load_world(config.world), config.world_memory))
    return 0


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
                "mcp-sim world export --example search --world-memory web.db -o grown.yaml",
                "the search example with the pages and facts its memory learnt",
            ),
        ],
    )
    add_command(actions, "new", Command(NewWorldConfig, new_world))
    add_command(actions, "export", Command(ExportWorldConfig, export_world))
