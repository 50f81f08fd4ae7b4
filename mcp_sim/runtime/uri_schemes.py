"""Values written as URIs of a scheme without an authority: ``mailto:ana@example.org``.

Formats that type their values by URI scheme (iCalendar and jCal's attendees and organizers,
vCard's ``tel:+47…``, ``urn:isbn:0451450523``, ``urn:uuid:…``) store a value with its scheme,
while the tools that read them take the bare value (``attendee="ana@example.org"``). A value so
written also answers to its value without the scheme words before it (:func:`unschemed`).
A URL (``https://…``, a scheme followed by ``//``) is no such value: its path names what it
refers to (see :mod:`mcp_sim.runtime.typed_references`).
"""

from __future__ import annotations

import re

_SCHEMED = re.compile(r"^(?:[a-z][a-z+.-]{1,15}:)+(?!//)([^\s:][^\s]*)$", re.I)
"""Scheme words (letters, two or more: ``C:`` is a drive, ``T10:30`` a time), each followed
by a colon, then the value: no space anywhere, no ``//`` after the schemes."""
_MAX_CHARS = 200


def unschemed(value: str) -> str | None:
    """The value a scheme-prefixed string names without its scheme words (``ana@example.org``
    of ``mailto:ana@example.org``, ``0451450523`` of ``urn:isbn:0451450523``); ``None`` for
    any other string."""
    if len(value) > _MAX_CHARS:
        return None
    found = _SCHEMED.match(value.strip())
    return found.group(1) if found is not None else None
