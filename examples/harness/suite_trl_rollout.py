"""One rollout of a suite's exported TRL row through mcp-sim's TRL environment class.

    mcp-sim suite export suite/ --format trl --out rows/
    mcp-sim harness trl suite/worlds/WORLD/world.yaml -o suite_environment.py
    python suite_trl_rollout.py rows/train.jsonl WORLD TASK '[["tool", {"arg": "value"}]]'

The rows load with `datasets` as GRPOTrainer's train_dataset does; the row of WORLD's TASK
reaches the class's reset(**row) as it is (its prompt, world and task columns); the calls
(a policy's, scripted here) go through the class's typed tool methods; get_reward() is the
verdict's reward. A class simulates one world (TRL offers its methods as the tools), so a
trainer on one world reads the rows filtered by their world column. Prints the tools (as TRL
reads them), the prompt, the observations and the reward as JSON.
"""

import asyncio
import inspect
import json
import sys

import suite_environment
from datasets import load_dataset
from transformers.utils import get_json_schema

from mcp_sim.api.environment import EpisodeEnvironment


def main(rows_file: str, world: str, task: str, calls: str) -> None:
    rows = load_dataset("json", data_files={"train": rows_file})["train"]
    row = rows.filter(lambda r: r["world"] == world and r["task"] == task)[0]
    environment_class = next(
        member
        for _, member in inspect.getmembers(suite_environment, inspect.isclass)
        if issubclass(member, EpisodeEnvironment) and member is not EpisodeEnvironment
    )
    environment = environment_class()
    names = [n for n, _ in inspect.getmembers(environment_class, inspect.isfunction)]
    tools = [n for n in names if n not in ("reset", "get_reward") and not n.startswith("_")]
    schemas = [get_json_schema(getattr(environment, name)) for name in tools]
    told = environment.reset(**row)
    observations = [
        asyncio.run(getattr(environment, tool)(**arguments))
        for tool, arguments in json.loads(calls)
    ]
    print(
        json.dumps(
            {
                "tools": [schema["function"]["name"] for schema in schemas],
                "prompt": row["prompt"][-1]["content"] + (told or ""),
                "observations": observations,
                "reward": environment.get_reward(),
            }
        )
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
