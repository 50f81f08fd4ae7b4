"""The example worlds shipped in the package (``mcp-sim serve --example bookstore``,
``mcp-sim examples``), so that an installed mcp-sim serves one without a checkout.

The files are the checkout's ``worlds/``: ``mcp_sim/worlds`` links to it and the wheel carries
its YAML files as package data, one copy of each.

Every command that reads a world file takes ``--example NAME`` instead of it: the option and
the choice between the two are declared here once, so that they read and fail alike.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mcp_sim.cli.console import UsageError

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "worlds"

NO_WORLD = "give a world file, or --example NAME (`mcp-sim examples` lists them)"


def example_names() -> list[str]:
    """The example worlds, by file name without ``.yaml``."""
    return sorted(p.stem for p in EXAMPLES_DIR.glob("*.yaml"))


def example_name(value: str) -> str:
    """The name of an example world, for argparse's ``type=``: an unknown one is refused
    while parsing, with the list of the known ones."""
    known = example_names()
    if value not in known:
        raise argparse.ArgumentTypeError(
            f"no example world {value!r} (examples: {', '.join(known)})"
        )
    return value


def example_path(name: str) -> Path:
    """The file of the example world ``name`` (checked by :func:`example_name`)."""
    return EXAMPLES_DIR / f"{name}.yaml"


def example_of(path: Path) -> str | None:
    """The name of the example world whose file ``path`` is, if it is one."""
    return path.stem if path == example_path(path.stem) else None


def add_example_option(
    parser: argparse._ActionsContainer, *, several: bool = False, help: str | None = None
) -> None:
    """``--example NAME`` beside a command's world file; ``several`` makes it repeatable."""
    parser.add_argument(
        "--example",
        type=example_name,
        action="append" if several else "store",
        default=[] if several else None,
        metavar="NAME",
        help=help
        or "an example world shipped with mcp-sim instead of a world file (see `mcp-sim "
        "examples`), e.g. bookstore",
    )


def world_or_example(
    world: str | Path | None, example: str | None, *, flag: str = "world", missing: str = NO_WORLD
) -> Path:
    """The one world a command reads: its world file or its ``--example``; giving both or
    neither is a usage error (``missing`` says what to give, under ``flag``)."""
    if world is not None and example is not None:
        raise UsageError("--example", "give a world file or --example NAME, not both")
    if example is not None:
        return example_path(example)
    if world is None:
        raise UsageError(flag, missing)
    return Path(world)


def list_examples() -> int:
    """``mcp-sim examples``: each example's name, title and tools, then where the files are."""
    from mcp_sim.spec.loading import load_world  # the spec models, for this command only

    for name in example_names():
        world = load_world(example_path(name))
        tools = f"{len(world.tools)} tool{'' if len(world.tools) == 1 else 's'}"
        print(f"{name:<10} {world.title} ({tools}, domain {world.domain})")
    print(f"\nfiles in {EXAMPLES_DIR}; serve one with `mcp-sim serve --example NAME`")
    return 0
