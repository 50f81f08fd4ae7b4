"""The engine that stays up: started in the background, found, reported, stopped, with a
stand-in server that answers ``/health`` instead of vLLM."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest

from mcp_sim.api.model_launch import LaunchingModel
from mcp_sim.engine import background
from mcp_sim.engine.background import (
    engine_run_status,
    recorded_engine,
    running_engine,
    start_engine,
    stop_engine,
)
from mcp_sim.engine.paths import EnginePaths
from mcp_sim.engine.process_group import group_alive
from mcp_sim.engine.progress import EngineProgress
from mcp_sim.engine.vllm_server import VLLMServer
from mcp_sim.engine.warm_up import warm_up
from mcp_sim.models.base import CompletionRequest, Sampling
from mcp_sim.models.openai import OpenAICompatibleModel
from mcp_sim.models.payload import chat_payload
from mcp_sim.settings import ModelSettings
from tests.engine_fakes import fake_engine, seen_requests
from tests.openai_double import OpenAIDouble, Reply

WARM_UP = CompletionRequest(
    messages=[
        {"role": "system", "content": "# Role and Objective"},
        {"role": "user", "content": "### Turn 1\n**Action:**\n```json\n{}\n```"},
    ],
    sampling=Sampling(max_tokens=8),
    response_schema={"type": "object", "properties": {"observation": {"type": "string"}}},
    schema_name="greet",
)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    """An engine home whose background engine, if a test left one, is stopped afterwards."""
    engine_home = tmp_path / "home"
    yield engine_home
    stop_engine(engine_home)


def fake_server(
    tmp_path: Path,
    launches: list[int] | None = None,
    *extra: str,
    requests: Path | None = None,
) -> background.ServerFactory:
    def make(progress: EngineProgress) -> VLLMServer:
        server = fake_engine(tmp_path, *extra, requests=requests)
        server.progress = progress
        if launches is not None:
            launches.append(server.port)
        return server

    return make


def test_start_runs_the_engine_past_its_starter_and_records_it(tmp_path: Path, home: Path) -> None:
    lines: list[str] = []
    outcome = start_engine(lines.append, home=home, server=fake_server(tmp_path))
    engine = outcome.engine
    assert not outcome.already_running
    assert engine.alive
    assert httpx2.get(engine.health_url, trust_env=False).status_code == 200
    assert recorded_engine(home) == engine
    assert running_engine(home) == engine
    recorded = json.loads(EnginePaths(home).running_state.read_text())
    assert {"pid", "port", "model", "log", "started_at"} <= set(recorded)
    assert Path(engine.log).parent == tmp_path / "logs"
    assert any("ready after" in line for line in lines)


def test_engine_started_by_an_exiting_process_stays_up(tmp_path: Path, home: Path) -> None:
    """``mcp-sim engine start`` exits once the engine is ready; the engine must not follow."""
    starter = tmp_path / "starter.py"
    starter.write_text(
        f"""\
import sys
from pathlib import Path
sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
from mcp_sim.engine.background import start_engine
from tests.engine.test_background import fake_server
print(start_engine(home=Path({str(home)!r}), server=fake_server(Path({str(tmp_path)!r}))))
"""
    )
    subprocess.run([sys.executable, str(starter)], timeout=60, check=True, capture_output=True)
    engine = recorded_engine(home)
    assert engine is not None
    time.sleep(2.0)  # the supervisor checks on its parent every second
    assert running_engine(home) == engine


def test_second_start_finds_the_running_engine(tmp_path: Path, home: Path) -> None:
    launches: list[int] = []
    first = start_engine(home=home, server=fake_server(tmp_path, launches))
    second = start_engine(home=home, server=fake_server(tmp_path, launches))
    assert second.already_running
    assert second.engine == first.engine
    assert len(launches) == 1


def test_concurrent_starts_launch_one_engine(tmp_path: Path, home: Path) -> None:
    launches: list[int] = []
    outcomes: list[background.StartOutcome] = []

    def start() -> None:
        outcomes.append(start_engine(home=home, server=fake_server(tmp_path, launches)))

    threads = [threading.Thread(target=start) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(launches) == 1
    assert sorted(o.already_running for o in outcomes) == [False, True]
    assert outcomes[0].engine == outcomes[1].engine


def test_a_new_engine_is_warmed_up_by_one_request_before_start_returns(
    tmp_path: Path, home: Path
) -> None:
    requests = tmp_path / "requests.jsonl"
    lines: list[str] = []
    server = fake_server(tmp_path, requests=requests)
    outcome = start_engine(lines.append, home=home, server=server, warm_up_with=WARM_UP)
    assert not outcome.already_running
    (seen,) = seen_requests(requests)
    assert seen == {"path": "/v1/chat/completions", "body": chat_payload("fake", WARM_UP)}
    warming = next(i for i, line in enumerate(lines) if line.startswith("engine: warming up"))
    assert re.fullmatch(r"engine: warmed up in \d+\.\d s", lines[warming + 1])
    again = start_engine(lines.append, home=home, server=server, warm_up_with=WARM_UP)
    assert again.already_running
    assert len(seen_requests(requests)) == 1  # a running engine is warm already


def test_a_failed_warm_up_still_leaves_the_engine_started(tmp_path: Path, home: Path) -> None:
    requests = tmp_path / "requests.jsonl"
    lines: list[str] = []
    server = fake_server(tmp_path, None, "--fail-chat", requests=requests)
    outcome = start_engine(lines.append, home=home, server=server, warm_up_with=WARM_UP)
    assert not outcome.already_running
    assert running_engine(home) == outcome.engine
    assert len(seen_requests(requests)) == 1
    (failed,) = [line for line in lines if line.startswith("engine: warm-up failed")]
    assert "HTTP 500: EngineCore encountered an issue" in failed
    assert not any(line.startswith("engine: warmed up") for line in lines)


def test_a_warm_up_whose_stream_never_ends_its_answer_fails() -> None:
    lines: list[str] = []
    with OpenAIDouble(model="fake") as double:
        double.script(Reply(raw_stream='data: {"choices": []}\n\n'))
        assert warm_up(double.base_url, "fake", WARM_UP, lines.append) is None
    assert "[DONE]" in lines[-1] and lines[-1].startswith("engine: warm-up failed")


def test_stop_leaves_no_process_and_no_state(tmp_path: Path, home: Path) -> None:
    engine = start_engine(home=home, server=fake_server(tmp_path)).engine
    assert stop_engine(home) == engine
    assert not group_alive(engine.pid)
    assert not EnginePaths(home).running_state.exists()
    with pytest.raises(httpx2.ConnectError):
        httpx2.get(engine.health_url, trust_env=False)
    assert stop_engine(home) is None
    assert engine_run_status(home) == {"state": "stopped"}


def test_status_reports_pid_port_and_log(tmp_path: Path, home: Path) -> None:
    assert engine_run_status(home) == {"state": "stopped"}
    engine = start_engine(home=home, server=fake_server(tmp_path)).engine
    status = engine_run_status(home)
    assert status["state"] == "running"
    assert (status["pid"], status["port"], status["log"]) == (engine.pid, engine.port, engine.log)
    assert status["url"] == engine.base_url


def test_stale_state_of_a_dead_engine_is_cleaned(tmp_path: Path, home: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    dead.wait()
    state = EnginePaths(home).running_state
    state.parent.mkdir(parents=True)
    stale = {"pid": dead.pid, "port": 1, "model": "x", "log": "x.log", "started_at": "then"}
    state.write_text(json.dumps(stale))
    assert running_engine(home) is None
    assert engine_run_status(home) == {"state": "stopped"}
    assert not state.exists()
    state.write_text(json.dumps(stale))
    outcome = start_engine(home=home, server=fake_server(tmp_path))
    assert not outcome.already_running
    assert outcome.engine.pid != dead.pid


def test_failed_start_records_nothing(tmp_path: Path, home: Path) -> None:
    def dying(progress: EngineProgress) -> VLLMServer:
        return VLLMServer(
            [sys.executable, "-c", "raise SystemExit(3)"],
            port=1,
            served_model="fake",
            log_path=tmp_path / "vllm.log",
        )

    with pytest.raises(Exception, match="exited with code 3"):
        start_engine(home=home, server=dying)
    assert recorded_engine(home) is None


async def test_launched_model_uses_the_running_engine(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_SIM_HOME", str(home))
    engine = start_engine(home=home, server=fake_server(tmp_path)).engine

    def no_launch(*args: object, **kwargs: object) -> VLLMServer:
        raise AssertionError("started an engine of its own although one runs")

    monkeypatch.setattr(VLLMServer, "embedded", no_launch)
    lines: list[str] = []
    with anyio.fail_after(30):
        launching = LaunchingModel(ModelSettings(), lines.append)
        model = await launching.start()
        assert isinstance(model, OpenAICompatibleModel)
        assert model.settings.base_urls == [engine.base_url]
        await launching.aclose()
    assert lines == [f"engine: using the running engine at {engine.base_url}"]
    assert running_engine(home) == engine  # the command leaves it running


async def test_launched_model_starts_its_own_without_a_running_engine(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_SIM_HOME", str(home))
    own: list[VLLMServer] = []

    def embedded(progress: EngineProgress | None = None, **kwargs: object) -> VLLMServer:
        server = fake_engine(tmp_path)
        own.append(server)
        return server

    monkeypatch.setattr(VLLMServer, "embedded", embedded)
    with anyio.fail_after(30):
        launching = LaunchingModel(ModelSettings())
        model = await launching.start()
        assert isinstance(model, OpenAICompatibleModel)
        assert model.settings.base_urls == [own[0].base_url]
        pgid = own[0].pid or 0
        await launching.aclose()
    assert not group_alive(pgid)
