"""The ``episode`` section of a world: when an episode is over, and when its steps carry a
reward, for harnesses that step an environment until it says ``done`` (OpenEnv, the Python
API's :attr:`mcp_sim.api.ToolResult.done`).

An episode is done after ``max_steps`` calls, or after a call that matches one of
``done_when`` (the ``called`` patterns of the verify section: a tool, arguments it must
include, and optionally whether it failed). ``reward`` says when a step carries the verdict's
reward: ``on_done`` (the default) only the step that ends the episode, ``every_step`` every
step (the reward of the episode as it stands).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from mcp_sim.spec.verify import CallMatch

RewardTiming = Literal["on_done", "every_step"]


class EpisodeRules(BaseModel):
    """When an episode of the world ends, and which of its steps carry a reward."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_steps: Annotated[int, Field(ge=1)] | None = Field(
        default=None, description="The episode is done after this many calls."
    )
    done_when: list[CallMatch] = Field(
        default_factory=list,
        description="The episode is done after a call matching one of these (tool, arguments "
        "it includes, is_error).",
    )
    reward: RewardTiming = Field(
        default="on_done",
        description="on_done: only the step that ends the episode carries the verify reward; "
        "every_step: every step carries the reward of the episode so far.",
    )


def episode_rule_problems(
    rules: EpisodeRules | None, tools: set[str]
) -> list[tuple[tuple[int | str, ...], str]]:
    """``done_when`` patterns that name a tool the world does not have (located in the world)."""
    if rules is None:
        return []
    known = ", ".join(sorted(tools))
    return [
        (("episode", "done_when", i, "tool"), f"no tool named {match.tool!r} (tools are: {known})")
        for i, match in enumerate(rules.done_when)
        if match.tool not in tools
    ]
