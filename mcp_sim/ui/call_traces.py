"""The traces of the calls the workbench shows: kept as each call finishes (a watcher of the
simulator, see :attr:`mcp_sim.simulator.core.Simulator.watchers`), turned into what the page
shows at once, so that nothing holds on to the states they were made from."""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from mcp_sim.journal import JournalRecord
from mcp_sim.simulator.context import CallTrace
from mcp_sim.ui.prompt_sections import exchange_view
from mcp_sim.ui.state_diff import patch_diff

CALLS_PER_EPISODE = 100
"""The newest calls of an episode whose traces are kept (a prompt may be 100 KB)."""
EPISODES_KEPT = 500
"""The episodes whose traces are kept, the least recently called forgotten first."""


def record_view(record: JournalRecord) -> dict[str, Any]:
    """What the journal says of a call, with the version it left the state at."""
    view = record.model_dump(mode="json")
    view["version_after"] = record.version + (1 if record.patch_status == "committed" else 0)
    return view


def trace_view(trace: CallTrace) -> dict[str, Any]:
    """A finished call as the page shows it: its record, the state change as a diff (a
    rejected proposal against the state it would have changed), and each model request."""
    record = trace.record
    diff = patch_diff(record.patch, trace.state_before) if record.patch else []
    return {
        **record_view(record),
        "diff": diff,
        "exchanges": [exchange_view(e) for e in trace.exchanges],
        "traced": True,
    }


class TraceBook:
    """The traces of each episode's newest calls, by world and session (an episode's id)."""

    def __init__(self, per_episode: int = CALLS_PER_EPISODE, episodes: int = EPISODES_KEPT) -> None:
        self.per_episode = per_episode
        self.episodes = episodes
        self._kept: OrderedDict[tuple[str, str], deque[dict[str, Any]]] = OrderedDict()

    def watcher(self, world: str) -> Callable[[CallTrace], None]:
        """The watcher to give ``world``'s simulator."""

        def keep(trace: CallTrace) -> None:
            self.keep(world, trace)

        return keep

    def keep(self, world: str, trace: CallTrace) -> None:
        key = (world, trace.record.session)
        kept = self._kept.pop(key, None) or deque(maxlen=self.per_episode)
        # A step number seen again means the episode was reset: its older calls are gone.
        while kept and kept[-1]["step"] >= trace.record.step:
            kept.pop()
        kept.append(trace_view(trace))
        self._kept[key] = kept
        while len(self._kept) > self.episodes:
            self._kept.popitem(last=False)

    def find(self, world: str, session: str, step: int) -> dict[str, Any] | None:
        for view in self._kept.get((world, session), ()):
            if view["step"] == step:
                return view
        return None

    def forget(self, world: str, session: str) -> None:
        self._kept.pop((world, session), None)
