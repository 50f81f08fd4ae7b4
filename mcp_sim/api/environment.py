"""The base of the TRL environment classes ``mcp-sim harness trl`` writes: one episode per
instance, over a :class:`~mcp_sim.api.blocking.BlockingWorlds` shared in the process.

TRL's ``GRPOTrainer(environment_factory=...)`` makes one instance per rollout, calls
``reset(**row)`` with the dataset row before each, offers every public method but ``reset``
and ``get_reward`` to the model as a tool, and calls ``get_reward()`` once the rollout is over.
So this base has no public method but those two: the generated class adds one typed method per
tool of the world.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mcp_sim.api.blocking import BlockingWorlds, shared_worlds
from mcp_sim.api.episode import Episode


class EpisodeEnvironment:
    """One rollout's episode of ``world_file``, answered by the model at ``model_url``."""

    world_file: ClassVar[str]
    model_url: ClassVar[str | None] = None

    def __init__(self) -> None:
        self._worlds: BlockingWorlds = shared_worlds(self.world_file, self.model_url)
        self._episode: Episode | None = None

    def reset(self, **row: Any) -> str | None:
        """Start a new episode (ending the last one). The row's ``task`` names the verify task
        it is scored on and its ``seed`` the episode's seed; other keys are ignored. Returns
        the task's description, which TRL appends to the prompt."""
        task, seed = row.get("task"), row.get("seed")
        if self._episode is not None:
            self._worlds.run(self._episode.close())
        self._episode = self._worlds.run(
            self._worlds.worlds.episode(
                task=task if isinstance(task, str) else None,
                seed=seed if isinstance(seed, int) else None,
            )
        )
        if self._episode.task is None:
            return None
        description = self._episode.world.verify[self._episode.task].description
        return description or None

    def get_reward(self) -> float:
        """The verdict's reward (0..1) on the episode's task."""
        verdict = self._worlds.run(self._started().verify())
        return verdict.reward

    def _started(self) -> Episode:
        if self._episode is None:
            self.reset()
        assert self._episode is not None
        return self._episode

    def _call(self, tool: str, arguments: dict[str, Any]) -> str:
        """Call ``tool`` with the arguments given (``None`` ones left out); the observation's
        text, an error's included, is what the model reads."""
        given = {name: value for name, value in arguments.items() if value is not None}
        return self._worlds.run(self._started().call(tool, given)).text
