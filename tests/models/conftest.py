"""What the tests of the OpenAI-compatible client share: a short chat, settings that retry
and time out fast, and vLLM-shaped doubles to talk to (real HTTP servers, because the
client's streaming, retries and timeouts are only real over a socket)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from mcp_sim.models.base import CompletionRequest
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
from tests.openai_double import OpenAIDouble

MESSAGES = [
    {"role": "system", "content": "You are a tool world model."},
    {"role": "user", "content": "### Turn 1\n**Action:**\n```json\n{}\n```"},
]
FAST = {"backoff": 0.01, "backoff_max": 0.05, "connect_timeout": 2.0, "request_timeout": 10.0}


def settings(*urls: str, **overrides: Any) -> EndpointSettings:
    return EndpointSettings(base_urls=list(urls), **{**FAST, **overrides})


def request(**fields: Any) -> CompletionRequest:
    return CompletionRequest(messages=MESSAGES, **fields)


@pytest.fixture
def double() -> Iterator[OpenAIDouble]:
    with OpenAIDouble() as server:
        yield server


@pytest.fixture
def second_double() -> Iterator[OpenAIDouble]:
    with OpenAIDouble() as server:
        yield server


@pytest.fixture
async def model(double: OpenAIDouble) -> AsyncIterator[OpenAICompatibleModel]:
    async with OpenAICompatibleModel(settings(double.base_url)) as client:
        yield client
