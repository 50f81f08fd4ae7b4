"""A progress line on stderr for a long generation: done of total, failures, rate and ETA."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO


@dataclass
class Progress:
    total: int
    stream: TextIO | None
    clock: Callable[[], float] = time.monotonic
    done: int = 0
    failed: int = 0
    _started: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        self._started = self.clock()

    def advance(self, *, failed: bool = False) -> None:
        self.done += 1
        self.failed += failed
        if self.stream is not None:
            end = "\n" if self.done == self.total else ""
            self.stream.write(f"\r{self.line()}{end}")
            self.stream.flush()

    def line(self) -> str:
        elapsed = max(self.clock() - self._started, 1e-9)
        rate = self.done / elapsed
        left = self.total - self.done
        eta = f"{left / rate:.0f}s" if rate > 0 else "?"
        return (
            f"suite: {self.done}/{self.total} environments ({self.failed} failed) "
            f"{rate:.2f}/s ETA {eta}"
        )
