"""Records an argument names by an address made of their fields' values: a Terraform
address (``module.svc_a.aws_instance.app[2]``: the resource's module, type and name, then
an instance's index), a dotted path of names (``eu.berlin.store_7``), where no record is
keyed by the address itself. The address's dot-separated runs are looked up as values; the
records holding runs that cover every part of it, and few of them, are the ones it names (a
record holding the whole address as one value refers to it: a dependency)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_shape import normalize

MOST_NAMED = 3
"""More records covering an address than this: it names none of them (a category)."""
_ADDRESS = re.compile(r"^[\w-]+(?:\.[\w-]+)+(?:\[[^\]\s]+\])?$")
"""Dot-separated names (at least two), optionally ending with a bracketed index."""
_INDEX = re.compile(r"\[[^\]]+\]$")


def dotted_records(overlay: StateOverlay, arguments: dict[str, Any]) -> Iterator[str]:
    """Each record an argument's dotted address names, where no record's key or value is
    the address itself."""
    for value in arguments.values():
        if not isinstance(value, str) or not _ADDRESS.match(value.strip()):
            continue
        whole = normalize(value)
        if whole is None or overlay.key_hits(whole):
            continue
        yield from _covering(overlay, value.strip())


def _covering(overlay: StateOverlay, address: str) -> Iterator[str]:
    indexed = _INDEX.search(address)
    parts = address[: indexed.start()].split(".") if indexed else address.split(".")
    if sum(any(c.isalpha() for c in part) for part in parts) < 2:
        return  # a number or a version (``3.14``, ``1.2.3``), no address
    covered: dict[str, set[int]] = {}
    for start in range(len(parts)):
        # A record holding the whole address refers to the one it names (a dependency).
        for end in range(start + 1, len(parts) + (start > 0)):
            label = normalize(".".join(parts[start:end]))
            for pointer in overlay.value_hits(label) if label is not None else ():
                covered.setdefault(pointer, set()).update(range(start, end))
    whole = set(range(len(parts)))
    named = sorted(p for p, spans in covered.items() if spans == whole)
    if not named or len(named) > MOST_NAMED:
        return
    # The bracketed index (an instance's) is left to the view: which field holds it, if
    # any does, is unknown.
    yield from named
