"""The episode store in one SQLite file: for the workers of one machine (``sqlite:///PATH``).

Several processes share the file: WAL journal, every write one short ``BEGIN IMMEDIATE``
transaction, a busy timeout for the moments another process is writing. Calls are synchronous
and run on the event loop: each is a few hundred microseconds on a local file, less than the
hop to a worker thread would cost, and a call makes two (claim, append).

Time is the machine's wall clock, which all the processes on one machine share: a lease runs
out at ``expires``, an episode idle past the idle timeout is gone (it is purged when the next
episode is created).
"""

from __future__ import annotations

import hmac
import sqlite3
import time
from pathlib import Path
from typing import Any

from mcp_sim.episodes.records import NewRecord, StoredEpisode
from mcp_sim.episodes.store import Claim, EpisodeStore, Revision
from mcp_sim.errors import EpisodeStoreError, SessionExists

FORMAT = "mcp-sim/episodes@2"
EARLIER_FORMAT = "mcp-sim/episodes@1"
"""The layout before incarnations, which opening brings up to ``FORMAT`` in place."""
BUSY_TIMEOUT_MS = 10_000

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
CREATE TABLE IF NOT EXISTS leases (
    episode TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires REAL NOT NULL
) WITHOUT ROWID;
"""


class SqliteEpisodeStore(EpisodeStore):
    def __init__(self, path: str | Path, *, idle_seconds: float | None = None) -> None:
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        self.idle_seconds = idle_seconds
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                str(self.path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None
            )
            self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._db.executescript(_SCHEMA)
            self._db.execute(
                "INSERT INTO meta VALUES ('format', ?) ON CONFLICT DO NOTHING", (FORMAT,)
            )
            (found,) = self._db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
            if found == EARLIER_FORMAT:
                found = self._upgrade()
        except (sqlite3.Error, OSError) as exc:
            raise EpisodeStoreError(f"cannot open the episode store {self.url}: {exc}") from None
        if found != FORMAT:
            self._db.close()
            raise EpisodeStoreError(f"{self.url} holds {found}, not {FORMAT}")

    def _upgrade(self) -> str:
        """Give an ``EARLIER_FORMAT`` file its incarnation column (its episodes keep the
        empty incarnation, which no new episode gets)."""
        with self._writing():
            self._db.execute("ALTER TABLE episodes ADD COLUMN incarnation TEXT NOT NULL DEFAULT ''")
            self._db.execute("UPDATE meta SET value = ? WHERE key = 'format'", (FORMAT,))
        return FORMAT

    def _cutoff(self) -> float:
        return time.time() - self.idle_seconds if self.idle_seconds is not None else 0.0

    async def create(
        self, episode_id: str, token: str, incarnation: str, record: NewRecord
    ) -> None:
        with self._writing():
            self._purge_idle()
            try:
                self._db.execute(
                    "INSERT INTO episodes VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
                    (
                        episode_id,
                        token,
                        record.meta,
                        record.base,
                        record.head,
                        time.time(),
                        incarnation,
                    ),
                )
            except sqlite3.IntegrityError:
                raise SessionExists(
                    f"episode {episode_id!r} already exists; pick another id"
                ) from None

    async def load(self, episode_id: str) -> StoredEpisode | None:
        with self._reading():
            row = self._db.execute(
                "SELECT token, meta, base, head, rev, incarnation FROM episodes "
                "WHERE id = ? AND touched >= ?",
                (episode_id, self._cutoff()),
            ).fetchone()
            if row is None:
                return None
            steps = self._db.execute(
                "SELECT line FROM steps WHERE episode = ? ORDER BY n", (episode_id,)
            ).fetchall()
        token, meta, base, head, rev, incarnation = row
        lines = [s for (s,) in steps]
        return StoredEpisode(episode_id, token, meta, base, head, lines, rev, incarnation)

    async def revision(self, episode_id: str) -> Revision | None:
        row = self._one(
            "SELECT incarnation, rev FROM episodes WHERE id = ? AND touched >= ?", episode_id
        )
        return None if row is None else Revision(row[0], int(row[1]))

    async def holder(self, token: str) -> str | None:
        row = self._one("SELECT id FROM episodes WHERE token = ? AND touched >= ?", token)
        return None if row is None else str(row[0])

    async def opens(self, episode_id: str, token: str) -> bool:
        row = self._one("SELECT token FROM episodes WHERE id = ? AND touched >= ?", episode_id)
        return row is not None and hmac.compare_digest(row[0].encode(), token.encode())

    def _one(self, query: str, key: str) -> Any:
        try:
            return self._db.execute(query, (key, self._cutoff())).fetchone()
        except sqlite3.Error as exc:
            raise EpisodeStoreError(f"the episode store {self.url} failed: {exc}") from None

    async def claim(self, episode_id: str, holder: str, seconds: float) -> Claim | None:
        now = time.time()
        with self._writing():
            row = self._db.execute(
                "SELECT rev, incarnation FROM episodes WHERE id = ? AND touched >= ?",
                (episode_id, self._cutoff()),
            ).fetchone()
            if row is None:
                return None
            taken = self._db.execute(
                "INSERT INTO leases VALUES (?, ?, ?) ON CONFLICT (episode) DO UPDATE SET "
                "holder = excluded.holder, expires = excluded.expires "
                "WHERE leases.holder = excluded.holder OR leases.expires <= ?",
                (episode_id, holder, now + seconds, now),
            ).rowcount
            if taken:
                return Claim(int(row[0]), incarnation=row[1])
            (expires,) = self._db.execute(
                "SELECT expires FROM leases WHERE episode = ?", (episode_id,)
            ).fetchone()
            return Claim(None, max(0.0, expires - now))

    async def renew(self, episode_id: str, holder: str, seconds: float) -> bool:
        with self._writing():
            return bool(
                self._db.execute(
                    "UPDATE leases SET expires = ? WHERE episode = ? AND holder = ?",
                    (time.time() + seconds, episode_id, holder),
                ).rowcount
            )

    async def release(self, episode_id: str, holder: str) -> None:
        with self._writing():
            self._db.execute(
                "DELETE FROM leases WHERE episode = ? AND holder = ?", (episode_id, holder)
            )

    async def append(
        self, episode_id: str, holder: str, at: Revision, step: str, head: str
    ) -> int | None:
        rev = at.rev
        with self._writing():
            if not self._fenced(episode_id, holder, at):
                return None
            self._db.execute("INSERT INTO steps VALUES (?, ?, ?)", (episode_id, rev, step))
            self._db.execute(
                "UPDATE episodes SET head = ?, rev = ?, touched = ? WHERE id = ?",
                (head, rev + 1, time.time(), episode_id),
            )
            self._db.execute(
                "DELETE FROM leases WHERE episode = ? AND holder = ?", (episode_id, holder)
            )
        return rev + 1

    async def restart(
        self, episode_id: str, holder: str, at: Revision, record: NewRecord
    ) -> int | None:
        rev = at.rev
        with self._writing():
            if not self._fenced(episode_id, holder, at):
                return None
            self._db.execute("DELETE FROM steps WHERE episode = ?", (episode_id,))
            self._db.execute(
                "UPDATE episodes SET meta = ?, base = ?, head = ?, rev = ?, touched = ? "
                "WHERE id = ?",
                (record.meta, record.base, record.head, rev + 1, time.time(), episode_id),
            )
        return rev + 1

    def _fenced(self, episode_id: str, holder: str, at: Revision) -> bool:
        """Whether no other worker holds the lease and the episode is still at ``at``
        (inside a write transaction)."""
        row = self._db.execute(
            "SELECT e.rev, l.holder, l.expires, e.incarnation FROM episodes e "
            "LEFT JOIN leases l ON l.episode = e.id WHERE e.id = ?",
            (episode_id,),
        ).fetchone()
        if row is None or Revision(row[3], row[0]) != at:
            return False
        return row[1] is None or row[1] == holder or row[2] <= time.time()

    async def delete(self, episode_id: str) -> None:
        with self._writing():
            for table, key in (("steps", "episode"), ("leases", "episode"), ("episodes", "id")):
                self._db.execute(f"DELETE FROM {table} WHERE {key} = ?", (episode_id,))

    def _purge_idle(self) -> None:
        if self.idle_seconds is None:
            return
        cutoff = self._cutoff()
        gone = "(SELECT id FROM episodes WHERE touched < ?)"
        self._db.execute(f"DELETE FROM steps WHERE episode IN {gone}", (cutoff,))
        self._db.execute(f"DELETE FROM leases WHERE episode IN {gone}", (cutoff,))
        self._db.execute("DELETE FROM episodes WHERE touched < ?", (cutoff,))

    async def close(self) -> None:
        self._db.close()

    def _writing(self) -> _Transaction:
        return _Transaction(self, "BEGIN IMMEDIATE")

    def _reading(self) -> _Transaction:
        return _Transaction(self, "BEGIN")


class _Transaction:
    """One transaction on the store's file; SQLite's errors leave as
    :class:`EpisodeStoreError`."""

    def __init__(self, store: SqliteEpisodeStore, begin: str) -> None:
        self.store = store
        self.begin = begin

    def __enter__(self) -> None:
        try:
            self.store._db.execute(self.begin)
        except sqlite3.Error as exc:
            raise EpisodeStoreError(f"the episode store {self.store.url} failed: {exc}") from None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, _: object
    ) -> None:
        db = self.store._db
        if kind is None:
            try:
                db.execute("COMMIT")
                return
            except sqlite3.Error as failed:
                exc = failed
        if db.in_transaction:
            db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise EpisodeStoreError(f"the episode store {self.store.url} failed: {exc}") from None
