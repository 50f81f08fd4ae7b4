"""``--episode-store URL``: which durable episode store a server uses.

- ``memory`` (the default): none; episodes live and die with the process.
- ``sqlite:///PATH`` (``sqlite:////abs/path`` or ``sqlite:///relative/path``): one file shared
  by the workers of one machine.
- ``redis://[:PASSWORD@]HOST[:PORT][/DB]`` or ``rediss://`` (TLS): Redis or Valkey, shared by
  workers on several machines; needs the optional ``redis`` client (``pip install
  'mcp-sim[redis]'``).
"""

from __future__ import annotations

from mcp_sim.episodes.store import DEFAULT_STORE_TIMEOUT, EpisodeStore
from mcp_sim.episodes.store_sqlite import SqliteEpisodeStore
from mcp_sim.errors import EpisodeStoreError
from mcp_sim.settings.values import check_store_url


def open_store(
    url: str, *, idle_seconds: float | None, timeout: float = DEFAULT_STORE_TIMEOUT
) -> EpisodeStore | None:
    """The store ``url`` names (``None`` for ``memory``); episodes idle for ``idle_seconds``
    are gone from it, and an operation that takes over ``timeout`` seconds fails. Raises
    :class:`EpisodeStoreError`."""
    check_store_url(url)
    if url == "memory":
        return None
    if url.startswith("sqlite:///"):
        return SqliteEpisodeStore(
            url.removeprefix("sqlite:///"), idle_seconds=idle_seconds, timeout=timeout
        )
    try:
        # Only a Redis store needs the client, an optional dependency.
        from mcp_sim.episodes.store_redis import RedisEpisodeStore
    except ImportError:
        raise EpisodeStoreError(
            "a redis:// episode store needs the redis client: pip install 'mcp-sim[redis]'"
        ) from None
    return RedisEpisodeStore(url, idle_seconds=idle_seconds, timeout=timeout)
