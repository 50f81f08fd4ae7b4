"""The example worlds shipped in the package (``mcp-sim serve --example bookstore``,
``mcp-sim examples``), so that an installed mcp-sim serves one without a checkout.

The files are the checkout's ``worlds/``: ``mcp_sim/worlds`` links to it and the wheel carries
its YAML files as package data, one copy of each.
"""

from __future__ import annotations

from pathlib import Path

from mcp_sim.cli.console import UsageError

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "worlds"


def example_names() -> list[str]:
    """The example worlds, by file name without ``.yaml``."""
    return sorted(p.stem for p in EXAMPLES_DIR.glob("*.yaml"))


def example_path(name: str) -> Path:
    """The file of the example world ``name``; a usage error lists the examples if none is."""
    path = EXAMPLES_DIR / f"{name}.yaml"
    if name not in example_names():
        raise UsageError(
            "--example", f"no example world {name!r} (examples: {', '.join(example_names())})"
        )
    return path


def list_examples() -> int:
    """``mcp-sim examples``: each example's name, title and tools, then where the files are."""
    from mcp_sim.spec.loading import load_world  # the spec models, for this command only

    for name in example_names():
        world = load_world(EXAMPLES_DIR / f"{name}.yaml")
        tools = f"{len(world.tools)} tool{'' if len(world.tools) == 1 else 's'}"
        print(f"{name:<10} {world.title} ({tools}, domain {world.domain})")
    print(f"\nfiles in {EXAMPLES_DIR}; serve one with `mcp-sim serve --example NAME`")
    return 0
