"""The episode store in one SQLite file: for the workers of one machine (``sqlite:///PATH``).

Several processes share the file: WAL journal, every write one short ``BEGIN IMMEDIATE``
transaction. SQLite's calls block, so they run on worker threads, never on the event loop: a
process that holds the file's write lock (a backup, another worker stuck in a transaction)
stalls the episode writes that wait for it, never the rest of the server. Reads go through a
connection of their own, which WAL lets read while another holds the write lock, so finding an
episode by its token does not queue behind a write that waits.

Every operation answers within the store's ``timeout``: the busy timeout, the wait for a
connection and the whole operation are held to it, and one that runs out raises
:class:`EpisodeStoreError` (a 503 ``episode_store`` over HTTP). A write whose answer came too
late may still have been made: the revision fence keeps it from being made twice.

Time is the machine's wall clock, which all the processes on one machine share: a lease runs
out at ``expires``, an episode idle past the idle timeout is gone (it is purged when the next
episode is created).
"""

from __future__ import annotations

import hmac
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from mcp_sim.episodes.records import NewRecord, StoredEpisode
from mcp_sim.episodes.store import (
    DEFAULT_STORE_TIMEOUT,
    Claim,
    EpisodeStore,
    EventLimits,
    Revision,
    StreamEvents,
)
from mcp_sim.errors import EpisodeStoreError, SessionExists

FORMAT = "mcp-sim/episodes@2"
EARLIER_FORMAT = "mcp-sim/episodes@1"  # before incarnations: opening upgrades it in place
NAME = "the SQLite episode store"
"""How errors after opening name the store: they reach clients (an episode's agent too), who
have no business knowing the server's paths."""
STORE_THREADS = 4
"""Worker threads the store's operations run on at most (the reader and the writer each run one
operation at a time; the rest wait their turn off the event loop)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS episodes (
    id TEXT PRIMARY KEY,
    token TEXT NOT NULL UNIQUE,
    meta TEXT NOT NULL,
    base TEXT NOT NULL,
    head TEXT NOT NULL,
    rev INTEGER NOT NULL,
    touched REAL NOT NULL,
    incarnation TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS steps (
    episode TEXT NOT NULL,
    n INTEGER NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (episode, n)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (
    id TEXT PRIMARY KEY,
    stream TEXT NOT NULL,
    n INTEGER NOT NULL,
    message TEXT,
    written REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS events_of_stream ON events (stream, n);
CREATE INDEX IF NOT EXISTS events_by_age ON events (written);
CREATE TABLE IF NOT EXISTS leases (
    episode TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires REAL NOT NULL
) WITHOUT ROWID;
"""

_LIVE_BY_ID = "FROM episodes WHERE id = ? AND touched >= ?"
T = TypeVar("T")
Db = sqlite3.Connection


class _Connection:
    """One connection to the file, used by one thread at a time."""

    def __init__(self, path: Path, timeout: float) -> None:
        self.db = sqlite3.connect(
            str(path), timeout=timeout, isolation_level=None, check_same_thread=False
        )
        self.db.execute(f"PRAGMA busy_timeout = {max(1, round(timeout * 1000))}")
        self.lock = threading.Lock()


class SqliteEpisodeStore(EpisodeStore):
    def __init__(
        self,
        path: str | Path,
        *,
        idle_seconds: float | None = None,
        timeout: float = DEFAULT_STORE_TIMEOUT,
    ) -> None:
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        self.idle_seconds = idle_seconds
        self.timeout = timeout
        self._limiter = anyio.CapacityLimiter(STORE_THREADS)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._writer = _Connection(self.path, timeout)
            db = self._writer.db
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            db.executescript(_SCHEMA)
            db.execute("INSERT INTO meta VALUES ('format', ?) ON CONFLICT DO NOTHING", (FORMAT,))
            (found,) = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
            found = _upgraded(db) if found == EARLIER_FORMAT else found
            self._reader = _Connection(self.path, timeout)
        except (sqlite3.Error, OSError) as exc:
            raise EpisodeStoreError(f"cannot open the episode store {self.url}: {exc}") from None
        if found != FORMAT:
            self._writer.db.close()
            self._reader.db.close()
            raise EpisodeStoreError(f"{self.url} holds {found}, not {FORMAT}")

    # --- running off the event loop ---------------------------------------------------------

    async def _write(self, body: Callable[[Db], T]) -> T:
        """``body`` in one write transaction, on a worker thread."""
        return await self._off_loop(self._writer, body, "BEGIN IMMEDIATE")

    async def _read(self, body: Callable[[Db], T]) -> T:
        """``body`` in one read transaction, on a worker thread."""
        return await self._off_loop(self._reader, body, "BEGIN")

    async def _off_loop(self, connection: _Connection, body: Callable[[Db], T], begin: str) -> T:
        def work() -> T:
            if not connection.lock.acquire(timeout=self.timeout):
                raise EpisodeStoreError(self._late())
            try:
                with _Transaction(connection.db, begin):
                    return body(connection.db)
            finally:
                connection.lock.release()

        # The thread's own waits end within the timeout; this bound is for the rest (a slow
        # disk), and leaves the thread to finish on its own.
        with anyio.move_on_after(self.timeout * 2 + 1):
            return await anyio.to_thread.run_sync(
                work, limiter=self._limiter, abandon_on_cancel=True
            )
        raise EpisodeStoreError(self._late())

    def _late(self) -> str:
        return f"{NAME} did not answer within {self.timeout:g} s"

    def _cutoff(self) -> float:
        return time.time() - self.idle_seconds if self.idle_seconds is not None else 0.0

    # --- the operations -------------------------------------------------------------------------

    async def create(
        self, episode_id: str, token: str, incarnation: str, record: NewRecord
    ) -> None:
        def body(db: Db) -> None:
            if self.idle_seconds is not None:
                _purge_idle(db, self._cutoff())
            fields = (record.meta, record.base, record.head, time.time(), incarnation)
            try:
                db.execute(
                    "INSERT INTO episodes VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
                    (episode_id, token, *fields),
                )
            except sqlite3.IntegrityError:
                raise SessionExists(
                    f"episode {episode_id!r} already exists; pick another id"
                ) from None

        await self._write(body)

    async def load(self, episode_id: str) -> StoredEpisode | None:
        def body(db: Db) -> StoredEpisode | None:
            row = db.execute(
                "SELECT token, meta, base, head, rev, incarnation FROM episodes "
                "WHERE id = ? AND touched >= ?",
                (episode_id, self._cutoff()),
            ).fetchone()
            if row is None:
                return None
            query = "SELECT line FROM steps WHERE episode = ? ORDER BY n"
            lines = [s for (s,) in db.execute(query, (episode_id,))]
            token, meta, base, head, rev, incarnation = row
            return StoredEpisode(episode_id, token, meta, base, head, lines, rev, incarnation)

        return await self._read(body)

    async def revision(self, episode_id: str) -> Revision | None:
        row = await self._one(f"SELECT incarnation, rev {_LIVE_BY_ID}", episode_id)
        return None if row is None else Revision(row[0], int(row[1]))

    async def holder(self, token: str) -> str | None:
        row = await self._one("SELECT id FROM episodes WHERE token = ? AND touched >= ?", token)
        return None if row is None else str(row[0])

    async def opens(self, episode_id: str, token: str) -> bool:
        row = await self._one(f"SELECT token {_LIVE_BY_ID}", episode_id)
        return row is not None and hmac.compare_digest(row[0].encode(), token.encode())

    async def _one(self, query: str, key: str) -> Any:
        return await self._read(lambda db: db.execute(query, (key, self._cutoff())).fetchone())

    async def claim(self, episode_id: str, holder: str, seconds: float) -> Claim | None:
        def body(db: Db) -> Claim | None:
            now = time.time()
            row = db.execute(
                "SELECT rev, incarnation FROM episodes WHERE id = ? AND touched >= ?",
                (episode_id, self._cutoff()),
            ).fetchone()
            if row is None:
                return None
            taken = db.execute(
                "INSERT INTO leases VALUES (?, ?, ?) ON CONFLICT (episode) DO UPDATE SET "
                "holder = excluded.holder, expires = excluded.expires "
                "WHERE leases.holder = excluded.holder OR leases.expires <= ?",
                (episode_id, holder, now + seconds, now),
            ).rowcount
            if taken:
                return Claim(int(row[0]), incarnation=row[1])
            (expires,) = db.execute(
                "SELECT expires FROM leases WHERE episode = ?", (episode_id,)
            ).fetchone()
            return Claim(None, max(0.0, expires - now))

        return await self._write(body)

    async def renew(self, episode_id: str, holder: str, seconds: float) -> bool:
        def body(db: Db) -> bool:
            return bool(
                db.execute(
                    "UPDATE leases SET expires = ? WHERE episode = ? AND holder = ?",
                    (time.time() + seconds, episode_id, holder),
                ).rowcount
            )

        return await self._write(body)

    async def release(self, episode_id: str, holder: str) -> None:
        def body(db: Db) -> None:
            db.execute("DELETE FROM leases WHERE episode = ? AND holder = ?", (episode_id, holder))

        await self._write(body)

    async def append(
        self, episode_id: str, holder: str, at: Revision, step: str, head: str
    ) -> int | None:
        def body(db: Db) -> int | None:
            if not _fenced(db, episode_id, holder, at):
                return None
            db.execute("INSERT INTO steps VALUES (?, ?, ?)", (episode_id, at.rev, step))
            db.execute(
                "UPDATE episodes SET head = ?, rev = ?, touched = ? WHERE id = ?",
                (head, at.rev + 1, time.time(), episode_id),
            )
            db.execute("DELETE FROM leases WHERE episode = ? AND holder = ?", (episode_id, holder))
            return at.rev + 1

        return await self._write(body)

    async def restart(
        self, episode_id: str, holder: str, at: Revision, record: NewRecord
    ) -> int | None:
        def body(db: Db) -> int | None:
            if not _fenced(db, episode_id, holder, at):
                return None
            db.execute("DELETE FROM steps WHERE episode = ?", (episode_id,))
            db.execute(
                "UPDATE episodes SET meta = ?, base = ?, head = ?, rev = ?, touched = ? "
                "WHERE id = ?",
                (record.meta, record.base, record.head, at.rev + 1, time.time(), episode_id),
            )
            return at.rev + 1

        return await self._write(body)

    async def delete(self, episode_id: str) -> None:
        def body(db: Db) -> None:
            for table, key in (("steps", "episode"), ("leases", "episode"), ("episodes", "id")):
                db.execute(f"DELETE FROM {table} WHERE {key} = ?", (episode_id,))

        await self._write(body)

    async def keep_event(
        self, event_id: str, stream: str, message: str | None, limits: EventLimits
    ) -> None:
        def body(db: Db) -> None:
            now = time.time()
            db.execute("DELETE FROM events WHERE written < ?", (now - limits.seconds,))
            (n,) = db.execute(
                "SELECT COALESCE(MAX(n), 0) + 1 FROM events WHERE stream = ?", (stream,)
            ).fetchone()
            db.execute(
                "INSERT INTO events VALUES (?, ?, ?, ?, ?)", (event_id, stream, n, message, now)
            )
            db.execute(
                "DELETE FROM events WHERE stream = ? AND n <= ?", (stream, n - limits.per_stream)
            )

        await self._write(body)

    async def events_after(self, event_id: str) -> StreamEvents | None:
        def body(db: Db) -> StreamEvents | None:
            row = db.execute("SELECT stream, n FROM events WHERE id = ?", (event_id,)).fetchone()
            if row is None:
                return None
            later = db.execute(
                "SELECT id, message FROM events WHERE stream = ? AND n > ? ORDER BY n", row
            ).fetchall()
            return StreamEvents(row[0], [(i, m) for i, m in later])

        return await self._read(body)

    async def stream_events(self, stream: str) -> StreamEvents:
        def body(db: Db) -> StreamEvents:
            kept = db.execute(
                "SELECT id, message FROM events WHERE stream = ? ORDER BY n", (stream,)
            ).fetchall()
            return StreamEvents(stream, [(i, m) for i, m in kept])

        return await self._read(body)

    async def close(self) -> None:
        for connection in (self._reader, self._writer):
            # An operation abandoned at its timeout may still hold the connection.
            if connection.lock.acquire(timeout=self.timeout):
                connection.db.close()
                connection.lock.release()


def _upgraded(db: Db) -> str:
    """Give an ``EARLIER_FORMAT`` file incarnations (its episodes keep the empty one)."""
    db.execute("ALTER TABLE episodes ADD COLUMN incarnation TEXT NOT NULL DEFAULT ''")
    db.execute("UPDATE meta SET value = ? WHERE key = 'format'", (FORMAT,))
    return FORMAT


def _purge_idle(db: Db, cutoff: float) -> None:
    gone = "(SELECT id FROM episodes WHERE touched < ?)"
    db.execute(f"DELETE FROM steps WHERE episode IN {gone}", (cutoff,))
    db.execute(f"DELETE FROM leases WHERE episode IN {gone}", (cutoff,))
    db.execute("DELETE FROM episodes WHERE touched < ?", (cutoff,))


def _fenced(db: Db, episode_id: str, holder: str, at: Revision) -> bool:
    """Whether no other worker holds the lease and the episode is still at ``at`` (inside a
    write transaction)."""
    row = db.execute(
        "SELECT e.rev, l.holder, l.expires, e.incarnation FROM episodes e "
        "LEFT JOIN leases l ON l.episode = e.id WHERE e.id = ?",
        (episode_id,),
    ).fetchone()
    if row is None or Revision(row[3], row[0]) != at:
        return False
    return row[1] is None or row[1] == holder or row[2] <= time.time()


class _Transaction:
    """One transaction on the store's file; SQLite's errors leave as
    :class:`EpisodeStoreError`."""

    def __init__(self, db: Db, begin: str) -> None:
        self.db = db
        self.begin = begin

    def __enter__(self) -> None:
        try:
            self.db.execute(self.begin)
        except sqlite3.Error as exc:
            raise EpisodeStoreError(f"{NAME} failed: {exc}") from None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, _: object
    ) -> None:
        if kind is None:
            try:
                self.db.execute("COMMIT")
                return
            except sqlite3.Error as failed:
                exc = failed
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise EpisodeStoreError(f"{NAME} failed: {exc}") from None
