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

Pages, results and facts live in a :class:`mcp_sim.web.world_memory.WorldMemory`. Calls in
flight for the same query or URL in one server wait for each other, so the model is asked once;
across servers sharing a memory file the first answer stored wins and every caller returns it.

The store is a front over its parts: :mod:`mcp_sim.web.results` answers the search tool,
:mod:`mcp_sim.web.opening` the open tool, :mod:`mcp_sim.web.known` says what the model is shown,
and :mod:`mcp_sim.web.questions` holds what is asked of the model and answered to the call.
"""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.bounds import OutputBounds
from mcp_sim.prompting.search_formats import lead_of, with_title
from mcp_sim.spec.fiction import SearchSpec, normalize_url, query_parameter
from mcp_sim.spec.world import World
from mcp_sim.web.known import KnownWorld
from mcp_sim.web.locks import KeyedLocks
from mcp_sim.web.opening import PageOpener
from mcp_sim.web.questions import Ask, ModelQuestion, ModelReply, WebAnswer
from mcp_sim.web.results import ResultLists
from mcp_sim.web.world_memory import WorldMemory

__all__ = ["Ask", "ModelQuestion", "ModelReply", "PageStore", "WebAnswer"]


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
        parameter = (
            query_parameter(search_tool.input_schema) if search_tool else None
        ) or "queries"
        known = KnownWorld(memory, bounded=bounds is not None, learn_facts=spec.learn_facts)
        self._locks = KeyedLocks()
        self._results = ResultLists(
            world,
            spec,
            memory,
            known=known,
            locks=self._locks,
            query_parameter=parameter,
            bounds=bounds,
        )
        self._pages = PageOpener(
            world, spec, memory, known=known, locks=self._locks, bounded=bounds is not None
        )
        self._seed(spec)

    def _seed(self, spec: SearchSpec) -> None:
        """Remember the world file's starting pages (a page already known keeps its record)."""
        for page in spec.pages:
            self.memory.add_page(
                normalize_url(page.url),
                page.title,
                page.snippet or (lead_of(page.content) if page.content else ""),
                page.date,
                with_title(page.content, page.title) if page.content else None,
                "seed",
            )

    def handles(self, tool: str) -> bool:
        return tool in (self.spec.search_tool, self.spec.open_tool)

    def settled(self, tool: str, arguments: dict[str, Any]) -> bool:
        """Whether the store answers this call without the model."""
        if tool == self.spec.search_tool:
            return self._results.settled(arguments)
        return self._pages.settled(arguments)

    async def answer(self, tool: str, arguments: dict[str, Any], ask: Ask) -> WebAnswer:
        if tool == self.spec.search_tool:
            return await self._results.answer(arguments, ask)
        return await self._pages.answer(arguments, ask)

    async def observe(self, tool: str, arguments: dict[str, Any], text: str) -> None:
        """Remember what a pinned answer (a fixture) of the search or open tool showed."""
        if tool == self.spec.search_tool:
            await self._results.observe(text)
        elif tool == self.spec.open_tool:
            await self._pages.observe(arguments, text)
