"""The labels a value is known by when values are compared for equality: its normalized
form (see :func:`mcp_sim.runtime.state_shape.normalize`), the day of a timestamp, the key a
reference written as a path names (``/owners/OW-7``), and the time an epoch number stands for
(see :mod:`mcp_sim.prompting.epoch_times`). A column's values are looked up by them, so
equality is a dictionary look-up, not a scan."""

from __future__ import annotations

import re
from typing import Any

from mcp_sim.prompting.epoch_times import epoch_time
from mcp_sim.prompting.record_fields import path_reference
from mcp_sim.runtime.state_shape import normalize

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


def labels_of(value: Any) -> list[str]:
    """The labels ``value`` is known by (none for a value no equality names: ``null``)."""
    label = normalize(value)
    if label is None:
        return []
    if isinstance(value, str) and len(value) > 10 and _DATE.match(value):
        return [label, value[:10]]
    referred = path_reference(value)
    # A reference written as a path (``/owners/OW-7``) equals the key it names.
    return [label] if referred is None else [label, referred]


class ValueLabels:
    """:func:`labels_of` of each value, remembered while one table is built: a column repeats
    its values (a city, a status) across thousands of records. Keyed by type too, since
    ``True``, ``1`` and ``1.0`` are equal keys but label apart."""

    def __init__(self, epoch: float | None = None) -> None:
        self.seen: dict[tuple[type, Any], list[str]] = {}
        self.epoch = epoch
        """The unit of the column's epoch times: each is labelled by its time too."""

    def __call__(self, value: Any) -> list[str]:
        key = (type(value), value)
        found = self.seen.get(key)
        if found is None:
            found = labels_of(value)
            time = epoch_time(value, self.epoch) if self.epoch is not None else None
            found = self.seen[key] = found if time is None else found + labels_of(time)
        return found


def equal_labels(wanted: Any) -> set[str]:
    """The labels a value equal to ``wanted`` (or to one of a list) has."""
    options = wanted if isinstance(wanted, list) else [wanted]
    return {label for label in map(normalize, options) if label is not None}
