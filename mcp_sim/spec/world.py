"""World spec v1: pydantic models (the single source of truth) and JSON Schema export.

World files are read by :mod:`mcp_sim.spec.loading`, which reports every problem, including the
cross-field ones of :meth:`World.cross_problems`, as ``FILE:LINE:COL: path.to.field: message``.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Annotated, Any, Literal

import jsonschema
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from mcp_sim.spec.episode_rules import EpisodeRules, episode_rule_problems
from mcp_sim.spec.fiction import (
    CanonEntity,
    ReferenceAnswer,
    SearchSpec,
    default_search,
    fiction_problems,
)
from mcp_sim.spec.json_schemas import check_json_schema
from mcp_sim.spec.locations import Location, NestedValueError, format_location
from mcp_sim.spec.perturbations import PROFILE_NAME_PATTERN, PerturbationRule, rule_problems
from mcp_sim.spec.state import (
    ClockSpec,
    EntitySpec,
    GroundingHints,
    check_id_pattern,
    check_state_pointer,
    check_state_schema,
    grounding_problems,
    id_format_regex,
    state_problems,
)
from mcp_sim.spec.verify import VerifySection, verify_problems

Domain = Literal["mcp", "search", "terminal", "swe", "web", "os", "android"]
TOOL_NAME_PATTERN = r"^[A-Za-z0-9._-]{1,64}$"
WORLD_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
ENTITY_NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_]{0,63}$"


class _Strict(BaseModel):
    """Unknown keys are errors: a typo in a world file must never pass silently."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def _check_tool_schema(schema: dict[str, Any], what: str) -> dict[str, Any]:
    check_json_schema(schema, what)
    if schema.get("type") != "object":
        raise NestedValueError(
            f'{what} must have "type": "object" at its root (MCP requires it)',
            ("type",) if "type" in schema else (),
        )
    return schema


class ToolSpec(_Strict):
    """One imaginary tool."""

    name: Annotated[str, Field(pattern=TOOL_NAME_PATTERN)]
    title: str | None = Field(default=None, description="Human-readable name; advertised as is.")
    description: str
    annotations: dict[str, Any] | None = Field(
        default=None,
        description="MCP tool annotations (title, readOnlyHint, destructiveHint, idempotentHint, "
        "openWorldHint). Its keys win over the defaults `effect` gives: readOnlyHint true for "
        "reads, readOnlyHint false and destructiveHint true for writes.",
    )
    annotations_as_given: bool = Field(
        default=False,
        description="Advertise `annotations` exactly as given (none when there are none), "
        "without the defaults from `effect`; `mcp-sim import` sets it to keep the real tool's.",
    )
    input_schema: dict[str, Any] = Field(
        description="JSON Schema of the arguments; advertised verbatim. Root must be type object."
    )
    output_schema: dict[str, Any] | None = Field(
        default=None,
        description="Optional JSON Schema of the structured result; answers are validated against it.",
    )
    effect: Literal["read", "write"] = Field(
        default="read", description="write calls may change the world state."
    )
    errors: list[str] = Field(
        default_factory=list,
        description="Declared failure modes, e.g. 'out_of_stock: the book has no stock left'.",
    )
    grounding: GroundingHints | None = Field(
        default=None,
        description="Optional: which collections the tool reads and which arguments match "
        "which fields, where finding the records a call needs by shape is not enough.",
    )

    @field_validator("input_schema")
    @classmethod
    def _input_schema_is_valid(cls, value: dict[str, Any]) -> dict[str, Any]:
        return _check_tool_schema(value, "input_schema")

    @field_validator("output_schema")
    @classmethod
    def _output_schema_is_valid(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if value is None else _check_tool_schema(value, "output_schema")


class FixtureMatch(_Strict):
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Fixture(_Strict):
    """A pinned answer: this tool with exactly these arguments returns ``result``, no model call."""

    when: FixtureMatch
    result: Any = Field(description="An object (sent as JSON text and structured content) or text.")
    is_error: bool = False


class ModelOverrides(_Strict):
    """Per-world sampling overrides; command-line flags win over these."""

    temperature: Annotated[float, Field(ge=0, le=2)] | None = None
    top_p: Annotated[float, Field(gt=0, le=1)] | None = None
    top_k: Annotated[int, Field(ge=-1)] | None = None
    max_tokens: Annotated[int, Field(ge=16)] | None = None
    thinking: bool | None = None


class World(_Strict):
    """A world spec, version 1."""

    world: Annotated[str, Field(pattern=WORLD_ID_PATTERN, description="Identifier of the world.")]
    title: str
    domain: Domain = "mcp"
    description: str = ""
    canon: list[str] = Field(
        default_factory=list, description="Facts the world model must never contradict."
    )
    state: dict[str, Any] = Field(
        default_factory=dict, description="The starting world state (any JSON object)."
    )
    tools: Annotated[list[ToolSpec], Field(min_length=1)]
    fixtures: list[Fixture] = Field(default_factory=list)
    perturbations: dict[
        Annotated[str, Field(pattern=PROFILE_NAME_PATTERN)],
        Annotated[list[PerturbationRule], Field(min_length=1)],
    ] = Field(
        default_factory=dict,
        description="Named perturbation profiles (name -> rules), chosen with --perturb; a "
        "name of a built-in profile replaces it. See `mcp-sim perturbations`.",
    )
    model: ModelOverrides = Field(default_factory=ModelOverrides)
    state_schema: dict[str, Any] | None = Field(
        default=None,
        description="Optional JSON Schema the world state must satisfy, at the start and after "
        "every change.",
    )
    immutable: list[Annotated[str, AfterValidator(check_state_pointer)]] = Field(
        default_factory=list,
        description="JSON pointers into the state that no state change may touch.",
    )
    entities: dict[Annotated[str, Field(pattern=ENTITY_NAME_PATTERN)], EntitySpec] = Field(
        default_factory=dict,
        description="Collections of records with ids, checked by the consistency auditor and "
        "used to pick what a large state shows in the prompt.",
    )
    clock: ClockSpec | None = Field(
        default=None, description="The virtual clock; without it the model is not told the time."
    )
    ids: dict[str, Annotated[str, AfterValidator(check_id_pattern)]] = Field(
        default_factory=dict,
        description="Entity name → pattern of fresh ids offered to the model, e.g. ord_{n:05d}.",
    )
    # The fiction fields (see mcp_sim.spec.fiction). Canon entities are the people, places and
    # organisations of the canon; `entities` above is something else: state collections.
    canon_entities: dict[Annotated[str, Field(pattern=ENTITY_NAME_PATTERN)], list[CanonEntity]] = (
        Field(
            default_factory=dict,
            description="Kind (people, places, organisations...) → the canon's entities of that "
            "kind, each a name with attributes.",
        )
    )
    reference_answers: list[ReferenceAnswer] = Field(
        default_factory=list,
        description="Questions whose answers results and pages must support when a query is "
        "about them.",
    )
    search: SearchSpec | None = Field(
        default=None,
        description="The world's web: search and open tools, results per query, unknown URLs, "
        "starting pages. A search world with web_search and open_page gets the defaults.",
    )

    verify: VerifySection = Field(
        default_factory=dict,
        description="Tasks (name -> description and checks) that score an episode: checks over "
        "the final state and the calls, and rubrics a model judges. See docs/scoring.md.",
    )
    episode: EpisodeRules | None = Field(
        default=None,
        description="When an episode is done (max_steps, done_when calls) and which steps "
        "carry the verify reward, for step-wise harnesses such as OpenEnv.",
    )

    @field_validator("state_schema")
    @classmethod
    def _state_schema_is_valid(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if value is None else check_state_schema(value)

    @model_validator(mode="after")
    def _tools_and_fixtures_agree(self, info: ValidationInfo) -> World:
        # parse_world reports these itself, each at its own place in the file.
        if not (info.context or {}).get("defer_cross_checks"):
            problems = self.cross_problems()
            if problems:
                raise ValueError(
                    "; ".join(f"{format_location(loc)}: {msg}" for loc, msg in problems)
                )
        return self

    def cross_problems(self) -> list[tuple[tuple[int | str, ...], str]]:
        """Problems that span fields: duplicate tool names, fixtures that do not fit their tool,
        perturbation rules, state and fiction that do not fit the tools."""
        problems: list[tuple[tuple[int | str, ...], str]] = []
        by_name: dict[str, ToolSpec] = {}
        for i, tool in enumerate(self.tools):
            if tool.name in by_name:
                problems.append((("tools", i, "name"), f"tool name {tool.name!r} is used twice"))
            else:
                # The first one wins, as in World.tool(), which is what answers calls.
                by_name[tool.name] = tool
        for i, fixture in enumerate(self.fixtures):
            problems += [
                (("fixtures", i, *loc), message)
                for loc, message in _fixture_problems(fixture, by_name)
            ]
        problems += _perturbation_problems(self.perturbations, by_name)
        schemas = {t.name: t.input_schema for t in self.tools}
        return (
            problems
            + state_problems(self.state, self.state_schema, self.immutable, self.entities, self.ids)
            + fiction_problems(self.search, schemas, self.canon_entities)
            + grounding_problems(
                [(t.name, t.input_schema, t.grounding) for t in self.tools], self.state
            )
            + verify_problems(self.verify, set(by_name))
            + episode_rule_problems(self.episode, set(by_name))
        )

    def web(self) -> SearchSpec | None:
        """How this world's web is searched, if it has one: its ``search`` section, or the
        defaults for a search world with the default tools."""
        if self.search is not None:
            return self.search
        return default_search(self.domain, {t.name: t.input_schema for t in self.tools})

    def id_regex(self, entity: str) -> re.Pattern[str] | None:
        """How ids of ``entity`` look in text: its id_pattern, else its ids: pattern."""
        spec = self.entities[entity]
        if spec.id_pattern is not None:
            return re.compile(spec.id_pattern)
        if entity in self.ids:
            return re.compile(id_format_regex(self.ids[entity]))
        return None

    def tool(self, name: str) -> ToolSpec | None:
        for tool in self.tools:
            if tool.name == name:
                return tool
        return None

    def content_hash(self) -> str:
        """A stable hash of the spec's content (for caches and journals)."""
        canonical = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _fixture_problems(fixture: Fixture, tools: dict[str, ToolSpec]) -> list[tuple[Location, str]]:
    """What is wrong with a fixture for the tool it names (locations within the fixture)."""
    tool = tools.get(fixture.when.tool)
    if tool is None:
        known = ", ".join(sorted(tools))
        return [(("when", "tool"), f"no tool named {fixture.when.tool!r} (tools are: {known})")]
    problems: list[tuple[Location, str]] = []
    arg_error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(tool.input_schema).iter_errors(fixture.when.arguments)
    )
    if arg_error is not None:
        problems.append(
            (
                ("when", "arguments", *arg_error.absolute_path),
                f"arguments do not satisfy the input_schema of {tool.name}: {arg_error.message}",
            )
        )
    if tool.output_schema is not None and not fixture.is_error:
        out_error = jsonschema.exceptions.best_match(
            jsonschema.Draft202012Validator(tool.output_schema).iter_errors(fixture.result)
        )
        if out_error is not None:
            problems.append(
                (
                    ("result", *out_error.absolute_path),
                    f"result does not satisfy the output_schema of {tool.name}: "
                    f"{out_error.message}",
                )
            )
    return problems


def _perturbation_problems(
    profiles: dict[str, list[PerturbationRule]], tools: dict[str, ToolSpec]
) -> list[tuple[Location, str]]:
    """Rules of the world's perturbation profiles that do not fit its tools."""
    parameters = {
        name: list((tool.input_schema.get("properties") or {}).keys())
        if isinstance(tool.input_schema.get("properties"), dict)
        else None
        for name, tool in tools.items()
    }
    return [
        (("perturbations", profile, i, *loc), message)
        for profile, rules in profiles.items()
        for i, rule in enumerate(rules)
        for loc, message in rule_problems(rule, parameters)
    ]


def world_json_schema() -> dict[str, Any]:
    """The JSON Schema of world files, generated from the pydantic models."""
    schema = World.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://github.com/mcp-sim/mcp-sim/schemas/world.schema.json"
    schema["title"] = "mcp-sim world spec v1"
    return schema
