"""One environment of a suite drafted by the model: a world (tools with input and output
schemas, a state, canon), 2-5 tasks with verify checks, and each task's reference solution.

The model answers one JSON object, ``{"world": ..., "tasks": [...]}``, under a schema built from
the world spec's own (:mod:`mcp_sim.authoring.drafting`). What comes back is loaded like a world
file; a draft that does not load, or whose solutions call tools it lacks, goes back to the model
with the problems listed, up to a bounded number of tries. Whether the tasks are solvable is
not decided here but by the suite's gates (:mod:`mcp_sim.suites.gates`), on the written files.
"""

from __future__ import annotations

import copy
import functools
import json
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import TypeAdapter, ValidationError

from mcp_sim.authoring.drafting import (
    COMPACT,
    DraftSize,
    correction_messages,
    draft_messages,
    draft_schema,
)
from mcp_sim.authoring.world_yaml import checked_world_yaml
from mcp_sim.errors import DraftError, ModelOutputInvalid, SpecError
from mcp_sim.models.base import ChatMessage, CompletionRequest, Sampling, WorldModel
from mcp_sim.prompting.answer_format import extract_observation, strip_code_fence
from mcp_sim.prompting.bounds import OutputBounds, bounded_schema
from mcp_sim.spec.verify import STATE_PREDICATES, TASK_NAME_PATTERN
from mcp_sim.spec.world import Domain, World, world_json_schema
from mcp_sim.suites.inputs import SuiteInput
from mcp_sim.suites.reference import ReferenceStep, Solution, solution_problems

MIN_TASKS, MAX_TASKS = 2, 5
SUITE_DRAFT_MAX_TOKENS = 8000
COMPACT_SUITE_DRAFT_MAX_TOKENS = 3000
"""For a small model (bounded output): a compact world, its tasks and their solutions, inside
the embedded model's 8192-token window with the prompt."""
FULL = DraftSize()

_STEP: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tool": {"type": "string"},
        "arguments": {"type": "object"},
        "answer": {"type": "string"},
        "patch": {"type": "array", "items": {"type": "object"}},
    },
    "required": ["tool", "arguments", "answer", "patch"],
    "additionalProperties": False,
}

_TASKS_BRIEF = """

## Tasks

Also write {low} to {high} tasks an agent can solve with these tools. Each has a `name` (an \
id), a `description` (the instruction the agent gets; it must not give away the answer), \
`checks` (the world spec's verify checks: state checks with a JSON pointer into the final \
state and one predicate, or called / not_called / order checks over the calls; an agent that \
does nothing must fail every one), and a `solution`: the calls that solve the task, each with \
its `tool`, `arguments`, the `answer` (observation) you expect, and the JSON Patch it makes to \
the state (empty for reads). Replayed, the solution must pass every check.

Answer with one JSON object: {"world": THE WORLD SPEC, "tasks": [...]}."""


@dataclass(frozen=True)
class DraftedEnvironment:
    """A valid environment: its world file's text, the world and its tasks' solutions."""

    text: str
    world: World
    solutions: dict[str, Solution]
    tries: int
    model: str
    """The generator model, as the endpoint named itself."""


@dataclass(frozen=True)
class DraftAsking:
    """How a draft is asked for: the answer's sampling (its seed is the item's) and, for a
    small model, output bounds, which also ask for a compact world."""

    sampling: Sampling = field(default_factory=lambda: Sampling(max_tokens=SUITE_DRAFT_MAX_TOKENS))
    bounds: OutputBounds | None = None
    seeded: bool = True
    """Whether the item's seed is sent to the model (vLLM's CPU build crashes on seeded
    requests longer than one prefill chunk: ``--no-model-seeds``)."""

    @classmethod
    def of(
        cls, given: dict[str, Any], bounds: OutputBounds | None, *, seeded: bool = True
    ) -> DraftAsking:
        """Asking under the sampling settings ``given`` (the ones a user set) and ``bounds``;
        the token limit is the compact one under bounds unless ``given`` names one."""
        limit = COMPACT_SUITE_DRAFT_MAX_TOKENS if bounds is not None else SUITE_DRAFT_MAX_TOKENS
        return cls(replace(Sampling(max_tokens=limit), **given), bounds, seeded)

    def schema(self, item: SuiteInput) -> dict[str, Any]:
        if self.bounds is None:
            return environment_schema(item)
        schema: dict[str, Any] = bounded_schema(environment_schema(item, COMPACT), self.bounds)
        return schema


def environment_schema(item: SuiteInput, size: DraftSize = FULL) -> dict[str, Any]:
    """The schema of a draft: the world draft's, its tools given output schemas, and tasks
    (one object per domain and size, shared by every request: read, never changed). An
    imported item's draft has room for an output schema for each of its tools."""
    imported = len(item.imported["tools"]) if item.imported is not None else 0
    return _environment_schema(item.domain, replace(size, tools=max(size.tools, imported)))


@functools.cache
def _environment_schema(domain: Domain, size: DraftSize) -> dict[str, Any]:
    world = draft_schema(domain, size)
    defs = world.pop("$defs")
    full = world_json_schema()["$defs"]
    for name in ("CallMatch", "Times"):
        defs[name] = copy.deepcopy(full[name])
    defs["Check"] = _one_kind_of_check(full["Check"])
    tool = defs["ToolSpec"]
    tool["properties"]["output_schema"] = {"type": "object"}
    tool["required"] = [*tool["required"], "output_schema"]
    task = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "pattern": TASK_NAME_PATTERN},
            "description": {"type": "string", "minLength": 1},
            "checks": {"type": "array", "items": {"$ref": "#/$defs/Check"}, "minItems": 1},
            "solution": {"type": "array", "items": _STEP, "minItems": 1},
        },
        "required": ["name", "description", "checks", "solution"],
        "additionalProperties": False,
    }
    tasks = {"type": "array", "items": task, "minItems": MIN_TASKS, "maxItems": MAX_TASKS}
    return {
        "type": "object",
        "properties": {"world": world, "tasks": tasks},
        "required": ["world", "tasks"],
        "additionalProperties": False,
        "$defs": defs,
    }


_CHECK_KINDS: dict[str, tuple[str, ...]] = {
    "state": STATE_PREDICATES,
    "called": ("times",),
    "not_called": (),
    "order": (),
}
"""The kinds of check a draft may write, each with the keys that go with it (a rubric needs a
judge model, which the gates do not run)."""


def _one_kind_of_check(check: dict[str, Any]) -> dict[str, Any]:
    """The world spec's check, which a grammar cannot hold to "exactly one kind", as one
    variant per kind that requires it: a draft cannot give a check of no kind, or of two."""
    common = ("name", "weight", "description", "requires")
    variants = []
    for kind, keys in _CHECK_KINDS.items():
        properties = {k: copy.deepcopy(check["properties"][k]) for k in (*common, kind, *keys)}
        chosen = properties[kind]
        if "anyOf" in chosen:
            chosen["anyOf"] = [v for v in chosen["anyOf"] if v.get("type") != "null"]
        if kind == "state":  # a JSON pointer; the tiny model wrote prose there
            properties[kind] = {"type": "string", "pattern": "^/"}
        variants.append(
            {
                "type": "object",
                "properties": properties,
                "required": ["name", kind],
                "additionalProperties": False,
            }
        )
    return {"anyOf": variants}


def environment_messages(item: SuiteInput) -> list[ChatMessage]:
    system, user = draft_messages(item.description, item.domain)
    brief = _TASKS_BRIEF.replace("{low}", str(MIN_TASKS)).replace("{high}", str(MAX_TASKS))
    content = user["content"]
    if item.imported is not None:
        tools = json.dumps(item.imported["tools"], ensure_ascii=False)
        content += f"\n\nThe world has exactly these tools (keep their names and schemas): {tools}"
    return [{"role": "system", "content": system["content"] + brief}, {**user, "content": content}]


async def draft_environment(
    item: SuiteInput,
    model: WorldModel,
    *,
    seed: int,
    tries: int = 3,
    asking: DraftAsking = DraftAsking(),
) -> DraftedEnvironment:
    """A valid environment for ``item``, the model's problems sent back to it up to ``tries``
    times. Raises :class:`DraftError` with the last draft's problems when none is valid."""
    schema = asking.schema(item)
    sampling = replace(asking.sampling, seed=seed if asking.seeded else None)
    messages = environment_messages(item)
    problems: list[str] = []
    for attempt in range(1, tries + 1):
        request = CompletionRequest(messages, sampling, schema, schema_name="environment")
        try:
            completion = await model.complete(request)
        except ModelOutputInvalid as exc:
            problems = [str(exc)]
            continue
        try:
            world, solutions, text = validated_environment(completion.content, item)
        except DraftError as exc:
            problems = str(exc).splitlines()
        else:
            return DraftedEnvironment(text, world, solutions, attempt, completion.model)
        messages = correction_messages(messages, completion.content, "draft", problems)
    raise DraftError(f"no valid draft in {tries} tries; the last one had: " + "; ".join(problems))


_SOLUTION = TypeAdapter(list[ReferenceStep])


def validated_environment(content: str, item: SuiteInput) -> tuple[World, dict[str, Solution], str]:
    """The world, solutions and world file text of a draft; :class:`DraftError` lists what is
    wrong with it, one problem a line."""
    data = _json_object(content)
    world_data, tasks = data.get("world"), data.get("tasks")
    if not isinstance(world_data, dict) or not isinstance(tasks, list):
        raise DraftError('the draft needs "world" (an object) and "tasks" (a list)')
    if not MIN_TASKS <= len(tasks) <= MAX_TASKS:
        raise DraftError(f"write {MIN_TASKS} to {MAX_TASKS} tasks, not {len(tasks)}")
    world_data = _with_item(world_data, item)
    verify, solutions = _tasks(tasks)
    world_data["verify"] = verify
    # A drafted world has no rule that ends an episode, so on OpenEnv (which reads rewards off
    # the steps) no step would carry one: each carries the verdict's reward so far instead.
    world_data["episode"] = {"reward": "every_step"}
    try:
        text, world = checked_world_yaml(world_data, file="world.yaml")
    except SpecError as exc:
        raise DraftError("\n".join(str(p) for p in exc.problems)) from None
    problems = [
        p for name, steps in solutions.items() for p in solution_problems(world, name, steps)
    ]
    if problems:
        raise DraftError("\n".join(problems))
    return world, solutions, text


def _json_object(content: str) -> dict[str, Any]:
    try:
        data = json.loads(strip_code_fence(extract_observation(content)))
    except json.JSONDecodeError as exc:
        raise DraftError(f"the draft is not JSON ({exc.msg} at position {exc.pos})") from None
    if not isinstance(data, dict):
        raise DraftError("the draft is not a JSON object")
    return data


def _with_item(world_data: dict[str, Any], item: SuiteInput) -> dict[str, Any]:
    """The drafted world under the item's id; an imported item's tools as imported, each given
    the drafted output schema where the real tool has none."""
    data = {**world_data, "world": item.id, "domain": item.domain}
    if item.imported is not None:
        drafted = {t.get("name"): t for t in world_data.get("tools") or [] if isinstance(t, dict)}
        tools = []
        for tool in item.imported["tools"]:
            output = drafted.get(tool["name"], {}).get("output_schema")
            tools.append(
                tool
                if "output_schema" in tool or output is None
                else {**tool, "output_schema": output}
            )
        data["tools"] = tools
    return data


def _tasks(tasks: list[Any]) -> tuple[dict[str, Any], dict[str, Solution]]:
    verify: dict[str, Any] = {}
    solutions: dict[str, Solution] = {}
    for i, task in enumerate(tasks):
        if not isinstance(task, dict) or not isinstance(task.get("name"), str):
            raise DraftError(f"task {i + 1} needs a name")
        name = task["name"]
        if name in verify:
            raise DraftError(f"two tasks are named {name!r}")
        verify[name] = {"description": task.get("description", ""), "checks": task.get("checks")}
        try:
            solutions[name] = _SOLUTION.validate_python(task.get("solution") or [])
        except ValidationError as exc:
            first = exc.errors()[0]
            where = "/".join(str(p) for p in first["loc"])
            raise DraftError(f"task {name}: solution {where}: {first['msg']}") from None
    return verify, solutions
