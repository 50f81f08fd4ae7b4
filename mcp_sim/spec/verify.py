"""The ``verify`` section of a world: tasks, each a list of named, weighted checks that say
what success is, so an episode can be scored (a reward in 0..1) without a person reading it.

A check is one of three kinds, told apart by its keys:

- a **state** check: ``state: POINTER`` and one predicate (``equals``, ``exists``, ``absent``,
  ``contains``, ``count``, ``less_than``, ``greater_than``, ``changed``) over the final state;
  an operand may be a literal or ``{$start: POINTER}``, the starting state's value there;
- a **journal** check: ``called``, ``not_called`` or ``order`` over the episode's calls;
- a **rubric**: text a model judges against the episode (marked as judged in results).

A check may ``requires`` earlier checks of its task: it counts as passed only once they pass,
so that a negative check does not reward an episode that did nothing.

Evaluation lives in :mod:`mcp_sim.scoring`; this module only says what a valid check is.
"""

from __future__ import annotations

from typing import Annotated, Any

from jsonpointer import JsonPointer, JsonPointerException
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

START_KEY = "$start"
"""An operand ``{$start: POINTER}`` stands for the starting state's value at POINTER."""

STATE_PREDICATES = (
    "equals",
    "exists",
    "absent",
    "contains",
    "count",
    "less_than",
    "greater_than",
    "changed",
)
CHECK_KINDS = ("state", "called", "not_called", "order", "rubric")
TASK_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"


class _StrictPart(BaseModel):
    """Unknown keys are errors, as everywhere in a world file."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def _pointer(value: str) -> str:
    try:
        JsonPointer(value)
    except JsonPointerException as exc:
        raise ValueError(f"{value!r} is not a JSON pointer ({exc}); write e.g. /orders") from None
    return value


def start_pointer(operand: Any) -> str | None:
    """The pointer of a ``{$start: POINTER}`` operand, or None for a literal."""
    if isinstance(operand, dict) and set(operand) == {START_KEY}:
        pointer = operand[START_KEY]
        return pointer if isinstance(pointer, str) else None
    return None


class Times(_StrictPart):
    """How many: ``{min: 1}``, ``{max: 0}``, ``{min: 2, max: 3}``."""

    min: Annotated[int, Field(ge=0)] | None = None
    max: Annotated[int, Field(ge=0)] | None = None

    @model_validator(mode="after")
    def _bounds(self) -> Times:
        if self.min is None and self.max is None:
            raise ValueError("give min, max or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min} is greater than max {self.max}")
        return self

    def admits(self, n: int) -> bool:
        return (self.min is None or n >= self.min) and (self.max is None or n <= self.max)

    def describe(self) -> str:
        if self.min == self.max:
            return f"exactly {self.min}"
        if self.max is None:
            return f"at least {self.min}"
        if self.min is None:
            return f"at most {self.max}"
        return f"{self.min} to {self.max}"


class CallMatch(_StrictPart):
    """Calls of ``tool`` whose arguments include ``arguments`` (objects match when they hold
    the given keys with matching values; everything else must be equal). ``is_error`` narrows
    to failed (true) or successful (false) calls; without it both count."""

    tool: Annotated[str, Field(pattern=r"^[A-Za-z0-9._-]{1,64}$")]
    arguments: dict[str, Any] = Field(default_factory=dict)
    is_error: bool | None = None


class Check(_StrictPart):
    """One named, weighted check; exactly one of ``state``, ``called``, ``not_called``,
    ``order`` or ``rubric``."""

    name: Annotated[str, Field(min_length=1, max_length=200)]
    weight: Annotated[float, Field(gt=0, le=1000)] = 1.0
    description: str = ""
    requires: list[str] = Field(
        default_factory=list,
        description="Earlier checks of the task that must pass for this one to count as "
        "passed: a negative check (not_called, an unchanged state) passes vacuously on an "
        "episode that did nothing.",
    )

    state: str | None = Field(
        default=None, description="JSON pointer into the final state this check looks at."
    )
    equals: Any = None
    exists: bool | None = None
    absent: bool | None = None
    contains: Any = None
    count: Annotated[int, Field(ge=0)] | Times | None = None
    less_than: Any = None
    greater_than: Any = None
    changed: bool | None = None

    called: CallMatch | None = None
    times: Times | None = Field(
        default=None, description="With called: how many matching calls (default: at least 1)."
    )
    not_called: CallMatch | None = None
    order: Annotated[list[CallMatch], Field(min_length=2)] | None = Field(
        default=None, description="Calls that must happen in this order (others may come between)."
    )
    rubric: Annotated[str, Field(min_length=1)] | None = Field(
        default=None, description="A statement about the episode that a judge model decides."
    )

    @field_validator("state")
    @classmethod
    def _state_pointer(cls, value: str | None) -> str | None:
        return None if value is None else _pointer(value)

    @model_validator(mode="after")
    def _one_kind(self) -> Check:
        given = [kind for kind in CHECK_KINDS if getattr(self, kind) is not None]
        if len(given) != 1:
            named = ", ".join(given) if given else "none"
            raise ValueError(
                f"a check has exactly one of {', '.join(CHECK_KINDS)} (this one has {named})"
            )
        predicates = [p for p in STATE_PREDICATES if p in self.model_fields_set]
        if self.state is not None and len(predicates) != 1:
            named = ", ".join(predicates) if predicates else "none"
            raise ValueError(
                f"a state check has exactly one of {', '.join(STATE_PREDICATES)} "
                f"(this one has {named})"
            )
        if self.state is None and predicates:
            raise ValueError(f"{predicates[0]} needs state: POINTER to say where to look")
        if self.times is not None and self.called is None:
            raise ValueError("times goes with called")
        for predicate in predicates:
            pointer = start_pointer(getattr(self, predicate))
            if pointer is not None:
                _pointer(pointer)
        return self

    @property
    def kind(self) -> str:
        return next(kind for kind in CHECK_KINDS if getattr(self, kind) is not None)

    @property
    def predicate(self) -> str:
        """The state predicate of a state check."""
        return next(p for p in STATE_PREDICATES if p in self.model_fields_set)

    @property
    def judged(self) -> bool:
        """Whether a model decides this check (a rubric) rather than a rule."""
        return self.rubric is not None


class Task(_StrictPart):
    """One task of a world: what the agent is asked to do and how its episode is scored."""

    description: str = Field(
        default="", description="The task as given to the agent (also shown to a rubric judge)."
    )
    checks: Annotated[list[Check], Field(min_length=1)]

    @model_validator(mode="after")
    def _unique_names(self) -> Task:
        seen: set[str] = set()
        for check in self.checks:
            if check.name in seen:
                raise ValueError(f"two checks are named {check.name!r}; names must differ")
            unknown = [name for name in check.requires if name not in seen]
            if unknown:
                raise ValueError(
                    f"check {check.name!r} requires {', '.join(map(repr, unknown))}, which is "
                    "not a check before it in this task"
                )
            seen.add(check.name)
        return self


VerifySection = dict[Annotated[str, Field(pattern=TASK_NAME_PATTERN)], Task]
"""Task name → task."""


def verify_problems(
    tasks: dict[str, Task], tools: set[str]
) -> list[tuple[tuple[int | str, ...], str]]:
    """Journal checks that name a tool the world does not have (located within the world)."""
    known = ", ".join(sorted(tools))
    problems: list[tuple[tuple[int | str, ...], str]] = []
    for task_name, task in tasks.items():
        for i, check in enumerate(task.checks):
            where: tuple[int | str, ...] = ("verify", task_name, "checks", i)
            matches: list[tuple[tuple[int | str, ...], CallMatch | None]] = [
                (("called",), check.called),
                (("not_called",), check.not_called),
            ]
            matches += [(("order", j), m) for j, m in enumerate(check.order or [])]
            for key, match in matches:
                if match is not None and match.tool not in tools:
                    problems.append(
                        (
                            (*where, *key, "tool"),
                            f"no tool named {match.tool!r} (tools are: {known})",
                        )
                    )
    return problems
