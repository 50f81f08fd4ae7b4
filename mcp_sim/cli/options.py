"""The flags several commands share (the world model, the state and prompt, the
perturbations), as parent parsers; :mod:`mcp_sim.cli.config` reads them into
``SimulationConfig`` and ``PerturbConfig``.

Help texts may name the simulator's defaults as ``{sim.FIELD}`` or ``{embedded.FIELD}``;
:class:`mcp_sim.cli.command.HelpFormatter` fills them in only when help is shown, so that
parsing does not import the simulator.
"""

from __future__ import annotations

import argparse
import os

from mcp_sim.cli import values
from mcp_sim.cli.command import CliParser


def model_options() -> CliParser:
    """The world model and state/prompt flags, as a parent parser (read by SimulationConfig)."""
    parent = CliParser(add_help=False)
    model = parent.add_argument_group("world model")
    _add_model_flags(model)
    _add_launch_flags(model)
    _add_sampling_flags(model)
    _add_prompt_flags(parent.add_argument_group("state and prompt"))
    return parent


def _add_model_flags(g: argparse._ArgumentGroup) -> None:
    g.add_argument(
        "--model-url",
        action="append",
        type=values.http_url,
        metavar="URL",
        default=[],
        help="OpenAI-compatible base URL, e.g. http://gpu:8000/v1 (repeat for replicas); "
        "default: the embedded tiny model on vLLM (CPU)",
    )
    g.add_argument(
        "--model-urls-file",
        type=values.http_urls_file,
        metavar="FILE",
        help="read more replica base URLs from FILE, one per line (# comments allowed)",
    )
    g.add_argument(
        "--model", type=values.text, help="model id (default: discovered from /v1/models)"
    )
    g.add_argument(
        "--api-key",
        type=values.text,
        default=os.environ.get("MCP_SIM_API_KEY") or None,
        help="bearer key for the model endpoint (env MCP_SIM_API_KEY)",
    )


def _add_launch_flags(g: argparse._ArgumentGroup) -> None:
    g.add_argument(
        "--vllm",
        type=values.text,
        metavar="MODEL",
        help="start vLLM (found on PATH or in the managed engine) serving MODEL, e.g. "
        "Qwen/Qwen-AgentWorld-35B-A3B",
    )
    g.add_argument(
        "--vllm-arg",
        action="append",
        type=values.text,
        default=[],
        metavar="ARG",
        help="extra argument for the vLLM launched by --vllm (repeatable)",
    )
    g.add_argument(
        "--timeout",
        type=values.number(above=0),
        default=600.0,
        help="seconds per model request (default 600)",
    )
    g.add_argument(
        "--retries",
        type=values.integer(minimum=0),
        default=2,
        help="retries on connection errors/5xx/429",
    )
    g.add_argument(
        "--max-concurrency",
        type=values.integer(minimum=1),
        default=1024,
        help="model requests in flight per replica (default 1024); vLLM queues the rest",
    )
    g.add_argument(
        "--cache",
        type=values.output_file,
        metavar="PATH",
        help="keep model answers in this SQLite file and reuse them: a repeated run with the "
        "same --seed asks the model nothing (keyed on the world, the prompt, the sampling and "
        "seed, and the model as configured: --model, else the URLs)",
    )


def _add_sampling_flags(g: argparse._ArgumentGroup) -> None:
    g.add_argument("--no-thinking", action="store_true", help="turn the model's thinking off")
    g.add_argument("--temperature", type=values.number(0, 2))
    g.add_argument("--top-p", type=values.number(maximum=1, above=0))
    g.add_argument("--top-k", type=values.integer(minimum=-1), help="-1 for no limit")
    g.add_argument(
        "--max-tokens",
        type=values.integer(minimum=1),
        help="completion token limit (default 32768)",
    )
    g.add_argument(
        "--seed",
        type=values.integer(),
        help="base seed: each session's RNG (sampling seeds of its model requests, perturbation "
        "decisions) is derived from it and the session id; a session may name its own with "
        "_meta mcp-sim/seed",
    )


def _add_prompt_flags(s: argparse._ArgumentGroup) -> None:
    s.add_argument(
        "--journal-timing",
        action="store_true",
        help="record wall-clock latency in the journal (replayed journals then differ)",
    )
    s.add_argument(
        "--history-budget",
        type=values.integer(minimum=1),
        metavar="TOKENS",
        help="compact the history shown to the model beyond this many tokens (default "
        "{sim.history_budget_tokens}; {embedded.history_budget_tokens} for the embedded model)",
    )
    s.add_argument(
        "--keep-turns",
        type=values.integer(minimum=1),
        metavar="N",
        help="turns kept when the history is compacted (default {sim.keep_turns})",
    )
    s.add_argument(
        "--state-budget",
        type=values.integer(minimum=1),
        metavar="TOKENS",
        help="show a larger state as referenced records + outline (default "
        "{sim.state_budget_tokens}; {embedded.state_budget_tokens} for the embedded model)",
    )
    s.add_argument(
        "--turn-budget",
        type=values.integer(minimum=1),
        metavar="TOKENS",
        help="a later turn's share of a large state: its changes and the records it needs "
        "(default {sim.turn_budget_tokens}; {embedded.turn_budget_tokens} for the embedded model)",
    )
    s.add_argument(
        "--context-window",
        type=values.integer(minimum=1),
        metavar="TOKENS",
        help="the model's context window: prompts leave room in it for --max-tokens (default: "
        "what the server reports as max_model_len in /v1/models, else no limit beyond the "
        "budgets; {embedded.context_tokens} for the embedded model)",
    )
    s.add_argument(
        "--model-seeds",
        action=argparse.BooleanOptionalAction,
        help="send each model request a sampling seed derived from its session's seed (default: "
        "on, except for the embedded model: vLLM's CPU build crashes on long seeded requests)",
    )
    s.add_argument(
        "--bounded-output",
        action=argparse.BooleanOptionalAction,
        help="bound the size of strings and arrays the model may write and wrap text "
        "observations in JSON, for small models (default: on for the embedded model only)",
    )


def perturb_options() -> CliParser:
    """The perturbation flags, as a parent parser (read by PerturbConfig)."""
    parent = CliParser(add_help=False)
    g = parent.add_argument_group("perturbations")
    g.add_argument(
        "--perturb",
        action="append",
        type=values.text,
        default=[],
        metavar="NAME[,NAME]",
        help="switch on perturbation profiles (see `mcp-sim perturbations WORLD`); decisions are "
        "reproducible with --perturb-seed or --seed",
    )
    g.add_argument(
        "--perturb-seed",
        type=values.integer(),
        metavar="N",
        help="base seed of perturbation decisions only (default: --seed); for backends that "
        "should not be sent a sampling seed",
    )
    return parent
