"""The typed configuration of ``mcp-sim serve``: which worlds, over which transport, with
which access rules, checked as a whole (flags that parse one by one but cannot go together
are a usage error, one line and exit status 2)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from mcp_sim.cli.console import UsageError
from mcp_sim.cli.example_worlds import NO_WORLD, example_path
from mcp_sim.cli.settings_flags import read_settings
from mcp_sim.settings.combined import Settings

WORLD_SUFFIXES = (".yaml", ".yml", ".json")


def world_files(given: tuple[str, ...]) -> tuple[Path, ...]:
    """The world files named, a folder standing for the world files directly in it (sorted)."""
    found: list[Path] = []
    for name in given:
        path = Path(name)
        if path.is_dir():
            inside = sorted(p for p in path.iterdir() if p.suffix in WORLD_SUFFIXES and p.is_file())
            if not inside:
                raise UsageError("world", f"the folder {name} holds no world files (*.yaml)")
            found += inside
        else:
            found.append(path)
    return tuple(found)


def served_files(given: tuple[str, ...], examples: list[str]) -> tuple[Path, ...]:
    """The world files of a server: those named (folders opened), then the examples named."""
    return world_files(given) + tuple(example_path(name) for name in examples)


@dataclass(frozen=True)
class ServeConfig:
    worlds: tuple[Path, ...]
    settings: Settings

    @property
    def world(self) -> Path:
        """The world of a server that serves one."""
        return self.worlds[0]

    @property
    def http(self) -> tuple[str, int] | None:
        """Where to serve streamable HTTP; ``None`` serves stdio."""
        return self.settings.server.http

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ServeConfig:
        settings = read_settings(args)
        found = cls(served_files(tuple(args.world), args.example), settings)
        found.check()
        return found

    def check(self) -> None:
        if not self.worlds:
            raise UsageError("world", NO_WORLD)
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
