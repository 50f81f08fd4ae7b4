"""``mcp-sim engine start|stop|status`` in-process, with a stand-in server for vLLM."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_sim.engine.background import stop_engine
from mcp_sim.engine.process_group import group_alive
from mcp_sim.engine.progress import EngineProgress
from mcp_sim.engine.vllm_server import VLLMServer
from tests.engine_fakes import health_server
from tests.test_cli import cli


def test_engine_start_status_stop(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("MCP_SIM_HOME", str(home))

    def embedded(progress: EngineProgress | None = None, **kwargs: object) -> VLLMServer:
        return health_server(tmp_path)

    monkeypatch.setattr(VLLMServer, "embedded", embedded)
    try:
        started = cli(capsys, "engine", "start")
        assert started.code == 0
        assert "engine: started at http://127.0.0.1:" in started.err
        again = cli(capsys, "engine", "start")
        assert "engine: already running at http://127.0.0.1:" in again.err
        status = cli(capsys, "engine", "status")
        running = json.loads(status.out)["running"]
        assert running["state"] == "running"
        assert running["log"].endswith(f"vllm-{running['port']}.log")
        assert str(running["port"]) in started.err
        stopped = cli(capsys, "engine", "stop")
        assert f"engine: stopped (pid {running['pid']})" in stopped.err
        assert not group_alive(running["pid"])
        assert json.loads(cli(capsys, "engine", "status").out)["running"] == {"state": "stopped"}
        assert "engine: not running" in cli(capsys, "engine", "stop").err
    finally:
        stop_engine(home)
