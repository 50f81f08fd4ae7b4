"""The names of the records a mention in markup names by id.

A page's body names a person by an account id (``<ri:user ri:account-id="5b0c…"/>``); the
answer (a properties report, a count per person) names the person by the users list's
``displayName``. A mention rendered in a record's text (see :mod:`mcp_sim.prompting.markup_text`)
carries the name of the one record holding that id at its own field named as an id (pages
hold their editors' ids deeper, at ``version.by.accountId``): the users list need not fit
beside the pages for their names to be shown.
"""

from __future__ import annotations

import re
from typing import Any

from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.id_references import MOST_HOLDERS
from mcp_sim.prompting.value_fields import ID_WORDS
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import normalize

_ID_LIKE = re.compile(r"[\w:.@-]{6,}")
"""A value that may be an id: one token, six characters at least (``2``, a date's parts and
prose are not looked up)."""
_NAME_WORDS = (("display", "name"), ("name",), ("title",), ("label",))
"""Field names a record's name goes under, best first (``displayName`` before ``name``)."""
_ID_FIELD = {(word,) for word in ID_WORDS}


class MentionNames:
    """The name of the record each id names, looked up once per id."""

    def __init__(self, overlay: StateOverlay) -> None:
        self.overlay = overlay
        self.known: dict[str, str | None] = {}

    def __call__(self, value: str) -> str | None:
        if value not in self.known:
            self.known[value] = self._lookup(value) if _ID_LIKE.fullmatch(value) else None
        return self.known[value]

    def _lookup(self, value: str) -> str | None:
        label = normalize(value)
        if label is None or self.overlay.holders(label) > MOST_HOLDERS:
            return None
        owners = [
            pointer
            for pointer, inner in self.overlay.value_hits(label).items()
            # The index files a record's own id at no place inside (``""``).
            if not inner or (inner.count("/") == 1 and tokens(inner)[-1:] in _ID_FIELD)
        ]
        return record_name(resolve(self.overlay.view, owners[0])) if len(owners) == 1 else None


def record_name(record: Any) -> str | None:
    """A record's name: its field named as a display name, a name, a title or a label."""
    if not isinstance(record, dict):
        return None
    fields = {tokens(k): v for k, v in record.items() if isinstance(v, str) and v.strip()}
    for wanted in _NAME_WORDS:
        for said, value in fields.items():
            if said[-len(wanted) :] == wanted:
                return str(value)
    return None
