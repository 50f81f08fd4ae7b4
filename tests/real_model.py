"""The real world model for end-to-end tests: one embedded vLLM CPU server per test run.

Imported by ``tests/conftest.py``. The first run installs the engine into the managed venv
(minutes); every run then pays ~50-70 s for vLLM to load. Set ``MCP_SIM_MODEL_URL`` to the
``/v1`` base URL of a server that is already running to skip both, and ``MCP_SIM_HOME`` to
choose where the engine lives.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import httpx2
import mcp.types as types
import pytest

from mcp_sim.engine.vllm_server import VLLMServer

MODEL_URL_ENV = "MCP_SIM_MODEL_URL"


def _progress(message: str) -> None:
    # Visible with ``pytest -s``; otherwise pytest shows it only if the fixture fails.
    print(f"[real-model] {message}", file=sys.stderr, flush=True)


@pytest.fixture(scope="session")
def real_model_url() -> Iterator[str]:
    """Base URL (ending in ``/v1``) of an OpenAI-compatible server with the tiny model."""
    existing = os.environ.get(MODEL_URL_ENV)
    if existing:
        yield existing.rstrip("/")
        return
    server = VLLMServer.embedded(progress=_progress)
    server.start()
    try:
        yield server.base_url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def real_model_name(real_model_url: str) -> str:
    """The model id that server serves (``gemma3-270m`` for the embedded one)."""
    response = httpx2.get(f"{real_model_url}/models", timeout=30.0, trust_env=False)
    response.raise_for_status()
    return str(response.json()["data"][0]["id"])


def embedded_like_args(real_model_url: str, *extra: str) -> tuple[str, ...]:
    """``serve``/``call`` options for the server at ``real_model_url`` with the settings the
    embedded default uses (bounded output, no seeds, small budgets), given explicitly because
    ``--model-url`` names the server."""
    return (
        "--model-url",
        real_model_url,
        "--bounded-output",
        "--no-model-seeds",
        "--max-tokens",
        "512",
        "--history-budget",
        "3000",
        "--state-budget",
        "2000",
        "--timeout",
        "300",
        *extra,
    )


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text
