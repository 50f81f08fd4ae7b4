"""Result lists: how the page store answers the search tool.

A query already answered gives the same results again without the model. A new query is asked
of the model with the known pages and facts it concerns; every URL its results show is
remembered with its title, snippet and date, and a URL the store already knows keeps its title
and date. Results that fail to state the Reference Answer of a question the query is about are
asked for once more.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

import anyio.to_thread

from mcp_sim.errors import ModelError, ModelOutputInvalid
from mcp_sim.prompting.bounds import OutputBounds
from mcp_sim.prompting.canon import evidence, supports, target_section, targets
from mcp_sim.prompting.search_formats import (
    SearchResult,
    normalize_query,
    parse_results,
    parse_structured,
    render_results,
    results_format_note,
    results_schema,
)
from mcp_sim.spec.fiction import ReferenceAnswer, SearchSpec, normalize_url
from mcp_sim.spec.world import World
from mcp_sim.web.known import KnownWorld
from mcp_sim.web.locks import KeyedLocks
from mcp_sim.web.questions import Ask, ModelQuestion, WebAnswer, correction, retry_note
from mcp_sim.web.world_memory import PageRecord, WorldMemory

_NO_RESULTS = re.compile(r"\b(?:0|no|zero)\s+(?:matching\s+)?results?\b", re.IGNORECASE)

_WORDY = re.compile(r"[^\W\d_]{3}")
"""A word of three letters or more: what a snippet worth showing has at least."""


class ResultLists:
    """Answers the search tool of one world from its memory and the world model."""

    def __init__(
        self,
        world: World,
        spec: SearchSpec,
        memory: WorldMemory,
        *,
        known: KnownWorld,
        locks: KeyedLocks,
        query_parameter: str,
        bounds: OutputBounds | None = None,
    ) -> None:
        self.world = world
        self.spec = spec
        self.memory = memory
        self.bounds = bounds
        self._known = known
        self._locks = locks
        self._query_parameter = query_parameter

    def settled(self, arguments: dict[str, Any]) -> bool:
        """Whether every query of the call has been answered already."""
        return all(
            self.memory.search(normalize_query(q)) is not None for q in self._queries(arguments)
        )

    async def answer(self, arguments: dict[str, Any], ask: Ask) -> WebAnswer:
        blocks: list[str] = []
        source: Literal["model", "memory"] = "memory"
        reasoning: str | None = None
        violations: list[str] = []
        # One query at a time, in order: each model request draws the session's next seed, so
        # the same calls ask the same way.
        for query in self._queries(arguments):
            key = normalize_query(query)
            async with self._locks.exclusive(f"query:{key}"):
                stored = await anyio.to_thread.run_sync(self.memory.search, key)
                if stored is None:
                    results, reasoning, missing = await self._ask_results(query, arguments, ask)
                    violations += missing
                    stored = await anyio.to_thread.run_sync(
                        self.memory.add_search, key, [r.as_json() for r in results]
                    )
                    source = "model"
            blocks.append(
                render_results(query, [SearchResult.from_json(r) for r in stored], self.spec.engine)
            )
        return WebAnswer("\n\n".join(blocks), False, source, reasoning, tuple(violations))

    async def observe(self, text: str) -> None:
        """Remember the results a pinned answer (a fixture) showed."""
        for result in parse_results(text):
            await self._remember(replace(result, url=normalize_url(result.url)))

    def _queries(self, arguments: dict[str, Any]) -> list[str]:
        value = arguments.get(self._query_parameter)
        if isinstance(value, list):
            return [str(q) for q in value]
        return [str(value)] if value is not None else []

    async def _ask_results(
        self, query: str, arguments: dict[str, Any], ask: Ask
    ) -> tuple[list[SearchResult], str | None, list[str]]:
        """The model's results for one query, remembered, with its reasoning and what they
        fail to support."""
        refs = targets(self.world, query)
        question = await self._question(query, arguments, refs)
        reply = await ask(question)
        results = await self._parsed(reply.text)
        unsupported = [r for r in refs if not supports(_results_text(results), r)]
        if unsupported:
            again = retry_note(
                "These results do not state the Reference Answer",
                [", ".join(evidence(r)) for r in unsupported],
                "Answer again: at least one result's title or snippet must state it.",
            )
            note = correction(again, bounded=self.bounds is not None)
            # A failed correction leaves the first answer standing, its shortfall reported.
            with contextlib.suppress(ModelError):
                retry = await ask(replace(question, then=(reply.content, note)))
                reply, results = retry, await self._parsed(retry.text)
                unsupported = [r for r in refs if not supports(_results_text(results), r)]
        missing = [f"results for {query!r} do not support: {r.question}" for r in unsupported]
        return [await self._remember(r) for r in results], reply.reasoning, missing

    async def _question(
        self, query: str, arguments: dict[str, Any], refs: list[ReferenceAnswer]
    ) -> ModelQuestion:
        """The search of this one query, with what the model is shown about it."""
        single: Any = [query] if self._query_parameter == "queries" else query
        shown = {**arguments, self._query_parameter: single}
        sections = [
            s
            for s in (
                await self._known.pages_section(query, exclude=()),
                await self._known.facts_section(query),
                target_section(refs, "the results for this query") if refs else "",
            )
            if s
        ]
        schema = None
        if self.bounds is not None:
            schema = results_schema(self.spec.results_per_query, self.bounds)
            sections.append(results_format_note(schema["properties"]["results"]["maxItems"]))
        return ModelQuestion(shown, tuple(sections), schema)

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
            known = await anyio.to_thread.run_sync(self.memory.page, url)
            out.append(_as_known(replace(result, url=url), known))
        return out

    async def _remember(self, result: SearchResult) -> SearchResult:
        """Remember a result's page (unless known) and return the result as stored: a URL keeps
        the title and date it was first shown with."""
        page = await anyio.to_thread.run_sync(
            self.memory.add_page,
            result.url,
            result.title,
            result.snippet,
            result.date,
            None,
            "result",
        )
        return _as_known(result, page)


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
