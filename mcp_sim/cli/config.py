"""The typed configuration of every command: frozen dataclasses read once from the parsed
flags (``from_args``), so that a command's work sees named, typed values and never the
argparse namespace.

The options several commands share (the world model, sampling, state and prompt,
perturbations) have one type each; a command's configuration holds them beside its own.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp_sim.cli.console import UsageError
from mcp_sim.cli.example_worlds import NO_WORLD, example_path, world_or_example

if TYPE_CHECKING:
    from mcp_sim.fidelity.trajectory_export import ExportFormat
    from mcp_sim.journal import Source
    from mcp_sim.spec.world import Domain


# --- shared options -------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelConfig:
    """Which world model answers, and how it is reached."""

    urls: tuple[str, ...] = ()
    """OpenAI-compatible base URLs (``--model-url`` and ``--model-urls-file``)."""
    model: str | None = None
    api_key: str | None = None
    vllm: str | None = None
    """A model for a vLLM that mcp-sim launches itself."""
    vllm_args: tuple[str, ...] = ()
    timeout: float = 600.0
    retries: int = 2
    max_concurrency: int = 1024
    cache: Path | None = None

    @property
    def embedded(self) -> bool:
        """No endpoint and no vLLM given: the embedded tiny model answers."""
        return not self.urls and not self.vllm

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ModelConfig:
        return cls(
            urls=(*args.model_url, *(args.model_urls_file or ())),
            model=args.model,
            api_key=args.api_key,
            vllm=args.vllm,
            vllm_args=tuple(args.vllm_arg),
            timeout=args.timeout,
            retries=args.retries,
            max_concurrency=args.max_concurrency,
            cache=args.cache,
        )


@dataclass(frozen=True)
class SamplingConfig:
    """Sampling values given on the command line; ``None`` leaves the world's or the default."""

    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    max_tokens: int | None = None
    thinking: bool | None = None
    seed: int | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> SamplingConfig:
        return cls(
            temperature=args.temperature,
            top_p=args.top_p,
            top_k=args.top_k,
            max_tokens=args.max_tokens,
            thinking=False if args.no_thinking else None,
            seed=args.seed,
        )


@dataclass(frozen=True)
class PromptConfig:
    """How state and history are kept and shown; ``None`` leaves the default for the model."""

    journal_timing: bool = False
    history_budget: int | None = None
    keep_turns: int | None = None
    state_budget: int | None = None
    turn_budget: int | None = None
    context_window: int | None = None
    model_seeds: bool | None = None
    bounded_output: bool | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> PromptConfig:
        return cls(
            journal_timing=args.journal_timing,
            history_budget=args.history_budget,
            keep_turns=args.keep_turns,
            state_budget=args.state_budget,
            turn_budget=args.turn_budget,
            context_window=args.context_window,
            model_seeds=args.model_seeds,
            bounded_output=args.bounded_output,
        )


@dataclass(frozen=True)
class SimulationConfig:
    """Everything the commands that simulate (serve, call, eval, world new) share."""

    model: ModelConfig = ModelConfig()
    sampling: SamplingConfig = SamplingConfig()
    prompt: PromptConfig = PromptConfig()

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> SimulationConfig:
        return cls(
            ModelConfig.from_args(args),
            SamplingConfig.from_args(args),
            PromptConfig.from_args(args),
        )


@dataclass(frozen=True)
class PerturbConfig:
    """The perturbation profiles switched on, and the seed of their decisions."""

    profiles: tuple[str, ...] = ()
    seed: int | None = None
    """``--perturb-seed``, else ``--seed``."""

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> PerturbConfig:
        seed = args.perturb_seed if args.perturb_seed is not None else args.seed
        return cls(tuple(args.perturb), seed)


# --- serve, call -----------------------------------------------------------------------------


@dataclass(frozen=True)
class CallConfig:
    world: Path
    tool: str
    arguments: dict[str, Any]
    simulation: SimulationConfig
    perturb: PerturbConfig
    show_reasoning: bool = False
    journal: Path | None = None
    world_memory: Path | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> CallConfig:
        world = world_or_example(
            args.world,
            args.example,
            missing="give a world file and a tool, or --example NAME and a tool",
        )
        return cls(
            world=world,
            tool=args.tool,
            arguments=args.args if args.args is not None else {},
            simulation=SimulationConfig.from_args(args),
            perturb=PerturbConfig.from_args(args),
            show_reasoning=args.show_reasoning,
            journal=args.journal,
            world_memory=args.world_memory,
        )


# --- world files -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ValidateConfig:
    files: tuple[str, ...]

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ValidateConfig:
        files = (*args.files, *(str(example_path(name)) for name in args.example))
        if not files:
            raise UsageError("FILE", NO_WORLD)
        return cls(files)


@dataclass(frozen=True)
class SchemaConfig:
    output: Path | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> SchemaConfig:
        return cls(args.output)


@dataclass(frozen=True)
class ListingConfig:
    """``perturbations [WORLD]`` and ``report JOURNAL``: a file to read, and JSON or a table."""

    path: str | None
    as_json: bool = False

    @classmethod
    def of_world(cls, args: argparse.Namespace) -> ListingConfig:
        # Without a world, the built-in profiles alone are listed.
        if args.world is None and args.example is None:
            return cls(None, args.json)
        return cls(str(world_or_example(args.world, args.example)), args.json)

    @classmethod
    def of_journal(cls, args: argparse.Namespace) -> ListingConfig:
        return cls(args.journal, args.json)


@dataclass(frozen=True)
class NewWorldConfig:
    description: str
    domain: Domain
    output: Path
    force: bool
    simulation: SimulationConfig

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> NewWorldConfig:
        return cls(
            description=args.description,
            domain=args.domain,
            output=args.output,
            force=args.force,
            simulation=SimulationConfig.from_args(args),
        )


@dataclass(frozen=True)
class ExportWorldConfig:
    world: Path
    world_memory: Path
    output: Path | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ExportWorldConfig:
        return cls(world_or_example(args.world, args.example), args.world_memory, args.output)


# --- real tools: import, record, eval, export ---------------------------------------------------


@dataclass(frozen=True)
class UpstreamConfig:
    """A real MCP server: the command that starts it over stdio, or its streamable HTTP URL."""

    command: tuple[str, ...] = ()
    url: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    headers: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_args(cls, args: argparse.Namespace, *, required: bool = True) -> UpstreamConfig:
        found = cls(tuple(args.server_command), args.url, tuple(args.env), tuple(args.header))
        if required and bool(found.command) == bool(found.url):
            raise UsageError(
                "--url", "give the server's command (after --) or its --url: one of the two"
            )
        return found


@dataclass(frozen=True)
class ImportConfig:
    output: Path
    upstream: UpstreamConfig
    openapi: Path | None = None
    world: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ImportConfig:
        if args.openapi and (args.server_command or args.url):
            raise UsageError("--openapi", "give --openapi, --url or a command, not several")
        upstream = UpstreamConfig.from_args(args, required=not args.openapi)
        return cls(args.output, upstream, args.openapi, args.world)


@dataclass(frozen=True)
class RecordConfig:
    journal: Path
    upstream: UpstreamConfig
    http: tuple[str, int] | None = None
    world_out: Path | None = None
    journal_timing: bool = False

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> RecordConfig:
        upstream = UpstreamConfig.from_args(args)
        return cls(args.journal, upstream, args.http, args.world_out, args.journal_timing)


@dataclass(frozen=True)
class JudgeConfig:
    url: str | None = None
    model: str | None = None
    api_key: str | None = None
    max_tokens: int = 32768
    structured: bool = False

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> JudgeConfig:
        return cls(
            args.judge_url,
            args.judge_model,
            args.judge_api_key,
            args.judge_max_tokens,
            args.judge_structured,
        )


@dataclass(frozen=True)
class EvalConfig:
    journal: Path
    world: Path
    simulation: SimulationConfig
    judge: JudgeConfig
    json: Path | None = None
    html: Path | None = None
    predictions: Path | None = None
    sessions: tuple[str, ...] = ()
    max_calls: int | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> EvalConfig:
        return cls(
            journal=args.journal,
            world=world_or_example(args.world, args.example, flag="--world"),
            simulation=SimulationConfig.from_args(args),
            judge=JudgeConfig.from_args(args),
            json=args.json,
            html=args.html,
            predictions=args.predictions,
            sessions=tuple(args.session),
            max_calls=args.max_calls,
        )


@dataclass(frozen=True)
class ExportConfig:
    journal: Path
    world: Path
    format: ExportFormat
    output: Path
    sources: tuple[Source, ...] = ()
    simulation: SimulationConfig = SimulationConfig()
    """The options ``serve`` ran with: the prompts are rebuilt as it built them."""

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ExportConfig:
        world = world_or_example(args.world, args.example, flag="--world")
        simulation = SimulationConfig.from_args(args)
        return cls(args.journal, world, args.format, args.output, (*args.source,), simulation)


# --- engine ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class EngineConfig:
    """The engine commands take no options."""

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> EngineConfig:
        return cls()
