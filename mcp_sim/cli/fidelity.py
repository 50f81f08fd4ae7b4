"""The ``mcp-sim`` commands that work with real tools: ``import``, ``record``, ``eval`` and
``export``. Part of the command line (:mod:`mcp_sim.cli.main` adds them to its parser and hands
them their arguments); kept in a module of their own so that ``cli`` stays about serving."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio

from mcp_sim.authoring.mcp_import import Upstream, import_server, write_text
from mcp_sim.cli import main as cli
from mcp_sim.errors import SimError
from mcp_sim.journal import Journal, JournalRecord, read_journal

ANY_SOURCE = ("real", "model", "fixture", "validation", "replay")


def _pair(separator: str, what: str) -> Any:
    def parse(value: str) -> tuple[str, str]:
        key, sep, rest = value.partition(separator)
        if not sep or not key.strip():
            raise argparse.ArgumentTypeError(f"expected {what}, got {value!r}")
        return key.strip(), rest.strip() if separator == ":" else rest

    return parse


def _add_upstream_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("the real MCP server")
    g.add_argument("--url", help="streamable HTTP endpoint of the server, e.g. http://host/mcp")
    g.add_argument(
        "--header",
        action="append",
        default=[],
        type=_pair(":", "'Name: value'"),
        metavar="'NAME: VALUE'",
        help="HTTP header for --url (repeatable), e.g. 'Authorization: Bearer ...'",
    )
    g.add_argument(
        "--env",
        action="append",
        default=[],
        type=_pair("=", "KEY=VALUE"),
        metavar="KEY=VALUE",
        help="environment variable for the server command (repeatable; the command also "
        "inherits mcp-sim's environment)",
    )
    g.add_argument(
        "server_command",
        nargs="*",
        metavar="-- COMMAND ARGS",
        help="the command that starts the server over stdio, after --",
    )


def _upstream(args: argparse.Namespace) -> Upstream:
    try:
        return Upstream(
            command=list(args.server_command),
            url=args.url,
            env=dict(args.env),
            headers=dict(args.header),
        )
    except ValueError as exc:
        raise SystemExit(f"mcp-sim {args.command}: {exc}") from None


def add_fidelity_commands(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    model_options: argparse.ArgumentParser,
) -> None:
    imp = sub.add_parser(
        "import",
        help="write a world with the tools of a real MCP server (-- COMMAND, or --url) or of "
        "an OpenAPI 3 document (--openapi)",
    )
    imp.add_argument("-o", "--output", required=True, metavar="WORLD", help="world file to write")
    imp.add_argument("--openapi", metavar="FILE", help="import this OpenAPI 3 document (YAML/JSON)")
    imp.add_argument("--world", metavar="ID", help="world id (default: from the server or API)")
    _add_upstream_options(imp)

    rec = sub.add_parser(
        "record",
        help="serve a real MCP server's tools, forwarding every call and journaling the real "
        "answers",
    )
    rec.add_argument("--journal", required=True, metavar="PATH", help="append real calls here")
    rec.add_argument(
        "--http",
        type=cli._host_port,
        metavar="HOST:PORT",
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio",
    )
    rec.add_argument(
        "--world-out", type=Path, metavar="WORLD", help="also write the imported world here"
    )
    rec.add_argument("--journal-timing", action="store_true", help="record real latencies")
    _add_upstream_options(rec)

    ev = sub.add_parser(
        "eval",
        parents=[model_options],
        help="replay a recorded journal teacher-forced and measure how close the simulator comes",
    )
    ev.add_argument("--journal", required=True, metavar="REAL", help="the recorded journal")
    ev.add_argument("--world", required=True, metavar="WORLD", help="the world to simulate it in")
    ev.add_argument(
        "--json", metavar="PATH", help="write the report as JSON (default REAL.eval.json)"
    )
    ev.add_argument("--html", metavar="PATH", help="write the HTML report (default REAL.eval.html)")
    ev.add_argument(
        "--predictions", metavar="PATH", help="journal the simulator's predictions to this file"
    )
    ev.add_argument(
        "--session", action="append", default=[], help="evaluate only this recorded session"
    )
    ev.add_argument("--max-calls", type=int, metavar="N", help="evaluate the first N calls only")
    j = ev.add_argument_group("LLM judge (optional)")
    j.add_argument("--judge-url", metavar="URL", help="OpenAI-compatible base URL of the judge")
    j.add_argument("--judge-model", help="judge model id (default: discovered from /v1/models)")
    j.add_argument(
        "--judge-api-key",
        default=os.environ.get("MCP_SIM_JUDGE_API_KEY"),
        help="bearer key of the judge endpoint (env MCP_SIM_JUDGE_API_KEY)",
    )
    j.add_argument(
        "--judge-max-tokens", type=int, default=32768, help="judge completion limit (32768)"
    )
    j.add_argument(
        "--judge-structured",
        action="store_true",
        help="ask the judge for schema-constrained JSON scores (small judges, guided decoding)",
    )

    ex = sub.add_parser(
        "export", help="turn a journal into AgentWorldBench-style or chat-format SFT JSONL"
    )
    ex.add_argument("--journal", required=True, metavar="PATH")
    ex.add_argument("--world", required=True, metavar="WORLD", help="the world of the journal")
    ex.add_argument("--format", required=True, choices=["agentworld", "sft"])
    ex.add_argument("-o", "--output", required=True, metavar="PATH", help="JSONL file to write")
    ex.add_argument(
        "--source",
        action="append",
        default=[],
        choices=ANY_SOURCE,
        help="export only calls answered this way (repeatable; e.g. real)",
    )


def run_fidelity_command(args: argparse.Namespace) -> int:
    if args.command == "import":
        return _import(args)
    if args.command == "record":
        return _record(args)
    if args.command == "eval":
        code: int = anyio.run(_eval, args)
        return code
    return _export(args)


def _import(args: argparse.Namespace) -> int:
    if args.openapi:
        if args.server_command or args.url:
            raise SystemExit("mcp-sim import: give --openapi, --url or a command, not several")
        from mcp_sim.authoring.openapi_import import import_openapi

        text = import_openapi(args.openapi, world=args.world)
    else:
        text = anyio.run(lambda: import_server(_upstream(args), world=args.world))
    write_text(args.output, text)
    cli._say(f"wrote {args.output}")
    return 0


def _record(args: argparse.Namespace) -> int:
    from mcp_sim.fidelity.recorder import record

    upstream = _upstream(args)
    journal = Journal(args.journal)
    try:
        anyio.run(
            lambda: record(
                upstream,
                journal,
                http=args.http,
                timing=args.journal_timing,
                world_out=args.world_out,
                say=cli._say,
            )
        )
    finally:
        journal.close()
    return 0


def _selected(args: argparse.Namespace) -> list[JournalRecord]:
    try:
        records = read_journal(args.journal)
    except (OSError, ValueError) as exc:
        raise SimError(f"cannot read the journal {args.journal}: {exc}") from None
    if args.session:
        records = [r for r in records if r.session in args.session]
    if args.max_calls is not None:
        records = [r for r in records if r.source != "model_error"][: args.max_calls]
    return records


async def _eval(args: argparse.Namespace) -> int:
    from mcp_sim.fidelity.eval_report import render_html, table
    from mcp_sim.fidelity.evaluate import evaluate
    from mcp_sim.fidelity.judge import Judge, JudgeSettings
    from mcp_sim.models.base import Sampling
    from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
    from mcp_sim.runtime.session import SessionStore
    from mcp_sim.simulator.core import Simulator

    world = cli._load(args.world)
    records = _selected(args)
    if not records:
        cli._say("the journal has no calls to evaluate")
        return 1
    base = Path(args.journal)
    json_path = Path(args.json) if args.json else base.with_suffix(".eval.json")
    html_path = Path(args.html) if args.html else base.with_suffix(".eval.html")
    judge_model = None
    if args.judge_url:
        judge_model = OpenAICompatibleModel(
            EndpointSettings(
                base_urls=[args.judge_url], api_key=args.judge_api_key, model=args.judge_model
            )
        )
    predictions = Journal(args.predictions)
    cache = cli._cache(args)
    try:
        async with cli._launched_model(args, cli._say) as model:
            simulator = Simulator(
                world,
                model,
                sessions=SessionStore(world, idle_timeout=None),
                journal=predictions,
                sampling=cli._sampling(args),
                default_sampling=cli._default_sampling(args),
                options=cli._options(args),
                cache=cache,
            )
            judge = None
            if judge_model is not None:
                sampling = Sampling(temperature=0.6, max_tokens=args.judge_max_tokens)
                judge = Judge(judge_model, JudgeSettings(sampling, args.judge_structured))
            report = await evaluate(
                simulator,
                records,
                journal=str(args.journal),
                judge=judge,
                judge_model=(args.judge_model or args.judge_url) if judge else None,
                progress=cli._say,
            )
    finally:
        predictions.close()
        if cache is not None:
            cache.close()
        if judge_model is not None:
            await judge_model.aclose()
    print(table(report))
    json_path.write_text(
        json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    html_path.write_text(render_html(report), encoding="utf-8")
    cli._say(f"wrote {json_path} and {html_path}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from mcp_sim.fidelity.trajectory_export import export_rows, write_rows

    world = cli._load(args.world)
    try:
        records = read_journal(args.journal)
    except (OSError, ValueError) as exc:
        raise SimError(f"cannot read the journal {args.journal}: {exc}") from None
    count = write_rows(export_rows(world, records, args.format, args.source), args.output)
    print(f"wrote {count} rows to {args.output}", file=sys.stderr)
    return 0
