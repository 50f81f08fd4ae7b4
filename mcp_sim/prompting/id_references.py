"""Records another refers to by an id they hold inside rather than as their key: a Terraform
state's resources are keyed by place, and an instance names its security groups by the cloud
ids (``sg-0ef4…``) the groups hold at ``instances/0/attributes/id``. A value of a picked
record that no key answers to, held by one or two records at a field named as an id, names
those records (the many records holding it elsewhere only refer to them too)."""

from __future__ import annotations

from functools import lru_cache

from mcp_sim.prompting.field_names import tokens
from mcp_sim.prompting.value_fields import ID_WORDS
from mcp_sim.runtime.state_index import StateOverlay

MOST_HOLDERS = 300
"""A value held by more records than this is a category (``true``, ``0``), not an id: it is
not looked up."""
FEW_OWNERS = 2
"""At most this many records holding a value at an id field are the ones it names."""
MOST_KNOWN = 50_000
"""Values whose holders a world keeps (all are forgotten past it)."""


def id_owners(
    overlay: StateOverlay,
    label: str,
    source: str,
    known: dict[str, dict[str, str] | None] | None = None,
) -> dict[str, str]:
    """The records (pointer → where inside) holding ``label`` at a field named as an id,
    other than ``source`` (the record that refers), when few do. ``known``: the holders
    found for earlier labels of the same call (a value many picked records hold is looked up
    once)."""
    if known is None:
        return _others(_id_holders(overlay, label), source)
    if label not in known:
        known[label] = _id_holders(overlay, label)
    return _others(known[label], source)


def _id_holders(overlay: StateOverlay, label: str) -> dict[str, str] | None:
    """Every record holding ``label`` at a field named as an id, ``None`` when more than
    one more than :data:`FEW_OWNERS` do (too many, whichever of them refers)."""
    if overlay.holders(label) > MOST_HOLDERS:
        return None
    base = overlay.base.values.get(label, {})
    changed = overlay.changed
    if label in overlay.values or (changed and any(p in changed for p in base)):
        return _holders_at_ids(overlay.value_hits(label))
    # No record the session changed holds it: the starting state's holders, looked up once
    # per world (a call's picked records hold thousands of values).
    known: dict[str, dict[str, str] | None] = overlay.base.derived.setdefault("id holders", {})
    if label not in known:
        if len(known) >= MOST_KNOWN:
            known.clear()
        known[label] = _holders_at_ids(base)
    found = known[label]
    return None if found is None else dict(found)


def _holders_at_ids(hits: dict[str, str]) -> dict[str, str] | None:
    found: dict[str, str] = {}
    for pointer, inner in hits.items():
        if _id_field(inner.rsplit("/", 1)[-1]):
            found[pointer] = inner
            if len(found) > FEW_OWNERS + 1:
                return None
    return found


@lru_cache(maxsize=4096)
def _id_field(name: str) -> bool:
    """Whether a field's name says it holds ids (``id``, ``group_id``)."""
    last = tokens(name)
    return bool(last) and last[-1] in ID_WORDS


def _others(holders: dict[str, str] | None, source: str) -> dict[str, str]:
    if holders is None:
        return {}
    owners = {p: inner for p, inner in holders.items() if p != source}
    return owners if len(owners) <= FEW_OWNERS else {}
