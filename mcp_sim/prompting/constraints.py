"""A call's arguments read as constraints on the fields of one collection's records.

Each argument is matched to the field(s) it constrains (see
:mod:`mcp_sim.prompting.field_names`): by name first (``origin`` ↔ ``origin``, ``city`` ↔
``address/city``, ``min_price`` ↔ ``price`` as a lower bound, ``date`` ↔ the keys of a
``dates`` calendar), and when no name fits, by value: the fields whose values hold it (a
value one field holds names that field), or for a bare bound (``after``) the fields of its
kind. A field an argument claims by name is not also claimed by value for another argument,
so ``from=A, to=B`` do not both match ``origin or destination``. Words to find (``q``) match
a record's text. :func:`constraints_for` does this for each collection and keeps the one the
arguments fit best.
"""

from __future__ import annotations

import json
from collections.abc import Set
from dataclasses import dataclass
from typing import Any

from mcp_sim.prompting.epoch_times import epoch_time
from mcp_sim.prompting.field_names import (
    ArgumentName,
    name_score,
    names_collection,
    read_argument,
    side_of,
    tokens,
)
from mcp_sim.prompting.named_leaves import beside_named
from mcp_sim.prompting.periods import period_fields, year_span
from mcp_sim.prompting.quantity_fields import of_unit
from mcp_sim.prompting.record_fields import (
    ANY,
    ENUM_MOST,
    KEY,
    SELF,
    FieldInfo,
    FieldSchema,
    kind_of_value,
)
from mcp_sim.prompting.scalar_arguments import scalar_arguments
from mcp_sim.prompting.truth_fields import TRUTH_OP, truth_fields, truth_of
from mcp_sim.prompting.value_fields import (
    LEAST_WORD,
    assign_ranges,
    by_kind,
    by_prefix,
    containing,
    of_magnitude,
    own_first,
    stem_named,
)
from mcp_sim.runtime.state_shape import normalize

NAME_FIT = 0.6
"""The least name fit that ties an argument to a field."""
_SURE_NAME = 0.9
"""A name fit this good is not second-guessed by the values."""
_SEEN_EACH = 5
"""Times each value of an enumeration is seen, on average, for its values to be all known."""
_MOST_SHOWN = 4
"""Values of a list a constraint's description shows."""
_MAX_VALUE_FIELDS = 3
"""A bare bound or a value held by more fields than this says too little to constrain."""


@dataclass(frozen=True)
class Constraint:
    argument: str
    op: str
    """``eq`` (a list: any of), ``ne`` (a list: none of), ``min``, ``max``, ``prefix``,
    ``contains`` or ``text``."""
    value: Any
    fields: tuple[str, ...]
    """The field paths the value is tested on (met when any of them meets it)."""
    fit: float
    """How well the argument's name fits the fields (0: matched by value alone)."""

    def describe(self) -> str:
        where = " or ".join(KEY_LABEL if f == SELF else f for f in self.fields)
        shown = json.dumps(self.value, ensure_ascii=False)
        if isinstance(self.value, list) and len(self.value) > _MOST_SHOWN:
            # A join's hundreds of keys: the first few say what they are.
            first = json.dumps(self.value[:_MOST_SHOWN], ensure_ascii=False)[:-1]
            shown = f"{first}, … {len(self.value)} in all: the {self.argument}]"
        symbol = {"eq": "=", "is": "=", "ne": "≠", "min": "≥", "max": "≤"}.get(self.op)
        symbol = "starts with" if self.op == "prefix" else symbol
        if isinstance(self.value, list) and self.op == "ne":
            symbol = "is none of"
        if self.op == "text":
            return f"text has the words {shown}"
        if self.op == "eq" and self.fields and self.fields[0].endswith(KEY):
            return f"{where} has {shown}"
        return f"{where} {symbol or self.op} {shown}"


KEY_LABEL = "(record key)"


@dataclass(frozen=True)
class Reading:
    """The constraints of a call on one collection, and how well they fit it."""

    collection: str
    constraints: tuple[Constraint, ...]
    score: float


def _kind(value: Any) -> str:
    first = value[0] if isinstance(value, list) and value else value
    if isinstance(first, str) and normalize(first) is not None and first.strip():
        try:
            float(first)
            return "number"
        except ValueError:
            pass
    return kind_of_value(first)


def _by_name(
    schema: FieldSchema, words: tuple[str, ...], op: str, kind: str
) -> tuple[float, list[str]]:
    best, fields = 0.0, []
    bounded = kind if kind == "date" else "number"
    for path, info in schema.fields.items():
        if op in ("min", "max") and info.sorts_as not in (kind, bounded):
            continue
        score = name_score(words, info.words)
        if score > best:
            best, fields = score, [path]
        elif score == best and score > 0:
            fields.append(path)
    if best < NAME_FIT:
        return 0.0, []
    if op in ("min", "max"):  # a record's own date, not its list items' (a changelog's)
        fields = [p for p in fields if ANY not in p.split("/")] or fields
    return best, _same_side(schema, words, fields)


def _same_side(schema: FieldSchema, words: tuple[str, ...], fields: list[str]) -> list[str]:
    """Of fields a name fits equally (``city`` of the sender and of the recipient), those on
    the end of a movement the name is on (``to_city``: the recipient's)."""
    side = side_of(words)
    if side is None or len(fields) < 2:
        return fields
    same = [
        p for p in fields if side_of(tuple(w for s in schema.fields[p].words for w in s)) == side
    ]
    return same or fields


def _by_value(schema: FieldSchema, value: Any) -> list[str]:
    wanted = {normalize(v) for v in (value if isinstance(value, list) else [value])} - {None}
    return [p for p, info in schema.fields.items() if info.distinct & wanted]


def _path_named(schema: FieldSchema, fields: list[str], words: tuple[str, ...]) -> list[str]:
    """``fields`` whose path has one of ``words``, and the record's own key among them (any
    identifier names it); none when no other field's path has one."""
    named = [
        p
        for p in fields
        if p != SELF and set(words) & {w for s in schema.fields[p].words for w in s}
    ]
    return [p for p in fields if p in named or p == SELF] if named else []


def _inside_named(schema: FieldSchema, words: tuple[str, ...], fields: list[str]) -> list[str]:
    """Of the fields holding a value, those inside an object the argument's name names
    (``assignee`` ↔ ``fields/assignee/displayName``, not the reporter's or a changelog
    author's): the argument names the object, the value is the leaf that names it."""
    return [p for p in fields if words and any(s == words for s in schema.fields[p].words[:-1])]


def _enumerated(info: FieldInfo) -> bool:
    """Whether a text field's values are few and each seen many times in the sample (its
    every value is known)."""
    few = len(info.distinct)
    return info.kind == "string" and 0 < few <= ENUM_MOST and info.values >= _SEEN_EACH * few


def _holds(schema: FieldSchema, fields: list[str], value: Any) -> bool:
    return any(p in _by_value(schema, value) for p in fields)


def _contained(schema: FieldSchema, name: str, value: Any, how: ArgumentName) -> Constraint | None:
    """An argument no field's name fits nor value holds whole (``title_word=indigo``,
    ``author=Laine`` under MARC's numeric tags): the short text fields holding it at a
    word's start, when few do (see :func:`~mcp_sim.prompting.value_fields.containing`)."""
    if not isinstance(value, str) or len(value.strip()) < LEAST_WORD or _kind(value) != "string":
        return None
    if how.words and _by_name(schema, how.words, "eq", "string")[1]:
        return None  # a name that fits a field (``type=node``) says where to look: not here
    fields = containing(schema, value)
    if not fields or len(fields) > _MAX_VALUE_FIELDS:
        return None
    return Constraint(name, "contains", value, tuple(fields), 0.0)


def _matched(schema: FieldSchema, name: str, value: Any, how: ArgumentName) -> Constraint | None:
    """A query's ``field:value``: the field's value, or a part of it (``from:lena@x.org`` of
    a sender written ``Lena Novak <lena@x.org>``) when the fields the name fits hold no such
    value but hold values containing it; nothing when neither a sure name nor a value ties
    it to a field here (``is:pr`` is no ``isDraft``)."""
    exact = _read(schema, name, value, ArgumentName("eq", how.words))
    if exact is None or _holds(schema, list(exact.fields), value):
        return exact
    fit, named = _by_name(schema, how.words, "eq", "string") if how.words else (0.0, [])
    parts = [p for p in by_prefix(schema, value, "contains", named) if p in named]
    if parts and _kind(value) == "string":
        return Constraint(name, "contains", value, tuple(parts), fit)
    # A value keying none of these records names none by key (``label:travel`` of labels
    # keyed ``Label_8``): the key lookups find what it keys elsewhere.
    sure = exact.fit >= _SURE_NAME and exact.fields != (SELF,)
    return exact if sure else None


def _epoch_bound(
    schema: FieldSchema, name: str, value: Any, how: ArgumentName
) -> Constraint | None:
    """A bound in epoch milliseconds (or seconds) on a field of dates its name names (HubSpot's
    ``createdate`` ``BETWEEN 1712793600000`` over ISO text), as the time it stands for."""
    when = epoch_time(value)
    if when is None or not how.words:
        return None
    fit, fields = _by_name(schema, how.words, how.op, "date")
    return Constraint(name, how.op, when, tuple(fields), fit) if fields else None


def _flag(schema: FieldSchema, name: str, value: Any, how: ArgumentName) -> Constraint | None:
    """A yes or a no on the boolean fields the name fits (see :mod:`.truth_fields`)."""
    truth = truth_of(value) if how.op in ("eq", "match") else None
    fields, fit = truth_fields(schema, how.words) if truth is not None else ((), 0.0)
    return Constraint(name, TRUTH_OP, truth, fields, fit) if fields else None


def _read(schema: FieldSchema, name: str, value: Any, how: ArgumentName) -> Constraint | None:
    kind = _kind(value)
    op = how.op
    if (flag := _flag(schema, name, value, how)) is not None or isinstance(value, bool):
        return flag  # a flag no boolean field answers to shapes the answer
    if op == "match":
        return _matched(schema, name, value, how)
    if how.ambiguous_bound and kind not in ("date", "number"):
        op, how = "eq", ArgumentName("eq", tokens(name))
    if op == "text":
        return Constraint(name, "text", value, (), 0.5)
    if (
        op in ("min", "max")
        and kind == "number"
        and (dated := _epoch_bound(schema, name, value, how))
    ):
        return dated
    fit, fields = _by_name(schema, how.words, op, kind) if how.words else (0.0, [])
    fields = own_first(schema, fields, value, op)
    if not fields and op in ("min", "max") and (measured := of_unit(schema, name)):
        # ``min_power_kw`` bounds the fields of power (any of them), whatever their names.
        return Constraint(name, op, value, tuple(measured), NAME_FIT)
    if not fields and op in ("min", "max"):
        # Only fields whose values are of the bound's magnitude, not any that spans it.
        fields = [p for p in by_kind(schema, kind) if of_magnitude(schema.fields[p], value)]
        if how.words:
            # Some of the name's words (``departure`` of ``departure_after``) narrow it down.
            fields = stem_named(schema, fields, how.words) or fields
        # The fields whose values lie around the bound: :func:`_ranges` picks among them.
        return Constraint(name, op, value, tuple(fields), 0.0) if fields else None
    if op in ("eq", "ne") and fields and (beside := beside_named(schema, fields, value)):
        fields = beside  # ``artist`` fits an artist's ``id``; the name beside it holds the value
    elif op in ("eq", "ne") and (
        not fields or (fit < _SURE_NAME and not _holds(schema, fields, value))
    ):
        # A loose name (``crop`` ↔ ``crop_name``) yields to a field holding the value; a
        # loose name of fields whose every value is known and none is this one
        # (``power_type`` ↔ a link's ``locomotive/type``) names no field here.
        held = _by_value(schema, value)
        if not held and fields and all(_enumerated(schema.fields[f]) for f in fields):
            return None
        # Of the fields holding the value, those inside an object the name names when no
        # field's name fits (``assignee`` ↔ ``fields/assignee/displayName``); else those whose
        # path has a word of the name (``organizer`` ↔ ``organizer/value``, not
        # ``attendee/*/value``).
        inside = _inside_named(schema, how.words, held) if not fields else []
        if inside:
            fit, fields = NAME_FIT, inside
        else:
            fields = _path_named(schema, held, how.words) or held or fields
    elif op in ("prefix", "contains") and fit < _SURE_NAME:
        # A loose name (``crop_name`` ↔ ``crop``) yields to the fields whose values fit.
        fields = by_prefix(schema, value, op, fields) or fields
    if not fields or (len(fields) > _MAX_VALUE_FIELDS and fit == 0):
        return None
    return Constraint(name, op, value, tuple(fields), fit)


def _ranges(schema: FieldSchema, constraints: list[Constraint]) -> list[Constraint]:
    """Bounds no field's name fits, each narrowed to the field its value fits (see
    :func:`mcp_sim.prompting.value_fields.assign_ranges`); dropped when none does and too
    many fields are left."""
    groups: dict[tuple[str, ...], list[tuple[str, Any, list[str]]]] = {}
    claimed: set[str] = set()
    for c in constraints:
        if c.fit == 0 and c.op in ("min", "max"):
            words = read_argument(c.argument).words
            groups.setdefault(words, []).append((c.argument, c.value, list(c.fields)))
        elif c.fit >= NAME_FIT or (c.op == "eq" and len(c.fields) == 1):
            claimed.update(c.fields)
    chosen = assign_ranges(schema, groups, claimed) if groups else {}
    out: list[Constraint] = []
    for c in constraints:
        if c.fit == 0 and c.op in ("min", "max"):
            fields = chosen.get(c.argument) or list(c.fields)
            if len(fields) > _MAX_VALUE_FIELDS:
                continue
            c = Constraint(c.argument, c.op, c.value, tuple(fields), c.fit)
        out.append(c)
    return out


def weight_of(constraint: Constraint) -> float:
    """What a constraint says for its collection: a bound only a field's kind and values
    fit says less than a value the field holds or a name it has."""
    if constraint.fit == 0 and constraint.op in ("min", "max"):
        return 0.5
    return 1 + constraint.fit


def _exclusive(constraints: list[Constraint]) -> list[Constraint]:
    """A field claimed by name is not also claimed by value (by another argument)."""
    claimed = {f for c in constraints if c.fit >= 0.8 for f in c.fields}
    out: list[Constraint] = []
    for c in constraints:
        if c.fit == 0 and c.op in ("eq", "ne"):
            kept = tuple(f for f in c.fields if f not in claimed)
            c = Constraint(c.argument, c.op, c.value, kept or c.fields, c.fit)
        out.append(c)
    return out


def read_collection(
    schema: FieldSchema,
    arguments: dict[str, Any],
    told: Set[str] = frozenset(),
    loose: Set[str] = frozenset(),
) -> Reading:
    """The constraints ``arguments`` put on the records of ``schema``'s collection (``told``:
    the words of the tool's name and description, which choose the dates a period bounds;
    ``loose``: the arguments whose text no record holds whole, sought inside values when
    nothing else ties them to a field)."""
    found: list[Constraint] = []
    named = 0.0
    for name, value in scalar_arguments(arguments):
        how = read_argument(name)
        if how.control and not _selects(schema, how, value):
            continue
        if how.op in ("eq", "match") and (years := year_span(value)):
            value = years  # a span of years: a date in any of them, or any year a field holds
        period = period_fields(schema, name, value, told)
        constraint = (
            Constraint(name, "prefix", value, *period)
            if period
            else _read(schema, name, value, how)
        )
        if constraint is None and how.op == "eq" and name in loose:
            constraint = _contained(schema, name, value, how)
        if constraint is not None:
            found.append(constraint)
        elif how.op == "match" and names_collection(schema.collection, value):
            # A query's qualifier naming the records searched (``is:pr`` of pullRequests).
            named += 1.0
    found = _ranges(schema, _exclusive(found))
    score = sum(weight_of(c) for c in found) + (named if found else 0.0)
    return Reading(schema.collection, tuple(found), score)


def _selects(schema: FieldSchema, how: ArgumentName, value: Any) -> bool:
    """Whether an argument named like one that shapes the answer (``format``, ``order``)
    selects records after all: its text value is one some field holds (``format=jazz``)."""
    if not isinstance(value, str) or _kind(value) == "number":
        return False
    return bool(_by_value(schema, value)) or _by_name(schema, how.words, "eq", "string")[0] >= 0.9
