"""The fiction part of the world spec: what a fictional world holds true beyond its prose canon.

- ``canon_entities``: the people, places, organisations (any kinds the world names) and their
  attributes, grouped by kind;
- ``reference_answers``: questions with the answer that results and pages must support when a
  query is about them (the Target Query / Reference Answer of the search world model's
  Simulation Instruction);
- ``search``: which tools search the world's web and open its pages, how many results a query
  shows, what an unknown URL gives, and the pages the web starts with (see :mod:`mcp_sim.web.pages`).

Kept apart from :mod:`mcp_sim.spec.world` like :mod:`mcp_sim.spec.state`: the ``World`` model there
holds these fields and reports these problems with file:line locations.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SEARCH_TOOL = "web_search"
OPEN_TOOL = "open_page"
URL_PATTERN = r"^https?://[^\s/?#]+[^\s]*$"
DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"


class _StrictPart(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Attribute = str | int | float | bool | list[str | int | float | bool]


class CanonEntity(BaseModel):
    """One person, place, organisation...: a ``name`` and any attributes (scalars or lists)."""

    # The attributes are the world's own vocabulary (role, party, founded, area_km2...), so
    # unknown keys are the point here; their values must still be plain JSON scalars or lists.
    model_config = ConfigDict(extra="allow", frozen=True)

    name: Annotated[str, Field(min_length=1)]

    def attributes(self) -> dict[str, Attribute]:
        return dict(self.model_extra or {})

    @field_validator("name")
    @classmethod
    def _name_is_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("an entity needs a name")
        return value

    @model_validator(mode="after")
    def _attributes_are_plain(self) -> CanonEntity:
        for key, value in (self.model_extra or {}).items():
            if not _is_attribute(value):
                raise ValueError(
                    f"attribute {key!r} of {self.name!r} must be a string, number, boolean or a "
                    "list of those"
                )
        return self


def _is_attribute(value: Any) -> bool:
    scalar = (str, int, float, bool)
    if isinstance(value, scalar):
        return True
    return isinstance(value, list) and all(isinstance(v, scalar) for v in value)


class ReferenceAnswer(_StrictPart):
    """A question about the world and the answer results must support when asked about it."""

    question: Annotated[str, Field(min_length=1)]
    answer: Annotated[str, Field(min_length=1)]
    evidence: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list,
        description="Strings a supporting result or page contains (case-insensitive); by "
        "default the answer's numbers and names.",
    )


class SeedPage(_StrictPart):
    """A page the world's web starts with: known to every search, opened verbatim when it has
    ``content``, written by the model from its title and snippet when it has not."""

    url: Annotated[str, Field(pattern=URL_PATTERN)]
    title: Annotated[str, Field(min_length=1)]
    snippet: str = ""
    date: Annotated[str, Field(pattern=DATE_PATTERN)] | None = None
    content: str | None = Field(
        default=None, description="The page as Markdown; opened verbatim when given."
    )


class SearchSpec(_StrictPart):
    """How the world's web is searched and read."""

    search_tool: str = Field(
        default=SEARCH_TOOL,
        description="The tool that searches; it takes `queries` (array of strings) or `query`.",
    )
    open_tool: str = Field(default=OPEN_TOOL, description="The tool that opens a page by `url`.")
    engine: str | None = Field(
        default=None, description="The search engine's name, shown in result headers."
    )
    results_per_query: Annotated[int, Field(ge=1, le=50)] = 10
    unknown_urls: Literal["not_found", "invent"] = Field(
        default="not_found",
        description="What opening a URL no result has shown gives: a 404, or a page the model "
        "writes consistent with the canon (remembered like any other).",
    )
    learn_facts: bool = Field(
        default=True,
        description="After the model writes a page, ask it (one short request) for the facts "
        "the page established, to show later calls; off saves that request.",
    )
    pages: list[SeedPage] = Field(default_factory=list)


def query_parameter(input_schema: Mapping[str, Any]) -> str | None:
    """The argument a search tool takes its queries from: ``queries`` (array) or ``query``."""
    properties = input_schema.get("properties") or {}
    queries = properties.get("queries")
    if isinstance(queries, dict) and queries.get("type") == "array":
        return "queries"
    query = properties.get("query")
    if isinstance(query, dict) and query.get("type") == "string":
        return "query"
    return None


def fiction_problems(
    search: SearchSpec | None,
    tool_schemas: Mapping[str, Mapping[str, Any]],
    entities: Mapping[str, Sequence[CanonEntity]],
) -> list[tuple[tuple[int | str, ...], str]]:
    """Problems that span the fiction fields and the tools (located like ``World``'s own)."""
    problems: list[tuple[tuple[int | str, ...], str]] = []
    for kind, members in entities.items():
        seen: set[str] = set()
        for i, entity in enumerate(members):
            if entity.name in seen:
                problems.append(
                    (("canon_entities", kind, i, "name"), f"{entity.name!r} is listed twice")
                )
            seen.add(entity.name)
    if search is None:
        return problems
    tools = ", ".join(sorted(tool_schemas))
    search_schema = tool_schemas.get(search.search_tool)
    if search_schema is None:
        problems.append(
            (("search", "search_tool"), f"no tool named {search.search_tool!r} (tools: {tools})")
        )
    elif query_parameter(search_schema) is None:
        problems.append(
            (
                ("search", "search_tool"),
                f"{search.search_tool} must take `queries` (an array of strings) or `query` "
                "(a string)",
            )
        )
    open_schema = tool_schemas.get(search.open_tool)
    if open_schema is None:
        problems.append(
            (("search", "open_tool"), f"no tool named {search.open_tool!r} (tools: {tools})")
        )
    elif not isinstance((open_schema.get("properties") or {}).get("url"), dict):
        problems.append((("search", "open_tool"), f"{search.open_tool} must take a `url`"))
    seen_urls: set[str] = set()
    for i, page in enumerate(search.pages):
        key = normalize_url(page.url)
        if key in seen_urls:
            problems.append((("search", "pages", i, "url"), f"{page.url} is listed twice"))
        seen_urls.add(key)
    return problems


def default_search(domain: str, tool_schemas: Mapping[str, Mapping[str, Any]]) -> SearchSpec | None:
    """The search set-up of a search world that names none: the default tools, when it has
    them and they take the default arguments."""
    if domain != "search":
        return None
    search_schema = tool_schemas.get(SEARCH_TOOL)
    open_schema = tool_schemas.get(OPEN_TOOL)
    if search_schema is None or open_schema is None or query_parameter(search_schema) is None:
        return None
    if not isinstance((open_schema.get("properties") or {}).get("url"), dict):
        return None
    return SearchSpec()


_DEFAULT_PORT = re.compile(r":(80|443)$")


def normalize_url(url: str) -> str:
    """The form a URL is remembered under: scheme and host lower-cased, default port, fragment
    and a trailing slash dropped, so trivially different spellings open the same page."""
    url = url.strip()
    url = url.split("#", 1)[0]
    match = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)(.*)$", url)
    if match is None:
        return url
    scheme, host, rest = match.groups()
    host = _DEFAULT_PORT.sub("", host.lower())
    if rest.endswith("/") and "?" not in rest:
        rest = rest.rstrip("/")
    return f"{scheme.lower()}://{host}{rest}"
