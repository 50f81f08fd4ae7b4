"""A wheel of this checkout, built from a private copy of its sources.

``pip wheel ROOT`` builds in the checkout itself: setuptools rewrites ``mcp_sim.egg-info/``
(``entry_points.txt`` among it, truncated then written) and ``build/`` there, and packs the
wheel from them. Two builds of one checkout at once (two test runs, or a run beside an
editable install) read each other's half-written files: the wheel then lacks its
``entry_points.txt``, installs without ``bin/mcp-sim``, and pip says nothing. A copy of the
sources the wheel is made of (no ``build/``, no egg-info) builds alone.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ["pyproject.toml", "README.md", "mcp_sim", "worlds"]
"""What the wheel is built from: the project, its readme, the package and the worlds its
``mcp_sim/worlds`` link names (package data)."""
SCRIPT = "mcp-sim = mcp_sim.cli.main:main"


def checkout_wheel(scratch: Path, wheels: Path) -> Path:
    """The wheel of this checkout, built in ``scratch`` (a fresh folder) into ``wheels``;
    checked to declare the ``mcp-sim`` command, so that a wheel without it fails here, by
    name, rather than as a missing file where it is installed."""
    sources = scratch / "sources"
    sources.mkdir(parents=True)
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            ignored = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
            shutil.copytree(path, sources / name, symlinks=True, ignore=ignored)
        else:
            shutil.copy2(path, sources / name)
    command = [sys.executable, "-m", "pip", "wheel", str(sources), "--no-deps", "-q"]
    done = subprocess.run(
        [*command, "-w", str(wheels)], capture_output=True, text=True, cwd=scratch, timeout=600
    )
    assert done.returncode == 0, f"pip wheel: {done.stderr[-4000:]}"
    (wheel,) = wheels.glob("mcp_sim-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        points = [n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt")]
        declared = archive.read(points[0]).decode() if points else ""
    assert SCRIPT in declared, f"{wheel.name} declares no mcp-sim command: {declared!r}"
    return wheel
