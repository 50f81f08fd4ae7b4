"""The OpenAPI 3.1 document of the episode API (``GET /openapi.json``), so a launcher can
generate a client or check its requests: the request bodies are the models the routes parse
(:mod:`mcp_sim.server.episode_requests`), the answers described by their keys."""

from __future__ import annotations

from typing import Any

from mcp_sim import __version__
from mcp_sim.server.episode_requests import CreateBody, ForkBody, ResetBody, VerifyBody

_OBJECT = {"type": "object"}
_COUNTS = {
    "type": "object",
    "properties": {
        key: {"type": "integer"} for key in ("calls", "model_errors", "timeouts", "injected_faults")
    },
}
_USAGE = {
    "type": "object",
    "properties": {
        "prompt_tokens": {"type": "integer"},
        "completion_tokens": {"type": "integer"},
        "model_seconds": {"type": ["number", "null"]},
    },
}
_TRUST = {"valid": {"type": "boolean"}, "simulation": _COUNTS, "usage": _USAGE}
_SCHEMAS: dict[str, Any] = {
    "CreateBody": CreateBody.model_json_schema(),
    "ForkBody": ForkBody.model_json_schema(),
    "ResetBody": ResetBody.model_json_schema(),
    "VerifyBody": VerifyBody.model_json_schema(),
    "Episode": {
        "type": "object",
        "required": ["id", "world"],
        "properties": {
            "id": {"type": "string"},
            "world": {"type": "string"},
            "task": {"type": ["string", "null"]},
            "parent": {"type": ["string", "null"]},
            "version": {"type": "integer"},
            "steps": {"type": "integer"},
            "seed": {"type": "integer"},
            "mcp_url": {"type": "string", "description": "Only when created."},
            "token": {"type": "string", "description": "Only when created."},
            **_TRUST,
        },
    },
    "Episodes": {
        "type": "object",
        "properties": {
            "episodes": {"type": "array", "items": {"$ref": "#/components/schemas/Episode"}}
        },
    },
    "Verdict": {
        "type": "object",
        "properties": {
            "episode": {"type": "string"},
            "task": {"type": "string"},
            "reward": {"type": "number", "minimum": 0, "maximum": 1},
            "checks": {"type": "array", "items": _OBJECT},
            **_TRUST,
        },
    },
    "Tasks": {
        "type": "object",
        "properties": {
            "world": {"type": "string"},
            "tasks": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "description": {"type": "string"},
                        "checks": {"type": "integer"},
                    },
                },
            },
        },
    },
    "Error": {
        "type": "object",
        "required": ["error", "message"],
        "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
    },
}


def _json(*schemas: str) -> dict[str, Any]:
    """JSON content of one of ``schemas`` (components by name)."""
    refs = [{"$ref": f"#/components/schemas/{name}"} for name in schemas]
    return {"application/json": {"schema": refs[0] if len(refs) == 1 else {"oneOf": refs}}}


def _operation(
    summary: str,
    answer: str | tuple[str, ...] | None,
    *,
    body: str | None = None,
    status: str = "200",
) -> dict[str, Any]:
    ok: dict[str, Any] = {"description": summary}
    if answer is not None:
        ok["content"] = _json(*((answer,) if isinstance(answer, str) else answer))
    responses = {status: ok, "default": {"description": "An error.", "content": _json("Error")}}
    operation: dict[str, Any] = {"summary": summary, "responses": responses}
    if body is not None:
        operation["requestBody"] = {"required": False, "content": _json(body)}
    return operation


_ID = [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}]
_WORLD = [{"name": "world", "in": "path", "required": True, "schema": {"type": "string"}}]
_PATHS: dict[str, Any] = {
    "/episodes": {
        "get": _operation("The live episodes and the worlds.", None),
        "post": _operation(
            "Start an episode (with count: that many, listed).",
            ("Episode", "Episodes"),
            body="CreateBody",
            status="201",
        ),
    },
    "/episodes/{id}": {
        "parameters": _ID,
        "get": _operation("The episode's summary and usage.", "Episode"),
        "delete": _operation("End the episode.", None, status="204"),
    },
    "/episodes/{id}/state": {"parameters": _ID, "get": _operation("Its state.", None)},
    "/episodes/{id}/journal": {"parameters": _ID, "get": _operation("Its calls (NDJSON).", None)},
    "/episodes/{id}/reset": {
        "parameters": _ID,
        "post": _operation("Back to the world's start.", "Episode", body="ResetBody"),
    },
    "/episodes/{id}/snapshot": {
        "parameters": _ID,
        "post": _operation("The snapshot document.", None),
    },
    "/episodes/{id}/fork": {
        "parameters": _ID,
        "post": _operation(
            "Fork it (with count: that many from one present, listed).",
            ("Episode", "Episodes"),
            body="ForkBody",
            status="201",
        ),
    },
    "/episodes/{id}/verify": {
        "parameters": _ID,
        "post": _operation("Its verdict on a task.", "Verdict", body="VerifyBody"),
    },
    "/worlds/{world}/tasks": {
        "parameters": _WORLD,
        "get": _operation("The world's verify tasks.", "Tasks"),
    },
}


_OPENENV_PATHS: dict[str, Any] = {
    "/reset": {"post": _operation("OpenEnv: start an episode (stateless over HTTP).", None)},
    "/step": {"post": _operation("OpenEnv: take one action.", None)},
    "/state": {"get": _operation("OpenEnv: the episode's state.", None)},
    "/health": {"get": _operation("OpenEnv: whether the server is up.", None)},
    "/metadata": {"get": _operation("OpenEnv: the environment's name and description.", None)},
    "/schema": {"get": _operation("OpenEnv: action, observation and state schemas.", None)},
}
"""OpenEnv's HTTP routes, described when the server serves them (``--openenv``): OpenEnv's
own tooling (``openenv validate --url``) reads the mode of an environment from them."""


def openapi_document(server_url: str, *, openenv: bool = False) -> dict[str, Any]:
    """The episode API (and OpenEnv's routes, with ``openenv``) as an OpenAPI 3.1 document,
    served at ``server_url``."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "mcp-sim episode API", "version": __version__},
        "servers": [{"url": server_url}],
        "security": [{"bearer": []}],
        "paths": _PATHS | (_OPENENV_PATHS if openenv else {}),
        "components": {
            "schemas": _SCHEMAS,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
