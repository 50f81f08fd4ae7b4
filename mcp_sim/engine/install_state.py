"""Whether the engine's install is current, and what it holds, read from its markers.

An install writes ``engine/installed.json`` (:func:`wanted_marker` plus the versions found)
and the converter writes a marker into the model folder; nothing here runs a subprocess.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from mcp_sim.engine import convert_gguf
from mcp_sim.engine.paths import EMBEDDED_MODEL_NAME, EnginePaths, gpu_vllm_on_path
from mcp_sim.engine.pins import ENGINE_PINS, TORCH_INDEX_ENV, TORCH_PIN, UNWANTED_PACKAGES


def read_json(path: Path) -> dict[str, Any] | None:
    """A JSON object from a file, or None when it is missing, unreadable or not an object."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def wanted_marker() -> dict[str, Any]:
    """The part of the venv's marker that must match the current pins."""
    return {"torch": TORCH_PIN, "pins": ENGINE_PINS, "unwanted_removed": list(UNWANTED_PACKAGES)}


def venv_ready(paths: EnginePaths) -> bool:
    """Whether the venv exists and was installed from the current pins."""
    marker = read_json(paths.marker)
    if marker is None or not paths.python.exists():
        return False
    return all(marker.get(key) == value for key, value in wanted_marker().items())


def model_ready(paths: EnginePaths) -> bool:
    """Whether the model folder was converted by the current recipe."""
    marker = read_json(paths.model_dir / convert_gguf.MARKER_NAME)
    return marker is not None and marker.get("recipe") == convert_gguf.RECIPE


def engine_installed(home: Path | None = None) -> bool:
    """Whether the venv and the converted model are present and current (no subprocess)."""
    paths = EnginePaths.resolve(home)
    return venv_ready(paths) and model_ready(paths)


def _folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def engine_status(home: Path | None = None) -> dict[str, Any]:
    """What is installed and cached, for ``mcp-sim engine status`` (JSON-serializable)."""
    paths = EnginePaths.resolve(home)
    marker = read_json(paths.marker) or {}
    model_marker = read_json(paths.model_dir / convert_gguf.MARKER_NAME)
    model_present = model_marker is not None
    gpu = gpu_vllm_on_path()
    return {
        "home": str(paths.home),
        "venv": {
            "path": str(paths.venv),
            "present": paths.python.exists(),
            "up_to_date": venv_ready(paths),
            "packages": marker.get("installed", {}),
            "installed_at": marker.get("installed_at"),
            "python": marker.get("python"),
        },
        "model": {
            "name": EMBEDDED_MODEL_NAME,
            "path": str(paths.model_dir),
            "present": model_present,
            "up_to_date": model_ready(paths),
            "size_bytes": _folder_size(paths.model_dir) if model_present else 0,
            "source": model_marker.get("source") if model_marker else None,
        },
        "vllm_cache": str(paths.vllm_cache),
        "logs": str(paths.logs),
        "install_log": str(paths.install_log),
        "gpu_vllm": str(gpu) if gpu else None,
        "torch_index": os.environ.get(TORCH_INDEX_ENV),
        "pins": {"torch": TORCH_PIN, **ENGINE_PINS},
    }
