"""One small chat completion sent to an engine that has just started, so that the first real
call does not pay for vLLM's warm-up.

vLLM's CPU build does slow one-time work on its first request (compiling kernels, setting up
structured output): right after ``mcp-sim engine start`` the first ``mcp-sim call`` took 38 s,
the next ones about 4 s. The request is the caller's, built like a call's (streamed, the same
sampling, a JSON-schema response format), so that it goes down the paths a call goes down.
"""

from __future__ import annotations

import time

import httpx2

from mcp_sim.engine.progress import EngineProgress
from mcp_sim.models.base import CompletionRequest
from mcp_sim.models.failures import error_message
from mcp_sim.models.payload import chat_payload

WARM_UP_TIMEOUT_S = 300.0
"""Longest wait for a byte of the answer: the first request on a slow CPU can take minutes."""


class _NoAnswer(Exception):
    """The engine answered, but not with a whole streamed completion."""


def warm_up(
    base_url: str,
    model: str,
    request: CompletionRequest,
    progress: EngineProgress,
    *,
    timeout: float = WARM_UP_TIMEOUT_S,
) -> float | None:
    """Send ``request`` to the engine at ``base_url`` and read its answer to the end; returns
    the seconds it took, or None when it failed. A failure is one progress line and nothing
    more: the engine runs all the same, and only its first call is slower."""
    progress("engine: warming up (one small request; vLLM's first one is the slow one)…")
    started = time.monotonic()
    try:
        _complete(f"{base_url}/chat/completions", chat_payload(model, request), timeout)
    except (httpx2.HTTPError, _NoAnswer) as exc:
        reason = str(exc) or type(exc).__name__
        progress(f"engine: warm-up failed ({reason}); the engine runs, its first call is slower")
        return None
    took = time.monotonic() - started
    progress(f"engine: warmed up in {took:.1f} s")
    return took


def _complete(url: str, payload: dict[str, object], timeout: float) -> None:
    """POST the streamed request and read the event stream up to its ``[DONE]``; the answer
    itself is thrown away (the request's small token limit usually cuts it short)."""
    finished = False
    with (
        httpx2.Client(timeout=httpx2.Timeout(timeout, connect=5.0), trust_env=False) as client,
        client.stream(
            "POST", url, json=payload, headers={"Accept": "text/event-stream"}
        ) as response,
    ):
        if response.status_code != 200:
            raise _NoAnswer(f"HTTP {response.status_code}: {error_message(response.read())}")
        for line in response.iter_lines():
            finished = finished or line.strip() == "data: [DONE]"
    if not finished:
        raise _NoAnswer("the answer's event stream ended before its [DONE]")
