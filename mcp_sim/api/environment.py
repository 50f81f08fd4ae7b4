"""The base of the TRL environment classes ``mcp-sim harness trl`` writes: one episode per
instance, over a :class:`~mcp_sim.api.blocking.BlockingWorlds` shared in the process.

TRL's ``GRPOTrainer(environment_factory=...)`` (1.16) makes one instance per rollout, calls
``reset(**row)`` with the dataset row before each, offers every public method but ``reset``
and ``get_reward`` to the model as a tool, and calls ``get_reward()`` once the rollout is over;
a ``None`` reward is NaN to it, left out of the rollout's reward. So this base has no public
method but those two: the generated class adds one typed method per tool of the world, each a
coroutine (TRL runs an async tool on its event loop, and the calls that one assistant message
makes together at the same time).

A class names its world by one of :attr:`~EpisodeEnvironment.world_example` (an example shipped
with mcp-sim), :attr:`~EpisodeEnvironment.world_yaml` (the world file's text, embedded) or
:attr:`~EpisodeEnvironment.world_file` (a path, for a class written by hand).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, ClassVar

from mcp_sim.api.assembly import WorldSource
from mcp_sim.api.blocking import BlockingWorlds, shared_worlds
from mcp_sim.api.episode import Episode
from mcp_sim.spec.loading import parse_world
from mcp_sim.spec.world import World
from mcp_sim.spec.world_files import example_path

_parsed: dict[str, World] = {}


class EpisodeEnvironment:
    """One rollout's episode of the class's world, answered by the model at ``model_url``."""

    world_example: ClassVar[str | None] = None
    """An example world shipped with mcp-sim, by name (``bookstore``)."""
    world_yaml: ClassVar[str | None] = None
    """The world file's text."""
    world_file: ClassVar[str | None] = None
    """The world file's path."""
    model_url: ClassVar[str | None] = None
    """The world model's base URL (``stub:`` for the stand-in); ``None``: the embedded one."""

    def __init__(self) -> None:
        key, source = self._world()
        self._worlds: BlockingWorlds = shared_worlds(key, source, self.model_url)
        self._episode: Episode | None = None

    @classmethod
    def _world(cls) -> tuple[str, WorldSource]:
        """The key the process shares the world's :class:`BlockingWorlds` by, and the world."""
        if cls.world_example is not None:
            return f"example:{cls.world_example}", example_path(cls.world_example)
        if cls.world_yaml is not None:
            key = "yaml:" + hashlib.sha256(cls.world_yaml.encode("utf-8")).hexdigest()
            if key not in _parsed:
                _parsed[key] = parse_world(cls.world_yaml, f"<{cls.__name__}.world_yaml>")
            return key, _parsed[key]
        if cls.world_file is not None:
            return f"file:{Path(cls.world_file).resolve()}", cls.world_file
        raise TypeError(
            f"{cls.__name__} names no world: set world_example, world_yaml or world_file"
        )

    def reset(self, **row: Any) -> str | None:
        """Start a new episode (ending the last one) on the row's task (see :meth:`_task_of`),
        seeded by its ``seed``; other keys are ignored but ``world``, which a suite's rows
        carry (``mcp-sim suite export --format trl``): a row of another world than the
        class's raises :class:`ValueError`, as it would be scored on the wrong world. Returns
        the task's description, which TRL appends to the prompt, unless the row's prompt says
        it already."""
        own, named = self._worlds.worlds.world().world, row.get("world")
        if isinstance(named, str) and named and named != own:
            raise ValueError(
                f"the row is of world {named!r}, and this class simulates {own!r} (a suite "
                "has a class per world: mcp-sim harness trl SUITE/worlds/ID/world.yaml)"
            )
        task, seed = self._task_of(row), row.get("seed")
        if self._episode is not None:
            self._worlds.run(self._episode.close())
        self._episode = self._worlds.run(
            self._worlds.worlds.episode(task=task, seed=seed if isinstance(seed, int) else None)
        )
        if task is None:
            return None
        description = self._episode.world.verify[task].description or task
        return None if description in _text_of(row.get("prompt")) else description

    def _task_of(self, row: dict[str, Any]) -> str | None:
        """The one rule for the task a row's episode is scored on: the row's ``task`` when it
        has one; else one of the world's tasks chosen by the row's prompt, the same for every
        rollout of the row (a GRPO group) and spread over the tasks across rows; ``None`` in a
        world without tasks. An unknown task raises :class:`ValueError` naming the known ones."""
        tasks = list(self._worlds.worlds.world().verify)
        named = row.get("task")
        if isinstance(named, str) and named:
            if named not in tasks:
                raise ValueError(f"no task {named!r} in the world (tasks: {', '.join(tasks)})")
            return named
        if not tasks:
            return None
        prompt = json.dumps(row.get("prompt"), sort_keys=True, default=str)
        index = int.from_bytes(hashlib.sha256(prompt.encode("utf-8")).digest()[:8], "big")
        return tasks[index % len(tasks)]

    def get_reward(self) -> float | None:
        """The verdict's reward (0..1) on the episode's task; ``None`` (TRL masks it) when the
        verdict is invalid (the world model failed a call of the rollout) or there is no task
        to score."""
        episode = self._started()
        if episode.task is None:
            return None
        verdict = self._worlds.run(episode.verify())
        return verdict.reward if verdict.valid else None

    def _started(self) -> Episode:
        if self._episode is None:
            self.reset()
        assert self._episode is not None
        return self._episode

    async def _call(self, tool: str, arguments: dict[str, Any]) -> str:
        """Call ``tool`` with the arguments given (``None`` ones left out) on the worlds' loop,
        awaited from the caller's; the observation's text, an error's included, is what the
        model reads."""
        given = {name: value for name, value in arguments.items() if value is not None}
        result = await self._worlds.wait(self._started().call(tool, given))
        return result.text


def _text_of(prompt: Any) -> str:
    """A dataset row's prompt as text: standard (a string) or conversational (messages)."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        return "\n".join(
            str(m.get("content", "")) if isinstance(m, dict) else str(m) for m in prompt
        )
    return ""
