"""``mcp-sim world new``: a world spec drafted by the world model from a one-line description.

The model answers under a JSON Schema derived from the world spec's own schema (the parts a
draft needs: id, title, domain, description, canon, canon entities, reference answers, state,
tools, and for a search world its web), so its answer always has the spec's shape; the draft is
then loaded like any world file, with every check that implies. A draft that fails them is sent
back once with the problems listed; if the second draft fails too, nothing is written and the
error lists what was wrong.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

from mcp_sim.authoring.world_yaml import checked_world_yaml
from mcp_sim.errors import DraftError, ModelOutputInvalid, SpecError
from mcp_sim.models.base import ChatMessage, CompletionRequest, Sampling, WorldModel
from mcp_sim.prompting.answer_format import extract_observation, strip_code_fence
from mcp_sim.prompting.bounds import OutputBounds, bounded_schema
from mcp_sim.spec.world import Domain, World, world_json_schema

DRAFT_KEYS = (
    "world",
    "title",
    "domain",
    "description",
    "canon",
    "canon_entities",
    "reference_answers",
    "state",
    "tools",
)
DRAFT_MAX_TOKENS = 6000
"""Room for a whole world spec, and inside the embedded model's 8192-token window."""
COMPACT_MAX_TOKENS = 1500
"""For a small model: a compact draft takes 200-600 tokens, and at a few tokens a second on
vLLM CPU a longer answer is a draft that rambles."""

_PARAMETER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "type": {"enum": ["string", "integer", "number", "boolean", "array", "object"]},
        "description": {"type": "string", "minLength": 1},
    },
    "required": ["type", "description"],
    "additionalProperties": False,
}
_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "type": {"const": "object"},
        "properties": {"type": "object", "additionalProperties": _PARAMETER},
        "required": {"type": "array", "items": {"type": "string", "minLength": 1}},
    },
    "required": ["type", "properties"],
    "additionalProperties": False,
}
"""A tool's input_schema in a draft: the root an MCP tool needs, each parameter a type and a
description (a designer refines them in the file)."""

_DOMAINS: dict[str, str] = {
    "mcp": "the tools of a service's API (snake_case names such as search_orders, get_order, "
    "create_order); an observation is what the API returns: JSON text, or an error message. "
    "Mark tools that change the world with effect: write.",
    "search": "exactly two tools: web_search, whose input has `queries` (an array of strings), "
    "and open_page, whose input has `url` (a string). The world is an invented place with its "
    "own web: give canon_entities (people, places, organisations with attributes), "
    "reference_answers (questions with their answers, consistent with the canon) and "
    "search.pages: a few starting pages (url, title, date YYYY-MM-DD, snippet) on the world's "
    "own invented sites.",
    "terminal": "one tool, execute_bash, whose input has `command` (a string); an observation "
    "is the raw terminal output. The state describes the machine: host, user, directories, "
    "files, services.",
    "swe": "coding-agent tools such as Read (file_path), Bash (command), Edit (file_path, "
    "old_string, new_string) and Grep (pattern, path); Read returns the file with numbered lines. "
    "The state describes the repository: its files, tests and what fails.",
    "web": "browser actions such as goto (url), click (bid), fill (bid, value), go_back; an "
    "observation is the page's accessibility tree, one node per line as `[bid] role 'name'`, "
    "indented by depth. The state describes the site's pages and data.",
    "os": "desktop actions such as click (x, y), type_text (text), hotkey (keys), "
    "open_application (name); an observation is the desktop's accessibility tree as a table: "
    "tag, name, text, position, size. The state describes the open windows and files.",
    "android": "phone actions such as click (index), input_text (index, text), scroll "
    "(direction), navigate_back, open_app (app_name); an observation lists the screen's UI "
    "elements, one per line as `[index] | class | text | resource-id | bounds`. The state "
    "describes the installed apps and their data.",
}

_SYSTEM = """\
# Role and Objective

You are a **World Designer** for mcp-sim, a server whose tools are imaginary: a language world \
model answers every tool call, following a world spec. Write the world spec for the \
description you are given, as one JSON object.

## The World Spec

- `world`: an id (letters, digits, dots, dashes; e.g. `harbour-pharmacy`); `title`: a short \
human title; `domain`: given; `description`: a paragraph that sets the scene: place, time, who \
the user is, the conventions the observations follow.
- `canon`: facts that must always hold: specific names, numbers and dates, one per item.
- `canon_entities`: optional; the people, places and organisations of the canon, each a \
`name` with attributes (role, kind, founded...), grouped by kind.
- `reference_answers`: optional; questions about the world with their answers, consistent \
with the canon.
- `state`: the starting world state, a JSON object the tools read and change.
- `tools`: 1 to 8 tools, each with `name`, `description` (what it does and what it returns), \
`input_schema` (a JSON Schema with "type": "object" and its parameters under "properties", \
each with a type and a description; "required" lists the mandatory ones) and `effect` \
(`read`, or `write` for tools that change the world).

## This Domain

{domain}

Answer with the JSON object only."""


@dataclass(frozen=True)
class Draft:
    text: str
    """The world file, as YAML."""
    world: World


@dataclass(frozen=True)
class DraftSize:
    """Upper sizes of a draft's lists."""

    canon: int = 20
    tools: int = 8
    reference_answers: int = 10
    entities_per_kind: int = 10
    pages: int = 8


COMPACT = DraftSize(canon=6, tools=3, reference_answers=3, entities_per_kind=3, pages=3)
"""For a small model (bounded output): a whole world must fit its window, at a few tokens a
second."""


def draft_schema(domain: Domain, size: DraftSize = DraftSize()) -> dict[str, Any]:
    """The JSON Schema a draft answers under: the world spec's schema, cut to the keys a draft
    needs and tightened where a free-form part would let a model wander (a tool's input schema
    must be an object schema; lists have an upper size)."""
    full = world_json_schema()
    defs = copy.deepcopy(full["$defs"])
    keys = (*DRAFT_KEYS, "search") if domain == "search" else DRAFT_KEYS
    properties = {key: copy.deepcopy(full["properties"][key]) for key in keys}
    properties["domain"] = {"const": domain}
    properties["canon"] = {"type": "array", "items": {"type": "string"}, "maxItems": size.canon}
    properties["tools"] = {"type": "array", "items": {"$ref": "#/$defs/ToolSpec"}}
    properties["tools"].update(minItems=1, maxItems=size.tools)
    properties["reference_answers"].update(maxItems=size.reference_answers)
    # Kinds of entities are the world's own words, but a grammar cannot enumerate them; the
    # usual three cover most worlds, and a designer adds more to the file by hand.
    entity_list = {
        "type": "array",
        "items": {"$ref": "#/$defs/CanonEntity"},
        "maxItems": size.entities_per_kind,
    }
    properties["canon_entities"] = {
        "type": "object",
        "properties": {kind: entity_list for kind in ("people", "places", "organisations")},
        "additionalProperties": False,
    }
    tool = defs["ToolSpec"]
    tool["properties"] = {
        key: value
        for key, value in tool["properties"].items()
        if key in ("name", "description", "input_schema", "effect")
    }
    tool["properties"]["input_schema"] = _INPUT_SCHEMA
    tool["required"] = ["name", "description", "input_schema", "effect"]
    if domain == "search":
        properties["search"] = {"$ref": "#/$defs/SearchSpec"}
        search = defs["SearchSpec"]
        search["properties"] = {"pages": search["properties"]["pages"]}
        search["properties"]["pages"]["maxItems"] = size.pages
        page = defs["SeedPage"]
        page["properties"].pop("content", None)
        page["required"] = ["url", "title", "date", "snippet"]
        page["properties"]["date"] = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}
    return {
        "type": "object",
        "properties": properties,
        "required": [
            "world",
            "title",
            "domain",
            "description",
            "canon",
            "state",
            "tools",
            *(["search", "canon_entities", "reference_answers"] if domain == "search" else []),
        ],
        "additionalProperties": False,
        "$defs": {name: defs[name] for name in _used_defs(properties, defs)},
    }


def _used_defs(value: Any, defs: dict[str, Any], found: set[str] | None = None) -> list[str]:
    found = set() if found is None else found
    if isinstance(value, dict):
        ref = value.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name not in found:
                found.add(name)
                _used_defs(defs[name], defs, found)
        for item in value.values():
            _used_defs(item, defs, found)
    elif isinstance(value, list):
        for item in value:
            _used_defs(item, defs, found)
    return sorted(found)


def draft_messages(description: str, domain: Domain) -> list[ChatMessage]:
    return [
        {"role": "system", "content": _SYSTEM.replace("{domain}", _DOMAINS[domain])},
        {"role": "user", "content": f"Domain: {domain}\n\nDescription: {description.strip()}"},
    ]


def correction_messages(
    messages: list[ChatMessage], draft: str, what: str, problems: list[str]
) -> list[ChatMessage]:
    """``messages`` followed by an invalid ``draft`` and a request to write it again that
    lists its ``problems``: the repair turn of every drafting loop."""
    return [
        *messages,
        {"role": "assistant", "content": draft},
        {
            "role": "user",
            "content": f"That {what} is not valid:\n"
            + "\n".join(f"- {p}" for p in problems)
            + "\n\nWrite it again, corrected, as one JSON object.",
        },
    ]


async def draft_world(
    description: str,
    domain: Domain,
    model: WorldModel,
    *,
    sampling: Sampling | None = None,
    bounds: OutputBounds | None = None,
) -> Draft:
    """A valid world drafted by ``model``. Raises :class:`DraftError` (after a second try) when
    it cannot produce one; lets :class:`mcp_sim.errors.ModelError` through, except an answer cut
    off at the token limit, which counts as a failed draft."""
    if not description.strip():
        raise DraftError('describe the world to draft, e.g. "a ferry company\'s booking API"')
    if bounds is None:
        schema = draft_schema(domain)
    else:
        schema = bounded_schema(draft_schema(domain, COMPACT), bounds)
    sampling = sampling or Sampling(max_tokens=DRAFT_MAX_TOKENS)
    messages = draft_messages(description, domain)
    problems: list[str] = []
    for _ in range(2):
        request = CompletionRequest(messages, sampling, schema, schema_name="world")
        try:
            completion = await model.complete(request)
        except ModelOutputInvalid as exc:
            # A draft that ran past the limit has nothing to correct; a fresh one may be shorter.
            problems = [str(exc)]
            continue
        try:
            return _validated(completion.content, description)
        except DraftError as exc:
            problems = str(exc).splitlines()
        messages = correction_messages(messages, completion.content, "world spec", problems)
    raise DraftError(
        "the world model could not draft a valid world spec; the last draft had these "
        "problems:\n" + "\n".join(f"  {p}" for p in problems)
    )


def _validated(content: str, description: str) -> Draft:
    raw = strip_code_fence(extract_observation(content))
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise DraftError(
            f"the draft is not JSON ({exc.msg} at position {exc.pos}; it may have been cut off "
            "at the token limit)"
        ) from None
    if not isinstance(data, dict):
        raise DraftError("the draft is not a JSON object")
    header = "# Drafted by `mcp-sim world new` from: " + " ".join(description.split()) + "\n"
    try:
        text, world = checked_world_yaml(data, file="draft.yaml", header=header)
    except SpecError as exc:
        raise DraftError("\n".join(str(p) for p in exc.problems)) from None
    return Draft(text, world)
