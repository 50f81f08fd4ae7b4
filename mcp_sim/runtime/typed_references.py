"""References that say the kind of record they name, as well as its id.

Where ids repeat across kinds (a FHIR server's ``Patient/10234`` and ``Encounter/10234``, a
JSON:API document's speaker ``7`` and room ``7``), a reference names its kind beside the id:

- in a string: ``Patient/10234``, ``patients/10234``, ``/api/v2/patients/10234``, a URL ending
  so, ``gid://shop/Product/10234`` or ``urn:patient:10234``;
- in the object holding the id: ``{"type": "rooms", "id": "7"}`` (any field name: the other
  field's value names a kind the state has);
- or as ``{"reference": "Patient/10234"}``, a string again.

A kind is named whatever its spelling: ``Patient``, ``patients`` and ``PATIENT`` name one kind
(:func:`kind_word`). A kind's name is a mixed array's kind value (see
:mod:`mcp_sim.runtime.mixed_collections`) or the last part of a collection's pointer
(``/patients``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from jsonpointer import unescape

from mcp_sim.runtime.mixed_collections import KIND_MARK

_TYPED = (
    re.compile(r"^gid://[^/\s]+/([A-Za-z][\w-]*)/([^/\s?#]+)$"),
    re.compile(r"^urn:([A-Za-z][\w-]*):(?:\S*:)?([^:\s]+)$", re.I),
    re.compile(r"^(?:[a-z][a-z0-9+.-]*://[^/\s]+)?/?(?:[^/\s]+/)*([A-Za-z][\w-]*)/([^/\s?#]+)/?$"),
)
"""``(kind, id)`` of a typed reference string, most specific first."""
_WORD = re.compile(r"[^0-9a-z]")
KINDS_KEPT = 1 << 14
"""How many names the kind of each is remembered for: a call compares the kinds of every
collection, the same few names call after call."""


def typed_reference(value: Any) -> tuple[str, str] | None:
    """``(kind, id)`` a string names (see the module's docstring), when its id holds a digit
    (a path of words, ``apps/v1`` aside, is no reference); else ``None``."""
    if not isinstance(value, str) or len(value) > 200 or ("/" not in value and ":" not in value):
        return None
    for pattern in _TYPED:
        found = pattern.match(value.strip())
        if found is not None:
            kind, ident = found.group(1), found.group(2)
            return (kind, ident) if any(c.isdigit() for c in ident) else None
    return None


@lru_cache(maxsize=KINDS_KEPT)
def kind_word(name: str) -> str:
    """How a kind's name is compared: lower-case letters and digits only, singular
    (``Patients``, ``patient`` and ``PATIENT`` agree; ``ServiceRequest`` is ``servicerequest``)."""
    word = _WORD.sub("", name.casefold())
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@lru_cache(maxsize=KINDS_KEPT)
def collection_word(pointer: str) -> str:
    """The kind a collection's pointer names: a mixed array's kind, else its last part."""
    last = unescape(pointer.rpartition("/")[2])
    return kind_word(last[len(KIND_MARK) :] if last.startswith(KIND_MARK) else last)


def kind_beside(holder: Any, field: str, kinds: Iterable[str]) -> str | None:
    """The kind an id's object names beside it (``{"type": "rooms", "id": "7"}``: ``room``),
    when another string field of ``holder`` names one of ``kinds`` (:func:`kind_word`)."""
    if not isinstance(holder, dict):
        return None
    known = set(kinds)
    for name, value in holder.items():
        if name != field and isinstance(value, str) and (word := kind_word(value)) in known:
            return word
    return None
