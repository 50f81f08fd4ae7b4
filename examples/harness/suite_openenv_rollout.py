"""One rollout of a suite's exported OpenEnv row with openenv-core's own client.

    mcp-sim suite export suite/ --format openenv --out rows/
    mcp-sim serve suite/ --http 127.0.0.1:8765 --openenv
    python suite_openenv_rollout.py http://127.0.0.1:8765 rows/train.jsonl WORLD TASK \
        '[["tool", {"arg": "value"}]]'

The rows load with `datasets`; the row of WORLD's TASK is the reset's options (its world and
task; the server loads that world on its first episode); the calls (a policy's, scripted
here) are steps. A suite's world gives every step the change in the verdict's reward, so the
steps' rewards add up to the verdict. Prints the episode, the instruction, each step's reward
and their sum as JSON.
"""

import asyncio
import json
import sys

from datasets import load_dataset
from openenv.core.env_server.mcp_types import CallToolAction
from openenv.core.mcp_client import MCPToolClient


async def rollout(base_url: str, row: dict, calls: list) -> dict:
    async with MCPToolClient(base_url=base_url) as env:
        started = await env.reset(world=row["world"], task=row["task"])
        rewards = []
        for tool, arguments in calls:
            step = await env.step(CallToolAction(tool_name=tool, arguments=arguments))
            rewards.append(step.reward)
        state = await env.state()
    return {
        "episode": started.observation.metadata["episode_id"],
        "world": started.observation.metadata["world"],
        "instruction": row["instruction"],
        "rewards": rewards,
        "reward": sum(r or 0.0 for r in rewards),
        "steps": state.step_count,
    }


def main(base_url: str, rows_file: str, world: str, task: str, calls: str) -> None:
    rows = load_dataset("json", data_files={"train": rows_file})["train"]
    row = rows.filter(lambda r: r["world"] == world and r["task"] == task)[0]
    print(json.dumps(asyncio.run(rollout(base_url, row, json.loads(calls)))))


if __name__ == "__main__":
    main(*sys.argv[1:])
