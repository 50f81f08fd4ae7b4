"""The typed configuration of ``mcp-sim serve``: which worlds, over which transport, with
which access rules, checked as a whole (flags that parse one by one but cannot go together
are a usage error, one line and exit status 2)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from mcp_sim.cli.config import PerturbConfig, SimulationConfig
from mcp_sim.cli.console import UsageError
from mcp_sim.cli.example_worlds import NO_WORLD, example_path

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
    simulation: SimulationConfig
    perturb: PerturbConfig
    http: tuple[str, int] | None = None
    """Where to serve streamable HTTP; ``None`` serves stdio."""
    auth_token: str | None = None
    allowed_hosts: tuple[str, ...] = ()
    session_idle_timeout: float = 1800.0
    json_response: bool = False
    journal: Path | None = None
    replay: Path | None = None
    world_memory: Path | None = None
    control_tools: bool = False
    snapshot_dir: Path | None = None
    max_body_bytes: int = 16 * 1024 * 1024
    openenv: bool = False
    episode_store: str = "memory"
    """Where episodes are kept (see :mod:`mcp_sim.episodes.stores`)."""
    episode_lease: float = 15.0
    max_message_bytes: int = 4 * 1024 * 1024
    header_timeout: float = 10.0
    body_timeout: float = 60.0
    max_header_bytes: int = 16 * 1024

    @property
    def world(self) -> Path:
        """The world of a server that serves one."""
        return self.worlds[0]

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ServeConfig:
        found = cls(
            worlds=served_files(tuple(args.world), args.example),
            simulation=SimulationConfig.from_args(args),
            perturb=PerturbConfig.from_args(args),
            http=args.http,
            auth_token=args.auth_token,
            allowed_hosts=tuple(args.allow_host),
            session_idle_timeout=args.session_idle_timeout,
            json_response=args.json_response,
            journal=args.journal,
            replay=args.replay,
            world_memory=args.world_memory,
            control_tools=args.control_tools,
            snapshot_dir=args.snapshot_dir,
            max_body_bytes=args.max_body_bytes,
            openenv=args.openenv,
            episode_store=args.episode_store,
            episode_lease=args.episode_lease,
            max_message_bytes=args.max_message_bytes,
            header_timeout=args.header_timeout,
            body_timeout=args.body_timeout,
            max_header_bytes=args.max_header_bytes,
        )
        found.check()
        return found

    def check(self) -> None:
        if not self.worlds:
            raise UsageError("world", NO_WORLD)
        if len(self.worlds) > 1:
            if self.http is None:
                raise UsageError("world", "several worlds are served over --http only")
            for flag, value in (("--replay", self.replay), ("--world-memory", self.world_memory)):
                if value is not None:
                    raise UsageError(flag, "applies to one world; serve that world on its own")
        if self.openenv and self.http is None:
            raise UsageError("--openenv", "OpenEnv is served over --http only")
        if self.episode_store != "memory" and self.http is None:
            raise UsageError("--episode-store", "episodes are served over --http only")
        if self.snapshot_dir is not None and not self.control_tools:
            raise UsageError("--snapshot-dir", "goes with --control-tools (the tools use it)")
