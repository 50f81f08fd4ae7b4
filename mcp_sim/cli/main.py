"""The ``mcp-sim`` command."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import asdict, replace
from pathlib import Path
from typing import get_args

import anyio

from mcp_sim import __version__
from mcp_sim.errors import EngineError, SimError, SpecError
from mcp_sim.journal import Journal, read_journal
from mcp_sim.models.base import Sampling, WorldModel
from mcp_sim.models.starting import StartingModel
from mcp_sim.perturb.planner import Perturber, UnknownProfile, profiles_for
from mcp_sim.prompting.bounds import OutputBounds
from mcp_sim.runtime.session import SessionStore
from mcp_sim.simulator.answer_cache import AnswerCache
from mcp_sim.simulator.core import SamplingOverrides, SimOptions, Simulator, UnknownTool
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.perturbations import describe
from mcp_sim.spec.world import Domain, World, world_json_schema
from mcp_sim.web.world_memory import WorldMemory

EMBEDDED_MAX_TOKENS = 512
EMBEDDED_OPTIONS = SimOptions(
    history_budget_tokens=3000, state_budget_tokens=2000, bounds=OutputBounds(), model_seeds=False
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
        help="base seed: each session's RNG (sampling seeds of its model requests, perturbation "
        "decisions) is derived from it and the session id; a session may name its own with "
        "_meta mcp-sim/seed",
    )
    g.add_argument(
        "--cache",
        metavar="PATH",
        help="keep model answers in this SQLite file and reuse them: a repeated run with the "
        "same --seed asks the model nothing (keyed on the world, the prompt, the sampling and "
        "seed, and the model as configured: --model, else the URLs)",
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
            model_seeds=defaults.model_seeds if args.model_seeds is None else args.model_seeds,
        )
    except ValueError as exc:
        raise SystemExit(f"mcp-sim: {exc}") from None


def _perturb_options() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    g = parent.add_argument_group("perturbations")
    g.add_argument(
        "--perturb",
        action="append",
        default=[],
        metavar="NAME[,NAME]",
        help="switch on perturbation profiles (see `mcp-sim perturbations WORLD`); decisions are "
        "reproducible with --perturb-seed or --seed",
    )
    g.add_argument(
        "--perturb-seed",
        type=int,
        metavar="N",
        help="base seed of perturbation decisions only (default: --seed); for backends that "
        "should not be sent a sampling seed",
    )
    return parent


def _perturber(args: argparse.Namespace, world: World) -> Perturber:
    seed = args.perturb_seed if args.perturb_seed is not None else args.seed
    try:
        perturber = Perturber(profiles_for(world.perturbations), ",".join(args.perturb), seed=seed)
    except UnknownProfile as exc:
        _say(str(exc))
        raise SystemExit(2) from None
    if perturber.active:
        how = "" if seed is not None else f"; pass --perturb-seed {perturber.seed} to reproduce"
        _say(f"perturbations on: {', '.join(perturber.active)} (seed {perturber.seed}{how})")
    return perturber


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


def _model_identity(args: argparse.Namespace) -> str:
    """The model as configured, for cache keys (the served name is only known once asked)."""
    if args.model:
        return str(args.model)
    if args.model_url:
        return " ".join(sorted(u.rstrip("/") for u in args.model_url))
    if args.vllm:
        return f"vllm:{args.vllm}"
    from mcp_sim.engine.vllm import EMBEDDED_MODEL_NAME

    return f"embedded:{EMBEDDED_MODEL_NAME}"


def _cache(args: argparse.Namespace) -> AnswerCache | None:
    return AnswerCache(args.cache, _model_identity(args)) if args.cache else None


def _endpoint(args: argparse.Namespace, base_urls: list[str]) -> WorldModel:
    from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel

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
    from mcp_sim.engine.vllm import VLLMServer

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


def _memory(world: World, path: str | None) -> WorldMemory | None:
    """The world memory ``--world-memory`` names; only a world with a web has one to keep."""
    if path is None:
        return None
    if world.web() is None:
        raise SystemExit(
            f"mcp-sim: --world-memory keeps the pages of a world's web, and {world.world} has "
            "none (it needs a search: section, or domain search with web_search and open_page)"
        )
    return WorldMemory(world.world, path)


def _load(path: str) -> World:
    try:
        return load_world(path)
    except SpecError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        raise SystemExit(1) from None


# --- serve ---------------------------------------------------------------------------------


async def _serve(args: argparse.Namespace) -> None:
    from mcp_sim.models.replay import Replay
    from mcp_sim.server.control import Control
    from mcp_sim.server.mcp_front import build_server, http_app, serve_http, serve_stdio

    world = _load(args.world)
    replay = Replay.load(args.replay) if args.replay else None
    memory = _memory(world, args.world_memory)
    journal = Journal(args.journal)
    cache = _cache(args)
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
        perturber=_perturber(args, world),
        cache=cache,
        replay=replay,
        memory=memory,
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
        if cache is not None:
            cache.close()
        if memory is not None:
            memory.close()


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
    perturber = _perturber(args, world)
    memory = _memory(world, args.world_memory)
    journal = Journal(args.journal)
    cache = _cache(args)
    simulator = Simulator(
        world,
        None,
        journal=journal,
        sampling=_sampling(args),
        default_sampling=_default_sampling(args),
        options=_options(args),
        perturber=perturber,
        cache=cache,
        memory=memory,
    )
    try:
        if world.tool(args.tool) is None:
            _say(str(UnknownTool(args.tool, world)))
            return 2
        if simulator.answers_without_model(args.tool, arguments, "cli"):
            result = await simulator.call("cli", args.tool, arguments)
        else:
            async with _launched_model(args, _say) as model:
                simulator.model = model
                result = await simulator.call("cli", args.tool, arguments)
    finally:
        journal.close()
        if cache is not None:
            cache.close()
        if memory is not None:
            memory.close()
    if args.show_reasoning and result.reasoning:
        print(
            f"--- reasoning ---\n{result.reasoning.strip()}\n--- observation ---", file=sys.stderr
        )
    print(result.text)
    _say(f"source: {result.source}{', isError' if result.is_error else ''}")
    for record in simulator.journal.records("cli")[-1].perturbations:
        _say(f"injected: {record['kind']} (profile {record['profile']}, rule {record['rule']})")
    return 1 if result.is_error else 0


# --- perturbations / report -------------------------------------------------------------------


def _perturbations(world_path: str | None, as_json: bool) -> int:
    world = _load(world_path) if world_path else None
    profiles = profiles_for(world.perturbations if world else {})
    if as_json:
        listing = {
            name: {
                "source": p.source,
                "description": p.description,
                "rules": [r.model_dump(mode="json", exclude_defaults=True) for r in p.rules],
            }
            for name, p in profiles.items()
        }
        print(json.dumps(listing, indent=2, ensure_ascii=False))
        return 0
    for name, profile in profiles.items():
        print(
            f"{name} ({profile.source})"
            + (f": {profile.description}" if profile.description else "")
        )
        for i, rule in enumerate(profile.rules):
            print(f"  {i}. {describe(rule)}")
    return 0


def _report(path: str, as_json: bool) -> int:
    from mcp_sim.fidelity.journal_report import build_report, render_table

    try:
        records = read_journal(path)
    except OSError as exc:
        _say(f"cannot read journal {path}: {exc.strerror}")
        return 1
    except ValueError as exc:
        _say(f"{path} is not an mcp-sim journal: {exc}")
        return 1
    report = build_report(records)
    print(json.dumps(report.as_dict(), indent=2) if as_json else render_table(report))
    return 0


# --- world new / export ----------------------------------------------------------------------


async def _world_new(args: argparse.Namespace) -> int:
    from mcp_sim.authoring.drafting import COMPACT_MAX_TOKENS, DRAFT_MAX_TOKENS, draft_world

    output = Path(args.output)
    if output.exists() and not args.force:
        _say(f"{output} exists; choose another file or pass --force")
        return 2
    bounds = _options(args).bounds
    given = {k: v for k, v in asdict(_sampling(args)).items() if v is not None}
    limit = COMPACT_MAX_TOKENS if bounds is not None else DRAFT_MAX_TOKENS
    sampling = replace(Sampling(max_tokens=limit), **given)
    async with _launched_model(args, _say) as model:
        _say(f"drafting a {args.domain} world")
        draft = await draft_world(
            args.description, args.domain, model, sampling=sampling, bounds=bounds
        )
    output.write_text(draft.text, encoding="utf-8")
    world = draft.world
    _say(f"wrote {output} ({world.world}, {len(world.tools)} tools, domain {world.domain})")
    return 0


def _world_export(args: argparse.Namespace) -> int:
    from mcp_sim.authoring.world_export import export_world

    world = _load(args.world)
    if not Path(args.world_memory).is_file():
        _say(f"no world memory at {args.world_memory}")
        return 2
    memory = _memory(world, args.world_memory)
    if memory is None:
        return 2
    with memory:
        text = export_world(world, memory)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        _say(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return 0


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
    from mcp_sim.engine.vllm import engine_status, install_engine

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
    perturb_options = _perturb_options()

    serve = sub.add_parser(
        "serve",
        parents=[model_options, perturb_options],
        help="serve a world over MCP (stdio by default)",
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
        "--replay",
        metavar="JOURNAL",
        help="answer calls from this journal (e.g. one written by `mcp-sim record`), matched "
        "by session, position, tool and arguments; other calls go to the model",
    )
    serve.add_argument(
        "--world-memory",
        metavar="PATH",
        help="keep the pages, results and facts the world's web has shown in this SQLite file, "
        "across sessions, restarts and servers sharing it",
    )
    serve.add_argument(
        "--control-tools",
        action="store_true",
        help="also offer snapshot/fork/reset as MCP tools (sim_*); hidden by default so an "
        "agent under test never sees them (over HTTP the /control API is always there)",
    )

    call = sub.add_parser(
        "call",
        parents=[model_options, perturb_options],
        help="make one tool call and print the observation",
    )
    call.add_argument("world", help="world spec (YAML)")
    call.add_argument("tool", help="tool name")
    call.add_argument("--args", default="{}", help="arguments as a JSON object")
    call.add_argument("--show-reasoning", action="store_true", help="print the model's reasoning")
    call.add_argument("--journal", metavar="PATH", help="append the call to this JSONL file")
    call.add_argument("--world-memory", metavar="PATH", help="the world's memory file (see serve)")

    validate = sub.add_parser("validate", help="check world specs; report FILE:LINE:COL problems")
    validate.add_argument("files", nargs="+", metavar="FILE")

    perturbations = sub.add_parser(
        "perturbations", help="list the perturbation profiles (built in, and a world's own)"
    )
    perturbations.add_argument("world", nargs="?", help="world spec (YAML) with its own profiles")
    perturbations.add_argument("--json", action="store_true", help="print the profiles as JSON")

    report = sub.add_parser(
        "report", help="summarize a journal: injected faults and how the agent reacted, per tool"
    )
    report.add_argument("journal", help="journal file (JSONL) written by --journal")
    report.add_argument("--json", action="store_true", help="print the report as JSON")

    schema = sub.add_parser("schema", help="print the JSON Schema of world specs")
    schema.add_argument("-o", "--output", help="write it to this file instead")

    from mcp_sim.cli.fidelity import add_fidelity_commands

    add_fidelity_commands(sub, model_options)
    world = sub.add_parser("world", help="draft a world, or export what a world has learnt")
    world_sub = world.add_subparsers(dest="world_command", required=True, metavar="ACTION")
    new = world_sub.add_parser(
        "new", parents=[model_options], help="draft a world spec with the world model"
    )
    new.add_argument("description", help='what the world is, e.g. "a ferry booking API"')
    new.add_argument("--domain", choices=get_args(Domain), default="mcp", help="default: mcp")
    new.add_argument("-o", "--output", required=True, help="the world file to write")
    new.add_argument("--force", action="store_true", help="overwrite an existing file")
    export = world_sub.add_parser(
        "export", help="write a world file with the pages and facts its memory learnt"
    )
    export.add_argument("world", help="world spec (YAML)")
    export.add_argument("--world-memory", required=True, metavar="PATH", help="the memory file")
    export.add_argument("-o", "--output", help="write it to this file instead of stdout")

    engine = sub.add_parser("engine", help="manage the embedded engine (vLLM CPU + tiny model)")
    engine_sub = engine.add_subparsers(dest="engine_command", required=True, metavar="ACTION")
    engine_sub.add_parser("install", help="install the engine and convert the model now")
    engine_sub.add_parser("status", help="show what is installed and cached")
    return parser


def _add_url_file(args: argparse.Namespace) -> None:
    from mcp_sim.models.routing import read_url_file

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
        if args.command == "perturbations":
            return _perturbations(args.world, args.json)
        if args.command == "report":
            return _report(args.journal, args.json)
        if args.command == "engine":
            return _engine(args)
        if args.command == "world":
            if args.world_command == "new":
                drafted: int = anyio.run(_world_new, args)
                return drafted
            return _world_export(args)
        from mcp_sim.cli.fidelity import run_fidelity_command

        return run_fidelity_command(args)
    except KeyboardInterrupt:
        return 130
    except SimError as exc:
        _say(str(exc))
        return 1
