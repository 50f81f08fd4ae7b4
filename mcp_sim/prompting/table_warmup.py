"""Building a large world's tables in the background, so that its first calls find them ready.

The tables the views read beside a world's index (see :mod:`mcp_sim.prompting.field_tables`:
each collection's schema, each field's column, its values' labels, its numbers and dates in
order, where in each record a value sits, the records' words; the keys a link may name, the
names of keys records do not hold) are built on first use and kept for every session. Each
first build landed on the call that first needed it: up to hundreds of milliseconds at 5 MB,
what made a later call's p95. Once the index of a large state is built, a daemon thread builds
them, table by table, through the very accessors the calls use.

A call never waits for the thread: one that needs a table the thread has not reached builds it
itself, as without the thread. Each table is stored whole once built (a dictionary assignment,
atomic under the GIL), never filled in place, so a call sees a table complete or not at all;
when the call and the thread build one at the same time, both build the same table and the
later assignment keeps an equal copy. A prompt does not depend on who built what. The thread
starts no build while a call builds its prompt (:meth:`TableWarmup.paused`): under the GIL
the two would take turns, and a call's build took several times as long beside it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from mcp_sim.prompting.field_tables import FieldTables
from mcp_sim.prompting.key_names import key_names
from mcp_sim.prompting.link_keys import target_keys
from mcp_sim.prompting.record_fields import SELF
from mcp_sim.runtime.long_lived import keep_built_out_of_scans
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World

Step = Callable[[], Any]
"""Builds one table (or finds it built)."""


def warm_steps(world: World, index: StateIndex) -> Iterator[Step]:
    """The builds of ``index``'s tables, those the calls need first first: every collection's
    schema (the first call's outline), the key names and link keys, then per field its labels
    (equality) and its numbers and dates in order (bounds), then per collection its records'
    positions and words and where each field's values sit in them."""
    tables = FieldTables.of(index)
    collections = index.collections
    for collection in collections:
        yield partial(tables.schema, collection)
    yield partial(key_names, world, index)
    for collection in collections:
        yield partial(target_keys, tables, collection)
    for collection in collections:
        for path, info in tables.schema(collection).fields.items():
            yield partial(tables.label_index, collection, path)
            if info.sorts_as in ("number", "date"):
                yield partial(tables.ordered, collection, path)
    for collection in collections:
        yield partial(tables.position, collection)
        yield partial(tables.word_sets, collection)
        yield partial(tables.word_sets, collection, shallow=True)
        for path in tables.schema(collection).fields:
            if path != SELF:
                yield partial(tables.places, collection, path)


class TableWarmup:
    """A daemon thread running ``steps`` in order, then ``finish`` (by default, keeping what
    they built out of the garbage collector's scans: see :mod:`mcp_sim.runtime.long_lived`)."""

    def __init__(
        self,
        steps: Iterator[Step],
        finish: Callable[[], None] = keep_built_out_of_scans,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.steps = steps
        self.finish = finish
        self.clock = clock
        self.done = threading.Event()
        self.built = 0
        """Steps run so far."""
        self.seconds: float | None = None
        """How long the steps took, once done."""
        self.error: BaseException | None = None
        """What stopped the steps early (the calls then build the rest on first use)."""
        self.thread = threading.Thread(target=self._run, name="table warm-up", daemon=True)
        self._calls = 0
        self._count_lock = threading.Lock()
        self._no_calls = threading.Event()
        self._no_calls.set()

    @classmethod
    def start(cls, world: World, index: StateIndex) -> TableWarmup:
        """Starts building ``index``'s tables in the background."""
        warmup = cls(warm_steps(world, index))
        warmup.thread.start()
        return warmup

    def wait(self, timeout: float | None = None) -> bool:
        """Whether the steps are done, waiting up to ``timeout`` seconds for them (for a
        benchmark timing calls apart from the warm-up; calls never wait)."""
        return self.done.wait(timeout)

    @contextmanager
    def paused(self) -> Iterator[None]:
        """While a call builds its prompt: the thread starts no further build (it finishes
        the one it is in); the call never waits for it."""
        with self._count_lock:
            self._calls += 1
            self._no_calls.clear()
        try:
            yield
        finally:
            with self._count_lock:
                self._calls -= 1
                if not self._calls:
                    self._no_calls.set()

    def _run(self) -> None:
        started = self.clock()
        try:
            for step in self.steps:
                self._no_calls.wait()
                step()
                self.built += 1
            self.finish()
        except Exception as error:  # a failed warm-up only leaves work to the calls
            self.error = error
        finally:
            self.seconds = self.clock() - started
            self.done.set()
