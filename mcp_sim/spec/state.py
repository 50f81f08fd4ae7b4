"""The state part of the world spec: the rules a world's state obeys and the structure the
server relies on to keep it (``state_schema``, ``immutable``, ``entities``, ``clock``, ``ids``).

Kept apart from :mod:`mcp_sim.spec.world` so the world model file stays about tools and prose; the
``World`` model there holds these fields and reports these problems with file:line locations.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Any

import jsonschema
from jsonpointer import JsonPointer, JsonPointerException
from pydantic import BaseModel, ConfigDict, Field, field_validator

from mcp_sim.spec.json_schemas import check_json_schema
from mcp_sim.spec.regexes import compile_regex


class _StrictPart(BaseModel):
    """Unknown keys are errors here too (the same rule as every part of a world file)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def _check_pointer(value: str) -> str:
    try:
        JsonPointer(value)
    except JsonPointerException as exc:
        raise ValueError(f"{value!r} is not a JSON pointer ({exc}); write e.g. /orders") from None
    return value


def id_format_regex(pattern: str, *, capture: bool = False) -> str:
    """The regular expression that matches every id an ``ids:`` pattern such as ``ord_{n:05d}``
    can produce (with ``capture``, the number is group 1). Raises ``ValueError`` unless the
    pattern is literal text around one ``{n}`` field, optionally zero-padded (``{n:05d}``)."""
    try:
        parts = list(string.Formatter().parse(pattern))
    except ValueError as exc:
        raise ValueError(f"id pattern {pattern!r} is not a format string: {exc}") from None
    fields = [(name, spec, conv) for _, name, spec, conv in parts if name is not None]
    if len(fields) != 1 or fields[0][0] != "n" or fields[0][2] is not None:
        raise ValueError(
            f"id pattern {pattern!r} must contain exactly one {{n}} field, e.g. ord_{{n:05d}}"
        )
    padding = re.fullmatch(r"(?:0(\d+))?d?", fields[0][1] or "")
    if padding is None:
        raise ValueError(
            f"id pattern {pattern!r}: {{n:{fields[0][1]}}} is not a zero-padded width such as "
            "{n:05d}"
        )
    digits = f"\\d{{{int(padding.group(1))},}}" if padding.group(1) else "\\d+"
    if capture:
        digits = f"({digits})"
    return "".join(re.escape(literal) + (digits if name else "") for literal, name, _, _ in parts)


def id_in_text_regex(pattern: str) -> str:
    """``pattern`` as the consistency auditor looks for ids in observations: not inside a
    longer word."""
    return rf"(?<![A-Za-z0-9_])(?:{pattern})(?![A-Za-z0-9_])"


def check_state_pointer(value: str) -> str:
    _check_pointer(value)
    if value == "":
        raise ValueError("the whole state cannot be immutable; name the parts that are")
    return value


MAX_ID_PATTERN_CHARS = 100
MAX_ID_WIDTH = 32
"""Ids are offered to the model in every write call's prompt: they must stay short."""


def check_id_pattern(value: str) -> str:
    if len(value) > MAX_ID_PATTERN_CHARS:
        raise ValueError(f"id pattern of {len(value)} characters (at most {MAX_ID_PATTERN_CHARS})")
    regex = id_format_regex(value)
    width = re.search(r"\{(\d+),\}", regex)
    if width is not None and int(width.group(1)) > MAX_ID_WIDTH:
        raise ValueError(
            f"id pattern {value!r} pads numbers to {int(width.group(1)):,} digits "
            f"(at most {MAX_ID_WIDTH})"
        )
    return value


class EntitySpec(_StrictPart):
    """A collection of records with identities, which the consistency auditor watches."""

    collection: str = Field(
        description="JSON pointer to the collection in the state: an array of records or an "
        "object mapping ids to records, e.g. /orders."
    )
    id: str = Field(
        default="id",
        description="The field of each record that holds its id; records of an object keyed "
        "by id may leave it out (the key is the id).",
    )
    immutable_fields: list[str] = Field(
        default_factory=list,
        description="Fields that never change once a record exists, e.g. [id, created_at].",
    )
    id_pattern: str | None = Field(
        default=None,
        description="Regular expression matching this entity's ids in observations; defaults to "
        "the pattern derived from ids.<name>, if declared.",
    )

    @field_validator("collection")
    @classmethod
    def _collection_is_pointer(cls, value: str) -> str:
        return _check_pointer(value)

    @field_validator("id_pattern")
    @classmethod
    def _id_pattern_compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                compile_regex(value)
                # The auditor finds ids in text with the pattern inside a group between
                # lookarounds, where some patterns that compile alone do not ((?i) midway).
                compile_regex(id_in_text_regex(value))
            except ValueError as exc:
                raise ValueError(f"id_pattern: {exc}") from None
        return value


class GroundingHints(_StrictPart):
    """Which records a tool's answer rests on, for when finding them by shape is not enough
    (see docs/state.md). Both parts are optional."""

    reads: list[str] = Field(
        default_factory=list,
        description="JSON pointers of the collections the tool reads, e.g. [/flights]: its "
        "arguments are matched against their records only.",
    )
    match: dict[str, str] = Field(
        default_factory=dict,
        description="Argument name → the place in a record whose value it equals, as a path "
        "inside the record: 'email', 'address/zip', or 'dates/*' for the key of a map of "
        "per-date records. Arguments not named here match any place.",
    )

    @field_validator("reads")
    @classmethod
    def _reads_are_pointers(cls, value: list[str]) -> list[str]:
        return [_check_pointer(pointer) for pointer in value]


def grounding_problems(
    tools: Sequence[tuple[str, dict[str, Any], GroundingHints | None]], state: Any
) -> list[tuple[tuple[int | str, ...], str]]:
    """Hints that cannot work: a collection that is not in the state, an argument the tool
    does not have. ``tools`` holds each tool's name, input schema and hints."""
    problems: list[tuple[tuple[int | str, ...], str]] = []
    for i, (name, schema, hints) in enumerate(tools):
        if hints is None:
            continue
        for j, pointer in enumerate(hints.reads):
            target = JsonPointer(pointer).resolve(state, None)
            if not isinstance(target, dict | list):
                problems.append(
                    (
                        ("tools", i, "grounding", "reads", j),
                        f"{pointer} is not a collection (an array or object) in the state",
                    )
                )
        properties = schema.get("properties")
        known = set(properties) if isinstance(properties, dict) else set()
        for argument in hints.match:
            if argument not in known:
                problems.append(
                    (
                        ("tools", i, "grounding", "match", argument),
                        f"{name} has no argument {argument!r} "
                        f"(its arguments are: {', '.join(sorted(known)) or 'none'})",
                    )
                )
    return problems


class ClockSpec(_StrictPart):
    """The virtual clock: the time the world model is told, advanced per call."""

    start: str = Field(description="ISO 8601 time of the first call, e.g. 2026-03-02T09:00:00Z.")
    step_seconds: Annotated[float, Field(ge=0)] = Field(
        default=60.0, description="Virtual seconds that pass with every call."
    )

    @field_validator("start")
    @classmethod
    def _start_is_iso(cls, value: str) -> str:
        try:
            datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(
                f"{value!r} is not an ISO 8601 time; write e.g. 2026-03-02T09:00:00Z"
            ) from None
        return value

    def start_time(self) -> datetime:
        """The start as an aware datetime (a time without an offset is taken as UTC)."""
        start = datetime.fromisoformat(self.start)
        return start if start.tzinfo is not None else start.replace(tzinfo=UTC)


def check_state_schema(schema: dict[str, Any]) -> dict[str, Any]:
    return check_json_schema(schema, "state_schema")


def state_problems(
    state: dict[str, Any],
    state_schema: dict[str, Any] | None,
    immutable: list[str],
    entities: dict[str, EntitySpec],
    ids: dict[str, str],
) -> list[tuple[tuple[int | str, ...], str]]:
    """The starting ``state`` against the schema, immutable pointers, entities and id patterns
    declared with it: (location in the world file, message) for each problem."""
    problems: list[tuple[tuple[int | str, ...], str]] = []
    if state_schema is not None:
        error = jsonschema.exceptions.best_match(
            jsonschema.Draft202012Validator(state_schema).iter_errors(state)
        )
        if error is not None:
            where = "/" + "/".join(str(p) for p in error.absolute_path)
            problems.append(
                (("state",), f"does not satisfy state_schema at {where}: {error.message}")
            )
    missing = object()
    for i, pointer in enumerate(immutable):
        if JsonPointer(pointer).resolve(state, missing) is missing:
            problems.append((("immutable", i), f"{pointer} does not exist in state"))
    for name, entity in entities.items():
        collection = JsonPointer(entity.collection).resolve(state, missing)
        if collection is missing:
            problems.append(
                (("entities", name, "collection"), f"{entity.collection} is not in state")
            )
        elif isinstance(collection, list):
            for j, record in enumerate(collection):
                if not isinstance(record, dict) or entity.id not in record:
                    problems.append(
                        (
                            ("entities", name, "collection"),
                            f"{entity.collection}/{j} is not a record with an {entity.id!r} field",
                        )
                    )
                    break
        elif not isinstance(collection, dict):
            problems.append(
                (
                    ("entities", name, "collection"),
                    f"{entity.collection} is not an array of records or an object of "
                    f"records by id (it is {json.dumps(collection)[:60]})",
                )
            )
    for name in ids:
        if name not in entities:
            declared = ", ".join(sorted(entities)) or "none"
            problems.append((("ids", name), f"no entity named {name!r} (entities: {declared})"))
    return problems
