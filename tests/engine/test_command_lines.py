"""The command lines and environments of the vLLM servers mcp-sim launches."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from mcp_sim.engine.command_lines import embedded_command, embedded_env, free_port, gpu_command
from mcp_sim.engine.paths import EMBEDDED_MODEL_NAME, EnginePaths
from mcp_sim.errors import EngineError
from tests.engine_fakes import fake_vllm


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
    # A session's consecutive prompts share their prefix; the engine must keep it cached.
    assert "--enable-prefix-caching" in command
    # ... at every block, which a sliding-window model needs to serve a later call's prefix.
    assert value("--prefix-cache-retention-interval") == "None"
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


def test_gpu_command_uses_vllm_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vllm = fake_vllm(tmp_path)
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
    monkeypatch.setenv("PATH", str(fake_vllm(tmp_path).parent))
    command = gpu_command("Qwen/Qwen-AgentWorld-35B-A3B", 8000)
    tail = command[command.index("8000") + 1 :]
    assert tail == [
        "--reasoning-parser",
        "qwen3",
        "--language-model-only",
        "--trust-remote-code",
        "--enable-prefix-caching",
    ]

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


def test_free_port_is_bindable_on_loopback() -> None:
    port = free_port()
    assert 0 < port < 65536
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", port))
