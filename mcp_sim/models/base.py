"""The seam between the simulator and whatever answers its prompts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

ChatMessage = dict[str, str]
"""One OpenAI-style chat message: ``{"role": ..., "content": ...}``."""

ProgressCallback = Callable[[int, str], Awaitable[None]]
"""Called while a completion streams: (tokens generated so far, short status message)."""


@dataclass(frozen=True)
class Sampling:
    """Sampling settings for one request (model-card defaults of Qwen-AgentWorld)."""

    temperature: float = 0.6
    top_p: float = 0.95
    top_k: int = 20
    max_tokens: int = 32768
    thinking: bool = True
    seed: int | None = None


@dataclass(frozen=True)
class CompletionRequest:
    """Everything a backend needs to answer one prompt."""

    messages: list[ChatMessage]
    sampling: Sampling = field(default_factory=Sampling)
    response_schema: dict[str, Any] | None = None
    """When set, ask for structured output constrained by this JSON Schema."""
    schema_name: str = "observation"
    routing_key: str | None = None
    """Stable per-session key, sent so a router can keep a session on one replica."""
    purpose: str = "answer"
    """Why the simulator asks (``answer``, ``repair``, ``patch``, ``patch correction``,
    ``regeneration``): never sent, not part of a cache key; the workbench shows it."""


@dataclass(frozen=True)
class Completion:
    """A backend's answer: raw text plus what the endpoint told us about it."""

    content: str
    reasoning: str | None = None
    finish_reason: str | None = None
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    """Prompt tokens served from the endpoint's prefix cache, when it says (vLLM does with
    ``--enable-prompt-tokens-details``)."""


class WorldModel(Protocol):
    """Anything that turns a chat prompt into a completion.

    Implementations raise :class:`mcp_sim.errors.ModelError` subclasses, never foreign
    exceptions, and let cancellation propagate (closing any request in flight).
    """

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion: ...

    async def aclose(self) -> None: ...
