"""The worlds a harness opened in process, and the episodes it runs on them.

:class:`Worlds` is what ``mcp-sim serve`` serves too: the server and the CLI build theirs
from their simulators (:meth:`Worlds.__init__`) and put it behind HTTP; a harness opens one
from world files and a model (:meth:`Worlds.open`) and calls it directly::

    async with await Worlds.open("worlds/shop.yaml", model="http://gpu:8000/v1") as worlds:
        episode = await worlds.episode(task="tent-for-ola", seed=7)
        result = await episode.call("list_orders", {})
        print(result.text, (await episode.verify()).reward)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from types import TracebackType
from typing import Self

from mcp_sim.api.episode import Episode
from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.errors import SimError
from mcp_sim.models.base import Sampling, WorldModel
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
from mcp_sim.runtime.snapshot import Snapshot
from mcp_sim.simulator.core import SamplingOverrides, SimOptions, Simulator
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.world import World

WorldSource = str | Path | World
"""A world file's path, or a loaded :class:`~mcp_sim.spec.world.World`."""

ModelSource = WorldModel | str | Sequence[str] | None
"""A world model: one already built (any :class:`~mcp_sim.models.base.WorldModel`, such as a
test double), the base URL of an OpenAI-compatible server (``http://gpu:8000/v1``), several
replicas' URLs, or ``None`` (calls that need a model become error results)."""


class Worlds:
    """Several worlds, each with its simulator, and their episodes (an
    :class:`~mcp_sim.episodes.hub.EpisodeHub`). Close it, or use it as an async context
    manager, to close the model client it opened."""

    def __init__(self, simulators: Mapping[str, Simulator] | EpisodeHub) -> None:
        """Worlds over ready simulators (world id → simulator), or over the hub of their
        episodes; the caller owns the simulators."""
        self.hub = simulators if isinstance(simulators, EpisodeHub) else EpisodeHub(simulators)
        self._resources = AsyncExitStack()

    @classmethod
    async def open(
        cls,
        *worlds: WorldSource,
        model: ModelSource = None,
        api_key: str | None = None,
        model_name: str | None = None,
        seed: int | None = None,
        sampling: SamplingOverrides | None = None,
        default_sampling: Sampling | None = None,
        options: SimOptions | None = None,
    ) -> Self:
        """Open ``worlds`` (files or loaded worlds, different ``world:`` ids) answered by
        ``model``. ``seed`` is the base of every episode's seed; ``sampling`` and ``options``
        are what ``serve``'s sampling and prompt flags set. A world file's problems raise
        :class:`mcp_sim.errors.SpecError`, one ``FILE:LINE:COL`` line each."""
        if not worlds:
            raise ValueError("open at least one world")
        loaded = [w if isinstance(w, World) else load_world(w) for w in worlds]
        names = [w.world for w in loaded]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise SimError(f"worlds need different ids; given twice: {', '.join(twice)}")
        stack = AsyncExitStack()
        world_model = _world_model(model, api_key=api_key, model_name=model_name)
        if world_model is not None and not _is_model(model):
            stack.push_async_callback(world_model.aclose)
        overrides = sampling or SamplingOverrides()
        if seed is not None:
            overrides = SamplingOverrides(**{**vars(overrides), "seed": seed})
        simulators = {
            w.world: Simulator(
                w,
                world_model,
                sampling=overrides,
                options=options,
                default_sampling=default_sampling,
            )
            for w in loaded
        }
        opened = cls(simulators)
        opened._resources = stack
        return opened

    async def aclose(self) -> None:
        """Close what :meth:`open` opened (the model client of a URL)."""
        await self._resources.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    # --- worlds -----------------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        """The worlds' ids, in the order they were opened."""
        return list(self.hub.simulators)

    def world(self, name: str | None = None) -> World:
        """The world ``name`` (default: the only one)."""
        return self.simulator(name).world

    def simulator(self, name: str | None = None) -> Simulator:
        chosen = name or self.hub.default_world
        if chosen is None:
            raise ValueError(f"name a world: {', '.join(self.names)}")
        return self.hub.simulator(chosen)

    # --- episodes ---------------------------------------------------------------------------

    async def episode(
        self,
        world: str | None = None,
        *,
        seed: int | None = None,
        snapshot: Snapshot | None = None,
        task: str | None = None,
        episode_id: str | None = None,
    ) -> Episode:
        """A new episode of ``world`` (default: the only one) at its start, or continuing
        from ``snapshot``, scored on ``task`` by default. Ids are random unless given."""
        created = await self.hub.create(world, episode_id, seed=seed, snapshot=snapshot, task=task)
        return Episode(self.hub, created.id)

    def get(self, episode_id: str) -> Episode:
        """The live episode ``episode_id``; raises :class:`mcp_sim.errors.UnknownSession`."""
        return Episode(self.hub, episode_id)

    def episodes(self) -> list[Episode]:
        """The live episodes."""
        return [Episode(self.hub, summary["id"]) for summary in self.hub.listing()]


def _is_model(model: ModelSource) -> bool:
    return model is not None and not isinstance(model, str | Sequence)


def _world_model(
    model: ModelSource, *, api_key: str | None, model_name: str | None
) -> WorldModel | None:
    if model is None:
        return None
    if isinstance(model, str):
        urls = [model]
    elif isinstance(model, Sequence):
        urls = list(model)
    else:
        return model
    if not urls:
        raise ValueError("give at least one model URL")
    return OpenAICompatibleModel(
        EndpointSettings(base_urls=urls, api_key=api_key, model=model_name)
    )
