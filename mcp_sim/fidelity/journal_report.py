"""``mcp-sim report JOURNAL``: what was injected into an agent's calls, and what the agent did
next.

Per tool: its calls, the perturbations injected by kind, its organic errors (errors of calls
no fault was injected into: bad arguments, the world's own failures, a failing model), and,
for every injected fault, the agent's next move in the same session:

- ``retried``: the same tool with the same arguments;
- ``changed_args``: the same tool with other arguments;
- ``moved_on``: another tool;
- ``stopped``: no further call (the agent gave up, or finished).

``recovered`` counts the faults after which a later call of the same tool in the session
succeeded. Latency is injected but is no fault: it shows under ``injected`` only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp_sim.journal import JournalRecord

Reaction = Literal["retried", "changed_args", "moved_on", "stopped"]
REACTIONS: tuple[Reaction, ...] = ("retried", "changed_args", "moved_on", "stopped")
_NOT_FAULTS = frozenset({"latency"})


@dataclass
class ToolStats:
    calls: int = 0
    injected: Counter[str] = field(default_factory=Counter)
    faults: int = 0
    organic_errors: int = 0
    reactions: Counter[str] = field(default_factory=Counter)
    recovered: int = 0

    def add(self, other: ToolStats) -> None:
        self.calls += other.calls
        self.injected.update(other.injected)
        self.faults += other.faults
        self.organic_errors += other.organic_errors
        self.reactions.update(other.reactions)
        self.recovered += other.recovered

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "injected": dict(sorted(self.injected.items())),
            "faults": self.faults,
            "organic_errors": self.organic_errors,
            "reactions": {r: self.reactions[r] for r in REACTIONS},
            "recovered": self.recovered,
        }


@dataclass(frozen=True)
class Fault:
    """One injected fault and the agent's reaction to it."""

    session: str
    step: int
    tool: str
    kind: str
    profile: str
    rule: int
    reaction: Reaction
    recovered: bool


@dataclass
class Report:
    tools: dict[str, ToolStats]
    faults: list[Fault]
    sessions: int

    @property
    def total(self) -> ToolStats:
        total = ToolStats()
        for stats in self.tools.values():
            total.add(stats)
        return total

    def as_dict(self) -> dict[str, Any]:
        return {
            "sessions": self.sessions,
            "tools": {name: stats.as_dict() for name, stats in self.tools.items()},
            "total": self.total.as_dict(),
            "faults": [vars(f) for f in self.faults],
        }


def _fault_of(record: JournalRecord) -> dict[str, Any] | None:
    return next((p for p in record.perturbations if p.get("kind") not in _NOT_FAULTS), None)


def _reaction(fault: JournalRecord, following: Sequence[JournalRecord]) -> Reaction:
    if not following:
        return "stopped"
    after = following[0]
    if after.tool != fault.tool:
        return "moved_on"
    return "retried" if after.arguments == fault.arguments else "changed_args"


def build_report(records: Iterable[JournalRecord]) -> Report:
    """The report of a journal's records (in any order; each session is put in step order)."""
    by_session: dict[str, list[JournalRecord]] = {}
    for record in records:
        by_session.setdefault(record.session, []).append(record)
    tools: dict[str, ToolStats] = {}
    faults: list[Fault] = []
    for session, calls in by_session.items():
        calls.sort(key=lambda r: r.step)
        for i, record in enumerate(calls):
            stats = tools.setdefault(record.tool, ToolStats())
            stats.calls += 1
            stats.injected.update(p.get("kind", "?") for p in record.perturbations)
            fault = _fault_of(record)
            if fault is None:
                stats.organic_errors += record.is_error
                continue
            later = calls[i + 1 :]
            reaction = _reaction(record, later)
            recovered = any(
                r.tool == record.tool and not r.is_error and _fault_of(r) is None for r in later
            )
            stats.faults += 1
            stats.reactions[reaction] += 1
            stats.recovered += recovered
            faults.append(
                Fault(
                    session=session,
                    step=record.step,
                    tool=record.tool,
                    kind=str(fault.get("kind")),
                    profile=str(fault.get("profile")),
                    rule=int(fault.get("rule", -1)),
                    reaction=reaction,
                    recovered=recovered,
                )
            )
    return Report(dict(sorted(tools.items())), faults, len(by_session))


def render_table(report: Report) -> str:
    """The report as a plain-text table, one row per tool and a total."""
    headers = [
        "tool",
        "calls",
        "injected",
        "faults",
        "organic errors",
        "retried",
        "changed args",
        "moved on",
        "stopped",
        "recovered",
    ]

    def row(name: str, stats: ToolStats) -> list[str]:
        injected = ", ".join(f"{kind} {n}" for kind, n in sorted(stats.injected.items()))
        return [
            name,
            str(stats.calls),
            injected or "-",
            str(stats.faults),
            str(stats.organic_errors),
            *(str(stats.reactions[r]) for r in REACTIONS),
            str(stats.recovered),
        ]

    rows = [row(name, stats) for name, stats in report.tools.items()]
    rows.append(row("(all tools)", report.total))
    widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        # Names and the injected list read left to right; counts line up on the right.
        return "  ".join(
            c.ljust(w) if i in (0, 2) else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    total = report.total
    out.append("")
    out.append(
        f"{report.sessions} session(s), {total.calls} call(s), {total.faults} injected fault(s), "
        f"{total.organic_errors} organic error(s)."
    )
    return "\n".join(out)
