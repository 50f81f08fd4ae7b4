"""The database of the ``datasette`` shape: a museum's SQLite collection database as
``sqlite3 collection.db .dump`` writes it, one statement a line: ``CREATE TABLE`` statements
naming the columns, then each table's rows as ``INSERT INTO t VALUES(...)`` lines whose values
are positional, text in single quotes (``''`` for a quote), ``NULL`` for nothing, flags as
``0``/``1``; objects name their artist and department by integer id only (``REFERENCES``)."""

from __future__ import annotations

import random
import sqlite3
from typing import Any

from benchmarks.zoo.kit import CITIES, FIRST, LAST, WORDS, State, fill, size_of

DB = "collection.db"
DEPARTMENTS = [
    ("American Painting", 2),
    ("European Painting", 2),
    ("Prints and Drawings", 3),
    ("Photography", 3),
    ("Asian Art", 1),
    ("Textiles", 1),
    ("Decorative Arts", 1),
    ("Modern and Contemporary", 4),
]
NATIONALITIES = ["American", "French", "Japanese", "Dutch", "German", "Mexican", "British"]
MEDIA = ["Oil on canvas", "Watercolor on paper", "Gelatin silver print", "Woodblock print"]
MEDIA += ["Bronze", "Silk, embroidered", "Etching", "Glazed stoneware", "Charcoal on paper"]
CREDITS = ["Gift of the", "Bequest of", "Purchased with funds from the", "Museum purchase,"]
TABLES = {
    "departments": "CREATE TABLE departments (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
    "floor INTEGER);",
    "artists": "CREATE TABLE artists (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
    "nationality TEXT, birth_year INTEGER, death_year INTEGER);",
    "objects": "CREATE TABLE objects (id INTEGER PRIMARY KEY, accession_number TEXT UNIQUE, "
    "title TEXT, artist_id INTEGER REFERENCES artists(id), department_id INTEGER "
    "REFERENCES departments(id), year INTEGER, medium TEXT, height_cm REAL, width_cm REAL, "
    "on_view INTEGER, acquired TEXT, credit_line TEXT);",
}
LABELS = {"departments": "name", "artists": "name", "objects": "title"}
FOREIGN = {"artist_id": ("artists", "id"), "department_id": ("departments", "id")}


def literal(value: Any) -> str:
    """A value as ``.dump`` writes it."""
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)


def insert(table: str, row: list[Any]) -> str:
    return f"INSERT INTO {table} VALUES({','.join(literal(v) for v in row)});"


def lines(state: State) -> list[str]:
    found: list[str] = state[DB]
    return found


def connect(state: State) -> sqlite3.Connection:
    """The database the dump restores (``sqlite3 :memory: < dump``)."""
    db = sqlite3.connect(":memory:")
    db.executescript("\n".join(lines(state)))
    return db


def last_line(state: State, table: str) -> int:
    """The index of the table's last line (its last ``INSERT``, or its ``CREATE``)."""
    marks = (f"INSERT INTO {table} VALUES(", f"CREATE TABLE {table} (")
    return max(n for n, line in enumerate(lines(state)) if line.startswith(marks))


def line_of(state: State, table: str, pk: int) -> int:
    start = f"INSERT INTO {table} VALUES({pk},"
    for n, line in enumerate(lines(state)):
        if line.startswith(start):
            return n
    raise KeyError(pk)


class Catalogue:
    """Objects catalogued one at a time; now and then a new artist."""

    def __init__(self, rng: random.Random, dump: list[str]) -> None:
        self.rng, self.dump = rng, dump
        self.artist_rows: list[list[Any]] = []
        self.object_rows: list[list[Any]] = []

    def artist(self) -> None:
        rng = self.rng
        born = rng.randint(1780, 1975)
        died = None if born > 1940 and rng.random() < 0.8 else born + rng.randint(30, 90)
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        row = [len(self.artist_rows) + 1, name, rng.choice(NATIONALITIES), born, died]
        self.artist_rows.append(row)

    def add(self) -> None:
        rng = self.rng
        if rng.random() < 0.06 or not self.artist_rows:
            self.artist()
        artist = rng.choice(self.artist_rows)
        year = min(2024, artist[3] + rng.randint(18, 60))
        acquired = f"{rng.randint(1950, 2024)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        title = " ".join(rng.choice(WORDS).capitalize() for _ in range(rng.randint(1, 3)))
        title = rng.choice([title, f"{title} at {rng.choice(CITIES)}", f"View of {title}"])
        n = len(self.object_rows) + 1
        row = [n, f"{acquired[:4]}.{rng.randint(1, 400)}.{n}", title, artist[0]]
        row += [rng.randint(1, len(DEPARTMENTS)), year, rng.choice(MEDIA)]
        row += [round(rng.uniform(8, 240), 1), round(rng.uniform(8, 300), 1)]
        row += [rng.choice([0, 0, 1]), acquired]
        row += [f"{rng.choice(CREDITS)} {rng.choice(FIRST)} {rng.choice(LAST)} Foundation"]
        self.object_rows.append(row)
        self.dump.append(insert("objects", row))


def _dump(catalogue: Catalogue) -> list[str]:
    dump = ["PRAGMA foreign_keys=OFF;", "BEGIN TRANSACTION;", TABLES["departments"]]
    dump += [
        insert("departments", [n, name, floor]) for n, (name, floor) in enumerate(DEPARTMENTS, 1)
    ]
    dump += [TABLES["artists"], *(insert("artists", row) for row in catalogue.artist_rows)]
    dump += [TABLES["objects"], *catalogue.dump]
    return [*dump, "CREATE INDEX idx_objects_artist ON objects(artist_id);", "COMMIT;"]


def database(rng: random.Random, target_bytes: int) -> State:
    """The dump of about ``target_bytes``: departments, artists, then objects."""
    catalogue = Catalogue(rng, [])
    for _ in range(12):
        catalogue.artist()
    fill(catalogue.add, lambda: size_of({DB: _dump(catalogue)}), target_bytes)
    return {DB: _dump(catalogue)}
