"""Where the engine keeps everything: its home and the layout under it."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest

from mcp_sim.engine.paths import EnginePaths, engine_home


def test_home_comes_from_the_environment_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_SIM_HOME", str(tmp_path / "home"))
    assert engine_home() == (tmp_path / "home").resolve()
    assert EnginePaths.resolve().venv == (tmp_path / "home").resolve() / "engine" / "venv"


def test_home_defaults_to_the_user_cache_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCP_SIM_HOME", raising=False)
    assert engine_home() == Path(platformdirs.user_cache_dir("mcp-sim"))


def test_layout_under_home(tmp_path: Path) -> None:
    paths = EnginePaths(tmp_path)
    assert paths.python == tmp_path / "engine" / "venv" / "bin" / "python"
    assert paths.model_dir == tmp_path / "models" / "gemma3-270m"
    assert paths.vllm_cache == tmp_path / "vllm-cache"
