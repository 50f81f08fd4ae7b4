"""The episode store in Redis (or Valkey): for workers on several machines
(``redis://HOST:PORT/DB``, ``rediss://`` for TLS; needs ``pip install mcp-sim[redis]``).

Each episode is three keys sharing one hash tag, so a Redis Cluster keeps them on one node:
``mcp-sim:ep:{ID}`` (a hash: token, incarnation, meta, base, head, rev), ``...:steps`` (a list, one entry per
call) and ``...:lease`` (the holder, expiring by itself: Redis's clock decides, so the workers'
clocks need not agree). ``mcp-sim:token:TOKEN`` finds an episode by its token (the store holds
the episodes' tokens: guard it as you guard ``--auth-token``). Every write that
must be fenced is one Lua script, so it is atomic; a call costs two round trips (claim, append).
With an idle timeout, every key of an episode expires that long after its last write.

Every operation answers within the store's ``timeout``: connecting, waiting for a pooled
connection, and each reply are held to it, and one that runs out raises
:class:`EpisodeStoreError` (a 503 ``episode_store`` over HTTP).
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable
from typing import Any, cast

import anyio
import redis.asyncio as redis
from redis.exceptions import RedisError

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

logger = logging.getLogger(__name__)

PREFIX = "mcp-sim:"
NAME = "the Redis episode store"
"""How errors name the store: they reach clients, who have no business knowing its host."""
MAX_CONNECTIONS = 64
"""Connections a worker opens to Redis at most."""

_CLAIM = """
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return {-1, 0, ''} end
local held = redis.call('GET', KEYS[2])
if held and held ~= ARGV[1] then return {-2, redis.call('PTTL', KEYS[2]), ''} end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return {tonumber(rev), 0, redis.call('HGET', KEYS[1], 'incarnation') or ''}
"""

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'token', ARGV[2], 'meta', ARGV[3], 'base', ARGV[4], 'head', ARGV[5],
  'rev', 0, 'incarnation', ARGV[6])
if ARGV[1] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 1
"""

# KEYS: episode, steps, lease. ARGV: holder, rev, idle ms (0: none), incarnation, then the
# fields. A fenced write checks that no other worker holds the lease and that the incarnation
# and revision are the ones the writer read, before it changes anything, and keeps the episode's keys alive for another idle
# timeout.
_FENCE = """
local held = redis.call('GET', KEYS[3])
if held and held ~= ARGV[1] then return -1 end
if redis.call('HGET', KEYS[1], 'rev') ~= ARGV[2] then return -1 end
if (redis.call('HGET', KEYS[1], 'incarnation') or '') ~= ARGV[4] then return -1 end
"""
_KEEP = """
if ARGV[3] ~= '0' then
  for i = 1, 2 do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
end
"""
_APPEND = (
    _FENCE
    + """
redis.call('RPUSH', KEYS[2], ARGV[5])
local rev = tonumber(ARGV[2]) + 1
redis.call('HSET', KEYS[1], 'head', ARGV[6], 'rev', rev)
redis.call('DEL', KEYS[3])
"""
    + _KEEP
    + "return rev"
)
_RESTART = (
    _FENCE
    + """
redis.call('DEL', KEYS[2])
local rev = tonumber(ARGV[2]) + 1
redis.call('HSET', KEYS[1], 'meta', ARGV[5], 'base', ARGV[6], 'head', ARGV[7], 'rev', rev)
"""
    + _KEEP
    + "return rev"
)


class RedisEpisodeStore(EpisodeStore):
    def __init__(
        self,
        url: str,
        *,
        idle_seconds: float | None = None,
        timeout: float = DEFAULT_STORE_TIMEOUT,
    ) -> None:
        # Calls beyond the pool wait for a connection instead of failing (a thousand episodes
        # calling at once share a few dozen connections), for the store's timeout at most.
        pool = redis.BlockingConnectionPool.from_url(
            url,
            decode_responses=True,
            max_connections=MAX_CONNECTIONS,
            timeout=timeout,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
        )
        self.timeout = timeout
        self._redis = redis.Redis(connection_pool=pool)
        host = url.split("@")[-1].split("://")[-1]
        self.url = f"{url.split('://')[0]}://{host}"
        self.idle_ms = 0 if idle_seconds is None else max(1, round(idle_seconds * 1000))
        self._create = self._redis.register_script(_CREATE)
        self._claim = self._redis.register_script(_CLAIM)
        self._renew = self._redis.register_script(_RENEW)
        self._release = self._redis.register_script(_RELEASE)
        self._append = self._redis.register_script(_APPEND)
        self._restart = self._redis.register_script(_RESTART)

    @staticmethod
    def _keys(episode_id: str) -> tuple[str, str, str]:
        key = f"{PREFIX}ep:{{{episode_id}}}"
        return key, key + ":steps", key + ":lease"

    async def _run(self, pending: Awaitable[Any]) -> Any:
        try:
            # The client's own timeouts bound each wait; this bounds their sum (a retry).
            with anyio.fail_after(self.timeout * 2 + 1):
                return await pending
        except RedisError as exc:
            # The client's message names the host: it goes to the log, its kind to the client.
            logger.warning("the Redis episode store %s failed: %s", self.url, exc)
            raise EpisodeStoreError(f"{NAME} failed ({type(exc).__name__})") from None
        except TimeoutError:
            raise EpisodeStoreError(f"{NAME} did not answer within {self.timeout:g} s") from None

    async def create(
        self, episode_id: str, token: str, incarnation: str, record: NewRecord
    ) -> None:
        # The token's key is in another hash slot, so it cannot be written in the same script
        # (Redis Cluster). It goes first: an episode is never stored without a way in, and a
        # token left behind by a failed creation leads nowhere (``holder`` checks).
        await self._run(self._redis.set(f"{PREFIX}token:{token}", episode_id))
        key = self._keys(episode_id)[0]
        args = [str(self.idle_ms), token, record.meta, record.base, record.head, incarnation]
        if not await self._run(self._create(keys=[key], args=args)):
            await self._run(self._redis.delete(f"{PREFIX}token:{token}"))
            raise SessionExists(f"episode {episode_id!r} already exists; pick another id")

    async def load(self, episode_id: str) -> StoredEpisode | None:
        key, steps_key, _ = self._keys(episode_id)
        pipe = self._redis.pipeline(transaction=True)
        pipe.hgetall(key)
        pipe.lrange(steps_key, 0, -1)
        fields, steps = await self._run(pipe.execute())
        if not fields:
            return None
        return StoredEpisode(
            episode_id,
            fields["token"],
            fields["meta"],
            fields["base"],
            fields["head"],
            list(steps),
            int(fields["rev"]),
            fields.get("incarnation", ""),
        )

    async def revision(self, episode_id: str) -> Revision | None:
        key = self._keys(episode_id)[0]
        rev, incarnation = await self._run(
            cast(Awaitable[Any], self._redis.hmget(key, ["rev", "incarnation"]))
        )
        return None if rev is None else Revision(incarnation or "", int(rev))

    async def holder(self, token: str) -> str | None:
        # A token outlives its episode when the episode expires (the token's key cannot expire
        # with it, being in another hash slot): it is checked, and dropped once found stale.
        found = await self._run(self._redis.get(f"{PREFIX}token:{token}"))
        if found is None:
            return None
        stored = await self._run(
            cast(Awaitable[Any], self._redis.hget(self._keys(found)[0], "token"))
        )
        if stored != token:
            await self._run(self._redis.delete(f"{PREFIX}token:{token}"))
            return None
        return str(found)

    async def opens(self, episode_id: str, token: str) -> bool:
        key = self._keys(episode_id)[0]
        stored = await self._run(cast(Awaitable[Any], self._redis.hget(key, "token")))
        return stored is not None and hmac.compare_digest(str(stored).encode(), token.encode())

    async def claim(self, episode_id: str, holder: str, seconds: float) -> Claim | None:
        key, _, lease = self._keys(episode_id)
        ms = max(1, round(seconds * 1000))
        rev, left, incarnation = await self._run(self._claim(keys=[key, lease], args=[holder, ms]))
        if rev == -1:
            return None
        if rev == -2:
            return Claim(None, max(0, left) / 1000)
        return Claim(int(rev), incarnation=incarnation)

    async def renew(self, episode_id: str, holder: str, seconds: float) -> bool:
        lease = self._keys(episode_id)[2]
        ms = max(1, round(seconds * 1000))
        return bool(await self._run(self._renew(keys=[lease], args=[holder, ms])))

    async def release(self, episode_id: str, holder: str) -> None:
        await self._run(self._release(keys=[self._keys(episode_id)[2]], args=[holder]))

    async def _fenced(
        self, script: Any, episode_id: str, holder: str, at: Revision, *fields: str
    ) -> int | None:
        args = [holder, str(at.rev), str(self.idle_ms), at.incarnation, *fields]
        found = int(await self._run(script(keys=list(self._keys(episode_id)), args=args)))
        return None if found < 0 else found

    async def append(
        self, episode_id: str, holder: str, at: Revision, step: str, head: str
    ) -> int | None:
        return await self._fenced(self._append, episode_id, holder, at, step, head)

    async def restart(
        self, episode_id: str, holder: str, at: Revision, record: NewRecord
    ) -> int | None:
        fields = (record.meta, record.base, record.head)
        return await self._fenced(self._restart, episode_id, holder, at, *fields)

    async def delete(self, episode_id: str) -> None:
        key, steps, lease = self._keys(episode_id)
        token = await self._run(cast(Awaitable[Any], self._redis.hget(key, "token")))
        gone = [key, steps, lease] + ([f"{PREFIX}token:{token}"] if token else [])
        await self._run(self._redis.delete(*gone))

    async def keep_event(
        self, event_id: str, stream: str, message: str | None, limits: EventLimits
    ) -> None:
        # An event's key names its stream; the stream is a list of [id, message] entries.
        # Both expire by themselves, so nothing is purged here.
        ms = max(1, round(limits.seconds * 1000))
        stream_key = f"{PREFIX}events:{{{stream}}}"
        pipe = self._redis.pipeline(transaction=False)
        pipe.set(f"{PREFIX}event:{event_id}", stream, px=ms)
        pipe.rpush(stream_key, json.dumps([event_id, message]))
        pipe.ltrim(stream_key, -limits.per_stream, -1)
        pipe.pexpire(stream_key, ms)
        await self._run(pipe.execute())

    async def events_after(self, event_id: str) -> StreamEvents | None:
        stream = await self._run(self._redis.get(f"{PREFIX}event:{event_id}"))
        if stream is None:
            return None
        kept = (await self.stream_events(str(stream))).events
        ids = [i for i, _ in kept]
        if event_id not in ids:
            return None  # trimmed from its stream since
        return StreamEvents(str(stream), kept[ids.index(event_id) + 1 :])

    async def stream_events(self, stream: str) -> StreamEvents:
        entries = await self._run(
            cast(Awaitable[Any], self._redis.lrange(f"{PREFIX}events:{{{stream}}}", 0, -1))
        )
        return StreamEvents(stream, [(str(i), m) for i, m in (json.loads(e) for e in entries)])

    async def close(self) -> None:
        await self._redis.aclose()
        await self._redis.connection_pool.disconnect()
