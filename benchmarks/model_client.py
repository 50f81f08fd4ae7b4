"""What one request to the world model costs the client: CPU per streamed chat completion
through mcp-sim's OpenAI-compatible client, on each HTTP client it can run on.

Every tool call answered by the model makes one such request, so its CPU is on every call's
path. The model is ``benchmarks/backend.py`` in a process of its own (real HTTP over loopback,
vLLM's streaming wire format, no delay); the client runs in this process, so the CPU measured
here is the client's alone: building the request, the HTTP exchange, splitting and decoding the
events, and the retry and routing bookkeeping around them.

    python benchmarks/model_client.py [--quick] [--concurrency 1,100] [--clients NAME,...]

Clients are taken in interleaved rounds, so that each sees the same machine load, and the
figures are printed as ratios to the first client named.
"""

from __future__ import annotations

import argparse
import os
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass

import anyio
import httpx2
from run import running, start_backend, table

from mcp_sim.models.base import ChatMessage, CompletionRequest, Sampling
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel

ROUNDS = 5
PROMPT: list[ChatMessage] = [
    {"role": "system", "content": "You are the world model of a bookstore. " * 40},
    {"role": "user", "content": 'Tool call: lookup {"key": "k1"}'},
]


async def model_on(
    client: str, settings: EndpointSettings, stack: AsyncExitStack
) -> OpenAICompatibleModel:
    """The model client on the HTTP client named, closed with ``stack``: ``lean`` (mcp-sim's
    own, used unless a proxy is configured) or ``httpx2`` (pooled as mcp-sim would pool it)."""
    if client == "lean":
        return await stack.enter_async_context(OpenAICompatibleModel(settings))
    if client == "httpx2":
        slots = settings.max_concurrency + 1
        http = await stack.enter_async_context(
            httpx2.AsyncClient(
                limits=httpx2.Limits(max_connections=slots, max_keepalive_connections=slots),
                trust_env=False,
            )
        )
        return await stack.enter_async_context(OpenAICompatibleModel(settings, http_client=http))
    raise SystemExit(f"unknown client {client!r}; use lean or httpx2")


@dataclass
class Figure:
    client: str
    events: str
    concurrency: int
    requests: int = 0
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0

    @property
    def cpu_us(self) -> float:
        return self.cpu_seconds / max(1, self.requests) * 1e6

    @property
    def per_second(self) -> float:
        return self.requests / max(1e-9, self.wall_seconds)


async def measure(
    model: OpenAICompatibleModel, concurrency: int, requests: int, figure: Figure
) -> None:
    """``requests`` completions, ``concurrency`` at a time; CPU and wall time added up."""
    request = CompletionRequest(messages=PROMPT, sampling=Sampling(max_tokens=4096))
    each = max(1, requests // concurrency)

    async def worker() -> None:
        for _ in range(each):
            await model.complete(request)

    cpu, wall = time.process_time(), time.perf_counter()
    async with anyio.create_task_group() as group:
        for _ in range(concurrency):
            group.start_soon(worker)
    figure.cpu_seconds += time.process_time() - cpu
    figure.wall_seconds += time.perf_counter() - wall
    figure.requests += each * concurrency


async def compare(
    clients: list[str], url: str, events: str, concurrency: int, requests: int
) -> list[Figure]:
    settings = EndpointSettings(base_urls=[url], request_timeout=120, retries=0)
    figures = {client: Figure(client, events, concurrency) for client in clients}
    async with AsyncExitStack() as stack:
        models = {client: await model_on(client, settings, stack) for client in clients}
        for model in models.values():  # warm up: imports, connections, model discovery
            await measure(model, concurrency, 2 * concurrency, Figure("", "", 0))
        for _ in range(ROUNDS):
            for client, model in models.items():
                await measure(model, concurrency, requests // ROUNDS, figures[client])
    return list(figures.values())


async def main(args: argparse.Namespace) -> None:
    clients = args.clients.split(",")
    levels = [int(n) for n in args.concurrency.split(",")]
    requests = 500 if args.quick else 2500
    rows = [["model answer", "in flight", "client", "CPU µs/request", "ratio", "requests/s"]]
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"machine: {os.cpu_count()} cores, load average {load}", flush=True)
    # The 1 KB observation as vLLM streams it (an event per ~4-character token, ~270 events),
    # and as one event, which leaves the HTTP exchange as most of the cost.
    for events, token_chars in (("~270 token events", 4), ("1 event", 1 << 20)):
        backend, url = start_backend(0.0, token_chars)
        with running(backend):
            for concurrency in levels:
                figures = await compare(clients, url, events, concurrency, requests)
                base = figures[0].cpu_us
                for f in figures:
                    rows.append(
                        [
                            events,
                            str(concurrency),
                            f.client,
                            f"{f.cpu_us:.0f}",
                            f"{f.cpu_us / base:.2f}",
                            f"{f.per_second:.0f}",
                        ]
                    )
    print(
        f"Client CPU per streamed request to a zero-latency model ({requests} requests per "
        f"client and level, in {ROUNDS} interleaved rounds; ratio to {clients[0]}):"
    )
    print(table(rows))
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer requests")
    parser.add_argument("--concurrency", default="1,100", help="requests in flight at once")
    parser.add_argument("--clients", default="lean,httpx2")
    anyio.run(main, parser.parse_args())
