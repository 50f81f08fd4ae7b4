"""The launched vLLM server: described without installing, started, waited for, stopped.

Everything but the ``real_model`` test runs without the heavy install: the launcher is
driven with small stand-in scripts (one that dies, one that never answers, one that serves
``/health``), which exercise the same process-group, polling and stopping code.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import jsonschema
import pytest

from mcp_sim.engine import process_group
from mcp_sim.engine.command_lines import free_port
from mcp_sim.engine.paths import EMBEDDED_MODEL_NAME
from mcp_sim.engine.process_group import group_alive
from mcp_sim.engine.vllm_server import VLLMServer
from mcp_sim.errors import EngineError
from tests.engine_fakes import fake_engine, fake_vllm, script


def test_embedded_server_is_described_without_installing(tmp_path: Path) -> None:
    server = VLLMServer.embedded(home=tmp_path, port=9001)
    assert server.base_url == "http://127.0.0.1:9001/v1"
    assert server.served_model == EMBEDDED_MODEL_NAME
    assert server.log_path.parent == tmp_path / "logs"
    assert not (tmp_path / "engine").exists()


def test_gpu_server_serves_under_the_given_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(fake_vllm(tmp_path).parent))
    server = VLLMServer.gpu("org/model", ["--served-model-name", "world"], home=tmp_path)
    assert server.served_model == "world"
    assert server.env["VLLM_NO_USAGE_STATS"] == "1"
    assert VLLMServer.gpu("org/model", home=tmp_path).served_model == "org/model"


# -- the launcher ------------------------------------------------------------------------------


def test_process_that_dies_fails_with_its_log_tail(tmp_path: Path) -> None:
    fake = script(
        tmp_path,
        "python",
        """\
        import sys
        print("Loading weights\\rLoading weights 100%")
        print("ValueError: unsupported model", file=sys.stderr)
        sys.exit(1)
        """,
    )
    lines: list[str] = []
    server = VLLMServer(
        [sys.executable, str(fake), "-m", "vllm.entrypoints.openai.api_server"],
        port=free_port(),
        served_model="fake",
        log_path=tmp_path / "vllm.log",
        progress=lines.append,
    )
    started = time.monotonic()
    with pytest.raises(EngineError) as caught:
        server.start()
    assert time.monotonic() - started < 15
    message = str(caught.value)
    assert "exited with code 1 before it was ready" in message
    assert "ValueError: unsupported model" in message
    assert "Loading weights 100%" in message
    assert "\r" not in message
    assert not server.running
    assert lines[0].startswith("fake: starting vLLM on http://127.0.0.1:")


async def test_process_that_dies_fails_in_async_use(tmp_path: Path) -> None:
    fake = script(tmp_path, "python", "import sys\nprint('boom')\nsys.exit(1)\n")
    server = VLLMServer(
        [sys.executable, str(fake)],
        port=free_port(),
        served_model="fake",
        log_path=tmp_path / "vllm.log",
    )
    with pytest.raises(EngineError, match="boom"):
        async with server:
            pytest.fail("must not get here")


def test_missing_executable_fails_with_its_reason(tmp_path: Path) -> None:
    server = VLLMServer(
        [str(tmp_path / "no-such-python"), "-m", "vllm"],
        port=free_port(),
        served_model="fake",
        log_path=tmp_path / "vllm.log",
    )
    with pytest.raises(EngineError, match="no-such-python"):
        server.start()


def test_not_ready_in_time_stops_the_process(tmp_path: Path) -> None:
    hang = script(
        tmp_path, "hang.py", "import time\nprint('still loading', flush=True)\ntime.sleep(600)\n"
    )
    server = VLLMServer(
        [sys.executable, str(hang)],
        port=free_port(),
        served_model="fake",
        log_path=tmp_path / "vllm.log",
        # Long enough for the child to start and print on a loaded CI machine: the message
        # must carry the log's last lines, so the line has to be there when time runs out.
        ready_timeout=8,
    )
    with pytest.raises(EngineError, match=r"not ready after 8 s(.|\n)*still loading"):
        server.start()
    assert not server.running


def test_start_waits_for_health_and_stop_ends_the_group(tmp_path: Path) -> None:
    server = fake_engine(tmp_path)
    lines: list[str] = []
    server.progress = lines.append
    server.start()
    try:
        assert server.running
        assert httpx2.get(server.health_url, trust_env=False).status_code == 200
        assert lines[-1].startswith("fake: ready after ")
        assert lines[-1].endswith(server.base_url)
        pgid = server.pid or 0
    finally:
        server.stop()
    assert not server.running
    assert not group_alive(pgid)
    with pytest.raises(httpx2.ConnectError):
        httpx2.get(server.health_url, trust_env=False)
    server.stop()  # twice is fine


def test_stop_kills_a_server_that_ignores_sigterm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(process_group, "_STOP_GRACE_S", 1.0)
    server = fake_engine(tmp_path, "--ignore-term")
    server.start()
    pgid = server.pid or 0
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 10
    assert not group_alive(pgid)


async def test_async_context_manager(tmp_path: Path) -> None:
    server = fake_engine(tmp_path)
    async with server as running:
        assert running is server
        async with httpx2.AsyncClient(trust_env=False) as client:
            assert (await client.get(server.health_url)).status_code == 200
    assert not server.running


def test_server_is_stopped_when_its_owner_dies(tmp_path: Path) -> None:
    """A killed mcp-sim must not leave vLLM running: the supervisor takes the group down."""
    owner = script(
        tmp_path,
        "owner.py",
        f"""\
        import os, sys
        sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
        from tests.engine_fakes import fake_engine
        from pathlib import Path
        server = fake_engine(Path({str(tmp_path)!r}))
        server.start()
        print(server.pid, flush=True)
        os._exit(0)  # no stop(): as if killed
        """,
    )
    result = subprocess.run(
        [sys.executable, str(owner)], capture_output=True, text=True, timeout=60, check=True
    )
    pgid = int(result.stdout.split()[-1])
    deadline = time.monotonic() + 20
    while group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not group_alive(pgid)


# -- the real thing ----------------------------------------------------------------------------

OBSERVATION_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "maxLength": 30},
        "temperature_c": {"type": "integer", "minimum": -50, "maximum": 60},
        "sky": {"type": "string", "enum": ["sunny", "cloudy", "rain"]},
    },
    "required": ["city", "temperature_c", "sky"],
    "additionalProperties": False,
}


@pytest.mark.real_model
async def test_embedded_server_answers_structured_chat(real_model_url: str) -> None:
    async with httpx2.AsyncClient(base_url=real_model_url, timeout=120, trust_env=False) as http:
        models = (await http.get("/models")).json()
        model = models["data"][0]["id"]
        response = await http.post(
            "/chat/completions",
            json={
                "model": model,
                "messages": [
                    {"role": "system", "content": "You simulate a weather API. Reply in JSON."},
                    {"role": "user", "content": 'get_weather({"city": "Lisbon"})'},
                ],
                "max_tokens": 80,
                "temperature": 0.2,
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {
                        "name": "observation",
                        "schema": OBSERVATION_SCHEMA,
                        "strict": True,
                    },
                },
            },
        )
    assert response.status_code == 200, response.text
    choice = response.json()["choices"][0]
    assert choice["finish_reason"] == "stop"
    jsonschema.validate(json.loads(choice["message"]["content"]), OBSERVATION_SCHEMA)
