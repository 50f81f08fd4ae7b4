"""The one place that turns settings into a running system: worlds loaded, the world model
(launched lazily, or the one given), a simulator per world with its journal, answer cache,
world memory, replay and perturbations, and the episode hub over them with its store.

``mcp-sim serve``, ``call``, ``ui``, ``eval`` and ``export`` and :meth:`mcp_sim.api.Worlds.open`
all build through :func:`assemble`, so a Python user gets what ``serve`` has, by the same
names (:class:`~mcp_sim.settings.Settings`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AsyncExitStack, ExitStack
from dataclasses import dataclass
from pathlib import Path

from mcp_sim.api.lazy_worlds import LazyWorlds
from mcp_sim.api.model_launch import LaunchingModel
from mcp_sim.episodes.durable import DurableEpisodes
from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.episodes.limits import EpisodeLimits
from mcp_sim.episodes.store_opening import open_store
from mcp_sim.errors import SettingsError, SimError
from mcp_sim.journal import Journal
from mcp_sim.models.base import Sampling, WorldModel
from mcp_sim.models.context_window import served_context_window
from mcp_sim.models.replay import Replay
from mcp_sim.perturb.planner import Perturber, UnknownProfile, profiles_for
from mcp_sim.runtime.session import SessionStore
from mcp_sim.settings.combined import Settings
from mcp_sim.settings.model import default_sampling
from mcp_sim.simulator.answer_cache import AnswerCache
from mcp_sim.simulator.context import CallTrace
from mcp_sim.simulator.core import Simulator
from mcp_sim.simulator.metrics import Metrics
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.world import World
from mcp_sim.web.world_memory import WorldMemory

WorldSource = str | Path | World
"""A world file's path, or a loaded :class:`~mcp_sim.spec.world.World`."""

Watch = Callable[[str], Callable[[CallTrace], None]]
"""Given a world's id, what watches its simulator's calls (``mcp-sim ui`` keeps traces)."""


def _quiet(message: str) -> None:
    """Where a library user's system reports what it does: nowhere."""


@dataclass(frozen=True)
class Resolved:
    """Settings as they apply to the model that answers: the embedded model's prompt
    defaults where it answers and none was given, and what it samples by default."""

    settings: Settings
    default_sampling: Sampling | None

    @classmethod
    def of(cls, settings: Settings, *, model_given: bool = False) -> Resolved:
        if model_given:
            return cls(settings, None)
        return cls(settings.for_model(), default_sampling(settings.model))


@dataclass
class System:
    """What :func:`assemble` built: the hub of the worlds' episodes and the model their
    simulators share."""

    hub: EpisodeHub
    model: WorldModel | None


def load_worlds(sources: Sequence[WorldSource]) -> list[World]:
    """The worlds, loaded; two with one ``world:`` id is an error. A file's problems raise
    :class:`mcp_sim.errors.SpecError`, one ``FILE:LINE:COL`` line each."""
    if not sources:
        raise SimError("open at least one world")
    loaded = [w if isinstance(w, World) else load_world(w) for w in sources]
    seen: dict[str, str] = {}
    for world, source in zip(loaded, sources, strict=True):
        where = str(source) if not isinstance(source, World) else world.world
        if world.world in seen:
            raise SimError(
                f"{where} and {seen[world.world]} are both world {world.world!r}: a server's "
                "worlds need different ids (the world: field)"
            )
        seen[world.world] = where
    return loaded


async def with_served_window(settings: Settings, say: Callable[[str], None]) -> Settings:
    """``settings`` with the context window the model server reports (vLLM's
    ``max_model_len``), when none was given and the model is a server at ``--model-url`` (or
    in ``--model-urls-file``)."""
    urls = settings.model.base_urls()
    if settings.prompt.context_window is not None or not urls:
        return settings
    window = await served_context_window(
        urls[0], model=settings.model.model, api_key=settings.model.api_key
    )
    if window is None:
        return settings
    say(f"the model's context window is {window} tokens (its server's max_model_len)")
    prompt = settings.prompt.model_copy(update={"context_window": window})
    return settings.model_copy(update={"prompt": prompt})


def perturber(settings: Settings, world: World, say: Callable[[str], None]) -> Perturber:
    """The perturbations switched on for ``world``; an unknown profile is a settings error."""
    seed = settings.perturb.perturb_seed
    seed = seed if seed is not None else settings.sampling.seed
    try:
        chosen = Perturber(profiles_for(world.perturbations), settings.perturb.profiles, seed=seed)
    except UnknownProfile as exc:
        raise SettingsError("--perturb", str(exc)) from None
    if chosen.active:
        how = "" if seed is not None else f"; pass --perturb-seed {chosen.seed} to reproduce"
        say(f"perturbations on: {', '.join(chosen.active)} (seed {chosen.seed}{how})")
    return chosen


async def assemble(
    stack: AsyncExitStack,
    sources: Sequence[WorldSource],
    settings: Settings,
    *,
    model: WorldModel | None = None,
    watch: Watch | None = None,
    say: Callable[[str], None] = _quiet,
) -> System:
    """Everything ``settings`` ask for over the worlds ``sources``, closed by ``stack``. The
    model is ``model`` if given, else the one the settings name, started when a call first
    needs it (start it at once with :meth:`LaunchingModel.start`)."""
    worlds = load_worlds(sources)
    _check_single_world_settings(settings, worlds)
    if model is None:
        settings = await with_served_window(settings, say)
    resolved = Resolved.of(settings, model_given=model is not None)
    if model is None:
        launching = LaunchingModel(resolved.settings.model, say)
        stack.push_async_callback(launching.aclose)
        model = launching
    durable = _durable_episodes(stack, settings, say)
    parts = _Parts(resolved, model, Metrics(), watch, durable, say)
    simulators = {world.world: parts.simulator(stack, world) for world in worlds}
    hub = EpisodeHub(simulators, durable=durable, limits=_episode_limits(settings))
    return System(hub, model)


async def assemble_lazily(
    stack: AsyncExitStack,
    files: Mapping[str, Path],
    settings: Settings,
    *,
    model: WorldModel | None = None,
    say: Callable[[str], None] = _quiet,
) -> System:
    """As :func:`assemble`, over world files by id that are loaded on their first episode
    (:class:`~mcp_sim.api.lazy_worlds.LazyWorlds`) and unloaded by ``hub.unload_idle``.
    With a durable store, an episode another worker made (or one of a world unloaded here)
    loads its world when it is first called here, so every worker serves every episode."""
    if not files:
        raise SimError("open at least one world")
    resolved = Resolved.of(settings, model_given=model is not None)
    if model is None:
        launching = LaunchingModel(resolved.settings.model, say)
        stack.push_async_callback(launching.aclose)
        model = launching
    durable = _durable_episodes(stack, settings, say)
    parts = _Parts(resolved, model, Metrics(), None, durable, say)
    loader = LazyWorlds(files, parts.simulator)
    stack.callback(loader.close)
    limits = _episode_limits(settings)
    return System(EpisodeHub({}, durable=durable, loader=loader, limits=limits), model)


def _durable_episodes(
    stack: AsyncExitStack, settings: Settings, say: Callable[[str], None]
) -> DurableEpisodes | None:
    """The durable side of the episodes, over the store the settings name (none: memory)."""
    episodes = settings.episodes
    store = open_store(
        episodes.episode_store,
        idle_seconds=episodes.session_idle_timeout,
        timeout=episodes.episode_store_timeout,
    )
    if store is None:
        return None
    stack.push_async_callback(store.close)
    say(f"episodes are kept in {store.url}")
    return DurableEpisodes(store, lease_seconds=episodes.episode_lease)


def _episode_limits(settings: Settings) -> EpisodeLimits:
    """The caps on a hub's episodes, from the episode settings (suites' hubs too)."""
    episodes = settings.episodes
    return EpisodeLimits(
        max_episodes=episodes.max_episodes,
        max_world_episodes=episodes.max_world_episodes,
        max_snapshot_values=episodes.max_snapshot_values,
    )


def _check_single_world_settings(settings: Settings, worlds: list[World]) -> None:
    if len(worlds) > 1:
        for name in ("replay", "world_memory"):
            if getattr(settings.records, name) is not None:
                raise SettingsError(
                    f"--{name.replace('_', '-')}", "applies to one world; serve that world alone"
                )
    memory = settings.records.world_memory
    if memory is not None and worlds[0].web() is None:
        # Known only once the world is read: the command fails (exit 1), as any world's would.
        raise SimError(
            f"--world-memory keeps the pages of a world's web, and {worlds[0].world} has none "
            "(it needs a search: section, or domain search with web_search and open_page)"
        )


@dataclass(frozen=True)
class _Parts:
    """What every world's simulator shares: the settings, the model, metrics, the watcher, the
    durable store."""

    resolved: Resolved
    model: WorldModel
    metrics: Metrics
    watch: Watch | None
    durable: DurableEpisodes | None
    say: Callable[[str], None]

    def simulator(self, stack: AsyncExitStack | ExitStack, world: World) -> Simulator:
        settings = self.resolved.settings
        records = settings.records
        journal = Journal(records.journal)
        stack.callback(journal.close)
        cache = None
        if records.cache is not None:
            cache = AnswerCache(records.cache, settings.model.identity())
            stack.callback(cache.close)
        memory = None
        if records.world_memory is not None:
            memory = WorldMemory(world.world, records.world_memory)
            stack.callback(memory.close)
        # A stdio process is one session for as long as its host keeps it open.
        serving = settings.server.http is not None
        idle = settings.episodes.session_idle_timeout if serving else None
        name = world.world
        try:
            return Simulator(
                world,
                self.model,
                settings=settings,
                default_sampling=self.resolved.default_sampling,
                sessions=SessionStore(world, idle_timeout=idle, on_expire=journal.forget),
                journal=journal,
                perturber=perturber(settings, world, self.say),
                cache=cache,
                replay=Replay.load(records.replay) if records.replay is not None else None,
                memory=memory,
                metrics=self.metrics,
                watchers=[self.watch(name)] if self.watch is not None else (),
                write_through=self.durable.write_through(name) if self.durable else None,
            )
        except ValueError as exc:  # budgets that cannot fit the model's context window
            raise SimError(str(exc)) from None
