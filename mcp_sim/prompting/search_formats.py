"""The search domain's native observation formats, as the search world model was trained on them.

A search answers each query with a header line and numbered results::

    Sounder found 2 results for "calder bridge":

    [1] https://velapedia.vl/wiki/Calder_Bridge
    Title: Calder Bridge - Velapedia
    Snippet: The Calder Bridge is a 7.4 km road bridge across the Calder Strait...
    Date: 2031-02-03

    [2] ...

(queries of one call follow each other, separated by a blank line), and an opened page is
Markdown starting with its title as a ``# `` heading. This module renders and parses those
formats, gives the JSON shape a small model is asked for instead (rendered back into the native
text here, so the agent sees the same format whichever model answers), and holds the search
conventions of the system prompt.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from mcp_sim.prompting.bounds import OutputBounds
from mcp_sim.spec.fiction import DATE_PATTERN

SEARCH_CONVENTIONS = """\
## Task Definition

You are given the world this web belongs to, the history of earlier actions in this session \
with their observations, and the current action: a search (one or more queries) or the opening \
of a page by URL. Predict the **exact observation** the tool returns.

## Input Definitions

1. **Historical Context**: earlier actions of this session and what they returned. Results and \
pages shown there exist; never contradict them.
2. **Current Action**: the tool call to simulate, as JSON with `name` and `arguments`.
3. **Simulation Instruction**: the world's canon, entities and reference answers (below), and \
per call the known pages and facts that concern it, and a Target Query with its Reference \
Answer when the call is about one.

## Content Generation Priority

1. **Ground truth first**: facts of a Reference Answer MUST be accurately reflected in the \
results and pages about its Target Query.
2. **Canon and known pages**: never contradict the canon, the entities, a known page or an \
earlier observation. A known page keeps its URL, title and date wherever it appears.
3. **Realism**: everything else is invented in the style of the real web: plausible sites of \
this world, specific names, numbers and dates, each site with its own voice.

## Output Formats

- **Search results**: for each query, a header line `Found N results for "QUERY":` (with the \
engine's name first when it has one), a blank line, then the results numbered from [1], each \
as a line `[N] url` followed by `Title:`, `Snippet:` and `Date:` (YYYY-MM-DD) lines, with a \
blank line between results and between queries. Give {results} results per query unless the \
tool says otherwise; a query that matches nothing gets `Found 0 results for "QUERY".`
- **Opened pages**: the main text of the page as Markdown, starting with its title as a `# ` \
heading, without navigation, ads or footers. A page repeats its title and agrees with the \
snippet it was found under.
- **Errors**: an address that does not exist gives the site's 404 error; a host that does \
not exist gives a resolution error."""


@dataclass(frozen=True)
class SearchResult:
    url: str
    title: str
    snippet: str = ""
    date: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"url": self.url, "title": self.title, "snippet": self.snippet, "date": self.date}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SearchResult:
        return cls(
            url=str(data["url"]),
            title=str(data["title"]),
            snippet=str(data.get("snippet") or ""),
            date=str(data["date"]) if data.get("date") else None,
        )


def search_conventions(results_per_query: int) -> str:
    return SEARCH_CONVENTIONS.replace("{results}", str(results_per_query))


def normalize_query(query: str) -> str:
    """The form a query is remembered under: lower case, single spaces."""
    return " ".join(query.lower().split())


def header(query: str, count: int, engine: str | None) -> str:
    found = f"{engine} found" if engine else "Found"
    noun = "result" if count == 1 else "results"
    end = ":" if count else "."
    return f'{found} {count} {noun} for "{query}"{end}'


def render_results(query: str, results: list[SearchResult], engine: str | None = None) -> str:
    """One query's answer in the native format."""
    blocks = [header(query, len(results), engine)]
    for number, result in enumerate(results, 1):
        lines = [f"[{number}] {result.url}", f"Title: {result.title}"]
        lines.append(f"Snippet: {result.snippet}")
        if result.date:
            lines.append(f"Date: {result.date}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


_RESULT_START = re.compile(r"^\s*\[(\d+)\]\s*(?:\(?(\S+?)\)?)?\s*$")
_FIELD = re.compile(r"^\s*\**\s*(title|snippet|date|url)\s*\**\s*:\s*\**\s*(.*)$", re.IGNORECASE)
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_results(text: str) -> list[SearchResult]:
    """The results in a native-format answer (for one query), in order. Tolerant of the ways a
    model drifts (bold field names, the URL on a ``URL:`` line); a block without a URL and a
    title is dropped, and each URL counts once."""
    results: list[SearchResult] = []
    current: dict[str, str] | None = None
    last_field = ""

    def close() -> None:
        if current and current.get("url") and current.get("title"):
            url = current["url"].strip("<>")
            if url.startswith(("http://", "https://")) and all(r.url != url for r in results):
                date = _ISO_DATE.search(current.get("date", ""))
                results.append(
                    SearchResult(
                        url=url,
                        title=current["title"].strip(),
                        snippet=current.get("snippet", "").strip(),
                        date=date.group() if date else None,
                    )
                )

    for line in text.splitlines():
        start = _RESULT_START.match(line)
        if start is not None:
            close()
            current = {"url": start.group(2) or ""}
            last_field = ""
            continue
        if current is None:
            continue
        field = _FIELD.match(line)
        if field is not None:
            last_field = field.group(1).lower()
            current[last_field] = field.group(2).strip().rstrip("*").strip()
        elif line.strip() and last_field == "snippet":
            current["snippet"] += " " + line.strip()
        elif not line.strip():
            last_field = ""
    close()
    return results


# --- the JSON shape a small model answers in ------------------------------------------------

BOUNDED_MIN_RESULTS = 2
BOUNDED_RESULTS = 3
"""Results per query asked of a model with bounded output: ten do not fit the small model's
token budget (512), and a grammar-constrained answer cut off at the limit is no answer at all:
four long results ran past it. On vLLM CPU the tiny model writes 2-4 tokens a second under
load, about 90 tokens a result."""


_BOUNDED_URL = r"^https?://[a-z0-9.-]{1,40}(/[A-Za-z0-9._~%/?=&-]{0,80})?$"


def results_schema(count: int, bounds: OutputBounds) -> dict[str, Any]:
    """The JSON Schema of one query's results, for a model with bounded output."""
    text = min(bounds.max_string, 160)
    return {
        "type": "object",
        "properties": {
            "results": {
                "type": "array",
                # A small model left free to answer [] does so; a fictional world has pages
                # for any query, if only loosely related ones.
                "minItems": min(count, BOUNDED_MIN_RESULTS),
                "maxItems": min(count, BOUNDED_RESULTS, bounds.max_items),
                "items": {
                    "type": "object",
                    "properties": {
                        # xgrammar takes a pattern or a length, not both: the pattern bounds.
                        "url": {"type": "string", "pattern": _BOUNDED_URL},
                        "title": {"type": "string", "minLength": 1, "maxLength": 100},
                        "snippet": {"type": "string", "maxLength": text},
                        "date": {"type": "string", "pattern": DATE_PATTERN},
                    },
                    "required": ["url", "title", "snippet", "date"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["results"],
        "additionalProperties": False,
    }


def results_format_note(count: int) -> str:
    return (
        "**Answer Format:** a JSON object "
        '{"results": [{"url": ..., "title": ..., "snippet": ..., "date": "YYYY-MM-DD"}]} '
        f"with up to {count} results for the query, best first; it is shown to the agent in "
        "the numbered search format."
    )


def parse_structured(text: str) -> list[SearchResult] | None:
    """The results in a JSON answer, or None when it is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    items = data.get("results") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return None
    results: list[SearchResult] = []
    for item in items:
        if isinstance(item, dict) and item.get("url") and item.get("title"):
            result = SearchResult.from_json(item)
            if all(r.url != result.url for r in results):
                results.append(result)
    return results


# --- pages ---------------------------------------------------------------------------------


def with_title(content: str, title: str) -> str:
    """``content`` as a native page: its first line is the title as a ``# `` heading. A page
    the results named must repeat that name, whatever heading the model chose."""
    lines = content.strip().splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines and re.match(r"^#\s", lines[0]):
        lines = lines[1:]
        while lines and not lines[0].strip():
            lines.pop(0)
    body = "\n".join(lines).strip()
    return f"# {title}\n\n{body}" if body else f"# {title}"


def title_of(content: str) -> str | None:
    """The page's ``# `` heading, if it starts with one."""
    for line in content.splitlines():
        if line.strip():
            match = re.match(r"^#\s+(.+?)\s*#*$", line.strip())
            return match.group(1) if match else None
    return None


def lead_of(content: str, limit: int = 240) -> str:
    """The first paragraph of a page's text: the snippet a page nobody searched for is
    remembered under."""
    for block in re.split(r"\n\s*\n", content):
        text = block.strip()
        if text and not text.startswith(("#", "|", "-", "*", ">", "```")):
            text = " ".join(text.split())
            return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."
    return ""


def host_of(url: str) -> str:
    return urlsplit(url).hostname or ""


def not_found_page(url: str) -> str:
    """What opening an address that does not exist gives, as a real reader tool reports it."""
    parts = urlsplit(url)
    path = parts.path or "/"
    if parts.query:
        path += f"?{parts.query}"
    return (
        f"Error 404: {url} was not found.\n\n# 404 Not Found\n\n"
        f"The requested URL {path} was not found on this server."
    )


def unresolvable(url: str) -> str:
    host = host_of(url) or url
    return f"Error: could not resolve host {host}: {url} cannot be opened."
