"""The ``mcp-sim`` command."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import anyio

from mcp_sim import __version__
from mcp_sim.backends.base import Sampling, WorldModel
from mcp_sim.backends.starting import StartingModel
from mcp_sim.bounds import OutputBounds
from mcp_sim.errors import EngineError, SimError, SpecError
from mcp_sim.journal import Journal
from mcp_sim.session import SessionStore
from mcp_sim.simulator import SamplingOverrides, SimOptions, Simulator, UnknownTool
from mcp_sim.spec import World, load_world, world_json_schema

EMBEDDED_MAX_TOKENS = 512
EMBEDDED_OPTIONS = SimOptions(
    history_budget_tokens=3000, state_budget_tokens=2000, bounds=OutputBounds()
)
"""The tiny embedded model has a small context window (8192 tokens) and does not think: smaller
budgets keep its prompts inside the window, and output bounds keep it from rambling."""


def _say(message: str) -> None:
    # stdout is the MCP wire on stdio: everything for humans goes to stderr.
    print(f"mcp-sim: {message}", file=sys.stderr, flush=True)


def _host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def _model_options() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    g = parent.add_argument_group("world model")
    g.add_argument(
        "--model-url",
        action="append",
        metavar="URL",
        default=[],
        help="OpenAI-compatible base URL, e.g. http://gpu:8000/v1 (repeat for replicas); "
        "default: the embedded tiny model on vLLM (CPU)",
    )
    g.add_argument(
        "--model-urls-file",
        metavar="FILE",
        help="read more replica base URLs from FILE, one per line (# comments allowed)",
    )
    g.add_argument("--model", help="model id (default: discovered from /v1/models)")
    g.add_argument(
        "--api-key",
        default=os.environ.get("MCP_SIM_API_KEY"),
        help="bearer key for the model endpoint (env MCP_SIM_API_KEY)",
    )
    g.add_argument(
        "--vllm",
        metavar="MODEL",
        help="start vLLM (found on PATH or in the managed engine) serving MODEL, e.g. "
        "Qwen/Qwen-AgentWorld-35B-A3B",
    )
    g.add_argument(
        "--vllm-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="extra argument for the vLLM launched by --vllm (repeatable)",
    )
    g.add_argument(
        "--timeout", type=float, default=600.0, help="seconds per model request (default 600)"
    )
    g.add_argument("--retries", type=int, default=2, help="retries on connection errors/5xx/429")
    g.add_argument(
        "--max-concurrency",
        type=int,
        default=1024,
        help="model requests in flight per replica (default 1024); vLLM queues the rest",
    )
    g.add_argument("--no-thinking", action="store_true", help="turn the model's thinking off")
    g.add_argument("--temperature", type=float)
    g.add_argument("--top-p", type=float)
    g.add_argument("--top-k", type=int)
    g.add_argument("--max-tokens", type=int, help="completion token limit (default 32768)")
    g.add_argument(
        "--seed",
        type=int,
        help="base seed: each session's RNG (and the sampling seed of each model request) is "
        "derived from it and the session id; a session may name its own with _meta mcp-sim/seed",
    )
    s = parent.add_argument_group("state and prompt")
    s.add_argument(
        "--journal-timing",
        action="store_true",
        help="record wall-clock latency in the journal (replayed journals then differ)",
    )
    s.add_argument(
        "--history-budget",
        type=int,
        metavar="TOKENS",
        help="compact the history shown to the model beyond this many tokens (default "
        f"{SimOptions.history_budget_tokens}; {EMBEDDED_OPTIONS.history_budget_tokens} for the "
        "embedded model)",
    )
    s.add_argument(
        "--keep-turns",
        type=int,
        default=SimOptions.keep_turns,
        metavar="N",
        help="turns kept when the history is compacted (default %(default)s)",
    )
    s.add_argument(
        "--state-budget",
        type=int,
        metavar="TOKENS",
        help="show a larger state as referenced records + outline (default "
        f"{SimOptions.state_budget_tokens}; {EMBEDDED_OPTIONS.state_budget_tokens} for the "
        "embedded model)",
    )
    s.add_argument(
        "--bounded-output",
        action=argparse.BooleanOptionalAction,
        help="bound the size of strings and arrays the model may write and wrap text "
        "observations in JSON, for small models (default: on for the embedded model only)",
    )
    return parent


def _embedded(args: argparse.Namespace) -> bool:
    return not args.model_url and not args.vllm


def _options(args: argparse.Namespace) -> SimOptions:
    defaults = EMBEDDED_OPTIONS if _embedded(args) else SimOptions()
    bounded = args.bounded_output if args.bounded_output is not None else _embedded(args)
    try:
        return replace(
            defaults,
            journal_timing=args.journal_timing,
            history_budget_tokens=args.history_budget or defaults.history_budget_tokens,
            keep_turns=args.keep_turns,
            state_budget_tokens=args.state_budget or defaults.state_budget_tokens,
            bounds=(defaults.bounds or OutputBounds()) if bounded else None,
        )
    except ValueError as exc:
        raise SystemExit(f"mcp-sim: {exc}") from None


def _sampling(args: argparse.Namespace) -> SamplingOverrides:
    return SamplingOverrides(
        temperature=args.temperature,
        top_p=args.top_p,
        top_k=args.top_k,
        max_tokens=args.max_tokens,
        thinking=False if args.no_thinking else None,
        seed=args.seed,
    )


def _default_sampling(args: argparse.Namespace) -> Sampling | None:
    return Sampling(max_tokens=EMBEDDED_MAX_TOKENS) if _embedded(args) else None


def _endpoint(args: argparse.Namespace, base_urls: list[str]) -> WorldModel:
    from mcp_sim.backends.openai import EndpointSettings, OpenAICompatibleModel

    return OpenAICompatibleModel(
        EndpointSettings(
            base_urls=base_urls,
            api_key=args.api_key,
            model=args.model,
            request_timeout=args.timeout,
            retries=args.retries,
            max_concurrency=args.max_concurrency,
        )
    )


@asynccontextmanager
async def _launched_model(
    args: argparse.Namespace, progress: Callable[[str], None]
) -> AsyncIterator[WorldModel]:
    """The world model the options ask for, started (for --vllm and the embedded default) and
    stopped around the block."""
    if args.model_url:
        model = _endpoint(args, args.model_url)
        try:
            yield model
        finally:
            await model.aclose()
        return
    from mcp_sim.backends.engine import VLLMServer

    launcher = (
        VLLMServer.gpu(args.vllm, extra_args=args.vllm_arg, progress=progress)
        if args.vllm
        else VLLMServer.embedded(progress=progress)
    )
    async with launcher as engine:
        model = _endpoint(args, [engine.base_url])
        try:
            yield model
        finally:
            await model.aclose()


def _load(path: str) -> World:
    try:
        return load_world(path)
    except SpecError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        raise SystemExit(1) from None


# --- serve ---------------------------------------------------------------------------------


async def _serve(args: argparse.Namespace) -> None:
    from mcp_sim.control import Control
    from mcp_sim.server import build_server, http_app, serve_http, serve_stdio

    world = _load(args.world)
    journal = Journal(args.journal)
    starting = StartingModel("the embedded world model" if not args.vllm else f"vLLM ({args.vllm})")
    # A stdio process is one session for as long as its host keeps it open: it never expires.
    sessions = SessionStore(
        world,
        idle_timeout=args.session_idle_timeout if args.http is not None else None,
        on_expire=journal.forget,
    )
    simulator = Simulator(
        world,
        starting,
        sessions=sessions,
        journal=journal,
        sampling=_sampling(args),
        default_sampling=_default_sampling(args),
        options=_options(args),
    )
    default_session = "stdio" if args.http is None else "default"
    control = Control(simulator)
    server = build_server(
        simulator,
        default_session=default_session,
        control=control if args.control_tools else None,
    )

    def progress(message: str) -> None:
        starting.loading(message)
        _say(message)

    async def run_model(*, task_status: anyio.abc.TaskStatus[None]) -> None:
        task_status.started()
        try:
            async with _launched_model(args, progress) as model:
                starting.ready(model)
                if not args.model_url:
                    _say("world model ready")
                await anyio.sleep_forever()
        except EngineError as exc:
            starting.failed(str(exc))
            _say(f"the world model could not start: {exc}")

    try:
        async with anyio.create_task_group() as tg:
            await tg.start(run_model)
            if args.http is None:
                _say(f"serving {world.world} ({len(world.tools)} tools) on stdio")
                await serve_stdio(server)
            else:
                host, port = args.http
                app = http_app(
                    server,
                    host=host,
                    auth_token=args.auth_token,
                    session_idle_timeout=args.session_idle_timeout,
                    allowed_hosts=args.allow_host,
                    control=control,
                    json_response=args.json_response,
                )
                _say(
                    f"serving {world.world} ({len(world.tools)} tools) on http://{host}:{port}/mcp"
                )
                await serve_http(app, host, port)
            tg.cancel_scope.cancel()
    finally:
        journal.close()


# --- call ------------------------------------------------------------------------------------


async def _call(args: argparse.Namespace) -> int:
    world = _load(args.world)
    try:
        arguments = json.loads(args.args)
    except json.JSONDecodeError as exc:
        _say(f"--args is not valid JSON: {exc}")
        return 2
    if not isinstance(arguments, dict):
        _say("--args must be a JSON object")
        return 2
    journal = Journal(args.journal)
    simulator = Simulator(
        world,
        None,
        journal=journal,
        sampling=_sampling(args),
        default_sampling=_default_sampling(args),
        options=_options(args),
    )
    try:
        if world.tool(args.tool) is None:
            _say(str(UnknownTool(args.tool, world)))
            return 2
        if simulator.answers_without_model(args.tool, arguments):
            result = await simulator.call("cli", args.tool, arguments)
        else:
            async with _launched_model(args, _say) as model:
                simulator.model = model
                result = await simulator.call("cli", args.tool, arguments)
    finally:
        journal.close()
    if args.show_reasoning and result.reasoning:
        print(
            f"--- reasoning ---\n{result.reasoning.strip()}\n--- observation ---", file=sys.stderr
        )
    print(result.text)
    _say(f"source: {result.source}{', isError' if result.is_error else ''}")
    return 1 if result.is_error else 0


# --- validate / schema / engine --------------------------------------------------------------


def _validate(paths: Sequence[str]) -> int:
    failed = 0
    for path in paths:
        try:
            world = load_world(path)
        except SpecError as exc:
            failed += 1
            for problem in exc.problems:
                print(problem)
        else:
            print(f"{path}: ok ({world.world}, {len(world.tools)} tools, domain {world.domain})")
    return 1 if failed else 0


def _schema(output: str | None) -> int:
    text = json.dumps(world_json_schema(), indent=2) + "\n"
    if output:
        Path(output).write_text(text, encoding="utf-8")
        _say(f"wrote {output}")
    else:
        sys.stdout.write(text)
    return 0


def _engine(args: argparse.Namespace) -> int:
    from mcp_sim.backends.engine import engine_status, install_engine

    if args.engine_command == "install":
        install_engine(_say)
        return 0
    print(json.dumps(engine_status(), indent=2, default=str))
    return 0


# --- entry point -----------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-sim",
        description="An MCP server whose tools are imaginary: every call is answered by a "
        "language world model.",
    )
    parser.add_argument("--version", action="version", version=f"mcp-sim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    model_options = _model_options()

    serve = sub.add_parser(
        "serve", parents=[model_options], help="serve a world over MCP (stdio by default)"
    )
    serve.add_argument("world", help="world spec (YAML)")
    serve.add_argument(
        "--http",
        type=_host_port,
        metavar="HOST:PORT",
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio",
    )
    serve.add_argument(
        "--auth-token",
        default=os.environ.get("MCP_SIM_AUTH_TOKEN"),
        help="require 'Authorization: Bearer TOKEN' over HTTP (env MCP_SIM_AUTH_TOKEN)",
    )
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST",
        help="extra Host header to accept over HTTP (DNS-rebinding protection stays on)",
    )
    serve.add_argument(
        "--session-idle-timeout",
        type=float,
        default=1800.0,
        metavar="SECONDS",
        help="forget HTTP sessions idle this long (default 1800)",
    )
    serve.add_argument(
        "--json-response",
        action="store_true",
        help="over HTTP, answer each request with one JSON body instead of an event stream: "
        "no progress notifications, about half the server CPU per call (for many sessions)",
    )
    serve.add_argument("--journal", metavar="PATH", help="append every call to this JSONL file")
    serve.add_argument(
        "--control-tools",
        action="store_true",
        help="also offer snapshot/fork/reset as MCP tools (sim_*); hidden by default so an "
        "agent under test never sees them (over HTTP the /control API is always there)",
    )

    call = sub.add_parser(
        "call", parents=[model_options], help="make one tool call and print the observation"
    )
    call.add_argument("world", help="world spec (YAML)")
    call.add_argument("tool", help="tool name")
    call.add_argument("--args", default="{}", help="arguments as a JSON object")
    call.add_argument("--show-reasoning", action="store_true", help="print the model's reasoning")
    call.add_argument("--journal", metavar="PATH", help="append the call to this JSONL file")

    validate = sub.add_parser("validate", help="check world specs; report FILE:LINE:COL problems")
    validate.add_argument("files", nargs="+", metavar="FILE")

    schema = sub.add_parser("schema", help="print the JSON Schema of world specs")
    schema.add_argument("-o", "--output", help="write it to this file instead")

    engine = sub.add_parser("engine", help="manage the embedded engine (vLLM CPU + tiny model)")
    engine_sub = engine.add_subparsers(dest="engine_command", required=True, metavar="ACTION")
    engine_sub.add_parser("install", help="install the engine and convert the model now")
    engine_sub.add_parser("status", help="show what is installed and cached")
    return parser


def _add_url_file(args: argparse.Namespace) -> None:
    from mcp_sim.backends.routing import read_url_file

    if getattr(args, "model_urls_file", None):
        try:
            args.model_url = [*args.model_url, *read_url_file(args.model_urls_file)]
        except ValueError as exc:
            raise SystemExit(f"mcp-sim: {exc}") from None


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    _add_url_file(args)
    try:
        if args.command == "serve":
            anyio.run(_serve, args)
            return 0
        if args.command == "call":
            code: int = anyio.run(_call, args)
            return code
        if args.command == "validate":
            return _validate(args.files)
        if args.command == "schema":
            return _schema(args.output)
        return _engine(args)
    except KeyboardInterrupt:
        return 130
    except SimError as exc:
        _say(str(exc))
        return 1
