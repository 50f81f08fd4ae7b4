"""World model client for any OpenAI-compatible chat endpoint: vLLM first, llama-server too.

The answer is always streamed, for two reasons: the world model thinks for thousands of tokens,
so the caller needs progress while it does, and a cancelled MCP call must stop the generation,
which only closing the streaming HTTP response achieves.

Requests go through :class:`~mcp_sim.models.http11.LeanClient` (an httpx client or transport
when one is injected, or when the environment names a proxy), replicas are chosen by
:mod:`mcp_sim.models.routing`, and the event stream is split by :mod:`mcp_sim.models.sse`.
Every HTTP and JSON failure is translated here into :mod:`mcp_sim.errors` (both clients raise
httpx's exception types); nothing foreign escapes, except cancellation, which always
propagates.
"""

from __future__ import annotations

import email.utils
import json
import math
import random
import time
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

import anyio
import httpx

from mcp_sim.errors import ModelError, ModelOutputInvalid, ModelTimeout, ModelUnavailable
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback
from mcp_sim.models.http11 import LeanClient, StreamedResponse
from mcp_sim.models.routing import Replicas
from mcp_sim.models.sse import EventParser

_ERROR_BODY_LIMIT = 64 * 1024
_SNIPPET_CHARS = 300
_ABORTED_FINISH_REASONS = frozenset({"abort", "error"})
_DRAIN_SECONDS = 1.0
"""How long the rest of a response after ``[DONE]`` may take to arrive before the connection is
dropped instead of kept for the next request."""


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
    """Seconds a replica that refused a connection is tried last (see :mod:`.routing`)."""
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


class _Retryable(Exception):
    """A failure worth another try, on this replica later or on the next one now."""

    def __init__(
        self, detail: str, *, retry_after: float | None = None, timed_out: bool = False
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.retry_after = retry_after
        self.timed_out = timed_out


@dataclass
class _Answer:
    """What one streamed response has told us so far."""

    model: str
    content: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    finish_reason: str | None = None
    prompt_tokens: int = 0
    cached_tokens: int = 0
    usage_tokens: int | None = None
    chunks: int = 0
    done: bool = False
    phase: str = "world model thinking"
    model_seen: bool = False
    """The stream has named its model (every chunk repeats it; the first is enough)."""

    @property
    def tokens(self) -> int:
        return max(self.usage_tokens or 0, self.chunks)


class _Progress:
    """Throttles progress reports and keeps them strictly increasing across retries."""

    def __init__(self, callback: ProgressCallback | None, interval: float, every: int) -> None:
        self._callback = callback
        self._interval = interval
        self._every = every
        self._base = 0
        self._seen = 0
        self._reported = 0
        self._last = -math.inf

    def new_attempt(self) -> None:
        # A retry regenerates from scratch; counting on from the old total keeps the
        # reported numbers increasing, which MCP progress notifications require.
        self._base = self._seen

    async def update(self, tokens: int, message: str, *, force: bool = False) -> None:
        total = self._base + tokens
        self._seen = max(self._seen, total)
        if self._callback is None or total <= self._reported:
            return
        now = anyio.current_time()
        due = (
            force
            or self._reported == 0
            or total - self._reported >= self._every
            or now - self._last >= self._interval
        )
        if due:
            self._reported = total
            self._last = now
            await self._callback(total, message)


@dataclass
class _Call:
    """Per-call bookkeeping shared by the retry loop and the timeout handler."""

    progress: _Progress
    endpoint: str


class OpenAICompatibleModel:
    """A :class:`~mcp_sim.models.base.WorldModel` on one or more OpenAI-compatible replicas.

    Requests with a routing key stick to one replica (chosen by a stable hash of the key, so a
    session's prompt prefix stays in one replica's cache) and fail over to the key's next
    replica when it cannot be reached; requests without a key go round robin. The key is also
    sent as ``X-Session-Id``, for a router in front of the replicas. See :mod:`.routing`.
    """

    def __init__(
        self,
        settings: EndpointSettings,
        *,
        http_client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if http_client is not None and transport is not None:
            raise ValueError("pass either http_client or transport, not both")
        self._settings = settings
        self._timeout = httpx.Timeout(settings.request_timeout, connect=settings.connect_timeout)
        self._owns_client = http_client is None
        # The lean client unless httpx is needed: an injected client or transport, or a proxy
        # from the environment, which only httpx speaks (see mcp_sim.models.http11).
        self._client: httpx.AsyncClient | LeanClient
        if http_client is not None:
            self._client = http_client
        elif transport is None and not _proxied(settings.base_urls):
            self._client = LeanClient(connect_timeout=settings.connect_timeout)
        else:
            replicas = len(settings.base_urls)
            self._client = httpx.AsyncClient(
                transport=transport,
                timeout=self._timeout,
                # One spare connection per replica for model discovery next to full load.
                limits=httpx.Limits(
                    max_connections=replicas * (settings.max_concurrency + 1),
                    max_keepalive_connections=replicas * (settings.max_concurrency + 1),
                ),
            )
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
        if self._owns_client:
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
            progress=_Progress(progress, settings.progress_interval, settings.progress_tokens),
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
        failures: dict[str, _Retryable] = {}
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
                except _Retryable as failure:
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
        raise _exhausted(failures, rounds, gave_up_early)

    def _backoff_delay(self, round_no: int) -> float:
        settings = self._settings
        ceiling = min(settings.backoff_max, settings.backoff * 2.0**round_no)
        return ceiling * self._jitter.uniform(0.5, 1.0)

    async def _attempt(self, url: str, request: CompletionRequest, call: _Call) -> Completion:
        try:
            model = await self._model_for(url)
            payload = _payload(model, request)
            headers = self._headers(request.routing_key)
            headers["Accept"] = "text/event-stream"
            async with (
                self._limiters[url],
                self._client.stream(
                    "POST",
                    f"{url}/chat/completions",
                    json=payload,
                    headers=headers,
                    timeout=self._timeout,
                ) as response,
            ):
                if response.status_code != 200:
                    body = await _read_limited(response)
                    raise self._status_failure(url, "chat/completions", response, body)
                answer = await _read_stream(url, response, _Answer(model=model), call.progress)
        except httpx.TimeoutException as exc:
            if isinstance(exc, httpx.ConnectTimeout):
                self._replicas.mark_down(url)
            raise self._timeout_failure(url, exc) from exc
        except httpx.TransportError as exc:
            if isinstance(exc, httpx.ConnectError):
                self._replicas.mark_down(url)
            raise _transport_failure(exc) from exc
        except httpx.HTTPError as exc:
            raise ModelError(f"request to the world model at {url} failed: {exc}") from exc
        self._replicas.mark_up(url)
        return _completion(url, request, answer)

    async def _model_for(self, url: str) -> str:
        if self._settings.model is not None:
            return self._settings.model
        cached = self._models.get(url)
        if cached is not None:
            return cached
        response = await self._client.get(
            f"{url}/models", headers=self._headers(None), timeout=self._timeout
        )
        if response.status_code != 200:
            raise self._status_failure(url, "models", response, response.content)
        try:
            listing = response.json()
        except ValueError as exc:
            raise ModelOutputInvalid(
                f"{url}/models did not answer with JSON: {_snippet(response.content)}"
            ) from exc
        models = listing.get("data") if isinstance(listing, dict) else None
        first = models[0] if isinstance(models, list) and models else None
        model = first.get("id") if isinstance(first, dict) else None
        if not isinstance(model, str) or not model:
            raise ModelError(
                f"{url}/models lists no model ({_snippet(response.content)}); "
                "name the served model explicitly"
            )
        self._models[url] = model
        return model

    def _headers(self, routing_key: str | None) -> dict[str, str]:
        headers: dict[str, str] = {}
        if self._settings.api_key:
            headers["Authorization"] = f"Bearer {self._settings.api_key}"
        if routing_key is not None:
            headers["X-Session-Id"] = routing_key
        return headers

    def _status_failure(
        self, url: str, path: str, response: StreamedResponse, body: bytes
    ) -> Exception:
        status = response.status_code
        message = _error_message(body)
        if status == 401:
            if self._settings.api_key:
                return ModelError(
                    f"the world model at {url} rejected the API key (HTTP 401: {message}); "
                    "check the key the server was started with"
                )
            return ModelError(
                f"the world model at {url} requires an API key and none was configured "
                f"(HTTP 401: {message})"
            )
        if status == 429 or status >= 500:
            return _Retryable(
                f"HTTP {status}: {message}", retry_after=_retry_after(response.headers)
            )
        if 400 <= status < 500:
            hint = ""
            if status == 404 and message in ("Not Found", "(empty body)"):
                hint = f"; is {url} the API root? it usually ends in /v1"
            return ModelError(
                f"the world model at {url} refused {path} (HTTP {status}): {message}{hint}"
            )
        return ModelError(
            f"the world model at {url} answered {path} with unexpected HTTP {status}: {message}"
        )

    def _timeout_failure(self, url: str, exc: httpx.TimeoutException) -> Exception:
        if isinstance(exc, httpx.ConnectTimeout):
            return _Retryable(
                f"could not connect within {self._settings.connect_timeout:g} s (connect timeout)",
                timed_out=True,
            )
        return ModelTimeout(
            f"the world model at {url} sent nothing for {self._settings.request_timeout:g} s "
            f"(request timeout; {type(exc).__name__})"
        )


def _proxied(urls: list[str]) -> bool:
    """Whether the environment names a proxy for any of ``urls`` (as httpx would use it)."""
    proxies = urllib.request.getproxies()
    for url in urls:
        parts = urlsplit(url)
        if (proxies.get(parts.scheme) or proxies.get("all")) and not urllib.request.proxy_bypass(
            parts.hostname or ""
        ):
            return True
    return False


def _payload(model: str, request: CompletionRequest) -> dict[str, Any]:
    sampling = request.sampling
    payload: dict[str, Any] = {
        "model": model,
        "messages": [dict(message) for message in request.messages],
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": sampling.temperature,
        "top_p": sampling.top_p,
        "top_k": sampling.top_k,
        "max_completion_tokens": sampling.max_tokens,
    }
    if sampling.seed is not None:
        payload["seed"] = sampling.seed
    if not sampling.thinking:
        payload["chat_template_kwargs"] = {"enable_thinking": False}
    if request.response_schema is not None:
        payload["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": request.schema_name,
                "schema": request.response_schema,
                "strict": True,
            },
        }
    return payload


async def _read_limited(response: StreamedResponse) -> bytes:
    # Error bodies are read only for a message; a misbehaving endpoint must not make us
    # buffer an unbounded stream.
    parts: list[bytes] = []
    size = 0
    async for part in response.aiter_bytes():
        parts.append(part)
        size += len(part)
        if size >= _ERROR_BODY_LIMIT:
            break
    return b"".join(parts)


async def _read_stream(
    url: str, response: StreamedResponse, answer: _Answer, progress: _Progress
) -> _Answer:
    parser = EventParser()
    chunks = response.aiter_bytes()
    async for chunk in chunks:
        seen = answer.chunks
        _on_events(url, parser.feed(chunk), answer)
        if answer.done:
            break
        if answer.chunks != seen:
            await progress.update(answer.tokens, answer.phase)
    if answer.done:
        # Read the response to its end (vLLM ends it right after [DONE]), so that httpx keeps
        # the connection for the next request instead of opening a new one for every call.
        with anyio.move_on_after(_DRAIN_SECONDS):
            async for _ in chunks:
                pass
    else:
        _on_events(url, parser.close(), answer)
    if not answer.done and answer.finish_reason is None:
        raise ModelOutputInvalid(
            f"the event stream from {url} ended before the answer finished (no finish_reason "
            f"and no [DONE]; content type {response.headers.get('content-type', 'unknown')!r})"
        )
    await progress.update(answer.tokens, "world model finished", force=True)
    return answer


def _on_events(url: str, events: list[str], answer: _Answer) -> None:
    """Take in the events of one network read (up to ``[DONE]``)."""
    for i, data in enumerate(events):
        if data.strip() == "[DONE]":
            events, answer.done = events[:i], True
            break
    if not events:
        return
    # One JSON document for the whole read: decoding hundreds of small events one by one
    # costs about three times as much. Anything unusual is decoded event by event, so a bad
    # event is reported as itself.
    chunks: Any = None
    if all(data.startswith("{") for data in events):
        try:
            chunks = json.loads("[" + ",".join(events) + "]")
        except ValueError:
            chunks = None
    if not isinstance(chunks, list) or len(chunks) != len(events):
        chunks = [_decode(url, data) for data in events]
    for data, chunk in zip(events, chunks, strict=True):
        _on_chunk(url, data, chunk, answer)


def _decode(url: str, data: str) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        raise ModelOutputInvalid(
            f"the event stream from {url} carried an event that is not JSON: {_snippet(data)}"
        ) from None


def _on_chunk(url: str, data: str, chunk: Any, answer: _Answer) -> None:
    # Runs for every token streamed, so the usual chunk (one choice, a one-field delta) takes
    # as few steps as it can; type() checks are cheaper than isinstance() here.
    if type(chunk) is not dict:
        raise ModelOutputInvalid(
            f"the event stream from {url} carried an event that is not a JSON object: "
            f"{_snippet(data)}"
        )
    if "error" in chunk or chunk.get("object") == "error":
        raise _stream_error(url, chunk)
    if not answer.model_seen:
        model = chunk.get("model")
        if model and isinstance(model, str):
            answer.model = model
            answer.model_seen = True
    usage = chunk.get("usage")
    if usage and type(usage) is dict:
        _on_usage(usage, answer)
    choices = chunk.get("choices")
    if not choices:
        return
    if type(choices) is not list:
        raise ModelOutputInvalid(
            f"the event stream from {url} carried a chunk whose choices are not a list: "
            f"{_snippet(data)}"
        )
    for choice in choices:
        if type(choice) is not dict or choice.get("index", 0) != 0:
            continue
        delta = choice.get("delta")
        if delta and type(delta) is dict:
            content = delta.get("content")
            # vLLM names the thinking "reasoning"; llama-server still says "reasoning_content".
            reasoning = delta.get("reasoning") or delta.get("reasoning_content")
            if reasoning and type(reasoning) is str:
                answer.reasoning.append(reasoning)
                answer.chunks += 1
                answer.phase = "world model thinking"
            if content and type(content) is str:
                answer.content.append(content)
                if not reasoning:
                    answer.chunks += 1
                answer.phase = "world model writing the observation"
        finish_reason = choice.get("finish_reason")
        if finish_reason and type(finish_reason) is str:
            answer.finish_reason = finish_reason


def _on_usage(usage: dict[str, Any], answer: _Answer) -> None:
    prompt_tokens = usage.get("prompt_tokens")
    completion_tokens = usage.get("completion_tokens")
    if isinstance(prompt_tokens, int):
        answer.prompt_tokens = prompt_tokens
    if isinstance(completion_tokens, int):
        answer.usage_tokens = completion_tokens
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    if isinstance(cached, int):
        answer.cached_tokens = cached


def _stream_error(url: str, chunk: dict[str, Any]) -> Exception:
    error = chunk.get("error")
    body = error if isinstance(error, dict) else chunk
    message = body.get("message") if isinstance(body.get("message"), str) else None
    code = body.get("code")
    text = message or (error if isinstance(error, str) else _snippet(json.dumps(chunk)))
    if isinstance(code, int) and (code == 429 or code >= 500):
        return _Retryable(f"error in the event stream (code {code}): {text}")
    return ModelError(f"the world model at {url} reported an error while answering: {text}")


def _completion(url: str, request: CompletionRequest, answer: _Answer) -> Completion:
    if answer.finish_reason in _ABORTED_FINISH_REASONS:
        raise _Retryable(
            f"the endpoint stopped the generation (finish_reason {answer.finish_reason!r})"
        )
    if answer.finish_reason == "length":
        raise ModelOutputInvalid(
            f"the world model's answer from {url} was truncated at max tokens "
            f"({request.sampling.max_tokens}) before it finished; raise the limit with "
            "--max-tokens (thinking alone often takes several thousand tokens)"
        )
    content = "".join(answer.content)
    reasoning = "".join(answer.reasoning) or None
    if not content.strip() and reasoning is None:
        raise ModelOutputInvalid(
            f"the world model at {url} returned an empty answer (no content and no reasoning; "
            f"finish_reason {answer.finish_reason!r})"
        )
    return Completion(
        content=content,
        reasoning=reasoning,
        finish_reason=answer.finish_reason,
        model=answer.model,
        prompt_tokens=answer.prompt_tokens,
        completion_tokens=answer.tokens,
        cached_tokens=answer.cached_tokens,
    )


def _transport_failure(exc: httpx.TransportError) -> _Retryable:
    reason = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ConnectError):
        return _Retryable(
            f"cannot connect ({reason}); is the server running? vLLM accepts connections "
            "only once the model is loaded"
        )
    return _Retryable(f"connection broke ({type(exc).__name__}: {reason})")


def _exhausted(failures: dict[str, _Retryable], rounds: int, suffix: str) -> ModelError:
    tries = "1 try" if rounds == 1 else f"{rounds} tries"
    timed_out = all(failure.timed_out for failure in failures.values())
    error_type = ModelTimeout if timed_out else ModelUnavailable
    if len(failures) == 1:
        ((url, failure),) = failures.items()
        return error_type(
            f"the world model at {url} is unavailable after {tries}: {failure}{suffix}"
        )
    details = "; ".join(f"{url}: {failure}" for url, failure in failures.items())
    return error_type(
        f"no world model replica answered after {tries} over each of them: {details}{suffix}"
    )


def _error_message(body: bytes) -> str:
    """The human message in an error body: OpenAI/vLLM, older vLLM, FastAPI or plain text."""
    if not body.strip():
        return "(empty body)"
    try:
        parsed = json.loads(body)
    except ValueError:
        return _snippet(body)
    if isinstance(parsed, dict):
        error = parsed.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return _snippet(error["message"])
        for value in (error, parsed.get("message"), parsed.get("detail")):
            if isinstance(value, str) and value:
                return _snippet(value)
        if parsed.get("detail") is not None:
            return _snippet(json.dumps(parsed["detail"]))
    return _snippet(body)


def _retry_after(headers: Mapping[str, str]) -> float | None:
    value = headers.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _snippet(text: str | bytes) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    flat = " ".join(text.split())
    return flat if len(flat) <= _SNIPPET_CHARS else flat[: _SNIPPET_CHARS - 1] + "…"
