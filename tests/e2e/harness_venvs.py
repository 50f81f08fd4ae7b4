"""Virtual environments with the harness libraries the examples run against (openenv-core,
inspect-ai with mcp, transformers), installed from PyPI at pinned versions into ``.cache/harness/``,
so their dependencies never meet mcp-sim's. Each is made once and reused while its pins hold.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

HARNESS_CACHE = ROOT / ".cache" / "harness"
OPENENV = ("openenv-core==0.3.0", "uv==0.13.9")
"""openenv-core (its client and its CLI, ``openenv validate``) and uv, which locks an
environment folder as ``openenv build`` and ``openenv push`` expect."""
INSPECT = ("inspect-ai==0.3.285", "mcp==2.3.0")
"""inspect-ai leaves mcp, which its MCP tools need, to the user."""
TRANSFORMERS = ("transformers==5.23.0", "jinja2")
"""What TRL's GRPOTrainer reads an environment's tools with (``get_json_schema``), without
torch: trl itself pulls torch and accelerate, too heavy for CI's budget."""
DATASETS = ("datasets==5.2.0",)
"""What TRL, verifiers and an OpenEnv launcher read a suite's exported task rows with."""


def harness_python(name: str, requirements: tuple[str, ...], *, with_mcp_sim: bool = False) -> Path:
    """The Python of venv ``name`` holding ``requirements`` (and mcp-sim, editable, when
    asked), made now if it is missing or was made for other pins."""
    venv = HARNESS_CACHE / name
    python = venv / "bin" / "python"
    wanted = "\n".join([*requirements, f"mcp-sim: {with_mcp_sim}"]) + "\n"
    marker = venv / "harness-requirements.txt"
    if python.is_file() and marker.is_file() and marker.read_text() == wanted:
        return python
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    packages = [*requirements, *(["-e", str(ROOT)] if with_mcp_sim else [])]
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", *packages],
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
    )
    assert done.returncode == 0, f"pip install {' '.join(packages)} failed:\n{done.stderr}"
    marker.write_text(wanted)
    return python


def run_example(
    python: Path, script: str, *args: str, timeout: float = 300, **env_vars: str
) -> str:
    """Run ``examples/harness/SCRIPT ARGS`` with ``python`` (and ``env_vars`` set); its stdout,
    once it succeeded."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(env_vars)
    done = subprocess.run(
        [str(python), str(ROOT / "examples" / "harness" / script), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=timeout,
    )
    assert done.returncode == 0, f"{script} failed ({done.returncode}):\n{done.stderr}"
    return done.stdout
