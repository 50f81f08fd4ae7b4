"""A zoo shape: a world's state, its tools' code, and one planner per kind of call; and the
recorder that runs a shape's episodes through that code.

Each episode starts from the fresh state and carries its writes over from call to call; calls
are chosen one at a time by the planners, which see the episode's current state, so a read
after a write reads what the write made. Everything is deterministic by seed.
"""

from __future__ import annotations

import json
import random
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import jsonpatch

from benchmarks.zoo.kit import NOTES, Planned, State, Tool, ToolError, clone


class Shape(ABC):
    name: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]

    @abstractmethod
    def build(self, rng: random.Random, target_bytes: int) -> State: ...

    @abstractmethod
    def tools(self) -> list[Tool]: ...

    @abstractmethod
    def lookup(self, rng: random.Random, state: State) -> Planned: ...

    @abstractmethod
    def nested_lookup(self, rng: random.Random, state: State) -> Planned: ...

    @abstractmethod
    def search(self, rng: random.Random, state: State) -> Planned: ...

    @abstractmethod
    def join(self, rng: random.Random, state: State) -> Planned: ...

    @abstractmethod
    def aggregate(self, rng: random.Random, state: State) -> Planned: ...

    @abstractmethod
    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        """A write and the read of what it wrote (kind ``read_after_write``)."""

    @abstractmethod
    def no_match(self, rng: random.Random, state: State) -> Planned:
        """A search that nothing meets (its answer an empty list)."""

    note: ClassVar[tuple[str, str]] = ("think", "thought")
    """The tool whose answer is empty, and its argument."""

    def note_call(self, rng: random.Random) -> Planned:
        """A call of the tool whose answer is empty."""
        return Planned("empty", self.note[0], {self.note[1]: rng.choice(NOTES)})

    def spec(self, state: State) -> dict[str, Any]:
        """The world spec, as a user would write it: no grounding hints."""
        return {
            "world": f"zoo-{self.name}",
            "title": self.title,
            "domain": "mcp",
            "description": self.description,
            "state": state,
            "tools": [t.spec() for t in self.tools()],
        }


PLANNED = ("lookup", "nested_lookup", "search", "join", "aggregate", "write", "empty")
WEIGHTS = (3, 2, 4, 2, 2, 2, 1)


def _plan(shape: Shape, kind: str, rng: random.Random, state: State) -> list[Planned]:
    if kind == "write":
        return list(shape.write(rng, state))
    planner = {
        "lookup": shape.lookup,
        "nested_lookup": shape.nested_lookup,
        "search": shape.search,
        "join": shape.join,
        "aggregate": shape.aggregate,
        "empty": shape.no_match,
    }[kind]
    return [planner(rng, state)]


def record(shape: Shape, state: State, seed: int, episodes: int) -> list[dict[str, Any]]:
    """The calls of ``episodes`` episodes (5 to 15 calls each), answered by the shape's tools:
    ``episode``, ``step``, ``kind``, ``tool``, ``arguments``, ``response``, ``is_error``,
    ``patch``."""
    tools = {t.name: t for t in shape.tools()}
    calls: list[dict[str, Any]] = []
    empties = 0
    for episode in range(episodes):
        rng = random.Random(f"{shape.name}/{seed}/{episode}")
        current, copied = state, False
        length = rng.randint(5, 14)
        # Each episode opens with a different kind, so every kind shows up in a few episodes.
        kinds = [PLANNED[episode % len(PLANNED)]]
        steps: list[Planned] = []
        while len(steps) < length:
            kind = kinds.pop() if kinds else rng.choices(PLANNED, WEIGHTS)[0]
            plan = _plan(shape, kind, rng, current)
            if kind == "empty":
                # Empty answers alternate: a tool that answers nothing, a search with no match.
                empties += 1
                plan = plan if empties % 2 == 0 else [shape.note_call(rng)]
            for planned in plan:
                response, patch, is_error = _run(tools[planned.tool], current, planned.arguments)
                if patch:
                    if not copied:
                        current, copied = clone(current), True
                    jsonpatch.apply_patch(current, patch, in_place=True)
                calls.append(
                    {
                        "episode": f"{shape.name}-{episode}",
                        "step": len(steps),
                        "kind": planned.kind,
                        "tool": planned.tool,
                        "arguments": planned.arguments,
                        "response": response,
                        "is_error": is_error,
                        "patch": patch,
                    }
                )
                steps.append(planned)
    return calls


def _run(tool: Tool, state: State, arguments: dict[str, Any]) -> tuple[str, list[Any], bool]:
    try:
        answer, patch = tool.run(state, arguments)
    except ToolError as error:
        return f"Error: {error}", [], True
    if tool.effect == "read" and patch:
        raise RuntimeError(f"read tool {tool.name} made a patch")
    text = answer if isinstance(answer, str) else json.dumps(answer)
    return text, patch, False
