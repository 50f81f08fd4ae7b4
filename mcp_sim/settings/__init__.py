"""Settings: every option of mcp-sim declared once, by concern, as typed, frozen pydantic
models (:mod:`~mcp_sim.settings.model`, :mod:`~mcp_sim.settings.prompt`,
:mod:`~mcp_sim.settings.serving`), gathered in :class:`Settings`. The command line's flags
(:mod:`mcp_sim.cli.settings_flags`), the ``MCP_SIM_*`` environment variables and config files
(:mod:`~mcp_sim.settings.sources`) are generated from the declarations; the builder
(:mod:`mcp_sim.api.assembly`) turns settings into a running system.

    from mcp_sim.settings import Settings
    settings = Settings.of(model_url=["http://gpu:8000/v1"], journal="calls.jsonl")
"""

from mcp_sim.settings.combined import Settings
from mcp_sim.settings.model import ModelSettings, SamplingSettings
from mcp_sim.settings.prompt import PromptSettings
from mcp_sim.settings.serving import (
    EpisodeSettings,
    PerturbSettings,
    RecordSettings,
    ServerSettings,
)

__all__ = [
    "EpisodeSettings",
    "ModelSettings",
    "PerturbSettings",
    "PromptSettings",
    "RecordSettings",
    "SamplingSettings",
    "ServerSettings",
    "Settings",
]
