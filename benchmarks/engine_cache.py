"""vLLM's own prefix-cache figures for one episode answered by a real engine.

The server counts, over all requests, the prompt tokens it looked up in its prefix cache
(``vllm:prefix_cache_queries``) and those it found there (``vllm:prefix_cache_hits``) and
exposes both at ``/metrics``. Reading them before and after each call of an episode gives the
share of the call's prompt tokens that vLLM did not recompute: the figure that
:class:`~mcp_sim.fidelity.prefix_reuse.PrefixReuse` estimates from the prompts' text.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2

from mcp_sim.api.assembly import Resolved
from mcp_sim.engine.vllm_server import VLLMServer
from mcp_sim.fidelity.prefix_reuse import BlockCache, PrefixReuse, common_prefix
from mcp_sim.models.base import (
    ChatMessage,
    Completion,
    CompletionRequest,
    ProgressCallback,
    WorldModel,
)
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
from mcp_sim.settings import Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World

SESSION = "engine-cache"
CPU_BLOCK_SIZE = 128
"""vLLM CPU's KV cache block (the embedded engine's log: "kv lcm block sizes 128")."""
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
class RequestRecord:
    """One request as the engine saw it: its messages, the answer, and the cache counters'
    growth while it ran (tokens looked up, tokens found)."""

    call: int
    purpose: str
    messages: list[ChatMessage]
    answer: str
    queried: float
    hits: float


@dataclass
class _Recording:
    """Passes requests to the real model and keeps each prompt and answer, so that the text
    measure and vLLM's counters describe the same requests."""

    model: WorldModel
    reuse: PrefixReuse
    counters: Callable[[], Awaitable[tuple[float, float]]] | None = None
    call: int = 0
    shares: list[str] = field(default_factory=list)
    """Each request's text reuse, characters and tokens (``-`` for the episode's first)."""
    records: list[RequestRecord] = field(default_factory=list)

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        before = await self.counters() if self.counters else (0.0, 0.0)
        completion = await self.model.complete(request, progress)
        after = await self.counters() if self.counters else (0.0, 0.0)
        call = self.reuse.add(SESSION, request.messages, completion.content)
        self.shares.append(
            f"{call.chars_shared / call.chars:.3f}  {call.tokens_shared / call.tokens:.3f}"
            if call
            else "-"
        )
        self.records.append(
            RequestRecord(
                self.call,
                request.purpose,
                list(request.messages),
                completion.content,
                after[0] - before[0],
                after[1] - before[1],
            )
        )
        return completion

    async def aclose(self) -> None:
        await self.model.aclose()


async def engine_tokens(
    http: httpx2.AsyncClient, root: str, records: list[RequestRecord]
) -> list[dict[str, Any]]:
    """Each request's prompt as the engine's own chat template and tokenizer make it (its
    ``/tokenize`` endpoint), the longest prefix it shares with an earlier request's prompt
    and answer, and what vLLM served from its cache, with the text around the divergence."""
    name = (await http.get(f"{root}/v1/models")).json()["data"][0]["id"]
    seen: list[list[int]] = []
    rows: list[dict[str, Any]] = []
    # Gemma 3's sliding-window layers, like a hybrid model's linear ones, need their state (the
    # window before a hit) kept where the hit ends: the hits vLLM's default retention allows.
    sparse = BlockCache(CPU_BLOCK_SIZE, hybrid=True)
    for record in records:
        body = {"model": name, "messages": record.messages, "add_generation_prompt": True}
        prompt: list[int] = (await http.post(f"{root}/tokenize", json=body)).json()["tokens"]
        answer_body = {"model": name, "prompt": record.answer, "add_special_tokens": False}
        answer: list[int] = (await http.post(f"{root}/tokenize", json=answer_body)).json()["tokens"]
        shared = max((common_prefix(earlier, prompt) for earlier in seen), default=0)
        after_previous = common_prefix(seen[-1], prompt) if seen else 0
        seen.append(prompt + answer)
        around = {"model": name, "tokens": prompt[max(0, shared - 12) : shared + 12]}
        text = (await http.post(f"{root}/detokenize", json=around)).json()["prompt"]
        rows.append(
            {
                "call": record.call,
                "purpose": record.purpose,
                "prompt_tokens": len(prompt),
                "shared_tokens": shared,
                "sparse_expected": sparse.served(SESSION, after_previous, len(prompt)),
                "vllm_queried": record.queried,
                "vllm_hits": record.hits,
                "divergence": text,
                "tokens": prompt,
            }
        )
    return rows


def print_requests(rows: list[dict[str, Any]], block: int) -> None:
    """The per-request table: exact shared tokens, whole blocks of them, and vLLM's hits."""
    print(
        f"{'call':>4} {'request':12} {'prompt':>6} {'shared':>6} {'blocks':>6} {'sparse':>6} "
        f"{'hits':>6}"
    )
    for row in rows:
        whole = min(row["shared_tokens"], row["prompt_tokens"] - 1) // block * block
        print(
            f"{row['call']:>4} {row['purpose']:12} {row['prompt_tokens']:>6} "
            f"{row['shared_tokens']:>6} {whole:>6} {row['sparse_expected']:>6} "
            f"{row['vllm_hits']:>6.0f}  diverges at {row['divergence']!r}"
        )


async def _run(
    world: World, calls: list[tuple[str, dict[str, Any]]], url: str, dump: Path | None
) -> None:
    root = url.removesuffix("/v1")
    # The embedded model's settings (bounded output, small budgets, its sampling), whichever
    # server answers.
    embedded = Resolved.of(Settings())
    reuse = PrefixReuse()
    model = _Recording(OpenAICompatibleModel(EndpointSettings([url], request_timeout=1800)), reuse)
    simulator = Simulator(
        world, model, default_sampling=embedded.default_sampling, settings=embedded.settings
    )
    async with httpx2.AsyncClient(trust_env=False, timeout=120.0) as http:

        async def counters() -> tuple[float, float]:
            return cache_counters((await http.get(f"{root}/metrics")).text)

        model.counters = counters
        print(f"{'call':>4} {'tool':14} requests  vLLM hit rate  chars  tokens", flush=True)
        for number, (tool, args) in enumerate(calls, 1):
            before = len(model.records)
            model.call = number
            result = await simulator.call(SESSION, tool, args)
            mine = model.records[before:]
            queried = sum(r.queried for r in mine)
            rate = sum(r.hits for r in mine) / queried if queried else 0.0
            text = model.shares[before] if mine else "-"
            print(
                f"{number:>4} {tool:14} {len(mine):>8}  {rate:>13.3f}  {text}  ({result.source})",
                flush=True,
            )
        rows = await engine_tokens(http, root, model.records)
    await model.aclose()
    print_requests(rows, CPU_BLOCK_SIZE)
    if dump is not None:
        dump.write_text(json.dumps(rows, indent=1))
    total_q = sum(r.queried for r in model.records)
    total_h = sum(r.hits for r in model.records)
    row = reuse.summary()
    print(
        f"episode of {len(calls)} calls: vLLM prefix cache hit rate {total_h / total_q:.3f} "
        f"({total_h:.0f} of {total_q:.0f} prompt tokens, first call included); text reuse of "
        f"later requests: characters {row['reuse_chars']:.3f}, tokens {row['reuse_tokens']:.3f} "
        f"({row['tokenizer']}; the engine's model has its own tokenizer)"
    )


def engine_episode(
    world: World,
    calls: list[tuple[str, dict[str, Any]]],
    model_url: str | None,
    dump: Path | None = None,
) -> int:
    """Runs the episode on the server at ``model_url``, or on the embedded engine started for
    it (installed first if need be: minutes, once); ``dump`` receives each request's tokens."""
    if model_url:
        anyio.run(_run, world, calls, model_url.rstrip("/"), dump)
        return 0
    with VLLMServer.embedded(progress=lambda m: print(m, file=sys.stderr)) as engine:
        anyio.run(_run, world, calls, engine.base_url, dump)
    return 0
