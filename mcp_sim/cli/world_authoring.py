"""The work of ``perturbations``, ``world new`` and ``world export``: what a world offers, and
world files written from the world model's draft or from what a world's memory learnt."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import anyio

from mcp_sim.api.assembly import Resolved
from mcp_sim.api.model_launch import LaunchingModel
from mcp_sim.authoring.drafting import COMPACT_MAX_TOKENS, DRAFT_MAX_TOKENS, draft_world
from mcp_sim.authoring.world_export import export_world
from mcp_sim.cli.console import say, write_output
from mcp_sim.cli.world_config import ExportWorldConfig, NewWorldConfig
from mcp_sim.errors import SimError
from mcp_sim.models.base import Sampling
from mcp_sim.perturb.planner import profiles_for
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.perturbations import describe
from mcp_sim.web.world_memory import WorldMemory


def list_profiles(world_path: Path | None, *, as_json: bool) -> int:
    """The built-in perturbation profiles and the world's own, as JSON or one line a rule."""
    world = load_world(world_path) if world_path else None
    profiles = profiles_for(world.perturbations if world else {})
    if as_json:
        listing = {
            name: {
                "source": p.source,
                "description": p.description,
                "rules": [r.model_dump(mode="json", exclude_defaults=True) for r in p.rules],
            }
            for name, p in profiles.items()
        }
        print(json.dumps(listing, indent=2, ensure_ascii=False))
        return 0
    for name, profile in profiles.items():
        print(
            f"{name} ({profile.source})"
            + (f": {profile.description}" if profile.description else "")
        )
        for i, rule in enumerate(profile.rules):
            print(f"  {i}. {describe(rule)}")
    return 0


def draft(config: NewWorldConfig) -> int:
    if config.output.exists() and not config.force:
        say(f"{config.output} exists; choose another file or pass --force")
        return 2
    code: int = anyio.run(_draft, config)
    return code


async def _draft(config: NewWorldConfig) -> int:
    settings = Resolved.of(config.settings).settings
    bounds = settings.prompt.bounds
    given = {k: v for k, v in settings.sampling.model_dump().items() if v is not None}
    limit = COMPACT_MAX_TOKENS if bounds is not None else DRAFT_MAX_TOKENS
    sampling = replace(Sampling(max_tokens=limit), **given)
    model = LaunchingModel(settings.model, say)
    try:
        await model.start()
        say(f"drafting a {config.domain} world")
        drafted = await draft_world(
            config.description, config.domain, model, sampling=sampling, bounds=bounds
        )
    finally:
        await model.aclose()
    config.output.parent.mkdir(parents=True, exist_ok=True)
    config.output.write_text(drafted.text, encoding="utf-8")
    world = drafted.world
    say(f"wrote {config.output} ({world.world}, {len(world.tools)} tools, domain {world.domain})")
    return 0


def export(config: ExportWorldConfig) -> int:
    world = load_world(config.world)
    if world.web() is None:
        raise SimError(
            f"--world-memory keeps the pages of a world's web, and {world.world} has none (it "
            "needs a search: section, or domain search with web_search and open_page)"
        )
    memory = WorldMemory(world.world, config.world_memory)
    with memory:
        text = export_world(world, memory)
    write_output(config.output, text)
    return 0
