"""Environment drafts for suite tests, good and broken in known ways, and the model double
that answers them: each input names a key, and the double answers the requests about that key
from its own queue, so concurrent drafting gets each item's script in order."""

from __future__ import annotations

import json
from typing import Any

from mcp_sim.errors import ModelUnavailable
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback


def tools(noun: str, *, output_schemas: bool = True) -> list[dict[str, Any]]:
    """A list, a cancel and a create tool over ``noun`` records."""
    out = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    listing = {
        "name": f"list_{noun}s",
        "description": f"List the {noun}s.",
        "input_schema": {"type": "object", "properties": {}},
        "effect": "read",
    }
    cancel = {
        "name": f"cancel_{noun}",
        "description": f"Cancel a {noun} by id.",
        "input_schema": {
            "type": "object",
            "properties": {f"{noun}_id": {"type": "string", "description": "its id"}},
            "required": [f"{noun}_id"],
        },
        "effect": "write",
    }
    create = {
        "name": f"create_{noun}",
        "description": f"Create a {noun}.",
        "input_schema": {
            "type": "object",
            "properties": {"owner": {"type": "string", "description": "who it is for"}},
        },
        "effect": "write",
    }
    made = [listing, cancel, create]
    return [{**t, "output_schema": out} for t in made] if output_schemas else made


def _task(noun: str, index: int, *, patched: bool = True) -> dict[str, Any]:
    record = f"{noun[0]}{index + 1}"
    patch = [{"op": "replace", "path": f"/{noun}s/{index}/status", "value": "cancelled"}]
    return {
        "name": f"cancel-{record}",
        "description": f"Cancel the {noun} {record}.",
        "checks": [
            {
                "name": f"{record} is cancelled",
                "state": f"/{noun}s/{index}/status",
                "equals": "cancelled",
            },
            {
                "name": "cancelled by id",
                "called": {"tool": f"cancel_{noun}", "arguments": {f"{noun}_id": record}},
            },
        ],
        "solution": [
            {"tool": f"list_{noun}s", "arguments": {}, "answer": '{"ok": true}', "patch": []},
            {
                "tool": f"cancel_{noun}",
                "arguments": {f"{noun}_id": record},
                "answer": '{"ok": true}',
                "patch": patch if patched else [],
            },
        ],
    }


def environment(noun: str, flaw: str | None = None) -> str:
    """A draft answer over ``noun`` records; ``flaw`` breaks it for one gate: ``unsolvable``
    (the solution never cancels), ``free_reward`` (a check that doing nothing passes),
    ``no_output_schema``, ``bad_path`` (a check on a path no state has), ``leak`` (a tool's
    description gives the answer away)."""
    world_tools = tools(noun, output_schemas=flaw != "no_output_schema")
    tasks = [_task(noun, 0, patched=flaw != "unsolvable"), _task(noun, 1)]
    if flaw == "free_reward":
        tasks[0]["checks"].append(
            {"name": "still there", "state": f"/{noun}s/0/id", "exists": True}
        )
    if flaw == "bad_path":
        tasks[0]["checks"].append({"name": "refunded", "state": "/refunds/0", "exists": True})
    if flaw == "leak":
        code = "REF-7731"
        tasks[0]["description"] = f"Cancel {noun} {noun[0]}1 and record its refund code."
        tasks[0]["checks"].append(
            {"name": "refund code", "state": f"/{noun}s/0/refund", "equals": code}
        )
        patch = tasks[0]["solution"][1]["patch"]
        patch.append({"op": "add", "path": f"/{noun}s/0/refund", "value": code})
        world_tools[1]["description"] += f" Refund codes look like {code}."
    world = {
        "world": "drafted",
        "title": f"{noun.title()} desk",
        "domain": "mcp",
        "description": f"A desk that keeps {noun}s.",
        "canon": [f"There are two {noun}s."],
        "state": {f"{noun}s": [{"id": f"{noun[0]}{i}", "status": "active"} for i in (1, 2)]},
        "tools": world_tools,
    }
    return json.dumps({"world": world, "tasks": tasks})


def tool_list_input(key: str, noun: str) -> dict[str, Any]:
    """An input line holding a real server's tools/list (camelCase, some without outputs)."""
    listed = [
        {"name": t["name"], "description": t["description"], "inputSchema": t["input_schema"]}
        for t in tools(noun, output_schemas=False)
    ]
    return {"id": key, "name": key, "tools": listed}


def openapi_input(key: str, noun: str) -> dict[str, Any]:
    """An input line holding an OpenAPI document with the list and cancel operations."""
    ok = {
        "200": {
            "description": "ok",
            "content": {"application/json": {"schema": {"type": "object"}}},
        }
    }
    return {
        "id": key,
        "openapi": {
            "openapi": "3.0.3",
            "info": {"title": key, "version": "1"},
            "paths": {
                f"/{noun}s": {"get": {"operationId": f"list_{noun}s", "responses": ok}},
                f"/{noun}s/{{{noun}_id}}/cancel": {
                    "post": {
                        "operationId": f"cancel_{noun}",
                        "parameters": [
                            {
                                "name": f"{noun}_id",
                                "in": "path",
                                "required": True,
                                "schema": {"type": "string"},
                            }
                        ],
                        "responses": ok,
                    }
                },
            },
        },
    }


class DraftsByKey:
    """A double of the model seam for suite generation: the answer to a request is the next one
    queued under the key its first user message holds, so each item gets its own script
    whatever order concurrent drafts run in. It keeps the requests, so a test sees the repair
    prompts and which items were asked at all; a real model could not be made to answer broken
    drafts on cue."""

    def __init__(self, scripts: dict[str, list[str]], *, model: str = "scripted-drafter") -> None:
        self.scripts = {key: list(answers) for key, answers in scripts.items()}
        self.requests: list[tuple[str, CompletionRequest]] = []
        self.model = model

    def key_of(self, request: CompletionRequest) -> str:
        user = request.messages[1]["content"]
        found = [key for key in self.scripts if key in user]
        assert found, f"no scripted key in {user[:200]!r}"
        return max(found, key=len)

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        key = self.key_of(request)
        self.requests.append((key, request))
        queue = self.scripts[key]
        if not queue:
            raise ModelUnavailable(f"the script for {key} has no answer left")
        return Completion(
            content=queue.pop(0), model=self.model, prompt_tokens=1, completion_tokens=1
        )

    async def aclose(self) -> None:
        pass

    def asked(self) -> list[str]:
        return [key for key, _ in self.requests]
