"""The gates an environment passes to stay in a suite, each a function of its folder that
returns the reasons it fails (none: it passes).

- ``validates``: the world file loads, with every check of a world file;
- ``serves``: the server's own assembly builds it and opens an episode on it (stand-in model);
- ``schemas``: every tool has an input and an output schema;
- ``solvable``: every task's reference solution, replayed with its pinned answers and patches,
  scores 1.0;
- ``empty_fails``: the empty trajectory scores 0 on every task;
- ``checks_resolve``: checks name existing tools, and state checks point where the starting
  state or the solved one has something (an ``absent`` check: where its parent is);
- ``no_leak``: no answer a task's checks expect (a value the starting state and the instruction
  do not hold) appears in a tool's description or schemas, the world's description or canon.

What they cannot say: whether the instruction asks for what the checks test (a model or a
person reads that), or whether the world model will answer as the solution expects.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AsyncExitStack
from typing import Any

from jsonpointer import resolve_pointer

from mcp_sim.api.assembly import assemble
from mcp_sim.errors import SimError, SpecError
from mcp_sim.models.stub import StubModel
from mcp_sim.scoring.journal_replay import replay
from mcp_sim.settings.combined import Settings
from mcp_sim.spec.verify import Check, start_pointer
from mcp_sim.spec.world import World
from mcp_sim.suites.layout import SuiteItem
from mcp_sim.suites.reference import (
    REFERENCE_SESSION,
    Solution,
    replayed_verdict,
    solution_records,
)

GATES = ("validates", "serves", "schemas", "solvable", "empty_fails", "checks_resolve", "no_leak")
_MISSING = object()
_LEAK_MIN_CHARS = 4

Gate = Callable[[World, dict[str, Solution]], Awaitable[list[str]]]


async def gate_item(item: SuiteItem) -> dict[str, list[str]]:
    """Each gate's reasons for failing ``item`` (an empty list: passed)."""
    try:
        world, solutions = item.world(), item.solutions()
    except SpecError as exc:
        reasons = [str(p) for p in exc.problems]
        return {"validates": reasons, **{g: ["the world does not load"] for g in GATES[1:]}}
    except (OSError, ValueError) as exc:
        return {g: [f"the item cannot be read: {exc}"] for g in GATES}
    results: dict[str, list[str]] = {"validates": []}
    for name, gate in _GATES.items():
        try:
            results[name] = await gate(world, solutions)
        except SimError as exc:
            results[name] = [str(exc)]
    return results


async def serves(world: World, solutions: dict[str, Solution]) -> list[str]:
    async with AsyncExitStack() as stack:
        system = await assemble(stack, [world], Settings(), model=StubModel())
        entry = await system.hub.create(world.world)
        await system.hub.delete(entry.id)
    return []


async def schemas(world: World, solutions: dict[str, Solution]) -> list[str]:
    return [f"tool {t.name} has no output schema" for t in world.tools if not t.output_schema]


async def solvable(world: World, solutions: dict[str, Solution]) -> list[str]:
    reasons = []
    for name in world.verify:
        if name not in solutions:
            reasons.append(f"task {name} has no reference solution")
            continue
        verdict = await replayed_verdict(world, name, solutions[name])
        if verdict.reward != 1.0:
            failed = [c.name for c in verdict.checks if c.passed is False]
            reasons.append(
                f"task {name}: the reference solution scores {verdict.reward} "
                f"(fails: {', '.join(failed)})"
            )
    return reasons


async def empty_fails(world: World, solutions: dict[str, Solution]) -> list[str]:
    reasons = []
    for name in world.verify:
        verdict = await replayed_verdict(world, name, [])
        if verdict.reward != 0.0:
            passed = [c.name for c in verdict.checks if c.passed]
            reasons.append(
                f"task {name}: doing nothing scores {verdict.reward} (passes: {', '.join(passed)})"
            )
    return reasons


async def checks_resolve(world: World, solutions: dict[str, Solution]) -> list[str]:
    tools = {t.name for t in world.tools}
    reasons = []
    for name, task in world.verify.items():
        final = _solved_state(world, solutions.get(name, []))
        for check in task.checks:
            for tool in _named_tools(check):
                if tool not in tools:
                    reasons.append(f"task {name}, check {check.name!r}: no tool {tool!r}")
            if check.state is not None and not _resolves(check, world.state, final):
                reasons.append(
                    f"task {name}, check {check.name!r}: {check.state} is in neither the "
                    "starting state nor the solved one"
                )
    return reasons


async def no_leak(world: World, solutions: dict[str, Solution]) -> list[str]:
    surface = json.dumps(
        world.model_dump(mode="json", exclude={"verify", "state"}), ensure_ascii=False
    ).lower()
    start = json.dumps(world.state, ensure_ascii=False).lower()
    reasons = []
    for name, task in world.verify.items():
        for check in task.checks:
            for answer in _expected_values(check):
                text = answer.lower()
                if text in start or text in task.description.lower():
                    continue
                if text in surface:
                    reasons.append(
                        f"task {name}, check {check.name!r}: its answer {answer!r} is in the "
                        "world's tools, description or canon"
                    )
    return reasons


_GATES: dict[str, Gate] = {
    "serves": serves,
    "schemas": schemas,
    "solvable": solvable,
    "empty_fails": empty_fails,
    "checks_resolve": checks_resolve,
    "no_leak": no_leak,
}


def _solved_state(world: World, steps: Solution) -> Any:
    try:
        return replay(world, solution_records(world, steps), REFERENCE_SESSION).final
    except SimError:
        return world.state


def _named_tools(check: Check) -> list[str]:
    matches = [check.called, check.not_called, *(check.order or [])]
    return [m.tool for m in matches if m is not None]


def _resolves(check: Check, start: Any, final: Any) -> bool:
    pointer = check.state or ""
    if check.predicate == "absent":
        pointer = pointer.rsplit("/", 1)[0]
    return any(resolve_pointer(doc, pointer, _MISSING) is not _MISSING for doc in (start, final))


def _expected_values(check: Check) -> Iterator[str]:
    """The literal strings and numbers a state check expects to find."""
    if check.state is None:
        return
    operand = getattr(check, check.predicate)
    if start_pointer(operand) is not None:
        return
    yield from _leaves(operand)


def _leaves(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, str) and len(value) >= _LEAK_MIN_CHARS:
        yield value
    elif isinstance(value, int | float) and not isinstance(value, bool) and abs(value) >= 1000:
        yield str(value)
