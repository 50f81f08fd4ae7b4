"""Opening pages: how the page store answers the open tool.

- **A remembered URL** is asked of the model once, telling it the title, date and snippet it was
  found under; the page starts with that title and is kept, so every later open (in any session,
  and after a restart with ``--world-memory``) returns it byte for byte.
- **An unknown URL** gives a realistic error without the model: the site's 404 for a host the
  world knows, a resolution error for one it does not. With ``search.unknown_urls: invent`` the
  model writes a page for it instead, consistent with the canon, which is then kept too.
- A page that fails to state a reference answer, or its snippet's numbers, is asked for once
  more; with ``learn_facts`` the model is then asked what facts the new page established.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, replace
from typing import Any

import anyio.to_thread

from mcp_sim.errors import ModelError
from mcp_sim.prompting.canon import evidence, supports, target_section, targets, world_text
from mcp_sim.prompting.relevance import contains_evidence
from mcp_sim.prompting.search_formats import (
    host_of,
    lead_of,
    not_found_page,
    title_of,
    unresolvable,
    with_title,
)
from mcp_sim.spec.fiction import ReferenceAnswer, SearchSpec, normalize_url
from mcp_sim.spec.world import World
from mcp_sim.web.known import KnownWorld
from mcp_sim.web.locks import KeyedLocks
from mcp_sim.web.questions import (
    Ask,
    ModelQuestion,
    ModelReply,
    WebAnswer,
    correction,
    retry_note,
)
from mcp_sim.web.world_memory import PageRecord, WorldMemory

RELATED_PAGES = 4
"""Known pages shown when a page is written, besides its own record."""
FACTS_PER_PAGE = 3
"""Facts asked of the model about each page it writes: what later pages must not contradict."""

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

UNLISTED_PAGE_RECORD = (
    "**Page Record:** no result has shown this address. It exists on this world's web: write "
    "the page a real site would serve there, consistent with the Simulation Instruction and "
    "the known pages, starting with its title as a `# ` heading."
)


@dataclass(frozen=True)
class _Written:
    """A page the model wrote, and what it still fails to state."""

    content: str
    reply: ModelReply
    missing: list[str]


class PageOpener:
    """Answers the open tool of one world from its memory and the world model."""

    def __init__(
        self,
        world: World,
        spec: SearchSpec,
        memory: WorldMemory,
        *,
        known: KnownWorld,
        locks: KeyedLocks,
        bounded: bool,
    ) -> None:
        self.world = world
        self.spec = spec
        self.memory = memory
        self.bounded = bounded
        self._known = known
        self._locks = locks
        self._world_text = world_text(world).lower()

    def settled(self, arguments: dict[str, Any]) -> bool:
        """Whether the page is answered without the model (kept already, or an error)."""
        page = self.memory.page(normalize_url(str(arguments.get("url", ""))))
        if page is not None:
            return page.content is not None
        return self.spec.unknown_urls == "not_found"

    async def answer(self, arguments: dict[str, Any], ask: Ask) -> WebAnswer:
        url = normalize_url(str(arguments.get("url", "")))
        async with self._locks.exclusive(f"url:{url}"):
            page = await anyio.to_thread.run_sync(self.memory.page, url)
            if page is not None and page.content is not None:
                return WebAnswer(page.content)
            if page is None and self.spec.unknown_urls == "not_found":
                return WebAnswer(await self._missing(url), is_error=True)
            return await self._write_page(url, page, arguments, ask)

    async def observe(self, arguments: dict[str, Any], text: str) -> None:
        """Keep the page a pinned answer (a fixture) showed, when it has a title."""
        title = title_of(text)
        if title:
            url = normalize_url(str(arguments.get("url", "")))
            await anyio.to_thread.run_sync(
                self.memory.add_page, url, title, lead_of(text), None, text, "seed"
            )

    async def _missing(self, url: str) -> str:
        host = host_of(url)
        if host and (host in await self._known.hosts() or host in self._world_text):
            return not_found_page(url)
        return unresolvable(url)

    async def _write_page(
        self, url: str, page: PageRecord | None, arguments: dict[str, Any], ask: Ask
    ) -> WebAnswer:
        about = f"{page.title} {page.snippet} {url}" if page is not None else url
        refs = targets(self.world, about)
        question = await self._question(url, page, about, arguments, refs)
        written = await self._ask_page(question, url, page, refs, ask)
        content = written.content
        if page is not None:
            stored = await anyio.to_thread.run_sync(self.memory.set_content, url, content)
        else:
            title = title_of(content) or url
            stored = await anyio.to_thread.run_sync(
                self.memory.add_page, url, title, lead_of(content), None, content, "invented"
            )
        # Another server on the same memory may have stored this page first: its page wins.
        final = stored.content if stored is not None and stored.content is not None else content
        if final == content and self._known.learn_facts:
            await self._learn(url, question, written.reply.content, ask)
        violations = tuple(f"page {url} does not state: {m}" for m in written.missing)
        return WebAnswer(final, False, "model", written.reply.reasoning, violations)

    async def _question(
        self,
        url: str,
        page: PageRecord | None,
        about: str,
        arguments: dict[str, Any],
        refs: list[ReferenceAnswer],
    ) -> ModelQuestion:
        """The open call, with the page's record and what the model is shown about it."""
        sections = [
            s
            for s in (
                _page_record(page) if page is not None else UNLISTED_PAGE_RECORD,
                await self._known.pages_section(about, exclude=(url,), limit=RELATED_PAGES),
                await self._known.facts_section(about),
                target_section(refs, "the page") if refs else "",
            )
            if s
        ]
        return ModelQuestion(dict(arguments), tuple(sections))

    async def _ask_page(
        self,
        question: ModelQuestion,
        url: str,
        page: PageRecord | None,
        refs: list[ReferenceAnswer],
        ask: Ask,
    ) -> _Written:
        """The model's page, asked for once more when it fails to state what it must."""
        reply = await ask(question)
        content = _shaped(reply.text, page, url)
        missing = _unstated(content, page, refs)
        if missing:
            again = retry_note(
                "This page does not state", missing, "Write the page again so that it does."
            )
            note = correction(again, bounded=self.bounded, page=True)
            # A failed correction leaves the first page standing, its shortfall reported.
            with contextlib.suppress(ModelError):
                retry = await ask(replace(question, then=(reply.content, note)))
                reply, content = retry, _shaped(retry.text, page, url)
                missing = _unstated(content, page, refs)
        return _Written(content, reply, missing)

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
                await anyio.to_thread.run_sync(self.memory.add_facts, clean[:FACTS_PER_PAGE], url)


def _shaped(text: str, page: PageRecord | None, url: str) -> str:
    """The page as kept: starting with its known title (or its own, or its address)."""
    title = page.title if page is not None else (title_of(text) or url)
    return with_title(text, title)


def _unstated(content: str, page: PageRecord | None, refs: list[ReferenceAnswer]) -> list[str]:
    """What the page fails to state: reference answers, and the numbers of its snippet."""
    missing = [", ".join(evidence(r)) for r in refs if not supports(content, r)]
    if page is not None:
        numbers = [w for w in _numbers(page.snippet) if not contains_evidence(content, [w])]
        if numbers:
            missing.append("the snippet's " + ", ".join(numbers))
    return missing


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
