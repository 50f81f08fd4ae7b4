"""An OpenEnv environment folder for a world, as ``mcp-sim harness openenv`` writes it: the
layout openenv-core's CLI builds, validates and pushes (``openenv.yaml``, a ``pyproject.toml``
with a ``server`` script, ``server/app.py`` with ``main()``, a Dockerfile), serving the world
with :mod:`mcp_sim.asgi` and OpenEnv's routes on."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from mcp_sim import __version__
from mcp_sim.spec.loading import load_world

WORLD_FILE = "world.yaml"

OPENENV_YAML = """\
spec_version: 1
name: {name}
type: space
runtime: fastapi
app: server.app:app
port: 8000
"""

PYPROJECT = """\
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "{name}"
version = "0.1.0"
description = {description}
requires-python = ">=3.11"
dependencies = ["{mcp_sim}", "openenv-core>=0.2.0", "uvicorn>=0.30"]

[project.scripts]
server = "server.app:main"

[tool.hatch.build.targets.wheel]
packages = ["server"]
{sources}"""

APP = '''\
"""The OpenEnv environment of the mcp-sim world {world!r}: OpenEnv's routes (/reset, /step,
/state, /ws) and MCP (/mcp) over the world in world.yaml, every tool call answered by the
world model. Settings come from MCP_SIM_* variables (see mcp-sim's docs/settings.md):
MCP_SIM_MODEL_URL names the world model's server (without it the embedded model is installed
and started), MCP_SIM_AUTH_TOKEN guards the routes, and MCP_SIM_ALLOW_HOST must name the host
clients reach this server by when it is not localhost (a Space's domain, say)."""

import os
from pathlib import Path

import uvicorn

from mcp_sim.asgi import app

os.environ.setdefault("MCP_SIM_WORLDS", str(Path(__file__).resolve().parent / "{world_file}"))
os.environ.setdefault("MCP_SIM_OPENENV", "true")

__all__ = ["app", "main"]


def main() -> None:
    """Serve on $HOST:$PORT (0.0.0.0:8000 by default, as openenv.yaml says)."""
    host = os.environ.get("HOST", "0.0.0.0")
    uvicorn.run(app, host=host, port=int(os.environ.get("PORT", "8000")))


if __name__ == "__main__":
    main()
'''

DOCKERFILE = """\
FROM python:3.11-slim
WORKDIR /app
COPY . /app
RUN pip install --no-cache-dir .
EXPOSE 8000
CMD ["server"]
"""


def write_openenv_environment(
    world_path: Path, folder: Path, mcp_sim_source: Path | None
) -> list[Path]:
    """Write the environment of the world file at ``world_path`` into ``folder`` (made if
    missing; files of the same names replaced) and return the files written. Its
    ``pyproject.toml`` requires this version of mcp-sim from PyPI, or, with
    ``mcp_sim_source``, the checkout there (a ``[tool.uv.sources]`` path: for a version not
    released yet)."""
    world = load_world(world_path)
    name = f"{world.world.replace('.', '-').replace('_', '-').lower()}-env"
    sources = ""
    if mcp_sim_source is not None:
        checkout = json.dumps(mcp_sim_source.resolve().as_posix())
        sources = f"\n[tool.uv.sources]\nmcp-sim = {{ path = {checkout}, editable = true }}\n"
    files = {
        "openenv.yaml": OPENENV_YAML.format(name=name.replace("-", "_")),
        "pyproject.toml": PYPROJECT.format(
            name=name,
            description=json.dumps(f"OpenEnv environment: the mcp-sim world {world.title}"),
            mcp_sim=f"mcp-sim=={__version__}",
            sources=sources,
        ),
        "server/__init__.py": "",
        "server/app.py": APP.format(world=world.world, world_file=WORLD_FILE),
        "server/Dockerfile": DOCKERFILE,
    }
    written: list[Path] = []
    for relative, text in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    shutil.copyfile(world_path, folder / "server" / WORLD_FILE)
    written.append(folder / "server" / WORLD_FILE)
    return written
