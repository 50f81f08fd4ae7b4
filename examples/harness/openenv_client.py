"""An OpenEnv client loop against mcp-sim, with openenv-core's own client.

    mcp-sim serve worlds/bookstore.yaml --http 127.0.0.1:8765 --openenv
    pip install openenv-core
    python examples/harness/openenv_client.py http://127.0.0.1:8765

Two rollouts run at once, each on its own WebSocket and so its own episode: reset on the
gift-order task, list the tools, search, then order until the world says done (a successful
order ends a bookstore episode); the step that ends it carries the verify reward. Prints one
JSON line per rollout.
"""

import asyncio
import json
import sys

from openenv.core.env_server.mcp_types import CallToolAction
from openenv.core.mcp_client import MCPToolClient

ORDER = {"book_id": "b1", "quantity": 2, "email": "ana@example.pt", "country": "Portugal"}


async def rollout(base_url: str, seed: int) -> dict:
    async with MCPToolClient(base_url=base_url) as env:
        started = await env.reset(seed=seed, task="gift-order")
        episode = started.observation.metadata["episode_id"]
        tools = [tool.name for tool in await env.list_tools()]
        step = await env.step(
            CallToolAction(tool_name="search_books", arguments={"query": "glass"})
        )
        found = step.observation.result["data"]
        while not step.done:
            step = await env.step(CallToolAction(tool_name="place_order", arguments=ORDER))
        state = await env.state()
        return {
            "episode": episode,
            "seed": seed,
            "tools": tools,
            "found": [book["id"] for book in found["results"]],
            "reward": step.reward,
            "done": step.done,
            "steps": state.step_count,
        }


async def main(base_url: str) -> None:
    for result in await asyncio.gather(rollout(base_url, 1), rollout(base_url, 2)):
        print(json.dumps(result))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
