"""The body of a chat completion request, as vLLM and llama-server take it."""

from __future__ import annotations

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


def request_headers(api_key: str | None, routing_key: str | None) -> dict[str, str]:
    """The API key, and the routing key as ``X-Session-Id`` for a router before the replicas."""
    headers: dict[str, str] = {}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    if routing_key is not None:
        headers["X-Session-Id"] = routing_key
    return headers
