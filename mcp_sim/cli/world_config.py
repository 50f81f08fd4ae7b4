"""The typed configuration of the commands that read and write world files and journals
(``validate``, ``schema``, ``perturbations``, ``report``, ``world new``, ``world export``),
each flag declared once, as a field (see :mod:`mcp_sim.cli.arguments`), and each command's
help beside its flags."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mcp_sim.cli.arguments import option, positional, settings_of
from mcp_sim.cli.command import CommandConfig, HelpExample
from mcp_sim.cli.example_worlds import world_file, world_files
from mcp_sim.cli.settings_flags import REBUILDING
from mcp_sim.settings import values
from mcp_sim.settings.combined import Settings

if TYPE_CHECKING:
    from mcp_sim.spec.world import Domain

DOMAINS = ("mcp", "search", "terminal", "swe", "web", "os", "android")
"""The world domains (``mcp_sim.spec.world.Domain``; a test keeps the two equal): listed here
so that parsing does not import the spec models."""


class ValidateConfig(CommandConfig):
    """Check world specs as serve would load them, and print one line per file that is ok, or
    one FILE:LINE:COL line per problem; the exit status is 1 if any file has problems."""

    summary = "check world specs; report FILE:LINE:COL problems"
    examples = (
        HelpExample("mcp-sim validate worlds/*.yaml", "every world of a folder"),
        HelpExample(
            "mcp-sim validate my_world.yaml --example bookstore",
            "a world of yours, and an example world beside it",
        ),
    )

    files: tuple[Path, ...] = world_files(
        "world specs (YAML) to check",
        "also check this example world (repeatable)",
        metavar="FILE",
        open_folders=False,
    )


class SchemaConfig(CommandConfig):
    """Print the JSON Schema of world specs, for an editor to check and complete world files as
    they are typed (point its YAML language server at the file)."""

    summary = "print the JSON Schema of world specs"
    examples = (
        HelpExample("mcp-sim schema -o schemas/world.schema.json", "write it to a file"),
        HelpExample("mcp-sim schema | head -20", "look at its start"),
    )

    output: Path | None = option(
        "-o", parse=values.output_file, help="write it to this file instead"
    )


class PerturbationsConfig(CommandConfig):
    """List the perturbation profiles --perturb can name: the built-in ones and those a world
    file declares, each with its rules (faults, latency, rate limits, stale or paginated
    answers)."""

    summary = "list the perturbation profiles (built in, and a world's own)"
    examples = (
        HelpExample("mcp-sim perturbations", "the built-in profiles"),
        HelpExample("mcp-sim perturbations --example shop --json", "and the shop's, as JSON"),
    )

    # Without a world, the built-in profiles alone are listed.
    world: Path | None = world_file("world spec (YAML) with its own profiles", optional=True)
    json: bool = option(help="print the profiles as JSON", default=False)


class ReportConfig(CommandConfig):
    """Summarize a journal written by --journal: per tool, the calls, the faults that were
    injected and what the agent did next (retried, changed its arguments, moved on or stopped)."""

    summary = "summarize a journal: injected faults and how the agent reacted, per tool"
    examples = (
        HelpExample("mcp-sim report calls.jsonl", "a table"),
        HelpExample("mcp-sim report calls.jsonl --json", "the same as JSON, for a script"),
    )

    journal: str = positional(help="journal file (JSONL) written by --journal")
    json: bool = option(help="print the report as JSON", default=False)


class NewWorldConfig(CommandConfig):
    """Draft a world spec from a sentence with the world model: tools with their schemas, a
    starting state and fixtures, validated like any world file before it is written."""

    summary = "draft a world spec with the world model"
    examples = (
        HelpExample('mcp-sim world new "a ferry booking API" -o ferry.yaml', "an MCP world"),
        HelpExample(
            'mcp-sim world new "a Linux box whose nginx will not start" --domain os '
            "-o nginx.yaml --model-url http://127.0.0.1:8000/v1",
            "an os world, drafted by a larger model of yours",
        ),
    )

    settings: Settings = settings_of(REBUILDING)
    description: str = positional(
        parse=values.text, help='what the world is, e.g. "a ferry booking API"'
    )
    domain: Domain = option(choices=DOMAINS, help="default: mcp", default="mcp")
    output: Path = option(
        "-o", parse=values.output_file, help="the world file to write", required=True
    )
    force: bool = option(help="overwrite an existing file", default=False)


class ExportWorldConfig(CommandConfig):
    """Write a world file back with what its world memory (serve --world-memory) learnt: shown
    pages as starting pages, learnt facts in the canon, answered queries as fixtures, so that
    serving it starts from everything explorers saw."""

    summary = "write a world file with the pages and facts its memory learnt"
    examples = (
        HelpExample(
            "mcp-sim world export --example search --world-memory web.db -o grown.yaml",
            "the search example, grown",
        ),
        HelpExample(
            "mcp-sim world export worlds/search.yaml --world-memory search.db",
            "a world of yours, printed on stdout",
        ),
    )

    world: Path = world_file()
    world_memory: Path = option(
        parse=values.existing_file("world memory"),
        metavar="PATH",
        help="the memory file",
        required=True,
    )
    output: Path | None = option(
        "-o", parse=values.output_file, help="write it to this file instead of stdout"
    )
