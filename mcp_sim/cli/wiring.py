"""From a command's typed configuration to working parts: the world, the world model (launched
when mcp-sim runs it), and a ``Simulator`` with its journal, cache and memory, each closed by
the ``AsyncExitStack`` the command opened.

The commands that simulate (``serve``, ``call``, ``eval``, ``world new``) import this module
when they run, not when the command line is parsed: it pulls in the simulator and the model
clients.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import replace
from pathlib import Path

import anyio.to_thread

from mcp_sim.cli.config import ModelConfig, PerturbConfig, SamplingConfig, SimulationConfig
from mcp_sim.cli.console import say
from mcp_sim.engine.background import running_engine
from mcp_sim.engine.paths import EMBEDDED_MODEL_NAME
from mcp_sim.engine.vllm_server import VLLMServer
from mcp_sim.errors import SpecError
from mcp_sim.journal import Journal
from mcp_sim.models.base import Sampling, WorldModel
from mcp_sim.models.context_window import served_context_window
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
from mcp_sim.models.replay import Replay
from mcp_sim.perturb.planner import Perturber, UnknownProfile, profiles_for
from mcp_sim.prompting.bounds import OutputBounds
from mcp_sim.runtime.session import SessionStore
from mcp_sim.simulator.answer_cache import AnswerCache
from mcp_sim.simulator.core import SamplingOverrides, SimOptions, Simulator
from mcp_sim.simulator.metrics import Metrics
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.world import World
from mcp_sim.web.world_memory import WorldMemory

EMBEDDED_MAX_TOKENS = 512
EMBEDDED_OPTIONS = SimOptions(
    history_budget_tokens=3000,
    state_budget_tokens=2000,
    turn_budget_tokens=1000,
    context_tokens=8192,
    bounds=OutputBounds(),
    model_seeds=False,
)
"""The tiny embedded model has a small context window (8192 tokens) and does not think: smaller
budgets keep its prompts inside the window, and output bounds keep it from rambling."""


def load(path: str | Path) -> World:
    """The world at ``path``; its problems, one ``FILE:LINE:COL`` line each, end the command
    with status 1."""
    try:
        return load_world(path)
    except SpecError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        raise SystemExit(1) from None


def sim_options(config: SimulationConfig) -> SimOptions:
    """The simulator's options: the flags given, else the defaults for the model that answers."""
    embedded = config.model.embedded
    defaults = EMBEDDED_OPTIONS if embedded else SimOptions()
    prompt = config.prompt
    bounded = prompt.bounded_output if prompt.bounded_output is not None else embedded
    return replace(
        defaults,
        journal_timing=prompt.journal_timing,
        history_budget_tokens=prompt.history_budget or defaults.history_budget_tokens,
        keep_turns=prompt.keep_turns or defaults.keep_turns,
        state_budget_tokens=prompt.state_budget or defaults.state_budget_tokens,
        turn_budget_tokens=prompt.turn_budget or defaults.turn_budget_tokens,
        context_tokens=prompt.context_window or defaults.context_tokens,
        bounds=(defaults.bounds or OutputBounds()) if bounded else None,
        model_seeds=defaults.model_seeds if prompt.model_seeds is None else prompt.model_seeds,
    )


def sampling_overrides(config: SamplingConfig) -> SamplingOverrides:
    return SamplingOverrides(
        temperature=config.temperature,
        top_p=config.top_p,
        top_k=config.top_k,
        max_tokens=config.max_tokens,
        thinking=config.thinking,
        seed=config.seed,
    )


def default_sampling(model: ModelConfig) -> Sampling | None:
    """What the model is asked when neither the flags nor the world say otherwise."""
    return Sampling(max_tokens=EMBEDDED_MAX_TOKENS) if model.embedded else None


def model_identity(model: ModelConfig) -> str:
    """The model as configured, for cache keys (the served name is only known once asked)."""
    if model.model:
        return model.model
    if model.urls:
        return " ".join(sorted(u.rstrip("/") for u in model.urls))
    if model.vllm:
        return f"vllm:{model.vllm}"
    return f"embedded:{EMBEDDED_MODEL_NAME}"


def perturber(config: PerturbConfig, world: World) -> Perturber:
    """The perturbations switched on; an unknown profile ends the command with status 2."""
    try:
        chosen = Perturber(
            profiles_for(world.perturbations), ",".join(config.profiles), seed=config.seed
        )
    except UnknownProfile as exc:
        say(str(exc))
        raise SystemExit(2) from None
    if chosen.active:
        how = "" if config.seed is not None else f"; pass --perturb-seed {chosen.seed} to reproduce"
        say(f"perturbations on: {', '.join(chosen.active)} (seed {chosen.seed}{how})")
    return chosen


def world_memory(world: World, path: Path | None) -> WorldMemory | None:
    """The world memory ``--world-memory`` names; only a world with a web has one to keep."""
    if path is None:
        return None
    if world.web() is None:
        raise SystemExit(
            f"mcp-sim: --world-memory keeps the pages of a world's web, and {world.world} has "
            "none (it needs a search: section, or domain search with web_search and open_page)"
        )
    return WorldMemory(world.world, path)


def _endpoint(config: ModelConfig, base_urls: list[str]) -> OpenAICompatibleModel:
    return OpenAICompatibleModel(
        EndpointSettings(
            base_urls=base_urls,
            api_key=config.api_key,
            model=config.model,
            request_timeout=config.timeout,
            retries=config.retries,
            max_concurrency=config.max_concurrency,
        )
    )


@asynccontextmanager
async def launched_model(
    config: ModelConfig, progress: Callable[[str], None]
) -> AsyncIterator[WorldModel]:
    """The world model the options ask for, started (for --vllm and the embedded default) and
    stopped around the block; the embedded default is the background engine when one runs
    (``mcp-sim engine start``)."""
    async with AsyncExitStack() as stack:
        background = await anyio.to_thread.run_sync(running_engine) if config.embedded else None
        if config.urls:
            base_urls = list(config.urls)
        elif background is not None:
            progress(f"engine: using the running engine at {background.base_url}")
            base_urls = [background.base_url]
        else:
            launcher = (
                VLLMServer.gpu(config.vllm, extra_args=list(config.vllm_args), progress=progress)
                if config.vllm
                else VLLMServer.embedded(progress=progress)
            )
            base_urls = [(await stack.enter_async_context(launcher)).base_url]
        model = _endpoint(config, base_urls)
        stack.push_async_callback(model.aclose)
        yield model


async def with_served_window(config: SimulationConfig) -> SimulationConfig:
    """``config`` with the context window the model server reports (vLLM's ``max_model_len``),
    when ``--context-window`` was not given and the model is a server at ``--model-url``."""
    if config.prompt.context_window is not None or not config.model.urls:
        return config
    window = await served_context_window(
        config.model.urls[0], model=config.model.model, api_key=config.model.api_key
    )
    if window is None:
        return config
    say(f"the model's context window is {window} tokens (its server's max_model_len)")
    return replace(config, prompt=replace(config.prompt, context_window=window))


def open_simulator(
    stack: AsyncExitStack,
    world: World,
    config: SimulationConfig,
    *,
    model: WorldModel | None = None,
    journal: Path | None = None,
    perturbations: Perturber | None = None,
    replay: Path | None = None,
    memory: Path | None = None,
    idle_timeout: float | None = None,
    metrics: Metrics | None = None,
) -> Simulator:
    """A simulator of ``world`` as ``config`` says, whose journal, cache and memory ``stack``
    closes. Sessions idle for ``idle_timeout`` seconds are forgotten (``None``: never)."""
    written = Journal(journal)
    stack.callback(written.close)
    cache = None
    if config.model.cache is not None:
        cache = AnswerCache(config.model.cache, model_identity(config.model))
        stack.callback(cache.close)
    kept = world_memory(world, memory)
    if kept is not None:
        stack.callback(kept.close)
    try:
        return Simulator(
            world,
            model,
            sessions=SessionStore(world, idle_timeout=idle_timeout, on_expire=written.forget),
            journal=written,
            sampling=sampling_overrides(config.sampling),
            default_sampling=default_sampling(config.model),
            options=sim_options(config),
            perturber=perturbations,
            cache=cache,
            replay=Replay.load(replay) if replay is not None else None,
            memory=kept,
            metrics=metrics,
        )
    except ValueError as exc:  # budgets that cannot fit the model's context window
        raise SystemExit(f"mcp-sim: {exc}") from None
