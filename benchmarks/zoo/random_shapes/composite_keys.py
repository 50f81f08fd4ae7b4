"""Records split over flat composite keys in one keyspace, as a key-value store holds them (a
Redis or etcd dump): a seed that draws it (about two in ten, from a generator of its own) keeps
each of its collections (however the rest of its design would hold them) under ``kind<sep>id`` keys of one object, the
separator drawn among ``:`` ``/`` ``#`` ``.`` ``|``: a record's scalars in its main hash
(``boat:BT-00042``, an object or a flat ``[field, value, ...]`` array, the id in it or only in
the key), each of its lists and objects under a key of its own (``boat:BT-00042:calendar``, a
roster of party ids as a set), by seed one number field of every record kept only in a sorted
set (``rank:boat:length_m``, ``{member: score}`` or ``[member, score, ...]``), and by seed each
link's id also in a set under its record's key (``boat:BT-00042:bookings``). Every tool reads
the records back from the keys, as a client that knows the key scheme does, and a write
changes the part key it touches."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from benchmarks.zoo.kit import pointer
from benchmarks.zoo.random_shapes.encodings import CODECS
from benchmarks.zoo.random_shapes.layout import spelt

if TYPE_CHECKING:
    from benchmarks.zoo.random_shapes.design import Design

SHARE = 0.2
SEPARATORS = (":", "/", "#", ".", "|")
KEYSPACES = ("db0", "keys", "keyspace", "kv")
RANK = "rank"
"""The type word of a sorted set's key (``rank:boat:length_m``)."""
ROLES = ("primary", "secondary", "link")


@dataclass(frozen=True)
class KeyStyle:
    separator: str
    keyspace: str
    pairs: bool
    """Hashes as flat ``[field, value, ...]`` arrays (else objects)."""
    id_held: bool
    """The id in the main hash as well as in its key."""
    ranked: bool
    """One number field of the records kept only in a sorted set."""
    indexed: bool
    """Each link's id also in a set under the key of the record it belongs to."""

    @property
    def names(self) -> str:
        return f"composite keys {self.separator!r}" + " pairs" * self.pairs


def draw_keys(seed: int) -> KeyStyle | None:
    """The key scheme seed ``seed`` draws, if any (a generator of its own)."""
    rng = random.Random(f"{seed}/composite-keys")
    drawn = rng.random() < SHARE
    style = KeyStyle(
        separator=rng.choice(SEPARATORS),
        keyspace=rng.choice(KEYSPACES),
        pairs=rng.random() < 0.35,
        id_held=rng.random() < 0.5,
        ranked=rng.random() < 0.5,
        indexed=rng.random() < 0.6,
    )
    return style if drawn else None


def _hash(pairs: bool, value: dict[str, Any]) -> Any:
    return [x for field, held in value.items() for x in (field, held)] if pairs else value


def _unhash(value: Any) -> dict[str, Any]:
    if isinstance(value, list):
        return dict(zip(value[::2], value[1::2], strict=True))
    found: dict[str, Any] = value
    return found


@dataclass(frozen=True)
class KeyedRecords:
    """One collection's records kept under ``kind<sep>id`` keys (see the module)."""

    style: KeyStyle
    kind: str
    id_key: str
    numeric_ids: bool
    hashes: frozenset[str] = frozenset()
    """The parts that are objects, kept as hashes (flat arrays where the style says)."""
    ranked: str | None = None
    """The number field kept in a sorted set (none: every field in the record's keys)."""
    owner: tuple[str, str, str] | None = None
    """Where each record's id is also listed: the field holding its owner's id, the owner's
    type word, and the part of the owner's keys listing them."""

    def _key(self, ident: Any, part: str = "") -> str:
        sep = self.style.separator
        return f"{self.kind}{sep}{ident}{sep}{part}" if part else f"{self.kind}{sep}{ident}"

    @property
    def rank_key(self) -> str:
        sep = self.style.separator
        return f"{RANK}{sep}{self.kind}{sep}{self.ranked}"

    def make(self) -> dict[str, Any]:
        return {}

    def seal(self, box: dict[str, Any]) -> None:
        """Nothing to finish: every key is written whole as its record is appended."""

    def append(self, box: dict[str, Any], record: dict[str, Any]) -> None:
        ident = record[self.id_key]
        scalars: dict[str, Any] = {}
        for field, value in record.items():
            if field == self.ranked and value is not None:
                ranks = box.setdefault(self.rank_key, [] if self.style.pairs else {})
                if isinstance(ranks, list):
                    ranks += [str(ident), value]
                else:
                    ranks[str(ident)] = value
            elif isinstance(value, dict) and field in self.hashes:
                box[self._key(ident, field)] = _hash(self.style.pairs, value)
            elif isinstance(value, dict | list):
                box[self._key(ident, field)] = value
            elif value is not None and (field != self.id_key or self.style.id_held):
                scalars[field] = value  # a hash holds no null: a field without one is absent
        box[self._key(ident)] = _hash(self.style.pairs, scalars)
        if self.owner is not None and record.get(self.owner[0]) is not None:
            field, kind, part = self.owner
            sep = self.style.separator
            box.setdefault(f"{kind}{sep}{record[field]}{sep}{part}", []).append(str(ident))

    def records(self, box: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """The records, by id as text, in key order: each main hash with its parts."""
        prefix, sep = f"{self.kind}{self.style.separator}", self.style.separator
        ranks = _unhash(box.get(self.rank_key, {})) if self.ranked else {}
        found: dict[str, dict[str, Any]] = {}
        for key, value in box.items():
            if not key.startswith(prefix):
                continue
            ident, _, part = key[len(prefix) :].partition(sep)
            if ident not in found:
                typed = int(ident) if self.numeric_ids and ident.isdigit() else ident
                found[ident] = {self.id_key: typed}
            if part:
                found[ident][part] = _unhash(value) if part in self.hashes else value
            else:
                found[ident].update(_unhash(value))
        for ident, record in found.items():
            if ident in ranks:
                record[str(self.ranked)] = ranks[ident]
        return found

    def adding(
        self, box: dict[str, Any], where: tuple[str, ...], key: str, inside: Any, value: Any
    ) -> list[Any]:
        """The patch writing ``value`` at ``inside`` of record ``key``: into the part key it
        names (a flat hash's pair replaced, or appended), or into the main hash."""
        part_key = self._key(key, inside[0])
        if part_key not in box:
            main = pointer(*where, self._key(key))
            if isinstance(box.get(self._key(key)), list):
                return [_append(main, inside[0]), _append(main, value)]
            return [{"op": "add", "path": pointer(*where, self._key(key), *inside), "value": value}]
        path, held = pointer(*where, part_key), box[part_key]
        rest = inside[1:]
        if rest and rest[0] != "-" and inside[0] in self.hashes and isinstance(held, list):
            fields = held[::2]
            if rest[0] in fields:
                at = f"{path}/{2 * fields.index(rest[0]) + 1}"
                return [{"op": "replace", "path": at + pointer(*rest[1:]), "value": value}]
            return [_append(path, rest[0]), _append(path, value)]
        return [{"op": "add", "path": path + pointer(*rest), "value": value}]


def _append(path: str, value: Any) -> dict[str, Any]:
    return {"op": "add", "path": f"{path}/-", "value": value}


def _ranked(design: Design) -> str | None:
    """A top-level number field of the primary records, the first of them."""
    for field in design.domain.primary.fields:
        if field.kind in ("int", "decimal") and field.name not in design.grouped:
            return design.path(field)[0]
    return None


def hold_in_keys(design: Design) -> Design:
    """``design`` with its collections kept under composite keys where the seed draws them,
    however the rest of the design would hold them (a mixed array, parents, an envelope,
    text, an encoding: a key-value store holds plain values under its keys; the text and
    the mixed array it would hold are then none)."""
    style = draw_keys(design.seed)
    kinds = {r: spelt("snake", design.entity(r).singular) for r in ROLES}
    if style is None or len(set(kinds.values())) < len(ROLES):
        return design
    if style.separator == "/" and "global" in design.id_styles.values():
        style = replace(style, separator=":")  # a global id is base64: it may hold a "/"
    roles = ROLES
    primary = design.stores["primary"]
    # A workbook's sheet sits at the book's path and its number: the keyspace goes beside
    # the book, not into it (:mod:`.header_rows`).
    book = design.formats.text.book if design.formats.text is not None else ()
    place = (*primary.at[: -1 - len(book)], style.keyspace)
    hashes = {
        "primary": {design.spell(design.domain.calendar)} if not design.calendar_list else set()
    }
    indexed = style.indexed and design.reference == "plain" and "link" in roles
    for role in roles:
        store = design.stores[role]
        owner = None
        if role == "link" and indexed:
            part = spelt("snake", design.entity("link").plural)
            owner = (design.reference_key("primary"), kinds["primary"], part)
        held = KeyedRecords(
            style,
            kinds[role],
            store.id_key,
            design.id_styles[role] == "int",
            frozenset(hashes.get(role, set())),
            _ranked(design) if role == "primary" and style.ranked else None,
            owner,
        )
        plain = CODECS["plain"]
        design.stores[role] = replace(
            store,
            at=place,
            container="keys",
            codec=plain,
            key_prefix="",
            text=held,
            mixed=None,
            envelope=None,
            parents=None,
        )
    plain_text = replace(design, formats=replace(design.formats, text=None))
    return replace(plain_text, structure=replace(design.structure, frame=None))
