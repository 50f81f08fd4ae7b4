"""vLLM's own prefix-cache figures for one episode answered by a real engine.

The server counts, over all requests, the prompt tokens it looked up in its prefix cache
(``vllm:prefix_cache_queries``) and those it found there (``vllm:prefix_cache_hits``) and
exposes both at ``/metrics``. Reading them before and after each call of an episode gives the
share of the call's prompt tokens that vLLM did not recompute: the figure that
:class:`~mcp_sim.fidelity.prefix_reuse.PrefixReuse` estimates from the prompts' text.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2

from mcp_sim.api.assembly import Resolved
from mcp_sim.engine.vllm_server import VLLMServer
from mcp_sim.fidelity.prefix_reuse import PrefixReuse
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback, WorldModel
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
from mcp_sim.settings import Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World

SESSION = "engine-cache"
_COUNTER = re.compile(r"^vllm:prefix_cache_(queries|hits)_total(?:\{[^}]*\})? ([0-9.eE+]+)$")


def cache_counters(metrics: str) -> tuple[float, float]:
    """(queries, hits) summed over the engines of a ``/metrics`` page."""
    totals = {"queries": 0.0, "hits": 0.0}
    for line in metrics.splitlines():
        match = _COUNTER.match(line.strip())
        if match:
            totals[match.group(1)] += float(match.group(2))
    return totals["queries"], totals["hits"]


@dataclass
class _Recording:
    """Passes requests to the real model and keeps each prompt and answer, so that the text
    measure and vLLM's counters describe the same requests."""

    model: WorldModel
    reuse: PrefixReuse
    shares: list[str] = field(default_factory=list)
    """Each request's text reuse, characters and tokens (``-`` for the episode's first)."""

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        completion = await self.model.complete(request, progress)
        counts = self.reuse.add(SESSION, request.messages, completion.content)
        shared, chars, shared_tokens, tokens = counts or (0, 0, 0, 0)
        self.shares.append(f"{shared / chars:.3f}  {shared_tokens / tokens:.3f}" if chars else "-")
        return completion

    async def aclose(self) -> None:
        await self.model.aclose()


async def _run(world: World, calls: list[tuple[str, dict[str, Any]]], url: str) -> None:
    metrics_url = url.removesuffix("/v1") + "/metrics"
    # The embedded model's settings (bounded output, small budgets, its sampling), whichever
    # server answers.
    embedded = Resolved.of(Settings())
    reuse = PrefixReuse()
    model = _Recording(OpenAICompatibleModel(EndpointSettings([url], request_timeout=1800)), reuse)
    simulator = Simulator(
        world, model, default_sampling=embedded.default_sampling, settings=embedded.settings
    )
    async with httpx2.AsyncClient(trust_env=False, timeout=30.0) as http:

        async def counters() -> tuple[float, float]:
            return cache_counters((await http.get(metrics_url)).text)

        queries, hits = start = await counters()
        print(f"{'call':>4} {'tool':14} requests  vLLM hit rate  chars  tokens", flush=True)
        for number, (tool, args) in enumerate(calls, 1):
            before = len(model.shares)
            result = await simulator.call(SESSION, tool, args)
            (now_queries, now_hits) = await counters()
            rate = (now_hits - hits) / (now_queries - queries) if now_queries > queries else 0.0
            queries, hits = now_queries, now_hits
            requests = len(model.shares) - before
            text = model.shares[before] if requests else "-"
            print(
                f"{number:>4} {tool:14} {requests:>8}  {rate:>13.3f}  {text}  ({result.source})",
                flush=True,
            )
    await model.aclose()
    total_q, total_h = queries - start[0], hits - start[1]
    row = reuse.summary()
    print(
        f"episode of {len(calls)} calls: vLLM prefix cache hit rate {total_h / total_q:.3f} "
        f"({total_h:.0f} of {total_q:.0f} prompt tokens, first call included); text reuse of "
        f"later requests: characters {row['reuse_chars']:.3f}, tokens {row['reuse_tokens']:.3f} "
        f"({row['tokenizer']}; the engine's model has its own tokenizer)"
    )


def engine_episode(
    world: World, calls: list[tuple[str, dict[str, Any]]], model_url: str | None
) -> int:
    """Runs the episode on the server at ``model_url``, or on the embedded engine started for
    it (installed first if need be: minutes, once)."""
    if model_url:
        anyio.run(_run, world, calls, model_url.rstrip("/"))
        return 0
    with VLLMServer.embedded(progress=lambda m: print(m, file=sys.stderr)) as engine:
        anyio.run(_run, world, calls, engine.base_url)
    return 0
