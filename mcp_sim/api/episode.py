"""One episode of a world, in process: call its tools, read and branch it, score it.

An :class:`Episode` is a handle on an episode of the :class:`~mcp_sim.episodes.hub.EpisodeHub`
that :class:`mcp_sim.api.Worlds` holds, so it is the same episode a server would give a URL:
the same calls go through the same :class:`~mcp_sim.simulator.core.Simulator`, and the same
verdict scores it.
"""

from __future__ import annotations

from typing import Any

from mcp_sim.api.tool_results import ToolResult, episode_over
from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.journal import JournalRecord
from mcp_sim.models.base import ProgressCallback
from mcp_sim.runtime.snapshot import Snapshot
from mcp_sim.scoring.rubric import RubricJudge
from mcp_sim.scoring.trajectory_counts import TrajectoryUsage
from mcp_sim.scoring.verdict import Verdict
from mcp_sim.spec.world import ToolSpec, World


class Episode:
    """An episode of one world. Every method waits for the episode's call in flight, so a
    snapshot, a reset or a verdict never catches a call halfway."""

    def __init__(self, hub: EpisodeHub, episode_id: str) -> None:
        self._hub = hub
        self.id = episode_id
        episode = hub.entry(episode_id)
        self.world_id = episode.world
        self.token = episode.token
        """The episode's bearer token, for its URL when the same hub is served over HTTP."""

    def __repr__(self) -> str:
        return f"Episode({self.id!r}, world={self.world_id!r}, task={self.task!r})"

    @property
    def world(self) -> World:
        return self._hub.simulator(self.world_id).world

    @property
    def task(self) -> str | None:
        """The verify task the episode is scored on by default."""
        return self._hub.entry(self.id).task

    @property
    def parent(self) -> str | None:
        """The episode this one was forked from."""
        return self._hub.entry(self.id).parent

    @property
    def tools(self) -> list[ToolSpec]:
        """The world's tools, as they are advertised over MCP."""
        return list(self.world.tools)

    @property
    def steps(self) -> int:
        """How many calls the episode has made (a fork counts its parent's)."""
        return self._hub.held(self.id).session.steps

    @property
    def seed(self) -> int:
        return self._hub.held(self.id).session.seed

    @property
    def done(self) -> bool:
        """Whether the world's ``episode`` rules say the episode is over."""
        return episode_over(self.world.episode, self.steps, self.journal())

    async def call(
        self,
        tool: str,
        arguments: dict[str, Any] | None = None,
        *,
        progress: ProgressCallback | None = None,
    ) -> ToolResult:
        """Call ``tool`` with ``arguments``. Arguments that fail the tool's input schema and
        model failures are error results, as over MCP; an unknown tool raises
        :class:`mcp_sim.simulator.core.UnknownTool`. ``progress`` is told how the model's
        answer comes along (tokens so far, a short message)."""
        simulator = self._hub.simulator(self.world_id)
        result = await simulator.call(self.id, tool, arguments, progress)
        return ToolResult.of(tool, result, done=self.done)

    async def state(self) -> dict[str, Any]:
        """The episode's world state (a copy)."""
        snapshot = await self._hub.state(self.id)
        state: dict[str, Any] = snapshot["state"]
        return state

    async def version(self) -> int:
        """The episode's state version (0 at the start, one more per committed change)."""
        version: int = (await self._hub.state(self.id))["version"]
        return version

    def journal(self) -> list[JournalRecord]:
        """The episode's calls in step order (a fork's start with its parent's)."""
        return self._hub.journal(self.id)

    def summary(self) -> dict[str, Any]:
        """What a server's ``GET /episodes/{id}`` says about the episode."""
        return self._hub.detail(self._hub.entry(self.id))

    def usage(self) -> TrajectoryUsage:
        """The episode's calls so far (a fork's with its parent's): ``valid`` (no model error
        or timeout yet), the counts of calls, model errors, timeouts and injected faults, and
        the world model's tokens and seconds."""
        return self._hub.scoring.usage(self.id)

    async def reset(self, *, seed: int | None = None) -> None:
        """Back to the world's start: state, history and clock; the same seed unless given."""
        await self._hub.reset(self.id, seed=seed)

    async def snapshot(self) -> Snapshot:
        """The episode as a snapshot document, to continue it later with
        :meth:`mcp_sim.api.Worlds.episode` ``(snapshot=...)``."""
        return await self._hub.snapshot(self.id)

    async def fork(self, *, seed: int | None = None, episode_id: str | None = None) -> Episode:
        """A new, independent episode from this one's present: the same state and history and,
        without ``seed``, the same randomness. Its verdict counts this one's calls too."""
        forked = await self._hub.fork(self.id, episode_id, seed=seed)
        return Episode(self._hub, forked.id)

    async def verify(self, task: str | None = None, judge: RubricJudge | None = None) -> Verdict:
        """The episode's verdict on ``task`` (default: its own task, or the world's only one);
        ``verdict.reward`` is in 0..1, and ``verdict.valid`` is ``False`` when the world model
        failed a call (a rollout to mask, not a score). Rubrics are judged by ``judge``, else by
        the world model."""
        return await self._hub.verify(self.id, task, judge)

    async def close(self) -> None:
        """End the episode and forget it."""
        await self._hub.delete(self.id)
