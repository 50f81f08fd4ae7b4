"""``mcp-sim harness trl WORLD -o FILE``: write a harness shim for a world (see
:mod:`mcp_sim.harness`)."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from mcp_sim.cli import values
from mcp_sim.cli.command import Command, Subcommands, add_command, add_group
from mcp_sim.cli.console import say


@dataclass(frozen=True)
class HarnessConfig:
    world: Path
    output: Path | None
    model_url: str | None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> HarnessConfig:
        return cls(Path(args.world), args.output, args.model_url)


def trl(config: HarnessConfig) -> int:
    from mcp_sim.cli import wiring
    from mcp_sim.harness.trl_shim import trl_environment_source

    world = wiring.load(config.world)
    home = (config.output or Path.cwd() / "x").resolve().parent
    relative = Path(os.path.relpath(config.world.resolve(), home)).as_posix()
    text = trl_environment_source(world, relative, config.model_url)
    if config.output is None:
        sys.stdout.write(text)
        return 0
    config.output.parent.mkdir(parents=True, exist_ok=True)
    config.output.write_text(text, encoding="utf-8")
    say(f"wrote {config.output}")
    return 0


def register(subcommands: Subcommands) -> None:
    kinds = add_group(
        subcommands, "harness", help="write a harness shim for a world", metavar="HARNESS"
    )
    p = add_command(
        kinds,
        "trl",
        Command(HarnessConfig.from_args, trl),
        help="a TRL environment_factory class: one typed method per tool, reset, get_reward",
    )
    p.add_argument("world", help="world spec (YAML)")
    p.add_argument("-o", "--output", type=values.output_file, help="write it to this file")
    p.add_argument(
        "--model-url",
        type=values.http_url,
        metavar="URL",
        help="the world model the class uses when $MCP_SIM_MODEL_URL is unset",
    )
