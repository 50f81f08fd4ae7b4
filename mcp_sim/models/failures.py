"""What went wrong with a request to the world model, and whether another try may help.

A failure worth another try (a connection that could not be opened or broke, a 5xx or 429, an
error in the stream with such a code, a generation the endpoint aborted) is a
:class:`Retryable`, which the model client keeps per replica and turns into one
:class:`~mcp_sim.errors.ModelUnavailable` (or :class:`~mcp_sim.errors.ModelTimeout`) when the
tries run out. Everything else is a :class:`~mcp_sim.errors.ModelError` at once, with the
endpoint's own message when it sent one.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Mapping
from typing import Any

from mcp_sim.errors import ConnectFailed, ModelError, ModelTimeout, ModelUnavailable
from mcp_sim.models.http_client import StreamedResponse

_ERROR_BODY_LIMIT = 64 * 1024
_SNIPPET_CHARS = 300


class Retryable(Exception):
    """A failure worth another try, on this replica later or on the next one now."""

    def __init__(
        self, detail: str, *, retry_after: float | None = None, timed_out: bool = False
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.retry_after = retry_after
        self.timed_out = timed_out


def connect_failure(exc: ConnectFailed) -> Retryable:
    if exc.timed_out:
        return Retryable(str(exc), timed_out=True)
    return Retryable(
        f"cannot connect ({exc}); is the server running? vLLM accepts connections only once "
        "the model is loaded"
    )


def status_failure(
    url: str, path: str, response: StreamedResponse, body: bytes, *, api_key: bool
) -> Exception:
    """The failure a non-200 answer to ``{url}/{path}`` stands for."""
    status = response.status_code
    message = error_message(body)
    if status == 401:
        if api_key:
            return ModelError(
                f"the world model at {url} rejected the API key (HTTP 401: {message}); "
                "check the key the server was started with"
            )
        return ModelError(
            f"the world model at {url} requires an API key and none was configured "
            f"(HTTP 401: {message})"
        )
    if status == 429 or status >= 500:
        return Retryable(f"HTTP {status}: {message}", retry_after=retry_after(response.headers))
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


def stream_error(url: str, chunk: dict[str, Any]) -> Exception:
    """The failure an error event in the answer's stream stands for."""
    error = chunk.get("error")
    body = error if isinstance(error, dict) else chunk
    message = body.get("message") if isinstance(body.get("message"), str) else None
    code = body.get("code")
    text = message or (error if isinstance(error, str) else snippet(json.dumps(chunk)))
    if isinstance(code, int) and (code == 429 or code >= 500):
        return Retryable(f"error in the event stream (code {code}): {text}")
    return ModelError(f"the world model at {url} reported an error while answering: {text}")


def exhausted(failures: dict[str, Retryable], rounds: int, suffix: str) -> ModelError:
    """The error for a call whose every try failed; ``failures`` holds each replica's last."""
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


async def read_error_body(response: StreamedResponse) -> bytes:
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


def error_message(body: bytes) -> str:
    """The human message in an error body: OpenAI/vLLM, older vLLM, FastAPI or plain text."""
    if not body.strip():
        return "(empty body)"
    try:
        parsed = json.loads(body)
    except ValueError:
        return snippet(body)
    if isinstance(parsed, dict):
        error = parsed.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return snippet(error["message"])
        for value in (error, parsed.get("message"), parsed.get("detail")):
            if isinstance(value, str) and value:
                return snippet(value)
        if parsed.get("detail") is not None:
            return snippet(json.dumps(parsed["detail"]))
    return snippet(body)


def retry_after(headers: Mapping[str, str]) -> float | None:
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


def snippet(text: str | bytes) -> str:
    """``text`` on one line, cut to a length that fits in an error message."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    flat = " ".join(text.split())
    return flat if len(flat) <= _SNIPPET_CHARS else flat[: _SNIPPET_CHARS - 1] + "…"
