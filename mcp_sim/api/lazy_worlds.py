"""Worlds loaded on their first episode and unloaded when idle, so that one process serves a
suite of thousands: a world's file is read, and its simulator built, only when an episode
names it (:class:`~mcp_sim.episodes.access.WorldLoader`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import ExitStack
from pathlib import Path

from mcp_sim.errors import SimError
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.world import World

BuildSimulator = Callable[[ExitStack, World], Simulator]
"""What builds a world's simulator, registering what closes with it on the stack."""


class LazyWorlds:
    """World files by id, each loaded when first named."""

    def __init__(self, files: Mapping[str, Path], build: BuildSimulator) -> None:
        self.files = dict(files)
        self.build = build
        self.loads = 0
        self._open: dict[str, ExitStack] = {}

    def known(self, world: str) -> bool:
        return world in self.files

    def load(self, world: str) -> Simulator:
        loaded = load_world(self.files[world])
        if loaded.world != world:
            raise SimError(f"{self.files[world]} is world {loaded.world!r}, not {world!r}")
        stack = ExitStack()
        simulator = self.build(stack, loaded)
        self._open[world] = stack
        self.loads += 1
        return simulator

    def unload(self, world: str) -> None:
        stack = self._open.pop(world, None)
        if stack is not None:
            stack.close()

    def close(self) -> None:
        for world in list(self._open):
            self.unload(world)
