"""Rollouts collected into a dataset with openenv-core's own harness, against mcp-sim, leaving
out the ones the world model failed.

    mcp-sim serve worlds/bookstore.yaml --http 127.0.0.1:8765 --openenv
    pip install openenv-core
    python examples/harness/openenv_collect.py http://127.0.0.1:8765 rollouts/ 4

``CollectRunner`` drives each rollout through ``MCPHarnessAdapter`` on a
``StepEnvSessionAdapter`` over ``MCPToolClient``, with a fixed policy standing in for a model
(search, then order until the world says done). When the world model fails a call of an
episode, mcp-sim marks its verdict invalid and sends no reward: openenv-core then counts the
rollout as failed and writes no record, so an outage never becomes a training example. Prints
the run's counts as JSON.
"""

import json
import sys
from typing import Any

from openenv.core.env_server.mcp_types import CallToolAction, Tool
from openenv.core.harness import (
    HarnessRunLimits,
    MCPHarnessAdapter,
    ModelStepResult,
    ResourceSession,
    ResourceSessionFactory,
    StepEnvSessionAdapter,
)
from openenv.core.harness.collect import CollectRunner, RolloutSerializer
from openenv.core.llm_client import LLMResponse, ToolCall
from openenv.core.mcp_client import MCPToolClient

ORDER = {"book_id": "b1", "quantity": 2, "email": "ana@example.pt", "country": "Portugal"}
TOOLS = [
    Tool(name=name, description=name, input_schema={"type": "object"})
    for name in ("search_books", "place_order")
]


class BookstoreSessions(ResourceSessionFactory):
    """One mcp-sim episode on the gift-order task per rollout."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url

    def create(
        self, task: Any, seed: int | None = None, episode_id: str | None = None
    ) -> ResourceSession:
        return StepEnvSessionAdapter(
            MCPToolClient(base_url=self.base_url),
            task=task,
            seed=seed,
            tool_specs=TOOLS,
            action_builder=lambda name, arguments: CallToolAction(
                tool_name=name, arguments=arguments
            ),
            initial_messages_builder=lambda reset, task: [
                {"role": "user", "content": reset.observation.metadata["task_description"]}
            ],
            reset_kwargs={"task": "gift-order"},
        )


def policy(messages: list[dict[str, Any]], tools: list[Tool], sampling: dict) -> ModelStepResult:
    """Search first, then order (again after a failed order) until the episode ends."""
    searched = any(m.get("name") == "search_books" for m in messages)
    call = ToolCall(
        id=f"call-{len(messages)}",
        name="place_order" if searched else "search_books",
        args=ORDER if searched else {"query": "glass"},
    )
    return ModelStepResult(response=LLMResponse(content="", tool_calls=[call]))


def collect(base_url: str, output: str, episodes: int) -> dict[str, Any]:
    runner = CollectRunner(
        session_factory=BookstoreSessions(base_url),
        harness_adapter=MCPHarnessAdapter(),
        serializer=RolloutSerializer(output),
        limits=HarnessRunLimits(max_turns=4),
    )
    result = runner.run(model_step=policy, num_episodes=episodes, resume=False)
    return {
        "collected": result.num_collected,
        "failed": result.num_failed,
        "rewards": result.avg_reward,
    }


if __name__ == "__main__":
    print(json.dumps(collect(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
