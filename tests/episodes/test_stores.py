"""Choosing and opening an episode store by URL, and refusing what is not one."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mcp_sim.episodes.records import NewRecord
from mcp_sim.episodes.store import Revision
from mcp_sim.episodes.store_opening import open_store
from mcp_sim.episodes.store_sqlite import SqliteEpisodeStore
from mcp_sim.errors import EpisodeStoreError
from mcp_sim.settings.values import check_store_url


def test_store_urls_are_checked_before_anything_opens() -> None:
    for url in ("memory", "sqlite:///episodes.db", "sqlite:////var/lib/e.db", "redis://h:6379/0"):
        assert check_store_url(url) == url
    for bad in ("", "sqlite://", "sqlite:///", "postgres://db/x", "episodes.db", "Memory"):
        with pytest.raises(ValueError, match="not an episode store"):
            check_store_url(bad)


async def test_memory_is_no_store_and_sqlite_opens_a_shared_file(tmp_path: Path) -> None:
    assert open_store("memory", idle_seconds=None) is None
    store = open_store(f"sqlite:///{tmp_path / 'deep' / 'e.db'}", idle_seconds=60)
    assert isinstance(store, SqliteEpisodeStore) and store.idle_seconds == 60
    assert await store.revision("nope") is None and await store.holder("nope") is None
    await store.close()
    again = SqliteEpisodeStore(tmp_path / "deep" / "e.db")
    assert again.url.endswith("deep/e.db")
    await again.close()


def test_a_file_that_is_not_an_episode_store_is_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all, just some text" * 100)
    with pytest.raises(EpisodeStoreError, match="cannot open the episode store"):
        SqliteEpisodeStore(text)
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('format', 'mcp-sim/world-memory@1')")
    with pytest.raises(EpisodeStoreError, match="holds mcp-sim/world-memory@1"):
        SqliteEpisodeStore(other)


async def test_a_store_file_from_before_incarnations_is_brought_up_to_date(tmp_path: Path) -> None:
    path = tmp_path / "e.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('format', 'mcp-sim/episodes@1')")
        db.execute(
            "CREATE TABLE episodes (id TEXT PRIMARY KEY, token TEXT NOT NULL UNIQUE, meta TEXT "
            "NOT NULL, base TEXT NOT NULL, head TEXT NOT NULL, rev INTEGER NOT NULL, "
            "touched REAL NOT NULL)"
        )
        db.execute("INSERT INTO episodes VALUES ('old', 't-old', '{}', '{}', '{}', 3, 1e12)")
    store = SqliteEpisodeStore(path)
    assert await store.revision("old") == Revision("", 3)
    await store.create("new", "t-new", "inc-1", NewRecord("{}", "{}", "{}"))
    assert await store.revision("new") == Revision("inc-1", 0)
    await store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value FROM meta").fetchone() == ("mcp-sim/episodes@2",)
