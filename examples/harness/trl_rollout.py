"""Drive a TRL environment class the way TRL's GRPOTrainer does, without a training run.

    mcp-sim harness trl worlds/bookstore.yaml -o examples/harness/trl_environment.py
    MCP_SIM_MODEL_URL=http://gpu:8000/v1 python examples/harness/trl_rollout.py

GRPOTrainer(environment_factory=PaperlaneBooks) probes one instance: it needs `reset`, reads
every other public method as a tool (its JSON Schema from transformers' get_json_schema, the
same function the trainer uses), and takes `get_reward` as a reward source. Then, per batch,
it resets one instance per rollout with the dataset row, calls the tools the model asks for
with the model's arguments, and reads get_reward() at the end. This script does each of those
with scripted tool calls in place of a policy model, for a group of 4 rollouts, and prints
the tool schemas and the rewards as JSON.
"""

import inspect
import json

from transformers.utils import get_json_schema
from trl_environment import PaperlaneBooks

ROW = {"prompt": [{"role": "user", "content": "Help the customer."}], "task": "gift-order"}
ORDER = {"book_id": "b1", "quantity": 2, "email": "ana@example.pt", "country": "Portugal"}
# What a policy might do in each rollout of the group: the first two order as asked.
PLANS = [
    [("search_books", {"query": "glass"}), ("place_order", ORDER)],
    [("search_books", {"query": "glass"}), ("place_order", ORDER)],
    [("place_order", {**ORDER, "book_id": "b2", "quantity": 1})],
    [("get_book", {"book_id": "b1"}), ("search_books", {"query": "glass", "max_results": "x"})],
]


def main() -> None:
    probe = PaperlaneBooks()
    members = dict(inspect.getmembers(PaperlaneBooks, predicate=inspect.isfunction))
    assert "reset" in members and "get_reward" in members
    tools = {
        name: getattr(probe, name)
        for name in members
        if name not in ("reset", "get_reward") and not name.startswith("_")
    }
    schemas = [get_json_schema(tool) for tool in tools.values()]

    group = [probe] + [PaperlaneBooks() for _ in PLANS[1:]]
    prompts = [env.reset(**ROW, seed=i) for i, env in enumerate(group)]
    observations = []
    for env, plan in zip(group, PLANS, strict=True):
        seen = []
        for name, arguments in plan:
            try:
                seen.append(tools[name].__func__(env, **arguments))
            except Exception as exc:  # the trainer turns a failing tool into {"error": ...}
                seen.append({"error": str(exc)})
        observations.append(seen)
    rewards = [env.get_reward() for env in group]
    print(json.dumps({"schemas": schemas, "prompts": prompts, "rewards": rewards}))
    print(json.dumps({"observations": observations}))


if __name__ == "__main__":
    main()
