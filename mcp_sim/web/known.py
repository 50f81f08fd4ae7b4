"""What the world model is shown of the web so far: the known pages a query or page is about
(so it reuses their URLs and never contradicts them) and the facts earlier pages established.

Both are read from the world memory incrementally (only what is newer than what was read last),
so a server sharing a memory file with others sees what they added.
"""

from __future__ import annotations

from collections.abc import Sequence

import anyio.to_thread

from mcp_sim.prompting.relevance import terms
from mcp_sim.prompting.search_formats import host_of
from mcp_sim.web.world_memory import Fact, PageRecord, WorldMemory

KNOWN_PAGES = 8
"""Known pages shown with a search (fewer for a model with bounded output: its window is small)."""
KNOWN_PAGES_BOUNDED = 3
FACTS_SHOWN = 6


class KnownWorld:
    """The pages and facts of one world's memory, as prompt sections about a call."""

    def __init__(self, memory: WorldMemory, *, bounded: bool, learn_facts: bool) -> None:
        self.memory = memory
        self.bounded = bounded
        self.learn_facts = learn_facts
        self._known: dict[str, PageRecord] = {}
        self._known_seq = 0
        self._facts: list[Fact] = []

    async def hosts(self) -> set[str]:
        """The hosts of every page known so far (for telling a site's 404 from a host that
        does not resolve)."""
        await self._refresh()
        return {host_of(url) for url in self._known}

    async def pages_section(
        self, about: str, *, exclude: Sequence[str], limit: int | None = None
    ) -> str:
        """The known pages that share words with ``about`` (most shared first), or ``""``."""
        await self._refresh()
        wanted = terms(about)
        if limit is None:
            limit = KNOWN_PAGES_BOUNDED if self.bounded else KNOWN_PAGES
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

    async def facts_section(self, about: str) -> str:
        """The established facts that share words with ``about``, or ``""``."""
        if not self.learn_facts:
            return ""
        after = self._facts[-1].seq if self._facts else 0
        self._facts += await anyio.to_thread.run_sync(self.memory.facts, after)
        wanted = terms(about)
        scored = [
            (-len(wanted & terms(f.fact)), f.seq, f.fact)
            for f in self._facts
            if wanted & terms(f.fact)
        ]
        chosen = [fact for *_, fact in sorted(scored)[:FACTS_SHOWN]]
        if not chosen:
            return ""
        return "**Established Facts:** earlier pages of this world state:\n" + "\n".join(
            f"- {fact}" for fact in chosen
        )

    async def _refresh(self) -> None:
        for page in await anyio.to_thread.run_sync(self.memory.pages, self._known_seq):
            self._known[page.url] = page
            self._known_seq = max(self._known_seq, page.seq)
