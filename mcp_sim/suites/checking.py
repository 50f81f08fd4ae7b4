"""``mcp-sim suite check``: every environment through every gate; the ones that fail any move
to the quarantine with their reasons, the manifest is rewritten over what is left, and a table
says each gate's pass rate, per domain."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import anyio

from mcp_sim.suites.gates import GATES, gate_item
from mcp_sim.suites.layout import SuiteItem, SuiteLayout, write_json
from mcp_sim.suites.manifest import write_manifest


@dataclass
class CheckReport:
    """What each gate said of each item, and the item's domain."""

    results: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    domains: dict[str, str] = field(default_factory=dict)

    @property
    def quarantined(self) -> dict[str, list[str]]:
        """Item → its reasons, for the items some gate failed."""
        out: dict[str, list[str]] = {}
        for item_id, gates in sorted(self.results.items()):
            reasons = [f"{gate}: {reason}" for gate, found in gates.items() for reason in found]
            if reasons:
                out[item_id] = reasons
        return out

    def pass_rates(self) -> dict[str, dict[str, float]]:
        """Domain (and ``all``) → gate → share of items that passed it."""
        groups: dict[str, list[str]] = defaultdict(list)
        for item_id, domain in self.domains.items():
            groups[domain].append(item_id)
            groups["all"].append(item_id)
        return {
            domain: {
                gate: sum(not self.results[i].get(gate) for i in ids) / len(ids) for gate in GATES
            }
            for domain, ids in sorted(groups.items())
        }

    def table(self) -> str:
        rates = self.pass_rates()
        head = f"{'gate':<16}" + "".join(f"{d:>10}" for d in rates)
        lines = [head, "-" * len(head)]
        for gate in GATES:
            lines.append(f"{gate:<16}" + "".join(f"{rates[d][gate]:>10.0%}" for d in rates))
        counts = defaultdict(int, {"all": len(self.domains)})
        for domain in self.domains.values():
            counts[domain] += 1
        lines.append(f"{'environments':<16}" + "".join(f"{counts[d]:>10}" for d in rates))
        return "\n".join(lines)


async def check_suite(layout: SuiteLayout, *, concurrency: int = 4) -> CheckReport:
    """Gate every item of the suite, quarantine the failures, rewrite the manifest."""
    report = CheckReport()
    limiter = anyio.CapacityLimiter(max(1, concurrency))

    async def one(item: SuiteItem) -> None:
        async with limiter:
            report.results[item.id] = await gate_item(item)
            report.domains[item.id] = _domain(item)

    async with anyio.create_task_group() as group:
        for item in layout.items():
            group.start_soon(one, item)
    for item_id, reasons in report.quarantined.items():
        layout.quarantine(layout.item(item_id), reasons)
    write_manifest(layout)
    write_json(
        layout.root / "check.json",
        {"pass_rates": report.pass_rates(), "quarantined": report.quarantined},
    )
    return report


def _domain(item: SuiteItem) -> str:
    try:
        domain = item.stamp().get("domain")
    except (OSError, ValueError):
        return "unknown"
    return domain if isinstance(domain, str) else "unknown"
