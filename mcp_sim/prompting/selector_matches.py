"""Records that a found record selects by a label selector: a join by map containment.

A Kubernetes service names no pod: its ``spec.selector`` (``{"app.kubernetes.io/name":
"web"}``) selects every pod whose ``labels`` hold each of its pairs, and so does a
deployment's ``matchLabels``, an alert rule's ``matchers``, a firewall rule's ``targetTags``
map. A call about the service (its endpoints, its pods) needs those records, which no value of
the service points to. So when a call finds a few records holding a **selector** (a map of
scalars under a key whose last word is ``selector``, or ``matchLabels``), the records whose
**label map** (under a key whose last word is ``labels`` or ``tags``) contains all its pairs
are picked too (see :func:`selected`). A record that selects others is not one a selector
picks (a deployment's labels match its service's selector too, but the service means the
pods), and an argument value many records share (a namespace, a tenant) bounds the records
selected to those holding it too: a selector applies in the scope its record lives in.

Nothing is known by name but the words ``selector``, ``match``, ``labels`` and ``tags``,
whatever the casing and however the keys of the maps are spelled (``app``,
``app.kubernetes.io/name``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mcp_sim.prompting.field_names import tokens
from mcp_sim.runtime.state_index import StateOverlay
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_shape import normalize

MOST_SELECTED = 25
"""Records picked per selector: a service's pods, not a whole cluster's."""
MOST_SELECTING = 3
"""Found records whose selectors are followed: a call about one service, not a search."""
_SCOPE_HOLDERS = 3
"""An argument value more records hold than this scopes the call rather than naming one."""
_DEPTH = 8
_LABEL_WORDS = frozenset(["labels", "label", "tags", "tag"])


def _is_selector(key: str) -> bool:
    said = tokens(key)
    return bool(said) and (
        said[-1] == "selector" or (said[0] == "match" and said[-1] in _LABEL_WORDS)
    )


def _is_labels(key: str) -> bool:
    said = tokens(key)
    return bool(said) and said[-1] in _LABEL_WORDS and said[0] != "match"


def _scalar_map(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict) or not value:
        return None
    if all(isinstance(v, str | int | float | bool) and v is not None for v in value.values()):
        return value
    return None


def _maps(value: Any, wanted: str, depth: int = 0) -> Iterator[dict[str, Any]]:
    """The maps of scalars under keys that are selectors (``wanted`` = ``selector``) or
    label maps (``labels``), at any depth of ``value``."""
    if depth > _DEPTH:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            fits = _is_selector(key) if wanted == "selector" else _is_labels(key)
            found = _scalar_map(item) if fits else None
            if found is not None:
                yield found
            elif isinstance(item, dict | list):
                yield from _maps(item, wanted, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _maps(item, wanted, depth + 1)


def selectors(record: Any) -> list[dict[str, Any]]:
    """The selectors ``record`` holds (``spec.selector``, ``selector.matchLabels``)."""
    return list(_maps(record, "selector"))


def is_selected(record: Any, selector: dict[str, Any]) -> bool:
    """Whether a label map of ``record`` holds every pair of ``selector``."""
    return any(
        all(labels.get(k) == v for k, v in selector.items()) for labels in _maps(record, "labels")
    )


def selected(
    overlay: StateOverlay, state: Any, found: list[str], arguments: list[str]
) -> list[str]:
    """The records the selectors of the ``found`` records select (see the module), those
    holding every argument value (``arguments``, normalized) that many records share; none
    where more than :data:`MOST_SELECTING` records were found (a search, not a call about
    one record)."""
    if len(found) > MOST_SELECTING:
        return []
    scopes = [set(overlay.value_hits(a)) for a in arguments if overlay.holders(a) > _SCOPE_HOLDERS]
    picked: list[str] = []
    for pointer in found:
        for selector in selectors(resolve(state, pointer)):
            labels = [v for v in map(normalize, selector.values()) if v is not None]
            if not labels:
                continue
            rarest = min(labels, key=overlay.holders)
            count = 0
            for candidate in overlay.value_hits(rarest):
                if candidate == pointer or candidate in picked:
                    continue
                if not all(candidate in scope for scope in scopes):
                    continue
                record = resolve(state, candidate)
                if selectors(record) or not is_selected(record, selector):
                    continue
                picked.append(candidate)
                count += 1
                if count >= MOST_SELECTED:
                    break
    return picked
