"""Which replica of the world model answers a request.

A session's requests go to one replica, so the session's prompt prefix stays in that replica's
KV cache, which is what makes its next call cheap. The replica is chosen by rendezvous
(highest-random-weight) hashing of the routing key (the session id) with each replica's URL:

- it is stable across processes and restarts (sha256, not Python's salted ``hash()``), and
  does not depend on the order the URLs are given in;
- adding or removing a replica moves only the sessions that replica gains or loses, so the
  other replicas' caches stay warm when the fleet changes size;
- the same ranking is each key's failover order, so the sessions of a replica that is down
  spread evenly over the others instead of all landing on its neighbour.

A replica that cannot be connected to is marked down for ``cooldown`` seconds and tried last
meanwhile, so while it is away its sessions do not each pay a refused (or, for a host that is
gone, a timed-out) connection before failing over. After the cooldown it is tried first again
for its own sessions, which return to it as soon as it answers.

Requests without a key go round robin.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from pathlib import Path


def _weight(key: str, url: str) -> int:
    digest = hashlib.sha256(f"{url}\n{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class Replicas:
    """The base URLs of one model's replicas, their health, and the order to try them in."""

    def __init__(
        self, urls: list[str], cooldown: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.urls = list(urls)
        self.cooldown = cooldown
        self._clock = clock
        self._down_until: dict[str, float] = {}
        self._next = 0

    def ranked(self, key: str) -> list[str]:
        """Every replica, in ``key``'s order of preference (health aside)."""
        return sorted(self.urls, key=lambda url: _weight(key, url), reverse=True)

    def order(self, key: str | None) -> list[str]:
        """The replicas to try for a request, in order: by preference for ``key`` (round robin
        without one), those marked down last."""
        if key is None:
            start = self._next % len(self.urls)
            self._next += 1
            ranked = self.urls[start:] + self.urls[:start]
        else:
            ranked = self.ranked(key)
        if not self._down_until:
            return ranked
        now = self._clock()
        up = [url for url in ranked if self._down_until.get(url, 0.0) <= now]
        return up + [url for url in ranked if url not in up]

    def mark_down(self, url: str) -> None:
        self._down_until[url] = self._clock() + self.cooldown

    def mark_up(self, url: str) -> None:
        self._down_until.pop(url, None)

    def down(self) -> list[str]:
        """The replicas now marked down."""
        now = self._clock()
        return [url for url in self.urls if self._down_until.get(url, 0.0) > now]


def read_url_file(path: str | Path) -> list[str]:
    """Base URLs from a file, one per line; blank lines and ``#`` comments are skipped.
    Raises ``ValueError`` saying what is wrong."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read the model URL file {path}: {exc.strerror}") from None
    urls = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    urls = [url for url in urls if url]
    if not urls:
        raise ValueError(f"the model URL file {path} lists no URL (one base URL per line)")
    return urls
