"""Ids a call gives in two parts that the state writes as one: ``type/id``.

A GeoJSON export of OpenStreetMap names a feature ``"node/3100045512"`` while its tools take
``osm_type="node", osm_id=3100045512``; a FHIR reference is ``"Patient/10234"``. A word-valued
argument and an identifier-valued one, joined by a slash in the order given, are looked up as
one key.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcp_sim.runtime.state_shape import normalize

_TYPE = re.compile(r"[A-Za-z][A-Za-z_-]{0,39}")
_ID = re.compile(r"[A-Za-z0-9_.:-]{1,80}")
MOST_ARGUMENTS = 8
"""Calls of more scalar arguments than this are searches, not two-part ids."""


def joined_ids(arguments: dict[str, Any]) -> Iterator[str]:
    """``type/id`` of each word-valued argument before an id-valued one, normalized."""
    scalars = [
        str(v) for v in arguments.values() if isinstance(v, str | int) and not isinstance(v, bool)
    ]
    if len(scalars) > MOST_ARGUMENTS:
        return
    for i, kind in enumerate(scalars):
        if not _TYPE.fullmatch(kind):
            continue
        for ident in scalars[i + 1 :]:
            if _ID.fullmatch(ident) and any(c.isdigit() for c in ident):
                label = normalize(f"{kind}/{ident}")
                if label is not None:
                    yield label
