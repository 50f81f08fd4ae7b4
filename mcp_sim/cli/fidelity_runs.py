"""The work of ``import``, ``record``, ``eval`` and ``export``: a world from a real server or an
OpenAPI document, a recording of real calls, the simulator scored against it, and the
recording as training rows."""

from __future__ import annotations

import json
import sys
from contextlib import AsyncExitStack
from pathlib import Path

import anyio

from mcp_sim.api.assembly import Resolved
from mcp_sim.api.worlds import Worlds
from mcp_sim.authoring.mcp_import import Upstream, import_server, write_text
from mcp_sim.authoring.openapi_import import import_openapi
from mcp_sim.cli.console import say
from mcp_sim.cli.fidelity_config import (
    EvalConfig,
    ExportConfig,
    ImportConfig,
    JudgeConfig,
    RecordConfig,
    UpstreamConfig,
)
from mcp_sim.errors import SimError
from mcp_sim.fidelity.eval_report import render_html, table
from mcp_sim.fidelity.evaluate import evaluate
from mcp_sim.fidelity.judge import Judge, JudgeSettings
from mcp_sim.fidelity.trajectory_export import export_rows, write_rows
from mcp_sim.fidelity.upstream_recorder import record
from mcp_sim.journal import Journal, JournalRecord, read_journal
from mcp_sim.models.base import Sampling
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
from mcp_sim.spec.loading import load_world


def _upstream(config: UpstreamConfig) -> Upstream:
    return Upstream(
        command=list(config.server_command),
        url=config.url,
        env=dict(config.env),
        headers=dict(config.header),
    )


def import_world(config: ImportConfig) -> int:
    if config.openapi is not None:
        text = import_openapi(config.openapi, world=config.world)
    else:
        upstream = _upstream(config.upstream)
        text = anyio.run(lambda: import_server(upstream, world=config.world))
    write_text(config.output, text)
    say(f"wrote {config.output}")
    return 0


def record_real_calls(config: RecordConfig) -> int:
    upstream = _upstream(config.upstream)
    journal = Journal(config.journal)
    try:
        anyio.run(
            lambda: record(
                upstream,
                journal,
                http=config.http,
                timing=config.journal_timing,
                world_out=config.world_out,
                say=say,
            )
        )
    finally:
        journal.close()
    return 0


def _read(path: Path) -> list[JournalRecord]:
    try:
        return read_journal(path)
    except (OSError, ValueError) as exc:
        raise SimError(f"cannot read the journal {path}: {exc}") from None


def _selected(config: EvalConfig) -> list[JournalRecord]:
    records = _read(config.journal)
    if config.session:
        records = [r for r in records if r.session in config.session]
    if config.max_calls is not None:
        records = [r for r in records if r.source != "model_error"][: config.max_calls]
    return records


def evaluate_journal(config: EvalConfig) -> int:
    code: int = anyio.run(_evaluate, config)
    return code


async def _evaluate(config: EvalConfig) -> int:
    records = _selected(config)
    if not records:
        say("the journal has no calls to evaluate")
        return 1
    async with AsyncExitStack() as stack:
        worlds = await stack.enter_async_context(
            await Worlds.open(config.world, settings=config.simulation, say=say)
        )
        judge = _judge(stack, config.judge)
        report = await evaluate(
            worlds.simulator(),
            records,
            journal=str(config.journal),
            judge=judge,
            judge_model=(config.judge.model or config.judge.url) if judge else None,
            progress=say,
        )
    print(table(report))
    json_path = config.json or config.journal.with_suffix(".eval.json")
    html_path = config.html or config.journal.with_suffix(".eval.html")
    for path in (json_path, html_path):
        path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(
        json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    html_path.write_text(render_html(report), encoding="utf-8")
    say(f"wrote {json_path} and {html_path}")
    return 0


def _judge(stack: AsyncExitStack, config: JudgeConfig) -> Judge | None:
    """The LLM judge ``--judge-url`` names, closed by ``stack``; none without one."""
    if config.url is None:
        return None
    model = OpenAICompatibleModel(
        EndpointSettings(base_urls=[config.url], api_key=config.api_key, model=config.model)
    )
    stack.push_async_callback(model.aclose)
    sampling = Sampling(temperature=0.6, max_tokens=config.max_tokens)
    return Judge(model, JudgeSettings(sampling, config.structured))


def export_journal(config: ExportConfig) -> int:
    world = load_world(config.world)
    records = _read(config.journal)
    resolved = Resolved.of(config.settings)
    rows = export_rows(
        world,
        records,
        config.format,
        config.source,
        resolved.settings,
        default_sampling=resolved.default_sampling,
    )
    count = write_rows(rows, config.output)
    print(f"wrote {count} rows to {config.output}", file=sys.stderr)
    return 0
