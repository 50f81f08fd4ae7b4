"""Where world files are: the world files of a folder, and the example worlds shipped in the
package (``mcp-sim serve --example bookstore``, ``mcp-sim examples``), so that an installed
mcp-sim serves one without a checkout.

The examples are the checkout's ``worlds/``: ``mcp_sim/worlds`` links to it and the wheel
carries its YAML files as package data, one copy of each.
"""

from __future__ import annotations

from pathlib import Path

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "worlds"

WORLD_SUFFIXES = (".yaml", ".yml", ".json")


def world_files_in(folder: Path) -> list[Path]:
    """The world files directly in ``folder`` (by their suffix), sorted."""
    return sorted(p for p in folder.iterdir() if p.suffix in WORLD_SUFFIXES and p.is_file())


def example_names() -> list[str]:
    """The example worlds, by file name without ``.yaml``."""
    return sorted(p.stem for p in EXAMPLES_DIR.glob("*.yaml"))


def example_path(name: str) -> Path:
    """The file of the example world ``name`` (one of :func:`example_names`)."""
    return EXAMPLES_DIR / f"{name}.yaml"


def example_of(path: Path) -> str | None:
    """The name of the example world whose file ``path`` is, if it is one."""
    return path.stem if path == example_path(path.stem) else None
