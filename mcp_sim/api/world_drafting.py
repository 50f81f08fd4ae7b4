"""A world file drafted by the world model that settings name (``mcp-sim world new``): the
model launched for the draft and stopped after it, asked under the settings' output bounds and
sampling, as the simulator would ask it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from mcp_sim.api.assembly import Resolved
from mcp_sim.api.model_launch import LaunchingModel
from mcp_sim.authoring.drafting import COMPACT_MAX_TOKENS, DRAFT_MAX_TOKENS, Draft, draft_world
from mcp_sim.models.base import Sampling
from mcp_sim.settings.combined import Settings
from mcp_sim.spec.world import Domain


async def draft_with_settings(
    description: str,
    domain: Domain,
    settings: Settings | None = None,
    say: Callable[[str], None] = lambda message: None,
) -> Draft:
    """A valid world of ``domain`` drafted from ``description`` by the model ``settings`` name
    (the embedded one by default, then with its compact output bounds and a shorter answer).
    Sampling the settings give overrides the draft's; ``say`` is told what is started.
    Raises :class:`~mcp_sim.authoring.drafting.DraftError` when no valid draft comes."""
    resolved = Resolved.of(settings or Settings()).settings
    bounds = resolved.prompt.bounds
    given = {k: v for k, v in resolved.sampling.model_dump().items() if v is not None}
    limit = COMPACT_MAX_TOKENS if bounds is not None else DRAFT_MAX_TOKENS
    sampling = replace(Sampling(max_tokens=limit), **given)
    model = LaunchingModel(resolved.model, say)
    try:
        await model.start()
        say(f"drafting a {domain} world")
        return await draft_world(description, domain, model, sampling=sampling, bounds=bounds)
    finally:
        await model.aclose()
