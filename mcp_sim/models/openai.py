"""World model client for any OpenAI-compatible chat endpoint: vLLM first, llama-server too.

The answer is always streamed, for two reasons: the world model thinks for thousands of tokens,
so the caller needs progress while it does, and a cancelled MCP call must stop the generation,
which only closing the streaming HTTP response achieves.

This module holds the settings and the retry loop; around it, :mod:`.payload` builds the
request, :mod:`.http11` sends it (:mod:`.http_client` when httpx2 is needed), :mod:`.replicas`
chooses the replica, :mod:`.streamed_answer` reads the event stream and :mod:`.failures` says
what a failure means. Every failure reaches the caller as a :mod:`mcp_sim.errors` error;
nothing foreign escapes, except cancellation, which always propagates.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from types import TracebackType
from typing import Self
from urllib.parse import urlsplit

import anyio
import httpx2

from mcp_sim.errors import (
    ConnectFailed,
    ConnectionBroken,
    ModelError,
    ModelOutputInvalid,
    ModelTimeout,
)
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback
from mcp_sim.models.failures import (
    Retryable,
    connect_failure,
    exhausted,
    read_error_body,
    snippet,
    status_failure,
)
from mcp_sim.models.http11 import LeanClient
from mcp_sim.models.http_client import HttpClient, Httpx2Client, proxied
from mcp_sim.models.payload import chat_payload, request_headers
from mcp_sim.models.replicas import Replicas
from mcp_sim.models.stream_progress import StreamProgress
from mcp_sim.models.streamed_answer import StreamedAnswer, completion_of, read_answer


@dataclass(frozen=True)
class EndpointSettings:
    """Where the world model is served and how hard to try to reach it."""

    base_urls: list[str]
    """One or more replicas of the same model, each like ``http://host:8000/v1``."""
    api_key: str | None = None
    model: str | None = None
    """Served model name; discovered from ``GET {base}/models`` on first use when None."""
    connect_timeout: float = 10.0
    request_timeout: float = 600.0
    """Deadline for one whole call in seconds: queueing, retries, thinking and answer."""
    retries: int = 2
    """Extra rounds over the replicas after connection errors, 5xx or 429 (never other 4xx)."""
    backoff: float = 0.5
    """Delay before the first retry round in seconds; doubles each round, with jitter."""
    backoff_max: float = 10.0
    max_concurrency: int = 1024
    """Requests in flight per replica; the rest wait their turn here. High, because vLLM
    queues and batches requests itself: a low limit here would hold back calls of other
    sessions and leave the batch emptier than the GPU allows."""
    down_cooldown: float = 10.0
    """Seconds a replica that refused a connection is tried last (see :mod:`.replicas`)."""
    progress_interval: float = 0.5
    progress_tokens: int = 64
    """Progress is reported after this many seconds or this many new tokens, whichever first."""

    def __post_init__(self) -> None:
        urls = [url.strip().rstrip("/") for url in self.base_urls]
        if not urls:
            raise ValueError("at least one model base URL is needed, like http://host:8000/v1")
        for url in urls:
            parts = urlsplit(url)
            try:
                valid = parts.scheme in ("http", "https") and bool(parts.hostname)
                _ = parts.port  # urlsplit validates the port only when it is read
            except ValueError:
                valid = False
            if not valid:
                raise ValueError(
                    f"model base URL {url!r} is not an http(s) URL; expected something like "
                    "http://host:8000/v1"
                )
        if len(set(urls)) != len(urls):
            raise ValueError(f"model base URLs are listed more than once: {urls}")
        for name in ("connect_timeout", "request_timeout", "progress_interval", "down_cooldown"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.retries < 0:
            raise ValueError(f"retries must be zero or more, got {self.retries}")
        if self.backoff < 0 or self.backoff_max < 0:
            raise ValueError("backoff and backoff_max must not be negative")
        if self.max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {self.max_concurrency}")
        if self.progress_tokens < 1:
            raise ValueError(f"progress_tokens must be at least 1, got {self.progress_tokens}")
        # Normalised so that routing hashes and log messages see one spelling per replica.
        object.__setattr__(self, "base_urls", urls)


@dataclass
class _Call:
    """Per-call bookkeeping shared by the retry loop and the timeout handler."""

    progress: StreamProgress
    endpoint: str


class OpenAICompatibleModel:
    """A :class:`~mcp_sim.models.base.WorldModel` on one or more OpenAI-compatible replicas.

    Requests with a routing key stick to one replica (chosen by a stable hash of the key, so a
    session's prompt prefix stays in one replica's cache) and fail over to the key's next
    replica when it cannot be reached; requests without a key go round robin. The key is also
    sent as ``X-Session-Id``, for a router in front of the replicas. See :mod:`.replicas`.
    """

    def __init__(
        self,
        settings: EndpointSettings,
        *,
        http_client: httpx2.AsyncClient | None = None,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        if http_client is not None and transport is not None:
            raise ValueError("pass either http_client or transport, not both")
        self._settings = settings
        self._client = _http_client(settings, http_client, transport)
        self._limiters = {
            url: anyio.CapacityLimiter(settings.max_concurrency) for url in settings.base_urls
        }
        self._models: dict[str, str] = {}
        self._replicas = Replicas(settings.base_urls, settings.down_cooldown)
        self._closed = False
        # Jitter only spreads retries of concurrent calls apart; it never affects answers.
        self._jitter = random.Random()

    @property
    def settings(self) -> EndpointSettings:
        return self._settings

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        self._closed = True
        await self._client.aclose()

    def preferred_endpoint(self, routing_key: str) -> str:
        """The replica a routing key is sent to while that replica is reachable."""
        return self._replicas.ranked(routing_key)[0]

    def failover_order(self, routing_key: str) -> list[str]:
        """Every replica, in the order a routing key tries them while all are reachable."""
        return self._replicas.ranked(routing_key)

    @property
    def replicas_down(self) -> list[str]:
        """Replicas that refused a connection lately and are tried last for now."""
        return self._replicas.down()

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        if self._closed:
            raise RuntimeError("this OpenAICompatibleModel has been closed")
        settings = self._settings
        order = self._replicas.order(request.routing_key)
        call = _Call(
            progress=StreamProgress(progress, settings.progress_interval, settings.progress_tokens),
            endpoint=order[0],
        )
        try:
            with anyio.fail_after(settings.request_timeout):
                return await self._complete_with_retries(request, order, call)
        except TimeoutError:
            raise ModelTimeout(
                f"the world model at {call.endpoint} gave no complete answer within the "
                f"request timeout of {settings.request_timeout:g} s; long thinking can need "
                "minutes, so raise the timeout or lower the max tokens"
            ) from None

    async def _complete_with_retries(
        self, request: CompletionRequest, order: list[str], call: _Call
    ) -> Completion:
        settings = self._settings
        failures: dict[str, Retryable] = {}
        rounds = 0
        gave_up_early = ""
        for round_no in range(settings.retries + 1):
            rounds += 1
            asked_delay = 0.0
            for url in order:
                call.endpoint = url
                call.progress.new_attempt()
                try:
                    return await self._attempt(url, request, call)
                except Retryable as failure:
                    failures[url] = failure
                    asked_delay = max(asked_delay, failure.retry_after or 0.0)
            if round_no == settings.retries:
                break
            delay = max(self._backoff_delay(round_no), asked_delay)
            if anyio.current_time() + delay >= anyio.current_effective_deadline():
                gave_up_early = (
                    f"; gave up early because the next try (in {delay:.1f} s) would pass the "
                    f"request timeout of {settings.request_timeout:g} s"
                )
                break
            await anyio.sleep(delay)
        raise exhausted(failures, rounds, gave_up_early)

    def _backoff_delay(self, round_no: int) -> float:
        settings = self._settings
        ceiling = min(settings.backoff_max, settings.backoff * 2.0**round_no)
        return ceiling * self._jitter.uniform(0.5, 1.0)

    async def _attempt(self, url: str, request: CompletionRequest, call: _Call) -> Completion:
        try:
            model = await self._model_for(url)
            headers = request_headers(self._settings.api_key, request.routing_key)
            headers["Accept"] = "text/event-stream"
            async with (
                self._limiters[url],
                self._client.stream(
                    "POST",
                    f"{url}/chat/completions",
                    json=chat_payload(model, request),
                    headers=headers,
                ) as response,
            ):
                if response.status_code != 200:
                    body = await read_error_body(response)
                    keyed = bool(self._settings.api_key)
                    raise status_failure(url, "chat/completions", response, body, api_key=keyed)
                answer = await read_answer(
                    url, response, StreamedAnswer(model=model), call.progress
                )
        except ConnectFailed as exc:
            self._replicas.mark_down(url)
            raise connect_failure(exc) from exc
        except ConnectionBroken as exc:
            raise Retryable(str(exc)) from exc
        self._replicas.mark_up(url)
        return completion_of(url, request, answer)

    async def _model_for(self, url: str) -> str:
        if self._settings.model is not None:
            return self._settings.model
        cached = self._models.get(url)
        if cached is not None:
            return cached
        response = await self._client.get(
            f"{url}/models", headers=request_headers(self._settings.api_key, None)
        )
        if response.status_code != 200:
            keyed = bool(self._settings.api_key)
            raise status_failure(url, "models", response, response.content, api_key=keyed)
        try:
            listing = response.json()
        except ValueError as exc:
            raise ModelOutputInvalid(
                f"{url}/models did not answer with JSON: {snippet(response.content)}"
            ) from exc
        models = listing.get("data") if isinstance(listing, dict) else None
        first = models[0] if isinstance(models, list) and models else None
        model = first.get("id") if isinstance(first, dict) else None
        if not isinstance(model, str) or not model:
            raise ModelError(
                f"{url}/models lists no model ({snippet(response.content)}); "
                "name the served model explicitly"
            )
        self._models[url] = model
        return model


def _http_client(
    settings: EndpointSettings,
    http_client: httpx2.AsyncClient | None,
    transport: httpx2.AsyncBaseTransport | None,
) -> HttpClient:
    """The lean client unless httpx2 is needed: an injected client or transport, or a proxy
    from the environment, which only httpx2 speaks."""
    connect, request = settings.connect_timeout, settings.request_timeout
    if http_client is not None:
        return Httpx2Client(
            http_client, connect_timeout=connect, request_timeout=request, owned=False
        )
    if transport is None and not proxied(settings.base_urls):
        return LeanClient(connect_timeout=connect)
    # One spare connection per replica for model discovery next to full load.
    connections = len(settings.base_urls) * (settings.max_concurrency + 1)
    return Httpx2Client.create(
        transport, connect_timeout=connect, request_timeout=request, connections=connections
    )
