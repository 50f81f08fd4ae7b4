"""The in-process Python API: open worlds, run episodes, call tools, score them, with no
server. ``mcp-sim serve`` is built on the same :class:`Worlds`.

    from mcp_sim.api import Worlds
"""

from mcp_sim.api.episode import Episode
from mcp_sim.api.tool_results import ToolResult
from mcp_sim.api.worlds import ModelSource, Worlds, WorldSource

__all__ = ["Episode", "ModelSource", "ToolResult", "WorldSource", "Worlds"]
