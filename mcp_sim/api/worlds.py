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

from collections.abc import Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any, Self

from mcp_sim.api.assembly import Watch, WorldSource, assemble
from mcp_sim.api.episode import Episode
from mcp_sim.api.model_launch import LaunchingModel
from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.models.base import WorldModel
from mcp_sim.runtime.snapshot import Snapshot
from mcp_sim.settings.combined import Settings
from mcp_sim.settings.values import STUB_SCHEME
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World

__all__ = ["ModelSource", "WorldSource", "Worlds"]

ModelSource = WorldModel | str | Sequence[str] | None
"""A world model: one already built (any :class:`~mcp_sim.models.base.WorldModel`, such as a
test double), the base URL of an OpenAI-compatible server (``http://gpu:8000/v1``), several
replicas' URLs, ``stub:`` or ``stub:FILE`` (the stand-in model for wiring tests, see
:mod:`mcp_sim.models.stub`), another text (the model id to request, as ``--model``), or ``None`` (the model
the settings name: by default the embedded one, started when a call first needs it)."""


class Worlds:
    """Several worlds, each with its simulator, and their episodes (an
    :class:`~mcp_sim.episodes.hub.EpisodeHub`). Close it, or use it as an async context
    manager, to close what it opened (the model it launched, journals, caches, the store)."""

    def __init__(
        self,
        simulators: Mapping[str, Simulator] | EpisodeHub,
        *,
        model: WorldModel | None = None,
        resources: AsyncExitStack | None = None,
    ) -> None:
        """Worlds over ready simulators (world id → simulator), or over the hub of their
        episodes, answered by ``model``; closing them closes ``resources`` (the caller owns
        the simulators otherwise)."""
        self.hub = simulators if isinstance(simulators, EpisodeHub) else EpisodeHub(simulators)
        self.model = model
        self._resources = resources or AsyncExitStack()

    @classmethod
    async def open(
        cls,
        *worlds: WorldSource,
        settings: Settings | None = None,
        model: ModelSource = None,
        watch: Watch | None = None,
        say: Callable[[str], None] | None = None,
        **given: Any,
    ) -> Self:
        """Open ``worlds`` (files or loaded worlds, different ``world:`` ids) as ``mcp-sim
        serve`` would with the same settings: ``settings``, or the settings named in
        ``given`` by their flag's name (``journal="calls.jsonl"``, ``cache=...``,
        ``perturb=["flaky"]``, ``seed=7``, ``history_budget=3000``, ``episode_store=...``;
        see :class:`~mcp_sim.settings.Settings`), answered by ``model`` (see
        :data:`ModelSource`). ``watch`` gives each world's simulator a watcher of its calls;
        ``say`` is told what is being started. A world file's problems raise
        :class:`mcp_sim.errors.SpecError`, one ``FILE:LINE:COL`` line each; a bad setting
        :class:`mcp_sim.errors.SettingsError`."""
        built: WorldModel | None = None
        if isinstance(model, str) and not model.startswith(("http://", "https://", STUB_SCHEME)):
            given["model"] = model
        elif isinstance(model, str):
            given["model_url"] = [model]
        elif isinstance(model, Sequence):
            given["model_url"] = list(model)
        else:
            built = model
        chosen = (settings or Settings()).updated(**given) if given else settings or Settings()
        stack = AsyncExitStack()
        try:
            system = await assemble(
                stack, worlds, chosen, model=built, watch=watch, say=say or _quiet
            )
        except BaseException:
            await stack.aclose()
            raise
        return cls(system.hub, model=system.model, resources=stack)

    async def start_model(self) -> None:
        """Start the model now rather than at the first call that needs it (``serve`` does,
        so that the first call does not wait for the engine to load)."""
        if isinstance(self.model, LaunchingModel):
            await self.model.start()

    async def aclose(self) -> None:
        """Close what :meth:`open` opened."""
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


def _quiet(message: str) -> None:
    """A library user's worlds say nothing unless asked to."""
