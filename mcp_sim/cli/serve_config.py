"""The typed configuration of ``mcp-sim serve`` (which worlds, over which transport, with
which access rules, checked as a whole) and of ``mcp-sim call``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp_sim.cli.arguments import option, positional, settings_of
from mcp_sim.cli.command import CommandConfig, HelpExample
from mcp_sim.cli.console import UsageError
from mcp_sim.cli.example_worlds import world_file, world_files
from mcp_sim.cli.settings_flags import SIMULATION
from mcp_sim.errors import SettingsError
from mcp_sim.settings import values
from mcp_sim.settings.combined import SETTINGS, Settings, group_names

CALL_SETTINGS = (*SIMULATION, *group_names("records"))


class CallConfig(CommandConfig):
    """Make one tool call in a world and print its observation on stdout, as a served world
    would answer it; where the answer came from (fixture, model) goes to stderr. The world model
    is started only if the call needs it."""

    summary = "make one tool call and print the observation"
    examples = (
        HelpExample(
            """mcp-sim call --example bookstore search_books --args '{"query": "glass"}'""",
            "a call the world's fixture answers, no model needed",
        ),
        HelpExample(
            """mcp-sim call worlds/bookstore.yaml get_book --args '{"book_id": "b3"}' """
            "--model-url http://127.0.0.1:8000/v1",
            "a call the world model answers, at a model server of yours",
        ),
    )

    world: Path = world_file(missing="give a world file and a tool, or --example NAME and a tool")
    tool: str = positional(help="tool name")
    args: dict[str, Any] | None = option(
        parse=values.json_object, metavar="JSON", help="arguments as a JSON object (default {})"
    )
    show_reasoning: bool = option(help="print the model's reasoning", default=False)
    settings: Settings = settings_of(CALL_SETTINGS)


class ServeConfig(CommandConfig):
    """Serve worlds over MCP, every tool call answered by the world model: one world on stdio
    (the default, as an MCP host starts it), or any number over streamable HTTP with --http,
    where harnesses also start, fork and score episodes (/episodes)."""

    summary = "serve worlds over MCP (stdio by default), with episodes over HTTP"
    examples = (
        HelpExample("mcp-sim serve --example bookstore", "the bookstore example on stdio"),
        HelpExample(
            "mcp-sim serve worlds/ --http 127.0.0.1:8765 --journal calls.jsonl",
            "every world of a folder over HTTP, each call appended to a journal",
        ),
    )

    worlds: tuple[Path, ...] = world_files(
        "world spec (YAML), or a folder of them; several worlds need --http",
        "serve an example world shipped with mcp-sim (see `mcp-sim examples`), e.g. bookstore",
        metavar="world",
    )
    settings: Settings = settings_of(SETTINGS)

    @property
    def world(self) -> Path:
        """The world of a server that serves one."""
        return self.worlds[0]

    @property
    def http(self) -> tuple[str, int] | None:
        """Where to serve streamable HTTP; ``None`` serves stdio."""
        return self.settings.server.http

    @property
    def suite(self) -> Path | None:
        """The suite folder served (``mcp-sim suite generate`` made it), if one is."""
        only = self.worlds[0] if len(self.worlds) == 1 else None
        return only if only is not None and only.is_dir() else None

    def check(self) -> None:
        if self.suite is not None and self.http is None:
            raise UsageError("world", f"a suite ({self.suite}) is served over --http only")
        if any(w.is_dir() for w in self.worlds) and self.suite is None:
            raise UsageError("world", "serve a suite's folder on its own")
        try:
            self.settings.check_served(len(self.worlds))
        except SettingsError as exc:
            raise UsageError(exc.source, exc.problem) from None
