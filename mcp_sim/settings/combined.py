"""All the settings of a running mcp-sim, one model per concern, and the flat names a user
gives them by (``Settings.of(history_budget=3000, journal="calls.jsonl")``): the same names
as the command line's flags, the environment's ``MCP_SIM_*`` variables and config files."""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from mcp_sim.errors import SettingsError
from mcp_sim.settings.declare import Declared, declared
from mcp_sim.settings.model import FROZEN, ModelSettings, SamplingSettings
from mcp_sim.settings.prompt import PromptSettings
from mcp_sim.settings.serving import (
    EpisodeSettings,
    PerturbSettings,
    RecordSettings,
    ServerSettings,
)


class Settings(BaseModel):
    """Everything ``serve`` can be told, by concern. Commands that take fewer flags leave the
    rest at their defaults."""

    model_config = FROZEN

    model: ModelSettings = ModelSettings()
    sampling: SamplingSettings = SamplingSettings()
    prompt: PromptSettings = PromptSettings()
    perturb: PerturbSettings = PerturbSettings()
    records: RecordSettings = RecordSettings()
    episodes: EpisodeSettings = EpisodeSettings()
    server: ServerSettings = ServerSettings()

    @classmethod
    def of(cls, **given: Any) -> Settings:
        """Settings from flat names (``model_url=[...]``, ``history_budget=3000``); raises
        :class:`mcp_sim.errors.SettingsError` naming an unknown or invalid one."""
        return from_flat(given, {name: name for name in given})

    def check_served(self, worlds: int) -> None:
        """Refuse settings that cannot serve ``worlds`` worlds together, with a
        :class:`~mcp_sim.errors.SettingsError` naming the flag at fault."""
        http = self.server.http is not None
        if worlds > 1:
            if not http:
                raise SettingsError("world", "several worlds are served over --http only")
            for name in ("replay", "world_memory"):
                if getattr(self.records, name) is not None:
                    flag = f"--{name.replace('_', '-')}"
                    raise SettingsError(flag, "applies to one world; serve that world on its own")
        if self.server.openenv and not http:
            raise SettingsError("--openenv", "OpenEnv is served over --http only")
        if self.episodes.episode_store != "memory" and not http:
            raise SettingsError("--episode-store", "episodes are served over --http only")
        if self.episodes.snapshot_dir is not None and not self.episodes.control_tools:
            raise SettingsError("--snapshot-dir", "goes with --control-tools (the tools use it)")

    def updated(self, **given: Any) -> Settings:
        """These settings with ``given`` (flat names) over them; what neither set stays unset,
        so the embedded model's defaults still apply to it (see :meth:`for_model`)."""
        kept = {
            name: value
            for group in GROUPS
            for name, value in getattr(self, group).model_dump(exclude_unset=True).items()
        }
        return Settings.of(**{**kept, **given})

    def flat(self) -> dict[str, Any]:
        """Every setting by its flat name."""
        return {d.name: getattr(getattr(self, group), d.name) for group, d in each_setting()}

    def for_model(self) -> Settings:
        """These settings with the embedded model's prompt defaults where it answers and none
        was given."""
        prompt = self.prompt.for_model(embedded=self.model.embedded)
        return self.model_copy(update={"prompt": prompt})


GROUPS: dict[str, type[BaseModel]] = {
    name: info.annotation  # type: ignore[misc]
    for name, info in Settings.model_fields.items()
}

GROUP_TITLES = {
    "model": "world model",
    "sampling": "sampling",
    "prompt": "state and prompt",
    "perturb": "perturbations",
    "records": "journal, cache, memory, replay",
    "episodes": "episodes",
    "server": "server",
}
"""What each group of settings is about, in a few words (the headings of ``--help`` and of
the settings reference)."""


def each_setting() -> Iterator[tuple[str, Declared]]:
    """Every declared setting, with the name of its group in :class:`Settings`."""
    for group, model in GROUPS.items():
        for setting in declared(model):
            yield group, setting


def group_names(*groups: str) -> tuple[str, ...]:
    """The flat names of the settings of ``groups`` (names in :class:`Settings`)."""
    return tuple(d.name for group in groups for d in declared(GROUPS[group]))


SETTINGS: dict[str, tuple[str, Declared]] = {d.name: (g, d) for g, d in each_setting()}
"""Each setting by its flat name (which is unique across the groups)."""


def unknown_setting(name: str) -> str:
    close = difflib.get_close_matches(name, list(SETTINGS), n=1)
    return f"no setting {name!r}" + (f" (did you mean {close[0]!r}?)" if close else "")


def from_flat(values: Mapping[str, Any], sources: Mapping[str, str]) -> Settings:
    """Settings from values by flat name; ``sources`` says where each came from (a flag, a
    variable, a file's key), to name it in an error."""
    grouped: dict[str, dict[str, Any]] = {group: {} for group in GROUPS}
    for name, value in values.items():
        if name not in SETTINGS:
            raise SettingsError(sources.get(name, name), unknown_setting(name))
        grouped[SETTINGS[name][0]][name] = value
    try:
        return Settings.model_validate({g: GROUPS[g](**v) for g, v in grouped.items()})
    except ValidationError as exc:
        error = exc.errors()[0]
        name = str(error["loc"][0]) if error["loc"] else ""
        where = sources.get(name, name)
        raise SettingsError(where, f"{error['msg']}, got {error.get('input')!r}") from None
