"""Quantities written as text with a unit: their real magnitude, to compare and to sum.

A store often keeps a measure as a string: Kubernetes' ``"250m"`` CPU (0.25 cores) and
``"1536Mi"`` memory (1536 × 2^20 bytes), a catalog's ``"12 kg"``, a bill's ``"3.5 GB"``, a
trace's ``"250 ms"``, a rate's ``"5%"``, a price's ``"$12.00"``. Compared as text, ``"2Gi"``
sorts below ``"512Mi"``; summed, they are nothing. :func:`quantity` reads such a string as a
:class:`Quantity`: its magnitude in its dimension's base unit (bytes, seconds, grams, metres,
a plain number for Kubernetes' unit-less suffixes) and the dimension, so that only values of
one dimension are compared or summed. :func:`unit_of` reads the unit a name ends in
(``min_memory_gib``, ``cpu_requests_millicores``, ``weight_kg``): the unit an argument bounds
in, or a total is asked in.

Nothing here knows a store by name: the suffixes are those of the standards (SI and IEC
prefixes, Kubernetes' resource quantities) and the common unit words and symbols.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

_KUBE_SUFFIX: dict[str, float] = {
    "n": 1e-9,
    "u": 1e-6,
    "m": 1e-3,
    "k": 1e3,
    "K": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "P": 1e15,
    "E": 1e18,
    "Ki": 2.0**10,
    "Mi": 2.0**20,
    "Gi": 2.0**30,
    "Ti": 2.0**40,
    "Pi": 2.0**50,
    "Ei": 2.0**60,
}
"""Kubernetes' resource-quantity suffixes (decimal SI and binary IEC), written right after the
number: a plain count of cores or bytes scaled."""

_BYTES = "bytes"
_SECONDS = "seconds"
_GRAMS = "grams"
_METRES = "metres"
_LITRES = "litres"
_RATIO = "ratio"
_WATTS = "watts"
_WATT_HOURS = "watt-hours"
_HERTZ = "hertz"
_MONEY = "money"
_COUNT = ""
"""A dimension-less magnitude (cores, replicas, a Kubernetes quantity)."""

_UNITS: dict[str, tuple[str, float]] = {
    "b": (_BYTES, 1.0),
    "byte": (_BYTES, 1.0),
    "bytes": (_BYTES, 1.0),
    "kb": (_BYTES, 1e3),
    "mb": (_BYTES, 1e6),
    "gb": (_BYTES, 1e9),
    "tb": (_BYTES, 1e12),
    "pb": (_BYTES, 1e15),
    "kib": (_BYTES, 2.0**10),
    "mib": (_BYTES, 2.0**20),
    "gib": (_BYTES, 2.0**30),
    "tib": (_BYTES, 2.0**40),
    "ns": (_SECONDS, 1e-9),
    "us": (_SECONDS, 1e-6),
    "µs": (_SECONDS, 1e-6),
    "ms": (_SECONDS, 1e-3),
    "millis": (_SECONDS, 1e-3),
    "milliseconds": (_SECONDS, 1e-3),
    "s": (_SECONDS, 1.0),
    "sec": (_SECONDS, 1.0),
    "secs": (_SECONDS, 1.0),
    "second": (_SECONDS, 1.0),
    "seconds": (_SECONDS, 1.0),
    "min": (_SECONDS, 60.0),
    "mins": (_SECONDS, 60.0),
    "minute": (_SECONDS, 60.0),
    "minutes": (_SECONDS, 60.0),
    "h": (_SECONDS, 3600.0),
    "hr": (_SECONDS, 3600.0),
    "hrs": (_SECONDS, 3600.0),
    "hour": (_SECONDS, 3600.0),
    "hours": (_SECONDS, 3600.0),
    "mg": (_GRAMS, 1e-3),
    "g": (_GRAMS, 1.0),
    "gram": (_GRAMS, 1.0),
    "grams": (_GRAMS, 1.0),
    "kg": (_GRAMS, 1e3),
    "kgs": (_GRAMS, 1e3),
    "t": (_GRAMS, 1e6),
    "lb": (_GRAMS, 453.59237),
    "lbs": (_GRAMS, 453.59237),
    "oz": (_GRAMS, 28.349523125),
    "mm": (_METRES, 1e-3),
    "cm": (_METRES, 1e-2),
    "m": (_METRES, 1.0),
    "km": (_METRES, 1e3),
    "ml": (_LITRES, 1e-3),
    "l": (_LITRES, 1.0),
    "litre": (_LITRES, 1.0),
    "litres": (_LITRES, 1.0),
    "liter": (_LITRES, 1.0),
    "liters": (_LITRES, 1.0),
    "%": (_RATIO, 1e-2),
    "pct": (_RATIO, 1e-2),
    "percent": (_RATIO, 1e-2),
    "w": (_WATTS, 1.0),
    "watt": (_WATTS, 1.0),
    "watts": (_WATTS, 1.0),
    "kw": (_WATTS, 1e3),
    "mw": (_WATTS, 1e6),
    "gw": (_WATTS, 1e9),
    "wh": (_WATT_HOURS, 1.0),
    "kwh": (_WATT_HOURS, 1e3),
    "mwh": (_WATT_HOURS, 1e6),
    "hz": (_HERTZ, 1.0),
    "khz": (_HERTZ, 1e3),
    "mhz": (_HERTZ, 1e6),
    "ghz": (_HERTZ, 1e9),
    "millicores": (_COUNT, 1e-3),
    "millicore": (_COUNT, 1e-3),
    "cores": (_COUNT, 1.0),
    "core": (_COUNT, 1.0),
    "cpus": (_COUNT, 1.0),
    "vcpus": (_COUNT, 1.0),
}
"""Unit words and symbols (lower case) → their dimension and their size in its base unit."""
_CASED: dict[str, tuple[str, float]] = {"mW": (_WATTS, 1e-3), "mWh": (_WATT_HOURS, 1e-3)}
"""Symbols whose case tells a prefix apart (``mW`` is a thousandth of ``MW``'s unit's)."""

_ONE_LETTER = frozenset("gsmhl%")
_CURRENCY_SIGNS = "$€£¥"
_CURRENCY_CODE = re.compile(r"^[A-Z]{3}$")
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_QUANTITY = re.compile(
    rf"^\s*(?P<sign>[{_CURRENCY_SIGNS}])?\s*(?P<number>{_NUMBER})\s*(?P<unit>[A-Za-zµ%]*)\s*$"
)
_CODE_BEFORE = re.compile(rf"^\s*(?P<code>[A-Z]{{3}})\s+(?P<number>{_NUMBER})\s*$")
_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|%")


@dataclass(frozen=True)
class Quantity:
    magnitude: float
    """The value in its dimension's base unit (``"1536Mi"``: 1610612736.0)."""
    dimension: str
    """What it measures (``bytes``, ``seconds``, ``money``); ``""`` for a plain number."""
    suffixed: bool
    """Whether the text carried a unit or a suffix (``"1.5"`` does not)."""
    size: float = 1.0
    """The size of the unit it is written in (``"12 kg"``: 1000 grams); a Kubernetes
    suffix scales a plain number, whose unit is 1."""
    written: float = 0.0
    """The number as written (``"1536Mi"``: 1536): where a field's values lie, to tell which
    field a bound without a name fits (``min_power_kw: 50`` among ``"11 kW"``..``"300 kW"``)."""


def quantity(text: str) -> Quantity | None:
    """``text`` read as a quantity, or ``None`` when it is none (a name, a date, an id such
    as ``"A12"``): a number, optionally signed by a currency, followed by a Kubernetes suffix
    (``250m``, ``1536Mi``), a unit word or symbol (``12 kg``, ``3.5 GB``, ``5%``) or a
    currency code (``12.00 EUR``, ``EUR 12.00``)."""
    if len(text) > 40:
        return None
    code = _CODE_BEFORE.match(text)
    if code is not None:
        return Quantity(float(code["number"]), _MONEY, True, 1.0, float(code["number"]))
    found = _QUANTITY.match(text)
    if found is None:
        return None
    number, unit, spaced = float(found["number"]), found["unit"], " " in text.strip()
    if found["sign"]:
        return Quantity(number, _MONEY, True, 1.0, number) if not unit or _is_code(unit) else None
    if not unit:
        return Quantity(number, _COUNT, False, 1.0, number)
    if _is_code(unit):
        return Quantity(number, _MONEY, True, 1.0, number)
    if not spaced and unit in _KUBE_SUFFIX:
        # ``250m`` is 250 thousandths, ``1536Mi`` 1536 × 2^20; ``250 m`` is metres.
        return Quantity(number * _KUBE_SUFFIX[unit], _COUNT, True, 1.0, number)
    known = _CASED.get(unit) or _UNITS.get(unit.lower())
    if known is None:
        return None
    dimension, size = known
    return Quantity(number * size, dimension, True, size, number)


def suffixed_magnitude(value: object) -> float | None:
    """The magnitude of a text written with a unit or a suffix (``"1536Mi"``, ``"12 kg"``);
    ``None`` for anything else, plain numbers in text included (other rules read those)."""
    if not isinstance(value, str):
        return None
    read = quantity(value)
    return read.magnitude if read is not None and read.suffixed else None


def suffixed(value: object) -> Quantity | None:
    """A text written with a unit or a suffix (``"150 kW"``, ``"1536Mi"``) as a quantity;
    ``None`` for anything else, plain numbers in text included."""
    if not isinstance(value, str):
        return None
    read = quantity(value)
    return read if read is not None and read.suffixed else None


def bound_magnitude(bound: float, argument: str, written: Iterable[object]) -> float:
    """A range bound on a field of quantities, as a magnitude to compare theirs with: in the
    unit the argument's name ends in (``min_memory_gib: 2``), else in the unit most of the
    field's values are written in (``min_weight: 12`` over ``"12 kg"``, ``"800 g"``)."""
    unit = unit_of(argument)
    if unit is not None:
        return bound * unit.size
    sizes = Counter(
        q.size for q in (quantity(v) for v in written if isinstance(v, str)) if q is not None
    )
    return bound * sizes.most_common(1)[0][0] if sizes else bound


def _is_code(unit: str) -> bool:
    return bool(_CURRENCY_CODE.match(unit)) and unit.lower() not in _UNITS


@dataclass(frozen=True)
class Unit:
    word: str
    """The unit as the name writes it (``gib``, ``Millicores``)."""
    dimension: str
    size: float
    """Its size in the dimension's base unit."""


def unit_of(name: str) -> Unit | None:
    """The unit the last word of ``name`` is (``min_memory_gib``: GiB; ``cpuMillicores``:
    thousandths of a core; ``weight_kg``: kilograms; ``duration_s``), or ``None``. Of the
    one-letter units only those a measure's name ends in are read (``g``, ``s``, ``m``,
    ``h``, ``l``): ``team_b`` is no size in bytes, nor ``plan_t`` a weight in tonnes."""
    words = _NAME_WORD.findall(name)
    if len(words) < 2:
        return None
    last = words[-1].lower()
    known = _UNITS.get(last)
    if known is None or (len(last) == 1 and last not in _ONE_LETTER):
        return None
    return Unit(words[-1], known[0], known[1])


def without_unit(name: str) -> list[str]:
    """The words of ``name`` before the unit it ends in (``cpu_requests_millicores``:
    ``cpu``, ``requests``); all its words when it ends in none."""
    words = _NAME_WORD.findall(name)
    return words[:-1] if unit_of(name) is not None else words


def quantities(texts: list[str]) -> list[Quantity] | None:
    """``texts`` read as quantities of one dimension, when every one is a quantity and some
    carry a unit (a field of ``"250m"``, ``"1"`` and ``"2"``: cores); else ``None``, so a
    field of plain numbers in text, codes or names is left as it is."""
    read = [quantity(t) for t in texts]
    found = [q for q in read if q is not None]
    if not found or len(found) < len(read) or not any(q.suffixed for q in found):
        return None
    if len({q.dimension for q in found}) > 1:
        return None
    return found
