"""Where the engine keeps everything, under one home directory.

Layout under :func:`engine_home`::

    engine/venv/              the managed virtual environment
    engine/installed.json     what was installed (pins and versions); makes reinstalls no-ops
    engine/install.log        pip's and the converter's output
    engine/running.json       the engine started by ``mcp-sim engine start`` (pid, port, log)
    engine/running.lock       held while that engine starts or stops
    models/gemma3-270m/       the converted HF folder vLLM serves
    vllm-cache/               VLLM_CACHE_ROOT and TORCHINDUCTOR_CACHE_DIR of the CPU server
    logs/vllm-PORT.log        one log per launched server (the newest few are kept)
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import platformdirs

HOME_ENV = "MCP_SIM_HOME"
EMBEDDED_MODEL_NAME = "gemma3-270m"


def engine_home() -> Path:
    """Root of everything the engine keeps: ``$MCP_SIM_HOME`` or the user's cache dir."""
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override).expanduser().resolve()
    return Path(platformdirs.user_cache_dir("mcp-sim"))


@dataclass(frozen=True)
class EnginePaths:
    """Where each part of the engine lives under one home directory."""

    home: Path

    @classmethod
    def resolve(cls, home: Path | None = None) -> EnginePaths:
        return cls(home if home is not None else engine_home())

    @property
    def venv(self) -> Path:
        return self.home / "engine" / "venv"

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def marker(self) -> Path:
        return self.home / "engine" / "installed.json"

    @property
    def install_log(self) -> Path:
        return self.home / "engine" / "install.log"

    @property
    def lock(self) -> Path:
        return self.home / "engine" / "install.lock"

    @property
    def running_state(self) -> Path:
        return self.home / "engine" / "running.json"

    @property
    def running_lock(self) -> Path:
        return self.home / "engine" / "running.lock"

    @property
    def model_dir(self) -> Path:
        return self.home / "models" / EMBEDDED_MODEL_NAME

    @property
    def vllm_cache(self) -> Path:
        return self.home / "vllm-cache"

    @property
    def logs(self) -> Path:
        return self.home / "logs"


def gpu_vllm_on_path() -> Path | None:
    """The ``vllm`` command a GPU user installed, if any."""
    found = shutil.which("vllm")
    return Path(found) if found else None
