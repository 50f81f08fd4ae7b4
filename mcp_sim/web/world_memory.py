"""World memory: what a fictional world has shown so far (pages, search results, facts), in
SQLite, so that it outlives a session, a restart and a single server.

Without ``--world-memory`` it lives in memory for the life of the server process; with a path it
is a file that several sessions, servers and restarts share. Sharing is safe because every write
is one short transaction (WAL journal, ``BEGIN IMMEDIATE``, a generous busy timeout) and every
write is *first writer wins*: a page, a page's text or a query's results, once stored, are
never replaced. When two sessions invent the same page at once, both get back the one stored
first, so the world never holds two versions of anything.

One file can hold several worlds: every row is keyed by the world's id. Calls are synchronous
and short; :class:`mcp_sim.web.pages.PageStore` runs them on a worker thread so a busy file never
blocks the event loop.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Self

from mcp_sim.errors import WorldMemoryError

FORMAT = "mcp-sim/world-memory@1"
BUSY_TIMEOUT_MS = 30_000
"""How long a write waits for another writer (another server on the same file) to finish."""

Origin = Literal["seed", "result", "invented"]
"""Where a page record came from: the world file, a search result, or an address the model was
allowed to invent a page for."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    world TEXT NOT NULL,
    url TEXT NOT NULL,
    title TEXT NOT NULL,
    snippet TEXT NOT NULL,
    date TEXT,
    content TEXT,
    origin TEXT NOT NULL,
    UNIQUE (world, url)
);
CREATE TABLE IF NOT EXISTS searches (
    world TEXT NOT NULL,
    query TEXT NOT NULL,
    results TEXT NOT NULL,
    PRIMARY KEY (world, query)
);
CREATE TABLE IF NOT EXISTS facts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    world TEXT NOT NULL,
    fact TEXT NOT NULL,
    source TEXT NOT NULL,
    UNIQUE (world, fact)
);
"""


@dataclass(frozen=True)
class PageRecord:
    """A page the world has shown: found in results (no ``content`` until opened), seeded by
    the world file, or invented when opened."""

    url: str
    title: str
    snippet: str
    date: str | None
    content: str | None
    origin: Origin
    seq: int = 0
    """Order of first appearance in this memory."""


@dataclass(frozen=True)
class Fact:
    fact: str
    source: str
    """The URL of the page that established it."""
    seq: int = 0


class WorldMemory:
    """The memory of one world in one SQLite database (``None`` for a private in-memory one)."""

    def __init__(self, world: str, path: str | Path | None = None) -> None:
        self.world = world
        self.path = Path(path) if path is not None else None
        self._lock = threading.Lock()
        try:
            if self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                str(self.path) if self.path is not None else ":memory:",
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
            self._db.row_factory = sqlite3.Row
            self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            found = self._set_up()
        except (sqlite3.Error, OSError) as exc:
            raise WorldMemoryError(f"cannot open world memory {self.where}: {exc}") from None
        if found != FORMAT:
            self._db.close()
            raise WorldMemoryError(
                f"{self.where} is a world memory of format {found!r}, not {FORMAT!r}"
            )

    def _set_up(self) -> str:
        """Switch the file to WAL and create the schema; returns the file's format. Two
        processes opening a new file at once can get "database is locked" from the switch to
        WAL without SQLite's busy handler being asked, so that step waits and tries again
        itself, up to the busy timeout."""
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        pause = 0.005
        while True:
            try:
                if self.path is not None:
                    self._db.execute("PRAGMA journal_mode = WAL")
                    self._db.execute("PRAGMA synchronous = NORMAL")
                self._db.executescript(_SCHEMA)
                self._db.execute(
                    "INSERT INTO meta (key, value) VALUES ('format', ?) ON CONFLICT DO NOTHING",
                    (FORMAT,),
                )
                query = "SELECT value FROM meta WHERE key = 'format'"
                found: str = self._db.execute(query).fetchone()[0]
                return found
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() + pause > deadline:
                    raise
                time.sleep(pause)
                pause = min(pause * 2, 0.25)

    @property
    def where(self) -> str:
        return str(self.path) if self.path is not None else "(in memory)"

    # --- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken at once (``IMMEDIATE``) so two writers queue on the
        busy timeout instead of failing halfway."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise WorldMemoryError(f"world memory {self.where}: {exc}") from None
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            else:
                self._db.execute("COMMIT")

    def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        with self._lock:
            try:
                return list(self._db.execute(sql, params))
            except sqlite3.Error as exc:
                raise WorldMemoryError(f"world memory {self.where}: {exc}") from None

    # --- pages -----------------------------------------------------------------------------

    def add_page(
        self,
        url: str,
        title: str,
        snippet: str = "",
        date: str | None = None,
        content: str | None = None,
        origin: Origin = "result",
    ) -> PageRecord:
        """Remember a page unless its URL is known, and return the page as stored: the first
        record of a URL wins, except that a record without text takes the text given here."""
        with self._write() as db:
            db.execute(
                "INSERT INTO pages (world, url, title, snippet, date, content, origin) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (world, url) DO NOTHING",
                (self.world, url, title, snippet, date, content, origin),
            )
            if content is not None:
                db.execute(
                    "UPDATE pages SET content = ? WHERE world = ? AND url = ? AND content IS NULL",
                    (content, self.world, url),
                )
            row = db.execute(
                "SELECT * FROM pages WHERE world = ? AND url = ?", (self.world, url)
            ).fetchone()
        return _page(row)

    def set_content(self, url: str, content: str) -> PageRecord | None:
        """Give a known page its text, unless it has one already; the page as stored (None for
        an unknown URL)."""
        with self._write() as db:
            db.execute(
                "UPDATE pages SET content = ? WHERE world = ? AND url = ? AND content IS NULL",
                (content, self.world, url),
            )
            row = db.execute(
                "SELECT * FROM pages WHERE world = ? AND url = ?", (self.world, url)
            ).fetchone()
        return _page(row) if row is not None else None

    def page(self, url: str) -> PageRecord | None:
        rows = self._read("SELECT * FROM pages WHERE world = ? AND url = ?", (self.world, url))
        return _page(rows[0]) if rows else None

    def pages(self, after: int = 0) -> list[PageRecord]:
        """Every page remembered, in order of first appearance (those after ``seq`` ``after``)."""
        rows = self._read(
            "SELECT * FROM pages WHERE world = ? AND seq > ? ORDER BY seq", (self.world, after)
        )
        return [_page(row) for row in rows]

    # --- searches --------------------------------------------------------------------------

    def add_search(self, query: str, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Remember a query's results unless it has some, and return the results as stored."""
        with self._write() as db:
            db.execute(
                "INSERT INTO searches (world, query, results) VALUES (?, ?, ?) "
                "ON CONFLICT (world, query) DO NOTHING",
                (self.world, query, json.dumps(results, ensure_ascii=False)),
            )
            row = db.execute(
                "SELECT results FROM searches WHERE world = ? AND query = ?", (self.world, query)
            ).fetchone()
        stored: list[dict[str, Any]] = json.loads(row["results"])
        return stored

    def search(self, query: str) -> list[dict[str, Any]] | None:
        rows = self._read(
            "SELECT results FROM searches WHERE world = ? AND query = ?", (self.world, query)
        )
        if not rows:
            return None
        stored: list[dict[str, Any]] = json.loads(rows[0]["results"])
        return stored

    def searches(self) -> dict[str, list[dict[str, Any]]]:
        rows = self._read(
            "SELECT query, results FROM searches WHERE world = ? ORDER BY rowid", (self.world,)
        )
        return {row["query"]: json.loads(row["results"]) for row in rows}

    # --- facts -----------------------------------------------------------------------------

    def add_facts(self, facts: list[str], source: str) -> None:
        with self._write() as db:
            db.executemany(
                "INSERT INTO facts (world, fact, source) VALUES (?, ?, ?) "
                "ON CONFLICT (world, fact) DO NOTHING",
                [(self.world, fact, source) for fact in facts],
            )

    def facts(self, after: int = 0) -> list[Fact]:
        rows = self._read(
            "SELECT fact, source, seq FROM facts WHERE world = ? AND seq > ? ORDER BY seq",
            (self.world, after),
        )
        return [Fact(row["fact"], row["source"], row["seq"]) for row in rows]


def _page(row: sqlite3.Row) -> PageRecord:
    return PageRecord(
        url=row["url"],
        title=row["title"],
        snippet=row["snippet"],
        date=row["date"],
        content=row["content"],
        origin=row["origin"],
        seq=row["seq"],
    )
