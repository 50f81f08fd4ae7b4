"""The answer cache (``--cache PATH``): world model answers kept in SQLite, so a repeated run
asks the model nothing.

An entry is one model request and its completion. The key is a hash of everything that decides
the answer: the world's content hash, the model (as configured), the messages — which carry the
call, the history and the state, so the state version and the history are in the key through
them — the sampling settings with the request's seed, and the response schema. The seed is
drawn from the session's seeded RNG whether the answer comes from the cache or not, so a run
with cache hits sends (and looks up) the same seeds as the run that filled the cache. With a
temperature of 0 the seed is left out of the key, since greedy decoding ignores it.

The simulator stores the answers of a call only after the call is over, and only if no request
of that call failed transiently (endpoint unavailable, timeout): an answer shaped by such a
failure (a state change that could not be asked for, a regeneration that did not happen) is
never kept, so the next run asks again.

SQLite runs in WAL mode with a busy timeout, so several mcp-sim processes can share one cache
file; each operation runs in a worker thread to keep the event loop free while SQLite waits for
a lock.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import anyio.to_thread

from mcp_sim.errors import CacheError
from mcp_sim.models.base import Completion, CompletionRequest

KEY_VERSION = 1
"""Part of every key: bump it when the key's ingredients change, and old entries stop matching."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    world TEXT NOT NULL,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    seed INTEGER,
    completion TEXT NOT NULL,
    created REAL NOT NULL
)
"""


@dataclass(frozen=True)
class PendingAnswer:
    """A completion waiting to be stored when its call ends well."""

    key: str
    world: str
    request: CompletionRequest
    completion: Completion


class AnswerCache:
    """Model answers by request, in one SQLite file. ``model`` names the model as configured
    (``--model``, the endpoint URLs, or the embedded model's name): answers of different models
    never mix, but a model swapped behind the same URL is not noticed, so give such runs their
    own cache file or ``--model``."""

    def __init__(self, path: str | Path, model: str) -> None:
        self.path = Path(path)
        self.model = model
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # check_same_thread is off because operations run in worker threads; the lock
            # keeps them one at a time on this connection.
            self._db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)
            self._db.commit()
        except (OSError, sqlite3.Error) as exc:
            raise CacheError(f"cannot use {self.path} as the answer cache: {exc}") from None

    def key(self, world_hash: str, request: CompletionRequest) -> str:
        """The cache key of ``request`` in the world whose content hash is ``world_hash``."""
        sampling = asdict(request.sampling)
        if request.sampling.temperature == 0:
            sampling["seed"] = None
        material = {
            "v": KEY_VERSION,
            "world": world_hash,
            "model": self.model,
            "messages": request.messages,
            "sampling": sampling,
            "response_schema": request.response_schema,
            "schema_name": request.schema_name,
        }
        canonical = json.dumps(material, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()

    async def get(self, key: str) -> Completion | None:
        row = await anyio.to_thread.run_sync(self._select, key)
        if row is None:
            return None
        data = json.loads(row)
        return Completion(**data)

    async def put(self, answers: Sequence[PendingAnswer]) -> None:
        if answers:
            await anyio.to_thread.run_sync(self._insert, list(answers))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __len__(self) -> int:
        with self._lock:
            (count,) = self._db.execute("SELECT COUNT(*) FROM answers").fetchone()
        return int(count)

    def _select(self, key: str) -> str | None:
        try:
            with self._lock:
                row = self._db.execute(
                    "SELECT completion FROM answers WHERE key = ?", (key,)
                ).fetchone()
        except sqlite3.Error as exc:
            raise CacheError(f"cannot read the answer cache {self.path}: {exc}") from None
        return None if row is None else str(row[0])

    def _insert(self, answers: list[PendingAnswer]) -> None:
        rows = [
            (
                a.key,
                a.world,
                self.model,
                a.request.schema_name,
                a.request.sampling.seed,
                json.dumps(asdict(a.completion), ensure_ascii=False),
                time.time(),
            )
            for a in answers
        ]
        try:
            with self._lock, self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?, ?)", rows
                )
        except sqlite3.Error as exc:
            raise CacheError(f"cannot write to the answer cache {self.path}: {exc}") from None
