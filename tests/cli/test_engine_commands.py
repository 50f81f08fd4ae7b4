"""``mcp-sim engine start|stop|status`` in-process, with a stand-in server for vLLM."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_sim.engine.background import stop_engine
from mcp_sim.engine.process_group import group_alive
from mcp_sim.engine.progress import EngineProgress
from mcp_sim.engine.vllm_server import VLLMServer
from mcp_sim.models.base import Sampling
from tests.cli.test_cli import cli
from tests.engine_fakes import fake_engine, seen_requests


def _embedded_fakes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *extra: str
) -> tuple[Path, Path]:
    """The engine home, and the file its fake's chat completion requests go to."""
    home = tmp_path / "home"
    requests = tmp_path / "requests.jsonl"
    monkeypatch.setenv("MCP_SIM_HOME", str(home))

    def embedded(progress: EngineProgress | None = None, **kwargs: object) -> VLLMServer:
        return fake_engine(tmp_path, *extra, requests=requests)

    monkeypatch.setattr(VLLMServer, "embedded", embedded)
    return home, requests


def test_engine_start_status_stop(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home, _ = _embedded_fakes(monkeypatch, tmp_path)
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


def test_engine_start_warms_the_new_engine_up_with_one_call_shaped_request(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home, requests = _embedded_fakes(monkeypatch, tmp_path)
    try:
        started = cli(capsys, "engine", "start")
        assert started.code == 0
        lines = started.err.splitlines()
        warming = next(i for i, line in enumerate(lines) if "engine: warming up" in line)
        assert "engine: warmed up in " in lines[warming + 1]
        assert "engine: started at " in lines[warming + 2]
        (seen,) = seen_requests(requests)
        assert seen["path"] == "/v1/chat/completions"
        body = seen["body"]
        # What a call to the embedded model sends: streamed, its sampling, a native prompt and
        # the JSON-schema envelope of the output bounds; no seed, which vLLM's CPU build
        # does not survive on long prompts.
        assert body["model"] == "fake"
        assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
        assert 0 < body["max_completion_tokens"] <= 64
        assert body["temperature"] == Sampling().temperature
        assert "seed" not in body
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        assert body["messages"][0]["content"].startswith("# Role and Objective")
        assert body["messages"][1]["content"].startswith("### Turn 1\n")
        assert "**Action:**" in body["messages"][1]["content"]
        assert body["response_format"]["type"] == "json_schema"
        assert body["response_format"]["json_schema"]["schema"]["required"] == ["observation"]
        again = cli(capsys, "engine", "start")
        assert "already running" in again.err and "warming up" not in again.err
        assert len(seen_requests(requests)) == 1
    finally:
        stop_engine(home)


def test_engine_start_reports_a_failed_warm_up_and_still_starts(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home, requests = _embedded_fakes(monkeypatch, tmp_path, "--fail-chat")
    try:
        started = cli(capsys, "engine", "start")
        assert started.code == 0
        (failed,) = [line for line in started.err.splitlines() if "warm-up failed" in line]
        assert "HTTP 500" in failed and "the engine runs" in failed
        assert "engine: started at http://127.0.0.1:" in started.err
        assert len(seen_requests(requests)) == 1
        status = json.loads(cli(capsys, "engine", "status").out)
        assert status["running"]["state"] == "running"
    finally:
        stop_engine(home)
