"""How often a tool with an output schema gets valid structured content from a model.

Runs N calls of ``search_books`` (bookstore world) through the simulator against a real
OpenAI-compatible endpoint and prints the valid count and every failure's message. With no
``--model-url`` it starts the embedded tiny model (vLLM CPU) itself.

    python benchmarks/structured_outputs.py [--model-url URL] [--calls 20]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import anyio

from mcp_sim.engine.vllm_server import VLLMServer
from mcp_sim.models.base import Sampling
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
from mcp_sim.settings import Settings
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import load_world

ROOT = Path(__file__).resolve().parent.parent
QUERIES = ["rain", "tiles", "history", "fantasy", "poetry", "ortega", "maps", "lisbon"]


async def run(model_url: str, calls: int, max_tokens: int) -> int:
    world = load_world(ROOT / "worlds" / "bookstore.yaml")
    model = OpenAICompatibleModel(EndpointSettings(base_urls=[model_url], request_timeout=600))
    simulator = Simulator(
        world,
        model,
        default_sampling=Sampling(max_tokens=max_tokens),
        settings=Settings.of(bounded_output=True),
    )
    valid = 0
    started = time.perf_counter()
    try:
        for i in range(calls):
            args = {"query": QUERIES[i % len(QUERIES)], "max_results": 1 + i % 3}
            result = await simulator.call(f"bench-{i}", "search_books", args)
            ok = not result.is_error and result.structured is not None
            valid += ok
            status = "valid" if ok else f"INVALID: {result.text[:300]}"
            print(f"call {i + 1:2d} {args['query']:8s} {status}", file=sys.stderr)
    finally:
        await model.aclose()
    elapsed = time.perf_counter() - started
    print(f"structured answers valid: {valid}/{calls} ({elapsed / calls:.1f} s per call)")
    return valid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-url", help="OpenAI-compatible base URL (default: embedded)")
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--max-tokens", type=int, default=512)
    args = parser.parse_args()
    if args.model_url:
        anyio.run(run, args.model_url, args.calls, args.max_tokens)
        return
    with VLLMServer.embedded(progress=lambda m: print(m, file=sys.stderr)) as engine:
        anyio.run(run, engine.base_url, args.calls, args.max_tokens)


if __name__ == "__main__":
    main()
