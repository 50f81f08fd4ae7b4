"""Where a GeoJSON point feature lies, said beside it in the names a call uses.

GeoJSON writes a position ``[longitude, latitude]``, the reverse of how people and most
tools' arguments and answers say it (``lat``, ``lon``): a model reading the bare array often
swaps them. A point feature shown in a view is labelled with its position spelled out.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_sim.runtime.geometry import geometry_of


def place_label(record: Any) -> str:
    """`` (at {"lat": …, "lon": …})`` for a point feature, else ``""``."""
    geometry = geometry_of(record)
    if geometry is None or geometry["type"] != "Point":
        return ""
    position = geometry["coordinates"]
    if len(position) < 2 or not all(isinstance(v, int | float) for v in position[:2]):
        return ""
    return f" (at {json.dumps({'lat': position[1], 'lon': position[0]})})"
