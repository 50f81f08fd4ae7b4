"""A scriptable OpenAI-compatible HTTP server that stands in for vLLM in tests.

It exists because real vLLM needs a GPU (or a slow CPU build) and model weights, and cannot
produce faults on demand: a 503 on the second call, a 429 with ``Retry-After``, a stream cut
in the middle, an answer truncated at max tokens, a model that stalls before its first byte.
It mirrors the wire format of vLLM 0.3x's OpenAI-compatible server (``GET /v1/models``,
``POST /v1/chat/completions`` streaming and not, thinking in ``reasoning``, the final usage
chunk with ``choices: []``, errors as ``{"error": {"message", "type", "param", "code"}}``),
so the client under test speaks real HTTP to it exactly as it would to vLLM.

Usage::

    with OpenAIDouble() as double:
        double.script(Reply(content='{"ok": true}', reasoning="the user asked..."))
        ...  # point the client at double.base_url
        assert double.completion_requests[0].body["stream"] is True

Replies are taken from the scripted queue first, then from ``respond_with(fn)`` (a function of
the recorded request), and with neither the request is refused with HTTP 400 saying so.
"""

from __future__ import annotations

import itertools
import json
import re
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal, Self

import anyio
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

DEFAULT_MODEL = "Qwen/Qwen-AgentWorld-35B-A3B"

_ERROR_TYPES = {
    400: "BadRequestError",
    404: "NotFoundError",
    429: "RateLimitError",
    500: "InternalServerError",
    503: "ServiceUnavailableError",
}
_PIECE = re.compile(r"\s*\S+|\s+")


@dataclass(frozen=True)
class Reply:
    """One scripted answer to one ``POST /v1/chat/completions``."""

    content: str = ""
    reasoning: str | None = None
    finish_reason: str = "stop"
    status: int = 200
    """Anything but 200 sends an error body instead of an answer."""
    error: str | None = None
    """Message of the vLLM-shaped error body sent with a non-200 status."""
    body: Any = None
    """Raw error body (dict or list sent as JSON, str as text) instead of the vLLM shape."""
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to wait before the first byte (status line included), like a long prefill."""
    chunk_delay: float = 0.0
    """Seconds to wait before each stream event after the first."""
    reasoning_field: str = "reasoning"
    """``reasoning`` as vLLM sends it, or ``reasoning_content`` as llama-server does."""
    usage: bool = True
    """Send usage when the request asks for it; False mimics servers that never do."""
    cached_tokens: int | None = None
    """Report this many prompt tokens as prefix-cache hits, as vLLM does with
    ``--enable-prompt-tokens-details`` (``usage.prompt_tokens_details.cached_tokens``)."""
    raw_stream: str | None = None
    """Sent verbatim as a 200 event stream, to script malformed streams."""
    abort_after: int | None = None
    """Drop the connection after this many stream events, like a replica that dies."""


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the double received it."""

    method: str
    path: str
    headers: dict[str, str]
    """Lower-cased header names."""
    body: Any
    """Parsed JSON body, or None when there was none."""
    client_port: int | None = None
    """The client's source port: requests on one kept-alive connection share it."""


class _Aborted(Exception):
    """Raised inside the app to make uvicorn drop the connection mid-response."""


class OpenAIDouble:
    """A real HTTP server on 127.0.0.1 (free port, background thread) speaking vLLM's API."""

    def __init__(
        self,
        *,
        model: str = DEFAULT_MODEL,
        api_key: str | None = None,
        max_model_len: int | None = 262144,
        port: int = 0,
        listing: Literal["vllm", "llama.cpp"] = "vllm",
        lora_adapters: tuple[str, ...] = (),
    ) -> None:
        self.model = model
        self.api_key = api_key
        self.max_model_len = max_model_len
        """``null`` in the model card when None, as vLLM sends for a card without one."""
        self.listing = listing
        """Which server's ``GET /v1/models`` to mirror: vLLM's model cards, or llama-server's
        (no ``max_model_len``; ``meta.n_ctx_train`` is the training length)."""
        self.lora_adapters = lora_adapters
        """Names of LoRA adapters listed after the base model, as ``vllm serve --lora-modules``
        lists them (``parent`` = the base model, no ``max_model_len``)."""
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._responder: Callable[[RecordedRequest], Reply] | None = None
        self._requests: list[RecordedRequest] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._disconnects = 0
        self._ids = itertools.count(1)
        self._socket: socket.socket | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._port = port

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Self:
        if self._thread is not None:
            raise RuntimeError("OpenAIDouble is already running")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # A fixed port lets a test take an endpoint down and bring it back at the same URL.
        sock.bind(("127.0.0.1", self._port))
        self._port = sock.getsockname()[1]
        self._socket = sock
        config = uvicorn.Config(
            self._app(),
            lifespan="off",
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=1,
        )
        server = uvicorn.Server(config)
        self._server = server
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="openai-double", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("OpenAIDouble's uvicorn server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """Server root, e.g. ``http://127.0.0.1:41234``."""
        return f"http://127.0.0.1:{self._port}"

    @property
    def base_url(self) -> str:
        """OpenAI API root, e.g. ``http://127.0.0.1:41234/v1``."""
        return f"{self.url}/v1"

    # -- scripting and observation ---------------------------------------------------------

    def script(self, *replies: Reply) -> None:
        """Queue replies; each chat completion request takes the next one."""
        with self._lock:
            self._queue.extend(replies)

    def respond_with(self, responder: Callable[[RecordedRequest], Reply] | None) -> None:
        """Answer from a function of the request once the scripted queue is empty."""
        with self._lock:
            self._responder = responder

    def reset(self) -> None:
        """Forget scripted replies, the responder, recorded requests and counters."""
        with self._lock:
            self._queue.clear()
            self._responder = None
            self._requests.clear()
            self._max_in_flight = self._in_flight
            self._disconnects = 0

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received, in order."""
        with self._lock:
            return list(self._requests)

    @property
    def completion_requests(self) -> list[RecordedRequest]:
        """The ``POST /v1/chat/completions`` requests received, in order."""
        return [r for r in self.requests if r.path == "/v1/chat/completions"]

    @property
    def pending_replies(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def in_flight(self) -> int:
        """Chat completion requests being answered right now."""
        with self._lock:
            return self._in_flight

    @property
    def max_in_flight(self) -> int:
        """The most chat completion requests ever answered at the same time."""
        with self._lock:
            return self._max_in_flight

    @property
    def disconnects(self) -> int:
        """Chat completion responses the client walked away from before they ended."""
        with self._lock:
            return self._disconnects

    async def wait_for(self, condition: Callable[[], bool], timeout: float = 5.0) -> None:
        """Wait (without blocking the event loop) until ``condition()`` holds."""
        with anyio.fail_after(timeout):
            while not condition():
                await anyio.sleep(0.01)

    # -- the app ---------------------------------------------------------------------------

    def _app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/health", self._health, methods=["GET"]),
                Route("/v1/models", self._models, methods=["GET"]),
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
            ]
        )

    async def _record(self, request: Request) -> RecordedRequest:
        raw = await request.body()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", errors="replace")
        recorded = RecordedRequest(
            method=request.method,
            path=request.url.path,
            headers={k.lower(): v for k, v in request.headers.items()},
            body=body,
            client_port=request.client.port if request.client is not None else None,
        )
        with self._lock:
            self._requests.append(recorded)
        return recorded

    def _unauthorized(self, recorded: RecordedRequest) -> Response | None:
        if self.api_key is None:
            return None
        if recorded.headers.get("authorization") == f"Bearer {self.api_key}":
            return None
        # vLLM's API-key middleware answers exactly this.
        return JSONResponse({"error": "Unauthorized"}, status_code=401)

    async def _health(self, request: Request) -> Response:
        await self._record(request)
        return Response(status_code=200)

    async def _models(self, request: Request) -> Response:
        recorded = await self._record(request)
        refused = self._unauthorized(recorded)
        if refused is not None:
            return refused
        if self.listing == "llama.cpp":
            return JSONResponse(self._llama_cpp_models())
        return JSONResponse(self._vllm_models())

    def _vllm_models(self) -> dict[str, Any]:
        """vLLM's ``ModelList``: a card for the served model (``root`` = the weights it was
        loaded from, ``max_model_len`` = the serving window), then one per LoRA adapter."""
        now = int(time.time())
        cards = [_vllm_card(self.model, self.model, None, self.max_model_len, now)]
        cards += [
            _vllm_card(name, f"/adapters/{name}", self.model, None, now)
            for name in self.lora_adapters
        ]
        return {"object": "list", "data": cards}

    def _llama_cpp_models(self) -> dict[str, Any]:
        """llama-server's listing: an OpenAI-style card with llama.cpp's ``meta`` (no serving
        window), after its own ``models`` entry."""
        return {
            "models": [{"name": self.model, "model": self.model, "type": "model"}],
            "object": "list",
            "data": [
                {
                    "id": self.model,
                    "object": "model",
                    "created": int(time.time()),
                    "owned_by": "llamacpp",
                    "meta": {
                        "vocab_type": 2,
                        "n_vocab": 151936,
                        "n_ctx_train": 40960,
                        "n_embd": 2048,
                        "n_params": 1_720_574_976,
                        "size": 1_105_879_040,
                    },
                }
            ],
        }

    async def _chat(self, request: Request) -> Response:
        recorded = await self._record(request)
        refused = self._unauthorized(recorded)
        if refused is not None:
            return refused
        body = recorded.body if isinstance(recorded.body, dict) else {}
        requested = body.get("model")
        if requested is not None and requested != self.model:
            return _error_response(404, f"The model `{requested}` does not exist.", "model")
        with self._lock:
            if self._queue:
                reply: Reply | None = self._queue.popleft()
            else:
                reply = self._responder(recorded) if self._responder is not None else None
            if reply is not None:
                self._in_flight += 1
                self._max_in_flight = max(self._max_in_flight, self._in_flight)
        if reply is None:
            return _error_response(
                400, "OpenAIDouble has no scripted reply left; call double.script(Reply(...))"
            )
        return _ChatResponse(self, reply, body, f"chatcmpl-{next(self._ids):08d}")

    def _finished(self, *, disconnected: bool) -> None:
        with self._lock:
            self._in_flight -= 1
            if disconnected:
                self._disconnects += 1


class _ChatResponse(Response):
    """Plays one scripted reply and notices when the client goes away mid-answer."""

    def __init__(
        self, double: OpenAIDouble, reply: Reply, request: dict[str, Any], completion_id: str
    ) -> None:
        super().__init__()
        self._double = double
        self._reply = reply
        self._request = request
        self._id = completion_id
        self._created = int(time.time())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        disconnected = False
        finished = False
        aborted = False
        try:
            async with anyio.create_task_group() as group:

                async def watch_for_disconnect() -> None:
                    nonlocal disconnected
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    if not finished:
                        disconnected = True
                        group.cancel_scope.cancel()

                group.start_soon(watch_for_disconnect)
                aborted = await self._play(send)
                finished = True
                group.cancel_scope.cancel()
            if aborted:
                raise _Aborted("OpenAIDouble dropped the connection as scripted")
            if not disconnected:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            self._double._finished(disconnected=disconnected)

    async def _play(self, send: Send) -> bool:
        reply = self._reply
        if reply.delay:
            await anyio.sleep(reply.delay)
        if reply.status != 200:
            await self._send_error(send)
            return False
        if reply.raw_stream is not None:
            await _start(send, 200, "text/event-stream; charset=utf-8", reply.headers)
            await _body(send, reply.raw_stream.encode())
            return False
        if not self._request.get("stream", False):
            await self._send_completion(send)
            return False
        await _start(send, 200, "text/event-stream; charset=utf-8", reply.headers)
        for index, event in enumerate(self._events()):
            if reply.abort_after is not None and index >= reply.abort_after:
                return True
            if index and reply.chunk_delay:
                await anyio.sleep(reply.chunk_delay)
            await _body(send, event)
        return False

    async def _send_error(self, send: Send) -> None:
        reply = self._reply
        if reply.body is None:
            payload: bytes = json.dumps(_error_body(reply.status, reply.error)).encode()
            content_type = "application/json"
        elif isinstance(reply.body, str):
            payload, content_type = reply.body.encode(), "text/plain; charset=utf-8"
        else:
            payload, content_type = json.dumps(reply.body).encode(), "application/json"
        await _start(send, reply.status, content_type, reply.headers)
        await _body(send, payload)

    async def _send_completion(self, send: Send) -> None:
        reply = self._reply
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        message[reply.reasoning_field] = reply.reasoning
        completion = {
            "id": self._id,
            "object": "chat.completion",
            "created": self._created,
            "model": self._double.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": reply.finish_reason,
                    "stop_reason": None,
                }
            ],
            "usage": self._usage(),
        }
        await _start(send, 200, "application/json", reply.headers)
        await _body(send, json.dumps(completion).encode())

    def _events(self) -> Iterator[bytes]:
        reply = self._reply
        deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
        deltas += [{reply.reasoning_field: p} for p in _pieces(reply.reasoning or "")]
        deltas += [{"content": p} for p in _pieces(reply.content)]
        if len(deltas) == 1:
            deltas.append({"content": ""})
        for number, delta in enumerate(deltas, start=1):
            last = number == len(deltas)
            choice: dict[str, Any] = {
                "index": 0,
                "delta": delta,
                "logprobs": None,
                "finish_reason": reply.finish_reason if last else None,
            }
            if last:
                choice["stop_reason"] = None
            yield _sse(self._chunk([choice]))
        options = self._request.get("stream_options") or {}
        if reply.usage and isinstance(options, dict) and options.get("include_usage"):
            yield _sse(self._chunk([], usage=self._usage()))
        yield b"data: [DONE]\n\n"

    def _chunk(self, choices: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return {
            "id": self._id,
            "object": "chat.completion.chunk",
            "created": self._created,
            "model": self._double.model,
            "choices": choices,
            **extra,
        }

    def _usage(self) -> dict[str, Any]:
        reply = self._reply
        completion = len(_pieces(reply.reasoning or "")) + len(_pieces(reply.content))
        messages = self._request.get("messages") or []
        prompt_chars = sum(len(str(m.get("content", ""))) for m in messages if isinstance(m, dict))
        # About four characters per token, like most BPE vocabularies on English text.
        prompt = max(1, prompt_chars // 4)
        usage: dict[str, Any] = {
            "prompt_tokens": prompt,
            "total_tokens": prompt + completion,
            "completion_tokens": completion,
        }
        if reply.cached_tokens is not None:
            usage["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens}
        return usage


def _vllm_card(
    model_id: str, root: str, parent: str | None, max_model_len: int | None, now: int
) -> dict[str, Any]:
    """One vLLM ``ModelCard`` with its single default ``ModelPermission``, as vLLM sends it."""
    return {
        "id": model_id,
        "object": "model",
        "created": now,
        "owned_by": "vllm",
        "root": root,
        "parent": parent,
        "max_model_len": max_model_len,
        "permission": [
            {
                "id": f"modelperm-{uuid.uuid4().hex}",
                "object": "model_permission",
                "created": now,
                "allow_create_engine": False,
                "allow_sampling": True,
                "allow_logprobs": True,
                "allow_search_indices": False,
                "allow_view": True,
                "allow_fine_tuning": False,
                "organization": "*",
                "group": None,
                "is_blocking": False,
            }
        ],
    }


def _pieces(text: str) -> list[str]:
    """Split text into token-like pieces (a word and the space before it) that rejoin exactly."""
    return _PIECE.findall(text)


def _sse(payload: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n"


def _error_body(status: int, message: str | None, param: str | None = None) -> dict[str, Any]:
    return {
        "error": {
            "message": message or f"HTTP {status}",
            "type": _ERROR_TYPES.get(status, "Error"),
            "param": param,
            "code": status,
        }
    }


def _error_response(status: int, message: str, param: str | None = None) -> JSONResponse:
    return JSONResponse(_error_body(status, message, param), status_code=status)


async def _start(send: Send, status: int, content_type: str, headers: Mapping[str, str]) -> None:
    raw = [(b"content-type", content_type.encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})


async def _body(send: Send, data: bytes) -> None:
    await send({"type": "http.response.body", "body": data, "more_body": True})


def unused_base_url() -> str:
    """An API root on 127.0.0.1 where nothing listens: connections are refused at once."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
