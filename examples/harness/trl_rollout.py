"""Drive a TRL environment class the way TRL 1.16's GRPOTrainer does, without a training run.

    mcp-sim harness trl --example bookstore -o trl_environment.py --dataset trl_tasks.jsonl
    MCP_SIM_MODEL_URL=http://gpu:8000/v1 python trl_rollout.py

GRPOTrainer(environment_factory=PaperlaneBooks, train_dataset=rows) probes one instance: it
needs `reset`, reads every other public method as a tool (its JSON Schema from transformers'
get_json_schema, the same function the trainer uses), and takes `get_reward` as a reward
source. Then, per batch, it resets one instance per rollout with the dataset row and appends
what reset returns to the row's prompt, calls the tools the model asks for with the model's
arguments (a coroutine tool on an event loop in a daemon thread; a tool that raises answers
{"error": ...}), and reads get_reward() at the end, a None reward becoming NaN, which the
trainer leaves out. This script does each of those with scripted tool calls in place of a
policy model, for a group of 4 rollouts of the dataset's gift-order row (read from
trl_tasks.jsonl beside it), plus one rollout of a row without a task column, and prints the
tool schemas, the prompts and the rewards (NaN as null) as JSON.
"""

import asyncio
import inspect
import json
import math
import threading
from pathlib import Path

from transformers.utils import get_json_schema
from trl_environment import PaperlaneBooks

DATASET = Path(__file__).resolve().parent / "trl_tasks.jsonl"
ORDER = {"book_id": "b1", "quantity": 2, "email": "ana@example.pt", "country": "Portugal"}
# What a policy might do in each rollout of the group: the first two order as asked.
PLANS = [
    [("search_books", {"query": "glass"}), ("place_order", ORDER)],
    [("search_books", {"query": "glass"}), ("place_order", ORDER)],
    [("place_order", {**ORDER, "book_id": "b2", "quantity": 1})],
    [("get_book", {"book_id": "b1"}), ("search_books", {"query": "glass", "max_results": "x"})],
]


def prompt_of(row: dict, observation: str | None) -> str:
    """The last user message as the trainer builds it: the row's, plus what reset returned."""
    content = row["prompt"][-1]["content"] if "prompt" in row else ""
    return content + (observation or "")


def call(tool, arguments: dict, loop: asyncio.AbstractEventLoop) -> object:
    try:
        if inspect.iscoroutinefunction(tool):
            return asyncio.run_coroutine_threadsafe(tool(**arguments), loop).result()
        return tool(**arguments)
    except Exception as exc:  # the trainer turns a failing tool into {"error": ...}
        return {"error": str(exc)}


def reward(environment: PaperlaneBooks) -> float | None:
    value = environment.get_reward()
    value = math.nan if value is None else value  # as the trainer does
    return None if math.isnan(value) else value


def main() -> None:
    rows = [json.loads(line) for line in DATASET.read_text(encoding="utf-8").splitlines()]
    probe = PaperlaneBooks()
    members = dict(inspect.getmembers(PaperlaneBooks, predicate=inspect.isfunction))
    assert "reset" in members and "get_reward" in members
    names = [n for n in members if n not in ("reset", "get_reward") and not n.startswith("_")]
    schemas = [get_json_schema(getattr(probe, name)) for name in names]
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()

    row = next(r for r in rows if r["task"] == "gift-order")
    group = [probe] + [PaperlaneBooks() for _ in PLANS[1:]]
    prompts = [prompt_of(row, env.reset(**row, seed=i)) for i, env in enumerate(group)]
    observations = [
        [call(getattr(env, name), arguments, loop) for name, arguments in plan]
        for env, plan in zip(group, PLANS, strict=True)
    ]
    rewards = [reward(env) for env in group]
    untasked = {"prompt": row["prompt"]}
    alone = PaperlaneBooks()
    alone_prompt = prompt_of(untasked, alone.reset(**untasked))
    print(json.dumps({"schemas": schemas, "prompts": prompts, "rewards": rewards}))
    print(json.dumps({"observations": observations}))
    print(json.dumps({"untasked": {"prompt": alone_prompt, "reward": reward(alone)}}))


if __name__ == "__main__":
    main()
