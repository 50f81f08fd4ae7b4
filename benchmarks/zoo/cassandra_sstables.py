"""The ``cassandra`` shape's data: a streaming service's keyspace in Apache Cassandra 4 as
``sstabledump`` prints each table's SSTables, beside the keyspace's ``DESCRIBE`` text. A table
is split over several SSTables (an older bulk one, newer ones of updates and deletions): a row
is the merge of its pieces across them, each cell the one of the latest write timestamp (the
row's ``liveness_info`` or the cell's own ``tstamp``), a row deletion or cell tombstone hiding
what was written before it. Partitions are keyed by their partition key values only;
clustering values order rows inside them; a set or map column is one cell per element, its key
in ``path``."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from benchmarks.zoo.kit import CITIES, FIRST, LAST, WORDS, State, fill, size_of

KEYSPACE = "streamly"
TABLES: dict[str, dict[str, Any]] = {
    "users": {
        "partition": ["user_id"],
        "clustering": [],
        "dir": "users-3f5c2e10a1b511efa1c07d9c2b4e0f11",
    },
    "titles": {
        "partition": ["title_id"],
        "clustering": [],
        "dir": "titles-41a7d6c0a1b511efa1c07d9c2b4e0f11",
    },
    "watch_history_by_user": {
        "partition": ["user_id"],
        "clustering": ["watched_at", "title_id"],
        "dir": "watch_history_by_user-4c02b8e0a1b511efa1c07d9c2b4e0f11",
    },
    "ratings_by_title": {
        "partition": ["title_id"],
        "clustering": ["user_id"],
        "dir": "ratings_by_title-52e9a1f0a1b511efa1c07d9c2b4e0f11",
    },
}
SCHEMA = [
    f"CREATE KEYSPACE {KEYSPACE} WITH replication = {{'class': 'NetworkTopologyStrategy', 'dc1': '3'}};",
    f"CREATE TABLE {KEYSPACE}.users (user_id uuid PRIMARY KEY, email text, name text, country text, "
    "plan text, devices set<text>, prefs map<text, text>, signed_up timestamp);",
    f"CREATE TABLE {KEYSPACE}.titles (title_id text PRIMARY KEY, name text, kind text, "
    "genres set<text>, year int, runtime_min int);",
    f"CREATE TABLE {KEYSPACE}.watch_history_by_user (user_id uuid, watched_at timestamp, "
    "title_id text, title_name text, progress_pct int, device text, "
    "PRIMARY KEY ((user_id), watched_at, title_id)) WITH CLUSTERING ORDER BY (watched_at DESC, title_id ASC);",
    f"CREATE TABLE {KEYSPACE}.ratings_by_title (title_id text, user_id uuid, stars int, "
    "rated_at timestamp, PRIMARY KEY ((title_id), user_id));",
]
GENRES = ["drama", "comedy", "thriller", "documentary", "animation", "sci-fi", "crime", "romance"]
PLANS = ["basic", "standard", "premium"]
DEVICES = ["tv", "phone", "tablet", "web", "console"]
COUNTRIES = ["DE", "FR", "ES", "IT", "PL", "NL", "SE", "PT"]
FILES = ("nb-1-big-Data.db", "nb-2-big-Data.db")
WRITES = "nb-3-big-Data.db"
"""The SSTable a flush after the episode's writes makes."""


def sstables(state: State, table: str) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = state[KEYSPACE][TABLES[table]["dir"]]
    return found


def _stamp(rng: random.Random, month_low: int = 1, month_high: int = 4) -> str:
    month, day = rng.randint(month_low, month_high), rng.randint(1, 28)
    return f"2025-{month:02d}-{day:02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.000Z"


def write_time(stamp: str, micros: int) -> str:
    """A write timestamp (``liveness_info``'s ``tstamp``) of a moment shown as a value."""
    return stamp[:10] + "T" + stamp[11:19] + f".{micros:06d}Z"


def merged(state: State, table: str) -> Iterator[dict[str, Any]]:
    """The table's live rows, each its columns' latest values, partitions in the first
    SSTable's order (then new ones) and rows in clustering order."""
    spec = TABLES[table]
    rows: dict[tuple[str, ...], dict[tuple[str, ...], dict[str, Any]]] = {}
    for name in sorted(sstables(state, table)):
        for partition in sstables(state, table)[name]:
            key = tuple(partition["partition"]["key"])
            held = rows.setdefault(key, {})
            for row in partition["rows"]:
                piece = held.setdefault(
                    tuple(row.get("clustering", [])), {"deleted": "", "cells": {}}
                )
                _merge(piece, row)
    for key, held in rows.items():
        clustered = sorted(held.items(), key=lambda item: item[0])
        if spec["clustering"] and spec["clustering"][0] == "watched_at":
            clustered.sort(key=lambda item: item[0][0], reverse=True)
        for clustering, piece in clustered:
            values = _values(piece)
            if values is not None:
                yield (
                    dict(zip(spec["partition"], key, strict=True))
                    | dict(zip(spec["clustering"], clustering, strict=True))
                    | values
                )


def _merge(piece: dict[str, Any], row: dict[str, Any]) -> None:
    live = row.get("liveness_info", {}).get("tstamp", "")
    deleted = row.get("deletion_info", {}).get("marked_deleted", "")
    piece["deleted"] = max(piece["deleted"], deleted)
    if live and live > piece["cells"].get(("", ""), ("", None))[0]:
        piece["cells"][("", "")] = (live, True)
    for cell in row.get("cells", []):
        stamp = cell.get("tstamp", live)
        path = tuple(cell.get("path", []))
        slot = (cell["name"], path[0] if path else "")
        if "deletion_info" in cell and not path:
            value: Any = None
        else:
            value = cell.get("value")
        if "deletion_info" in cell and not path and "marked_deleted" in cell["deletion_info"]:
            # A collection overwritten whole: its earlier elements die with this tombstone.
            stamp = cell["deletion_info"]["marked_deleted"]
            for other in [s for s in piece["cells"] if s[0] == cell["name"] and s[1]]:
                if piece["cells"][other][0] < stamp:
                    del piece["cells"][other]
            continue
        if slot not in piece["cells"] or piece["cells"][slot][0] <= stamp:
            piece["cells"][slot] = (stamp, value)


def _values(piece: dict[str, Any]) -> dict[str, Any] | None:
    cells = {slot: held for slot, held in piece["cells"].items() if held[0] > piece["deleted"]}
    if not cells:
        return None
    values: dict[str, Any] = {}
    for (name, element), (_, value) in sorted(cells.items()):
        if not name:
            continue
        if element:
            if value is None:
                continue
            holder = values.setdefault(name, {} if value != "" else [])
            if isinstance(holder, list):
                holder.append(element)
            else:
                holder[element] = value
        elif value is not None:
            values[name] = value
    return values


def _row(
    cells: list[dict[str, Any]], stamp: str, clustering: list[str] | None = None
) -> dict[str, Any]:
    row: dict[str, Any] = {"type": "row", "position": 0}
    if clustering:
        row["clustering"] = clustering
    return row | {"liveness_info": {"tstamp": stamp}, "cells": cells}


def partition(key: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"partition": {"key": [key], "position": 0}, "rows": rows}


def _uuid(rng: random.Random) -> str:
    hexes = "".join(rng.choice("0123456789abcdef") for _ in range(32))
    return f"{hexes[:8]}-{hexes[8:12]}-4{hexes[13:16]}-a{hexes[17:20]}-{hexes[20:]}"


class _Keyspace:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.state: State = {
            "schema.cql": SCHEMA,
            KEYSPACE: {t["dir"]: {f: [] for f in FILES} for t in TABLES.values()},
        }
        self.users: list[str] = []
        self.titles: list[tuple[str, str]] = []
        self.micros = 0
        self.parts: dict[tuple[str, str, str], dict[str, Any]] = {}

    def _tstamp(self, stamp: str) -> str:
        self.micros = (self.micros + 7919) % 1_000_000
        return write_time(stamp, self.micros)

    def _add(self, table: str, file: str, part: dict[str, Any]) -> None:
        """Rows into their partition of an SSTable (each partition is written once)."""
        key = (table, file, part["partition"]["key"][0])
        held = self.parts.get(key)
        if held is None:
            self.parts[key] = part
            sstables(self.state, table)[file].append(part)
            return
        for row in part["rows"]:
            # A later write to the same clustering key replaces the row (an upsert).
            clustering = row.get("clustering")
            same = [n for n, r in enumerate(held["rows"]) if r.get("clustering") == clustering]
            if same:
                held["rows"][same[0]] = row
            else:
                held["rows"].append(row)

    def user(self) -> None:
        rng = self.rng
        ident = _uuid(rng)
        first, last = rng.choice(FIRST), rng.choice(LAST)
        signed = _stamp(rng, 1, 2)
        cells: list[dict[str, Any]] = [
            {"name": "country", "value": rng.choice(COUNTRIES)},
            *(
                {"name": "devices", "path": [d], "value": ""}
                for d in sorted(rng.sample(DEVICES, rng.randint(1, 3)))
            ),
            {"name": "email", "value": f"{first}.{last}{rng.randint(1, 99)}@mail.example".lower()},
            {"name": "name", "value": f"{first} {last}"},
            {"name": "plan", "value": rng.choice(PLANS)},
            {"name": "prefs", "path": ["lang"], "value": rng.choice(["de", "en", "fr", "es"])},
            {"name": "prefs", "path": ["subtitles"], "value": rng.choice(["on", "off"])},
            {"name": "signed_up", "value": signed},
        ]
        self._add("users", FILES[0], partition(ident, [_row(cells, self._tstamp(signed))]))
        if rng.random() < 0.3:
            # A later plan change, written to the newer SSTable with its own timestamp.
            later = self._tstamp(_stamp(rng, 5, 6))
            cells = [{"name": "plan", "value": rng.choice(PLANS), "tstamp": later}]
            self._add(
                "users",
                FILES[1],
                partition(ident, [{"type": "row", "position": 0, "cells": cells}]),
            )
        self.users.append(ident)

    def title(self) -> None:
        rng = self.rng
        ident = f"tt{rng.randint(1000000, 9999999)}"
        name = f"The {rng.choice(WORDS).title()} of {rng.choice(CITIES)}"
        cells: list[dict[str, Any]] = [
            *(
                {"name": "genres", "path": [g], "value": ""}
                for g in sorted(rng.sample(GENRES, rng.randint(1, 3)))
            ),
            {"name": "kind", "value": rng.choice(["movie", "series"])},
            {"name": "name", "value": name},
            {"name": "runtime_min", "value": rng.randint(22, 180)},
            {"name": "year", "value": rng.randint(1990, 2025)},
        ]
        self._add(
            "titles",
            FILES[0],
            partition(ident, [_row(cells, self._tstamp(_stamp(self.rng, 1, 1)))]),
        )
        self.titles.append((ident, name))

    def viewer(self) -> None:
        """A user's watch history, some rows deleted or resumed later, and their ratings."""
        rng = self.rng
        user = rng.choice(self.users)
        rows, later = [], []
        for _ in range(rng.randint(4, 12)):
            title, name = rng.choice(self.titles)
            when = _stamp(rng)
            cells: list[dict[str, Any]] = [
                {"name": "device", "value": rng.choice(DEVICES)},
                {"name": "progress_pct", "value": rng.randint(1, 100)},
                {"name": "title_name", "value": name},
            ]
            rows.append(_row(cells, self._tstamp(when), [when, title]))
            if rng.random() < 0.15:
                stamp = self._tstamp(_stamp(rng, 5, 6))
                gone = {"marked_deleted": stamp, "local_delete_time": stamp[:19] + "Z"}
                later.append(
                    {
                        "type": "row",
                        "position": 0,
                        "clustering": [when, title],
                        "deletion_info": gone,
                        "cells": [],
                    }
                )
            elif rng.random() < 0.15:
                cell = {
                    "name": "progress_pct",
                    "value": 100,
                    "tstamp": self._tstamp(_stamp(rng, 5, 6)),
                }
                later.append(
                    {"type": "row", "position": 0, "clustering": [when, title], "cells": [cell]}
                )
            if rng.random() < 0.4:
                rated = _stamp(rng)
                cells = [
                    {"name": "rated_at", "value": rated},
                    {"name": "stars", "value": rng.randint(1, 5)},
                ]
                self._add(
                    "ratings_by_title",
                    FILES[0],
                    partition(title, [_row(cells, self._tstamp(rated), [user])]),
                )
        self._add("watch_history_by_user", FILES[0], partition(user, rows))
        if later:
            self._add("watch_history_by_user", FILES[1], partition(user, later))


def keyspace(rng: random.Random, target_bytes: int) -> State:
    built = _Keyspace(rng)
    for _ in range(8):
        built.user()
        built.title()
    step = [0]

    def add() -> None:
        step[0] += 1
        if step[0] % 4 == 0:
            built.user()
        elif step[0] % 4 == 1:
            built.title()
        else:
            built.viewer()

    fill(add, lambda: size_of(built.state), target_bytes)
    _order(built.state)
    return built.state


def _order(state: State) -> None:
    """Rows in clustering order inside each partition (``watched_at`` newest first, then
    ``title_id``), and byte offsets as ``sstabledump`` shows them: each partition's and row's
    place in its Data.db file (here, a running count of the JSON it takes)."""
    for table in TABLES:
        for parts in sstables(state, table).values():
            offset = 0
            for part in parts:
                part["rows"].sort(key=lambda r: r.get("clustering", [""])[-1])
                if table == "watch_history_by_user":
                    part["rows"].sort(key=lambda r: r["clustering"][0], reverse=True)
                part["partition"]["position"] = offset
                for row in part["rows"]:
                    offset += 18
                    row["position"] = offset
                    offset += len(str(row.get("cells", ""))) // 3
