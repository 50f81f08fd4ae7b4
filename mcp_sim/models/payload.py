"""The body of a chat completion request, as vLLM and llama-server take it."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from mcp_sim.models.base import CompletionRequest


def chat_payload(model: str, request: CompletionRequest) -> dict[str, Any]:
    """A streamed request (usage included) with the request's sampling, thinking switch and
    structured-output schema."""
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


_HEADER_SAFE = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]{0,126}[\x21-\x7e])?")
"""Visible ASCII, inner spaces allowed, at most 128 characters: a header value as it is."""


def routing_header(routing_key: str) -> str:
    """The routing key as an ``X-Session-Id`` value: the key itself when it is short and
    plain, else a digest of it. Session ids come from clients: one a megabyte long, or with a
    line break, must not become a header, and the digest still sends one session's requests
    to the same replica."""
    if _HEADER_SAFE.fullmatch(routing_key):
        return routing_key
    digest = hashlib.sha256(routing_key.encode("utf-8", errors="surrogatepass")).hexdigest()
    return f"sha256-{digest}"


def request_headers(api_key: str | None, routing_key: str | None) -> dict[str, str]:
    """The API key, and the routing key as ``X-Session-Id`` for a router before the replicas
    (see :func:`routing_header`)."""
    headers: dict[str, str] = {}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    if routing_key is not None:
        headers["X-Session-Id"] = routing_header(routing_key)
    return headers
