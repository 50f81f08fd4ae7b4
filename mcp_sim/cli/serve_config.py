"""The typed configuration of ``mcp-sim serve``: which worlds, over which transport, with
which access rules, checked as a whole (flags that parse one by one but cannot go together
are a usage error, one line and exit status 2)."""

from __future__ import annotations

from pathlib import Path

from mcp_sim.cli.arguments import settings_of, world_files
from mcp_sim.cli.command import CommandConfig, HelpExample
from mcp_sim.cli.console import UsageError
from mcp_sim.settings.combined import SETTINGS, Settings


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

    def check(self) -> None:
        settings = self.settings
        if len(self.worlds) > 1:
            if self.http is None:
                raise UsageError("world", "several worlds are served over --http only")
            for flag, value in (
                ("--replay", settings.records.replay),
                ("--world-memory", settings.records.world_memory),
            ):
                if value is not None:
                    raise UsageError(flag, "applies to one world; serve that world on its own")
        if settings.server.openenv and self.http is None:
            raise UsageError("--openenv", "OpenEnv is served over --http only")
        if settings.episodes.episode_store != "memory" and self.http is None:
            raise UsageError("--episode-store", "episodes are served over --http only")
        if settings.episodes.snapshot_dir is not None and not settings.episodes.control_tools:
            raise UsageError("--snapshot-dir", "goes with --control-tools (the tools use it)")
