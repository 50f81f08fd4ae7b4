"""World spec v1: pydantic models (the single source of truth), loading with file:line errors,
and JSON Schema export.

A world file is YAML. It is loaded twice over the same text: once into plain data that pydantic
validates, and once into PyYAML's node graph, which remembers where every key and value sits in
the file. When validation fails, each pydantic error location is walked down the node graph to
report ``FILE:LINE:COL: path.to.field: message``.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal

import jsonschema
import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from mcp_sim.errors import SpecError, SpecProblem
from mcp_sim.spec.fiction import (
    CanonEntity,
    ReferenceAnswer,
    SearchSpec,
    default_search,
    fiction_problems,
)
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

Domain = Literal["mcp", "search", "terminal", "swe", "web", "os", "android"]
TOOL_NAME_PATTERN = r"^[A-Za-z0-9._-]{1,64}$"
WORLD_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
ENTITY_NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_]{0,63}$"


class _Strict(BaseModel):
    """Unknown keys are errors: a typo in a world file must never pass silently."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class _NestedValueError(ValueError):
    """A field validator's error that sits deeper inside the field's value (``path``), so the
    loader can point at the exact line instead of at the field's key."""

    def __init__(self, message: str, path: tuple[int | str, ...]) -> None:
        super().__init__(message)
        self.path = path


def _check_json_schema(schema: dict[str, Any], what: str) -> dict[str, Any]:
    validator_cls = jsonschema.validators.validator_for(
        schema, default=jsonschema.Draft202012Validator
    )
    try:
        validator_cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise _NestedValueError(
            f"{what} is not a valid JSON Schema: {exc.message}", tuple(exc.absolute_path)
        ) from None
    if schema.get("type") != "object":
        raise _NestedValueError(
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
        "openWorldHint), advertised as given; `mcp-sim import` keeps the real tool's.",
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
        return _check_json_schema(value, "input_schema")

    @field_validator("output_schema")
    @classmethod
    def _output_schema_is_valid(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if value is None else _check_json_schema(value, "output_schema")


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
                raise ValueError("; ".join(f"{_format_loc(loc)}: {msg}" for loc, msg in problems))
        return self

    def cross_problems(self) -> list[tuple[tuple[int | str, ...], str]]:
        """Problems that span fields: duplicate tool names, fixtures that do not fit their tool."""
        problems: list[tuple[tuple[int | str, ...], str]] = []
        by_name: dict[str, ToolSpec] = {}
        for i, tool in enumerate(self.tools):
            if tool.name in by_name:
                problems.append((("tools", i, "name"), f"tool name {tool.name!r} is used twice"))
            else:
                # The first one wins, as in World.tool(), which is what answers calls.
                by_name[tool.name] = tool
        for i, fixture in enumerate(self.fixtures):
            fixture_tool = by_name.get(fixture.when.tool)
            if fixture_tool is None:
                problems.append(
                    (
                        ("fixtures", i, "when", "tool"),
                        f"no tool named {fixture.when.tool!r} (tools are: {', '.join(sorted(by_name))})",
                    )
                )
                continue
            arg_error = jsonschema.exceptions.best_match(
                jsonschema.Draft202012Validator(fixture_tool.input_schema).iter_errors(
                    fixture.when.arguments
                )
            )
            if arg_error is not None:
                problems.append(
                    (
                        ("fixtures", i, "when", "arguments", *arg_error.absolute_path),
                        f"arguments do not satisfy the input_schema of {fixture_tool.name}: {arg_error.message}",
                    )
                )
            if fixture_tool.output_schema is not None and not fixture.is_error:
                out_error = jsonschema.exceptions.best_match(
                    jsonschema.Draft202012Validator(fixture_tool.output_schema).iter_errors(
                        fixture.result
                    )
                )
                if out_error is not None:
                    problems.append(
                        (
                            ("fixtures", i, "result", *out_error.absolute_path),
                            f"result does not satisfy the output_schema of {fixture_tool.name}: "
                            f"{out_error.message}",
                        )
                    )
        parameters = {
            name: list((tool.input_schema.get("properties") or {}).keys())
            if isinstance(tool.input_schema.get("properties"), dict)
            else None
            for name, tool in by_name.items()
        }
        for profile, rules in self.perturbations.items():
            for i, rule in enumerate(rules):
                problems += [
                    (("perturbations", profile, i, *loc), message)
                    for loc, message in rule_problems(rule, parameters)
                ]
        schemas = {t.name: t.input_schema for t in self.tools}
        return (
            problems
            + state_problems(self.state, self.state_schema, self.immutable, self.entities, self.ids)
            + fiction_problems(self.search, schemas, self.canon_entities)
            + grounding_problems(
                [(t.name, t.input_schema, t.grounding) for t in self.tools], self.state
            )
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


def world_json_schema() -> dict[str, Any]:
    """The JSON Schema of world files, generated from the pydantic models."""
    schema = World.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://github.com/mcp-sim/mcp-sim/schemas/world.schema.json"
    schema["title"] = "mcp-sim world spec v1"
    return schema


# --- loading -------------------------------------------------------------------------------


class _WorldLoader(yaml.SafeLoader):
    """SafeLoader that keeps dates and times as strings: world state must stay plain JSON."""


_WorldLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _node_at(root: yaml.Node, loc: tuple[int | str, ...]) -> yaml.Node:
    """Walk ``loc`` down the node graph and return the deepest node reached (for a missing key,
    the mapping that lacks it; for the last key of ``loc``, the key node itself)."""
    node = root
    for i, part in enumerate(loc):
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == part:
                    last = i == len(loc) - 1
                    node = key_node if last else value_node
                    break
            else:
                return node
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if part >= len(node.value):
                return node
            node = node.value[part]
        else:
            return node
    return node


def _format_loc(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _problem_at(
    file: str, root: yaml.Node, loc: tuple[int | str, ...], message: str
) -> SpecProblem:
    node = _node_at(root, loc)
    return SpecProblem(
        file, node.start_mark.line + 1, node.start_mark.column + 1, _format_loc(loc), message
    )


def _without_union_tags(
    root: yaml.Node, loc: tuple[int | str, ...], missing: bool
) -> tuple[int | str, ...]:
    """``loc`` without the tags pydantic puts in the locations of tagged unions (a
    perturbation rule's error sits under its ``kind``): keys the file does not have, except a
    last one that names a ``missing`` key."""
    kept: list[int | str] = []
    node = root
    for i, part in enumerate(loc):
        if isinstance(node, yaml.MappingNode) and not (missing and i == len(loc) - 1):
            value = next((v for k, v in node.value if k.value == part), None)
            if value is None:
                continue
            node = value
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            node = node.value[part] if part < len(node.value) else node
        kept.append(part)
    return tuple(kept)


def _problem_from_error(file: str, root: yaml.Node, error: Any) -> SpecProblem:
    # pydantic inserts union/function tags like "function-after[...]" into locations; drop them.
    loc = tuple(p for p in error["loc"] if not (isinstance(p, str) and "[" in p))
    loc = _without_union_tags(root, loc, missing=error["type"] == "missing")
    cause = (error.get("ctx") or {}).get("error")
    if isinstance(cause, _NestedValueError):
        loc += cause.path
    message = str(error["msg"])
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    if error["type"] in ("union_tag_invalid", "union_tag_not_found"):
        # The tag is the discriminating key (``kind``): point at it, and list the choices.
        ctx = error.get("ctx") or {}
        key = str(ctx.get("discriminator", "kind")).strip("'")
        if error["type"] == "union_tag_not_found":
            message = f"missing required key {key!r}"
        else:
            loc += (key,)
            message = f"unknown {key} {ctx.get('tag')!r} (one of: {ctx.get('expected_tags')})"
    elif error["type"] == "missing":
        message = f"missing required key {loc[-1]!r}"
    elif error["type"] == "extra_forbidden":
        message = f"unknown key {loc[-1]!r} (check the spelling; see schemas/world.schema.json)"
    return _problem_at(file, root, loc, message)


def _duplicate_keys(
    file: str, node: yaml.Node, path: tuple[int | str, ...] = ()
) -> list[SpecProblem]:
    problems: list[SpecProblem] = []
    if isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for key_node, value_node in node.value:
            if key_node.value in seen:
                problems.append(
                    SpecProblem(
                        file,
                        key_node.start_mark.line + 1,
                        key_node.start_mark.column + 1,
                        _format_loc((*path, key_node.value)),
                        f"duplicate key {key_node.value!r} (the earlier value would be lost)",
                    )
                )
            seen.add(key_node.value)
            problems += _duplicate_keys(file, value_node, (*path, key_node.value))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            problems += _duplicate_keys(file, item, (*path, i))
    return problems


def parse_world(text: str, file: str = "<world>") -> World:
    """Parse and validate a world from YAML text. Raises :class:`SpecError` listing every problem."""
    try:
        root = yaml.compose(text, Loader=_WorldLoader)
        data = yaml.load(text, Loader=_WorldLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        reason = " ".join(x for x in (exc.context, exc.problem) if x)
        raise SpecError(
            [SpecProblem(file, line, column, "", f"YAML syntax error: {reason}")]
        ) from None
    except yaml.YAMLError as exc:
        raise SpecError([SpecProblem(file, 1, 1, "", f"YAML error: {exc}")]) from None
    if root is None or not isinstance(data, dict):
        raise SpecError(
            [
                SpecProblem(
                    file,
                    1,
                    1,
                    "",
                    "a world file must be a YAML mapping with world, title and tools",
                )
            ]
        )
    problems = _duplicate_keys(file, root)
    try:
        world = World.model_validate(data, context={"defer_cross_checks": True})
    except ValidationError as exc:
        problems += [_problem_from_error(file, root, err) for err in exc.errors()]
    else:
        problems += [_problem_at(file, root, loc, msg) for loc, msg in world.cross_problems()]
    if problems:
        problems.sort(key=lambda p: (p.line, p.column))
        raise SpecError(problems)
    return world


def load_world(path: str | Path) -> World:
    """Load a world file. Raises :class:`SpecError` (with file, line and field) when it is broken."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(
            [SpecProblem(str(path), 1, 1, "", f"cannot read file: {exc.strerror}")]
        ) from None
    except UnicodeDecodeError as exc:
        raise SpecError(
            [SpecProblem(str(path), 1, 1, "", f"not UTF-8 text: {exc.reason}")]
        ) from None
    return parse_world(text, str(path))
