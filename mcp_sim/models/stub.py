"""``--model-url stub:``: a stand-in world model for wiring tests (a harness's CI), which
answers in milliseconds, without a network or an engine, and never simulates anything.

A structured call gets a value valid against its output schema, a free-text call a short line
(the state's records its arguments name, as JSON, when there are any), a write call no state
change. Values are drawn by the request's seed (which the simulator derives from the session's
seed, so a seeded episode gets the same answers every run), preferring the values the prompt's
world state holds under the same field name. ``stub:FILE`` answers from a file of scripted
answers first (see :class:`StubScript`), by tool name and arguments.

It speaks the simulator's native prompt format (the model's side of
:mod:`mcp_sim.prompting.native`): the call is the last ``**Action:**`` block of the
conversation, the world state its fenced JSON, a free-text answer goes in
``<predicted_observation>`` tags, a state change in ``<state_patch>`` tags or, asked for by
itself (``schema_name`` ``state_patch``), as ``{"patch": [...]}``.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any

from mcp_sim.errors import ModelOutputInvalid
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback
from mcp_sim.models.schema_values import UnsatisfiableSchema, ValueDraw
from mcp_sim.models.stub_script import ScriptedAnswer, StubScript

STUB_MODEL_NAME = "mcp-sim-stub"

_ACTION = "**Action:**"
_FENCED_JSON = re.compile(r"```json\n(.*?)\n```", re.DOTALL)
_PATCH_SCHEMA = "state_patch"
_ENVELOPE_KEY = "observation"


@dataclass(frozen=True)
class _Call:
    """The call a request is about, and the world state values its prompt shows."""

    tool: str
    arguments: dict[str, Any]
    known: dict[str, list[Any]]
    records: list[dict[str, Any]]


class StubModel:
    """A :class:`~mcp_sim.models.base.WorldModel` that answers from output schemas or a
    script, with no model behind it. Wiring only: its answers are valid, not plausible."""

    def __init__(self, script: StubScript | None = None) -> None:
        self.script = script
        self.requests = 0

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        self.requests += 1
        call = _call_of(request)
        seed = request.sampling.seed
        rng = random.Random(f"{seed}|{request.schema_name}|{request.purpose}|{call.arguments}")
        scripted = self.script.find(call.tool, call.arguments) if self.script else None
        try:
            content = _content(request, call, scripted, ValueDraw(rng, call.known))
        except UnsatisfiableSchema as exc:
            raise ModelOutputInvalid(f"the stand-in model cannot answer: {exc}") from None
        prompt_chars = sum(len(m["content"]) for m in request.messages)
        return Completion(
            content=content,
            finish_reason="stop",
            model=STUB_MODEL_NAME,
            prompt_tokens=prompt_chars // 4,
            completion_tokens=max(1, len(content) // 4),
        )

    async def aclose(self) -> None:
        pass


def _content(
    request: CompletionRequest, call: _Call, scripted: ScriptedAnswer | None, draw: ValueDraw
) -> str:
    schema = request.response_schema
    if request.schema_name == _PATCH_SCHEMA:
        return json.dumps({"patch": scripted.patch if scripted else []})
    if schema is not None and set(schema.get("properties") or {}) == {_ENVELOPE_KEY}:
        text = _text(scripted.answer) if scripted else _free_text(call)
        limit = schema["properties"][_ENVELOPE_KEY].get("maxLength")
        return json.dumps({_ENVELOPE_KEY: text[:limit] if limit else text})
    if schema is not None:
        value = scripted.answer if scripted else draw.valid(schema)
        return json.dumps(value, ensure_ascii=False)
    text = _text(scripted.answer) if scripted else _free_text(call)
    patch = json.dumps(scripted.patch if scripted else [])
    return f"<predicted_observation>\n{text}\n</predicted_observation>\n<state_patch>{patch}</state_patch>"


def _text(answer: Any) -> str:
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)


def _free_text(call: _Call) -> str:
    """The records of the state that hold one of the call's argument values, else a line
    saying there is nothing to show."""
    wanted = {json.dumps(v) for v in call.arguments.values() if isinstance(v, str | int)}
    named = [r for r in call.records if any(json.dumps(v) in wanted for v in r.values())]
    if named:
        return json.dumps(named[:3], ensure_ascii=False)
    # "no results" is an answer every free-text tool takes, a search tool included.
    return f"{call.tool}: done, no results to show."


def _call_of(request: CompletionRequest) -> _Call:
    """The call in the conversation's last action, and the values of its fenced JSON."""
    tool, arguments = request.schema_name, {}
    known: dict[str, list[Any]] = {}
    records: list[dict[str, Any]] = []
    for message in request.messages:
        if message["role"] != "user":
            continue
        for block in _FENCED_JSON.findall(message["content"]):
            try:
                data = json.loads(block)
            except json.JSONDecodeError:
                continue
            if isinstance(data, dict) and set(data) == {"name", "arguments"}:
                if _ACTION in message["content"] and isinstance(data["arguments"], dict):
                    tool, arguments = str(data["name"]), data["arguments"]
                continue
            _collect(data, known, records)
    return _Call(tool, arguments, known, records)


def _collect(data: Any, known: dict[str, list[Any]], records: list[dict[str, Any]]) -> None:
    if isinstance(data, dict):
        if data and all(not isinstance(v, dict | list) for v in data.values()):
            records.append(data)
        for key, value in data.items():
            if isinstance(value, str | int | float | bool) and value not in known.get(key, ()):
                known.setdefault(key, []).append(value)
            _collect(value, known, records)
    elif isinstance(data, list):
        for item in data:
            _collect(item, known, records)
