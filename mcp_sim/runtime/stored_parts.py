"""Which parts of a decoded record a view shows as the state stores them.

A view finds records through the decoded state (see :mod:`mcp_sim.runtime.decoded_state`),
where a property list reads as the object it stands for (see
:mod:`mcp_sim.runtime.property_lists`), so that a search can name its fields. What the view
*shows* is another matter. A list that is a field of the record itself, or that holds most of
a record, is the record's fields: an API answers the record it stands for, its fields by name,
and the decoded form is what an answer quotes. A smaller list deeper in is a part of a record (a message's headers, a resource's tags, a
container's environment), which an API writes as it is stored (``{"name": "From", "value":
..}``): shown folded (``{"From": ..}``), the model would have to re-invent the stored form
that the answer quotes. So :func:`shown_record` keeps a record decoded but puts each such part
back as stored.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_sim.runtime.value_encodings import Encoding


def keeps_stored_parts(encoding: Encoding | None) -> bool:
    """Whether a view of a state of ``encoding`` shows parts of its records as stored: its
    lists fold to objects and its values need no decoding (a tagged value inside a stored
    part would be shown encoded)."""
    return (
        encoding is not None
        and bool(encoding.forms)
        and not encoding.tags
        and encoding.attribute is None
    )


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def shown_record(stored: Any, decoded: Any) -> Any:
    """``decoded`` (the record ``stored`` decodes to) with each folded list below the
    record's own fields that holds less than half of the record put back as stored; the
    rest, and the lists that are the record's fields, stay decoded."""
    if stored is None or decoded is None:
        return decoded
    return _Parts(_size(stored)).shown(stored, decoded, 0)


class _Parts:
    def __init__(self, whole: int) -> None:
        self.whole = whole

    def shown(self, stored: Any, decoded: Any, depth: int) -> Any:
        """``depth``: the keys on the way from the record to ``stored``."""
        if isinstance(stored, list):
            if isinstance(decoded, list) and len(decoded) == len(stored):
                pairs = zip(stored, decoded, strict=True)
                return [self.shown(s, d, depth) for s, d in pairs]
            # A list folded to an object: the record's fields (a field of the record itself,
            # in every record alike however few it holds, or most of the record), or a part.
            fields = depth <= 1 or _size(stored) * 2 >= self.whole
            return decoded if fields else stored
        if (
            isinstance(stored, dict)
            and isinstance(decoded, dict)
            and stored.keys() == decoded.keys()
        ):
            return {key: self.shown(stored[key], decoded[key], depth + 1) for key in decoded}
        return decoded
