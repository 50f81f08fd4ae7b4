"""The page store: a fictional world's web stays the same web, whoever searches it and when.

- **Every URL a result shows is remembered** with its title, snippet and date. A URL the store
  already knows keeps its title and date in every later result.
- **Opening a remembered URL** asks the model once for the page, telling it the title, date and
  snippet it was found under; the page starts with that title and is kept, so every later open
  (in any session, and after a restart with ``--world-memory``) returns it byte for byte.
- **A query already answered** gives the same results again without the model.
- **An unknown URL** gives a realistic error without the model: the site's 404 for a host the
  world knows, a resolution error for one it does not. With ``search.unknown_urls: invent`` the
  model writes a page for it instead, consistent with the canon, which is then kept too.
- **What the model is shown**: the known pages a query or page is about (so it reuses their
  URLs and never contradicts them), facts earlier pages established, and the Target Query and
  Reference Answer of the questions the call is about; results and pages that fail to state a
  reference answer, or a page that fails to state its snippet's numbers, are asked for once more.

Pages, results and facts live in a :class:`mcp_sim.web.world_memory.WorldMemory`. Calls in flight for the
same query or URL in one server wait for each other, so the model is asked once; across servers
sharing a memory file the first answer stored wins and every caller returns it.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeVar

import anyio
import anyio.to_thread

from mcp_sim.errors import ModelError, ModelOutputInvalid
from mcp_sim.prompting.bounds import OutputBounds
from mcp_sim.prompting.canon import evidence, supports, target_section, targets, world_text
from mcp_sim.prompting.relevance import contains_evidence, terms
from mcp_sim.prompting.search_formats import (
    SearchResult,
    host_of,
    lead_of,
    normalize_query,
    not_found_page,
    parse_results,
    parse_structured,
    render_results,
    results_format_note,
    results_schema,
    title_of,
    unresolvable,
    with_title,
)
from mcp_sim.spec.fiction import SearchSpec, normalize_url, query_parameter
from mcp_sim.spec.world import World
from mcp_sim.web.world_memory import Fact, PageRecord, WorldMemory

KNOWN_PAGES = 8
"""Known pages shown with a search (fewer for a model with bounded output: its window is small)."""
KNOWN_PAGES_BOUNDED = 3
RELATED_PAGES = 4
"""Known pages shown when a page is written, besides its own record."""
FACTS_SHOWN = 6
FACTS_PER_PAGE = 3
"""Facts asked of the model about each page it writes: what later pages must not contradict."""

T = TypeVar("T")


@dataclass(frozen=True)
class ModelQuestion:
    """One request the page store needs the world model to answer for the current call."""

    arguments: dict[str, Any]
    """The action shown as the current call (a search of a single query, say)."""
    sections: tuple[str, ...] = ()
    """What the store tells the model about this call."""
    response_schema: dict[str, Any] | None = None
    """Ask for JSON constrained by this schema instead of the native text."""
    then: tuple[str, str] | None = None
    """(an answer the model gave to this question, what to ask about it now): a correction or
    a follow-up, sent as the next turn of the same conversation so it shares the prefix."""
    follow_up: bool = False
    """A short question about the answer (thinking off, small token limit), such as facts."""


@dataclass(frozen=True)
class ModelReply:
    text: str
    """The observation (or, for a JSON question, the JSON text)."""
    content: str
    """The model's whole answer, as it goes back into a correction's conversation."""
    reasoning: str | None = None


Ask = Callable[[ModelQuestion], Awaitable[ModelReply]]


@dataclass(frozen=True)
class WebAnswer:
    text: str
    is_error: bool = False
    source: Literal["model", "memory"] = "memory"
    reasoning: str | None = None
    violations: tuple[str, ...] = ()
    """What the answer still fails to state after the one retry (reference answers, the
    numbers of a page's snippet)."""


FACTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "maxItems": FACTS_PER_PAGE,
            "items": {"type": "string", "minLength": 8, "maxLength": 200},
        }
    },
    "required": ["facts"],
    "additionalProperties": False,
}

FACTS_REQUEST = (
    f"List up to {FACTS_PER_PAGE} specific facts this page states that the Simulation "
    "Instruction does not already say (names, numbers, dates, each a short sentence that stands "
    'on its own), as the JSON object {"facts": [...]}. Answer with the JSON object only.'
)


async def _run(function: Callable[..., T], *args: Any) -> T:
    return await anyio.to_thread.run_sync(function, *args)


class PageStore:
    """Answers the search and open tools of one world from its memory and the world model."""

    def __init__(
        self,
        world: World,
        memory: WorldMemory,
        *,
        bounds: OutputBounds | None = None,
    ) -> None:
        spec = world.web()
        if spec is None:
            raise ValueError(f"world {world.world!r} has no search and open tools")
        self.world = world
        self.spec: SearchSpec = spec
        self.memory = memory
        self.bounds = bounds
        self.learn_facts = spec.learn_facts
        search_tool = world.tool(spec.search_tool)
        self._query_parameter = (
            query_parameter(search_tool.input_schema) if search_tool else None
        ) or "queries"
        self._world_text = world_text(world).lower()
        self._known: dict[str, PageRecord] = {}
        self._known_seq = 0
        self._facts: list[Fact] = []
        self._locks: dict[str, tuple[anyio.Lock, int]] = {}
        for page in spec.pages:
            memory.add_page(
                normalize_url(page.url),
                page.title,
                page.snippet or (lead_of(page.content) if page.content else ""),
                page.date,
                with_title(page.content, page.title) if page.content else None,
                "seed",
            )

    def handles(self, tool: str) -> bool:
        return tool in (self.spec.search_tool, self.spec.open_tool)

    # --- answering -------------------------------------------------------------------------

    def settled(self, tool: str, arguments: dict[str, Any]) -> bool:
        """Whether the store answers this call without the model."""
        if tool == self.spec.search_tool:
            return all(
                self.memory.search(normalize_query(q)) is not None for q in self._queries(arguments)
            )
        url = normalize_url(str(arguments.get("url", "")))
        page = self.memory.page(url)
        if page is not None:
            return page.content is not None
        return self.spec.unknown_urls == "not_found"

    async def answer(self, tool: str, arguments: dict[str, Any], ask: Ask) -> WebAnswer:
        if tool == self.spec.search_tool:
            return await self._search(arguments, ask)
        return await self._open(arguments, ask)

    async def observe(self, tool: str, arguments: dict[str, Any], text: str) -> None:
        """Remember what a pinned answer (a fixture) of the search or open tool showed."""
        if tool == self.spec.search_tool:
            for result in parse_results(text):
                await self._remember(replace(result, url=normalize_url(result.url)))
        elif tool == self.spec.open_tool and title_of(text):
            url = normalize_url(str(arguments.get("url", "")))
            title = title_of(text) or url
            await _run(self.memory.add_page, url, title, lead_of(text), None, text, "seed")

    # --- search ----------------------------------------------------------------------------

    def _queries(self, arguments: dict[str, Any]) -> list[str]:
        value = arguments.get(self._query_parameter)
        if isinstance(value, list):
            return [str(q) for q in value]
        return [str(value)] if value is not None else []

    async def _search(self, arguments: dict[str, Any], ask: Ask) -> WebAnswer:
        blocks: list[str] = []
        source: Literal["model", "memory"] = "memory"
        reasoning: str | None = None
        violations: list[str] = []
        # One query at a time, in order: each model request draws the session's next seed, so
        # the same calls ask the same way.
        for query in self._queries(arguments):
            key = normalize_query(query)
            async with self._exclusive(f"query:{key}"):
                stored = await _run(self.memory.search, key)
                if stored is None:
                    results, reasoning, missing = await self._ask_results(query, arguments, ask)
                    violations += missing
                    stored = await _run(self.memory.add_search, key, [r.as_json() for r in results])
                    source = "model"
            blocks.append(
                render_results(query, [SearchResult.from_json(r) for r in stored], self.spec.engine)
            )
        return WebAnswer("\n\n".join(blocks), False, source, reasoning, tuple(violations))

    async def _ask_results(
        self, query: str, arguments: dict[str, Any], ask: Ask
    ) -> tuple[list[SearchResult], str | None, list[str]]:
        single: Any = [query] if self._query_parameter == "queries" else query
        shown = {**arguments, self._query_parameter: single}
        refs = targets(self.world, query)
        sections = [
            s
            for s in (
                await self._known_section(query, exclude=()),
                await self._facts_section(query),
                target_section(refs, "the results for this query") if refs else "",
            )
            if s
        ]
        schema = None
        if self.bounds is not None:
            schema = results_schema(self.spec.results_per_query, self.bounds)
            sections.append(results_format_note(schema["properties"]["results"]["maxItems"]))
        question = ModelQuestion(shown, tuple(sections), schema)
        reply = await ask(question)
        results = await self._parsed(reply.text)
        unsupported = [r for r in refs if not supports(_results_text(results), r)]
        if unsupported:
            again = _retry_note(
                "These results do not state the Reference Answer",
                [", ".join(evidence(r)) for r in unsupported],
                "Answer again: at least one result's title or snippet must state it.",
            )
            # A failed correction leaves the first answer standing, its shortfall reported.
            with contextlib.suppress(ModelError):
                retry = await ask(replace(question, then=(reply.content, self._format(again))))
                reply, results = retry, await self._parsed(retry.text)
                unsupported = [r for r in refs if not supports(_results_text(results), r)]
        missing = [f"results for {query!r} do not support: {r.question}" for r in unsupported]
        return [await self._remember(r) for r in results], reply.reasoning, missing

    async def _parsed(self, text: str) -> list[SearchResult]:
        """The results of an answer, as the store knows their pages (not remembered yet: a
        corrected answer may replace them). Raises ModelOutputInvalid for an answer with no
        results that does not say so, which must not be kept as an empty result list."""
        if self.bounds is not None:
            parsed = parse_structured(text)
            if parsed is None:
                raise ModelOutputInvalid(f"the answer is not a JSON result list: {text[:200]!r}")
        else:
            parsed = parse_results(text)
            if not parsed and not _NO_RESULTS.search(text):
                raise ModelOutputInvalid(
                    f"the answer has no results in the search format: {text[:200]!r}"
                )
        out = []
        for result in parsed[: self.spec.results_per_query]:
            url = normalize_url(result.url)
            known = await _run(self.memory.page, url)
            out.append(_as_known(replace(result, url=url), known))
        return out

    async def _remember(self, result: SearchResult) -> SearchResult:
        """Remember a result's page (unless known) and return the result as stored: a URL keeps
        the title and date it was first shown with."""
        page = await _run(
            self.memory.add_page,
            result.url,
            result.title,
            result.snippet,
            result.date,
            None,
            "result",
        )
        return _as_known(result, page)

    def _format(self, note: str, *, page: bool = False) -> str:
        """A correction, with how to answer it (the format of the first answer)."""
        if self.bounds is None:
            return (
                f"{note}\n\nGive the observation again, wrapped in "
                "<predicted_observation></predicted_observation> tags."
            )
        if page:
            return f'{note}\n\nAnswer with only a JSON object whose "observation" field holds the page.'
        return f"{note}\n\nAnswer with the JSON object only."

    # --- open ------------------------------------------------------------------------------

    async def _open(self, arguments: dict[str, Any], ask: Ask) -> WebAnswer:
        url = normalize_url(str(arguments.get("url", "")))
        async with self._exclusive(f"url:{url}"):
            page = await _run(self.memory.page, url)
            if page is not None and page.content is not None:
                return WebAnswer(page.content)
            if page is None and self.spec.unknown_urls == "not_found":
                return WebAnswer(await self._missing(url), is_error=True)
            return await self._write_page(url, page, arguments, ask)

    async def _missing(self, url: str) -> str:
        host = host_of(url)
        await self._refresh()
        known_hosts = {host_of(u) for u in self._known}
        if host and (host in known_hosts or host in self._world_text):
            return not_found_page(url)
        return unresolvable(url)

    async def _write_page(
        self, url: str, page: PageRecord | None, arguments: dict[str, Any], ask: Ask
    ) -> WebAnswer:
        if page is not None:
            about = f"{page.title} {page.snippet} {url}"
            record = _page_record(page)
        else:
            about = url
            record = (
                "**Page Record:** no result has shown this address. It exists on this world's "
                "web: write the page a real site would serve there, consistent with the "
                "Simulation Instruction and the known pages, starting with its title as a `# ` "
                "heading."
            )
        refs = targets(self.world, about)
        sections = [
            s
            for s in (
                record,
                await self._known_section(about, exclude=(url,), limit=RELATED_PAGES),
                await self._facts_section(about),
                target_section(refs, "the page") if refs else "",
            )
            if s
        ]
        question = ModelQuestion(dict(arguments), tuple(sections))
        reply = await ask(question)
        content = self._shaped(reply.text, page, url)
        missing = self._unstated(content, page, refs)
        if missing:
            again = _retry_note(
                "This page does not state", missing, "Write the page again so that it does."
            )
            with contextlib.suppress(ModelError):
                retry = await ask(
                    replace(question, then=(reply.content, self._format(again, page=True)))
                )
                reply, content = retry, self._shaped(retry.text, page, url)
                missing = self._unstated(content, page, refs)
        if page is not None:
            stored = await _run(self.memory.set_content, url, content)
        else:
            title = title_of(content) or url
            stored = await _run(
                self.memory.add_page, url, title, lead_of(content), None, content, "invented"
            )
        # Another server on the same memory may have stored this page first: its page wins.
        final = stored.content if stored is not None and stored.content is not None else content
        if final == content and self.learn_facts:
            await self._learn(url, question, reply.content, ask)
        violations = tuple(f"page {url} does not state: {m}" for m in missing)
        return WebAnswer(final, False, "model", reply.reasoning, violations)

    def _shaped(self, text: str, page: PageRecord | None, url: str) -> str:
        title = page.title if page is not None else (title_of(text) or url)
        return with_title(text, title)

    @staticmethod
    def _unstated(content: str, page: PageRecord | None, refs: Sequence[Any]) -> list[str]:
        missing = [", ".join(evidence(r)) for r in refs if not supports(content, r)]
        if page is not None:
            numbers = [w for w in _numbers(page.snippet) if not contains_evidence(content, [w])]
            if numbers:
                missing.append("the snippet's " + ", ".join(numbers))
        return missing

    async def _learn(self, url: str, question: ModelQuestion, answer: str, ask: Ask) -> None:
        """Ask what the new page established, so later pages are shown it (best effort: a page
        is kept whether or not its facts come back)."""
        follow_up = replace(
            question, response_schema=FACTS_SCHEMA, then=(answer, FACTS_REQUEST), follow_up=True
        )
        try:
            data = json.loads((await ask(follow_up)).text)
        except (ModelError, ValueError):
            return
        facts = data.get("facts") if isinstance(data, dict) else None
        if isinstance(facts, list):
            clean = [" ".join(str(f).split()) for f in facts if isinstance(f, str) and f.strip()]
            if clean:
                await _run(self.memory.add_facts, clean[:FACTS_PER_PAGE], url)

    # --- what the model is shown -----------------------------------------------------------

    async def _refresh(self) -> None:
        for page in await _run(self.memory.pages, self._known_seq):
            self._known[page.url] = page
            self._known_seq = max(self._known_seq, page.seq)

    async def _known_section(
        self, about: str, *, exclude: Sequence[str], limit: int | None = None
    ) -> str:
        await self._refresh()
        wanted = terms(about)
        if limit is None:
            limit = KNOWN_PAGES_BOUNDED if self.bounds is not None else KNOWN_PAGES
        scored = []
        for page in self._known.values():
            if page.url in exclude:
                continue
            overlap = len(wanted & terms(f"{page.title} {page.snippet} {page.url}"))
            if overlap:
                scored.append((-overlap, page.seq, page))
        chosen = [page for *_, page in sorted(scored, key=lambda s: (s[0], s[1]))[:limit]]
        if not chosen:
            return ""
        lines = [
            "**Known Pages:** pages of this world already shown or listed that concern this "
            "call. A result for one of them uses its URL, title and date exactly; nothing may "
            "contradict them."
        ]
        for page in chosen:
            lines.append(f"- {page.url} | {page.title} | {page.date or 'undated'} | {page.snippet}")
        return "\n".join(lines)

    async def _facts_section(self, about: str) -> str:
        if not self.learn_facts:
            return ""
        after = self._facts[-1].seq if self._facts else 0
        self._facts += await _run(self.memory.facts, after)
        facts = self._facts
        wanted = terms(about)
        scored = [
            (-len(wanted & terms(f.fact)), f.seq, f.fact) for f in facts if wanted & terms(f.fact)
        ]
        chosen = [fact for *_, fact in sorted(scored)[:FACTS_SHOWN]]
        if not chosen:
            return ""
        return "**Established Facts:** earlier pages of this world state:\n" + "\n".join(
            f"- {fact}" for fact in chosen
        )

    @asynccontextmanager
    async def _exclusive(self, key: str) -> AsyncIterator[None]:
        """One call at a time per query or URL in this server, so the model is asked once; the
        lock is dropped when nobody holds or waits for it, so a long-lived server does not keep
        one per query it ever saw."""
        lock, users = self._locks.get(key, (anyio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)


_NO_RESULTS = re.compile(r"\b(?:0|no|zero)\s+(?:matching\s+)?results?\b", re.IGNORECASE)


_WORDY = re.compile(r"[^\W\d_]{3}")
"""A word of three letters or more: what a snippet worth showing has at least."""


def _as_known(result: SearchResult, page: PageRecord | None) -> SearchResult:
    """``result`` as the store knows its page: the known title and date, and the known snippet
    when the model gave none worth showing (no word in it, or only an address)."""
    if page is None:
        return result
    snippet = result.snippet.strip()
    if not _WORDY.search(snippet) or re.fullmatch(r"\S*(https?://|www\.)\S*", snippet):
        snippet = page.snippet
    return replace(result, title=page.title, date=page.date, snippet=snippet)


def _results_text(results: Sequence[SearchResult]) -> str:
    return "\n".join(f"{r.title}\n{r.snippet}" for r in results)


def _page_record(page: PageRecord) -> str:
    lines = [
        "**Page Record:** a search result showed this address as:",
        f"URL: {page.url}",
        f"Title: {page.title}",
    ]
    if page.date:
        lines.append(f"Date: {page.date}")
    if page.snippet:
        lines.append(f"Snippet: {page.snippet}")
    lines.append(
        "The page starts with this title as a `# ` heading, is dated as above, and states what "
        "the snippet says."
    )
    return "\n".join(lines)


def _numbers(text: str) -> list[str]:
    found: list[str] = []
    for match in re.finditer(r"\d[\d,.:]*\d|\d", text):
        number = match.group()
        if number not in found:
            found.append(number)
    return found


def _retry_note(problem: str, missing: Sequence[str], fix: str) -> str:
    return f"{problem}: " + "; ".join(missing) + f". {fix}"
