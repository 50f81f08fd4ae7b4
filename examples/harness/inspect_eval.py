"""An Inspect eval over an mcp-sim world, with a scripted agent in place of a model.

    mcp-sim harness inspect worlds/bookstore.yaml -o examples/harness/inspect_task.py
    mcp-sim serve worlds/bookstore.yaml --http 127.0.0.1:8765
    pip install inspect-ai mcp
    MCP_SIM_URL=http://127.0.0.1:8765 python examples/harness/inspect_eval.py

Runs the generated task (both of the bookstore's tasks, two epochs: four episodes) with
Inspect's mockllm provider, its answers taken from a script per task (found by the sample's
prompt), one step per turn: on gift-order it searches, tries the sold-out book first, then
orders as asked; on no-antarctica it searches and declines. With a real model, the same task
runs as `inspect eval examples/harness/inspect_task.py --model ...`. Prints one JSON line per
sample (its task, epoch, episode, reward (NaN when unscored) and why, checks, how the world
model answered and what it cost, and what the tools answered), then the eval's metrics.
"""

import json

from inspect_ai import eval
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_task import paperlane_books

ORDER = {"book_id": "b1", "quantity": 2, "email": "ana@example.pt", "country": "Portugal"}
SCRIPTS = {
    "Order two copies of The Glass River": [
        ("search_books", {"query": "glass"}),
        ("place_order", {**ORDER, "book_id": "b2", "quantity": 1}),
        ("place_order", ORDER),
        "Ordered two copies of The Glass River for ana@example.pt.",
    ],
    "A customer asks for Cartographers of Rain": [
        ("search_books", {"query": "antarctica"}),
        "Sorry: Paperlane does not ship to Antarctica.",
    ],
}


def scripted_agent(messages: list[ChatMessage], *_: object) -> ModelOutput:
    """The next step of the script for the conversation's task: a tool call, or the answer."""
    prompt = next(m.text for m in messages if isinstance(m, ChatMessageUser))
    script = next(steps for start, steps in SCRIPTS.items() if prompt.startswith(start))
    step = script[sum(isinstance(m, ChatMessageAssistant) for m in messages)]
    if isinstance(step, str):
        output = ModelOutput.from_content("mockllm/model", step)
    else:
        output = ModelOutput.for_tool_call("mockllm/model", step[0], step[1])
    # With usage set, mockllm does not count tokens (tiktoken fetches its tables online).
    output.usage = ModelUsage()
    return output


def main() -> None:
    model = get_model("mockllm/model", custom_outputs=scripted_agent)
    (log,) = eval(paperlane_books(), model=model, epochs=2, display="none")
    assert log.status == "success", log.error
    for sample in log.samples or []:
        score = sample.scores["episode_reward"]
        print(
            json.dumps(
                {
                    "task": sample.id,
                    "epoch": sample.epoch,
                    "episode": score.metadata["episode"],
                    "reward": score.value,
                    "reason": score.reason,
                    "checks": score.metadata["checks"],
                    "simulation": score.metadata["simulation"],
                    "usage": score.metadata["usage"],
                    "tools": [
                        [m.function, m.error.message if m.error else m.text]
                        for m in sample.messages
                        if isinstance(m, ChatMessageTool)
                    ],
                }
            )
        )
    metrics = log.results.scores[0].metrics
    print(json.dumps({name: metric.value for name, metric in metrics.items()}))


if __name__ == "__main__":
    main()
