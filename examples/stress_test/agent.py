"""A small tool-calling agent, stress-tested against an imaginary bookstore that misbehaves.

The agent's brain is any OpenAI-compatible chat model (``--model-url``). It sees the task and
its recent observations, and answers each turn with one JSON action, constrained by a JSON
Schema built from the advertised tools so that even a tiny model produces well-formed calls.
Its tools come from ``mcp-sim serve`` over stdio, with perturbation profiles switched on
(``--perturb flaky`` by default) and every call journaled. At the end it prints
``mcp-sim report`` of that journal: the faults injected into each tool and how the agent
reacted to them.

Without ``--model-url`` it starts mcp-sim's embedded engine (vLLM CPU with Gemma 3 270M) and
uses it both as the agent and as the world model: that proves the loop end to end, not that
the agent is any good.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_sim.errors import ModelError
from mcp_sim.fidelity.journal_report import build_report, render_table
from mcp_sim.journal import read_journal
from mcp_sim.models.base import ChatMessage, CompletionRequest, Sampling
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TASKS = [
    "Find the price of 'Cartographers of Rain' and order one copy for ana@example.pt, "
    "shipped to Portugal.",
    "Is 'Salt and Glass' in stock? If it is, order one for joao@example.pt in Spain.",
    "Find a history book under 40 EUR and tell me its title and price.",
    "Cancel the order ord_00042 and tell me whether it worked.",
]
KEPT_TURNS = 4
"""Earlier steps the agent is shown; a tiny model has a 2,048-token context."""
OBSERVATION_CHARS = 400
STRING_LIMIT = 60
"""Longest string the action schema allows, so a weak model cannot ramble inside one."""


def _bounded(schema: Any) -> Any:
    """``schema`` with a length limit on every string."""
    if isinstance(schema, dict):
        bounded = {k: _bounded(v) for k, v in schema.items()}
        if bounded.get("type") == "string":
            bounded.setdefault("maxLength", STRING_LIMIT)
        return bounded
    if isinstance(schema, list):
        return [_bounded(item) for item in schema]
    return schema


def action_schema(tools: Sequence[types.Tool]) -> dict[str, Any]:
    """One JSON action: a call of an advertised tool with valid-looking arguments, or finish."""
    choices = [
        {
            "type": "object",
            "properties": {
                "tool": {"enum": [tool.name]},
                "arguments": _bounded(copy.deepcopy(tool.input_schema)),
            },
            "required": ["tool", "arguments"],
            "additionalProperties": False,
        }
        for tool in tools
    ]
    choices.append(
        {
            "type": "object",
            "properties": {
                "tool": {"enum": ["finish"]},
                "arguments": {
                    "type": "object",
                    "properties": {"answer": {"type": "string", "maxLength": 200}},
                    "required": ["answer"],
                    "additionalProperties": False,
                },
            },
            "required": ["tool", "arguments"],
            "additionalProperties": False,
        }
    )
    return {"anyOf": choices}


def system_prompt(tools: Sequence[types.Tool]) -> str:
    listing = "\n".join(f"- {t.name}: {t.description}" for t in tools)
    return (
        "You complete the user's task by calling tools. Each turn, answer with one JSON "
        'object: {"tool": NAME, "arguments": {...}} to call a tool, or {"tool": "finish", '
        '"arguments": {"answer": "..."}} when the task is done or cannot be done. Tools can '
        "fail: read each observation and decide whether to retry, change the arguments or "
        f"move on.\n\nTools:\n{listing}"
    )


def observation_text(result: types.CallToolResult) -> str:
    text = " ".join(c.text for c in result.content if isinstance(c, types.TextContent))
    return text[:OBSERVATION_CHARS]


async def run_episode(
    client: Client,
    brain: OpenAICompatibleModel,
    tools: Sequence[types.Tool],
    task: str,
    episode: str,
    max_steps: int,
    call_timeout: float,
) -> str:
    """One task in its own mcp-sim session; returns how it ended."""
    schema = action_schema(tools)
    turns: list[ChatMessage] = []
    # No sampling seed: vLLM's CPU build can crash on seeded requests under load.
    sampling = Sampling(temperature=0.3, top_p=0.95, top_k=20, max_tokens=160, thinking=False)
    for step in range(1, max_steps + 1):
        messages: list[ChatMessage] = [
            {"role": "system", "content": system_prompt(tools)},
            {"role": "user", "content": f"Task: {task}"},
            *turns[-2 * KEPT_TURNS :],
        ]
        request = CompletionRequest(messages, sampling, schema, "action", routing_key=episode)
        try:
            completion = await brain.complete(request)
            action = json.loads(completion.content)
        except (ModelError, json.JSONDecodeError) as exc:
            return f"stopped at step {step}: the agent's model failed ({exc})"
        if action.get("tool") == "finish":
            return f"finished at step {step}: {action['arguments'].get('answer', '')!r}"
        turns.append({"role": "assistant", "content": json.dumps(action)})
        meta: Any = {"mcp-sim/session": episode}
        try:
            result = await client.call_tool(
                action["tool"],
                action.get("arguments") or {},
                read_timeout_seconds=call_timeout,
                meta=meta,
            )
            seen = ("Error: " if result.is_error else "") + observation_text(result)
        except MCPError as exc:  # a JSON-RPC error, or no answer within call_timeout
            seen = f"Error: the call failed (JSON-RPC error {exc.code}: {exc.message})"
        except RuntimeError as exc:  # the SDK rejects an answer that breaks the output schema
            seen = f"Error: the answer could not be read ({exc})"
        print(f"  [{episode} {step}] {action['tool']} -> {seen[:100]!r}", file=sys.stderr)
        turns.append({"role": "user", "content": f"Observation: {seen}"})
    return f"gave up after {max_steps} steps"


@asynccontextmanager
async def model_urls(args: argparse.Namespace) -> AsyncIterator[tuple[str, str]]:
    """The agent's and the world model's base URLs; starts the embedded engine if none."""
    if args.model_url:
        yield args.model_url, args.world_model_url or args.model_url
        return
    from mcp_sim.engine.vllm_server import VLLMServer

    def progress(message: str) -> None:
        print(f"engine: {message}", file=sys.stderr)

    async with VLLMServer.embedded(progress=progress) as engine:
        yield engine.base_url, args.world_model_url or engine.base_url


async def main(args: argparse.Namespace) -> None:
    journal = Path(args.journal)
    journal.unlink(missing_ok=True)
    async with model_urls(args) as (agent_url, world_url):
        server = StdioServerParameters(
            command=sys.executable,
            args=[
                "-m",
                "mcp_sim",
                "serve",
                str(args.world),
                "--model-url",
                world_url,
                "--perturb",
                args.perturb,
                "--perturb-seed",
                str(args.seed),
                "--journal",
                str(journal),
                "--max-tokens",
                str(args.world_max_tokens),
                "--no-thinking",
            ],
            cwd=str(ROOT),
        )
        brain = OpenAICompatibleModel(
            EndpointSettings(base_urls=[agent_url], model=args.model, api_key=args.api_key)
        )
        try:
            async with Client(stdio_client(server)) as client:
                tools = (await client.list_tools()).tools
                for i in range(args.episodes):
                    episode = f"episode-{i + 1}"
                    task = TASKS[i % len(TASKS)]
                    print(f"{episode}: {task}", file=sys.stderr)
                    ending = await run_episode(
                        client,
                        brain,
                        tools,
                        task,
                        episode,
                        args.max_steps,
                        args.call_timeout,
                    )
                    print(f"{episode}: {ending}", file=sys.stderr)
        finally:
            await brain.aclose()
    print(render_table(build_report(read_journal(journal))))
    print(f"\njournal: {journal} (mcp-sim report {journal} --json for JSON)")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-url", help="OpenAI-compatible base URL of the agent's model")
    parser.add_argument("--model", help="the agent's model id (default: discovered)")
    parser.add_argument("--api-key", help="bearer key for the agent's model endpoint")
    parser.add_argument(
        "--world-model-url", help="the world model's base URL (default: the agent's)"
    )
    parser.add_argument("--world", default=ROOT / "worlds" / "bookstore.yaml", type=Path)
    parser.add_argument("--perturb", default="flaky", help="perturbation profiles (default flaky)")
    parser.add_argument("--seed", type=int, default=7, help="seed of perturbation decisions")
    parser.add_argument("--episodes", type=int, default=4)
    parser.add_argument("--max-steps", type=int, default=6)
    parser.add_argument("--call-timeout", type=float, default=120.0, help="seconds per tool call")
    parser.add_argument("--world-max-tokens", type=int, default=256)
    parser.add_argument("--journal", default=HERE / "journal.jsonl", type=Path)
    return parser.parse_args(argv)


if __name__ == "__main__":
    anyio.run(main, parse_args())
