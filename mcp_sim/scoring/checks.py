"""Deterministic checks: predicates over the final state and patterns over the calls. They need
no model, so the same episode always gets the same result."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from jsonpointer import JsonPointer, JsonPointerException

from mcp_sim.journal import JournalRecord
from mcp_sim.spec.verify import CallMatch, Check, Times, start_pointer

_MISSING = object()


@dataclass(frozen=True)
class CheckResult:
    """What one check found. ``passed`` is None for a rubric nobody could judge."""

    name: str
    passed: bool | None
    weight: float
    detail: str
    judged: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "passed": self.passed,
            "weight": self.weight,
            "detail": self.detail,
            "judged": self.judged,
        }


def resolve(document: Any, pointer: str) -> Any:
    """The value at ``pointer``, or ``_MISSING``."""
    try:
        return JsonPointer(pointer).resolve(document, _MISSING)
    except JsonPointerException:
        return _MISSING


def _brief(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= 120 else text[:117] + "..."


def includes(actual: Any, expected: Any) -> bool:
    """Whether ``actual`` holds ``expected``: objects hold the given keys with values that
    include theirs; everything else is equal (1 and 1.0 alike, True and 1 not)."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and includes(actual[key], value) for key, value in expected.items()
        )
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    return bool(actual == expected)


def state_check(check: Check, start: Any, final: Any) -> CheckResult:
    """A state check against the final state (``start`` for ``$start`` operands and
    ``changed``)."""
    assert check.state is not None
    predicate = check.predicate
    actual = resolve(final, check.state)
    operand = getattr(check, predicate)
    where = start_pointer(operand)
    if where is not None:
        operand = resolve(start, where)
        if operand is _MISSING:
            return _result(check, False, f"the starting state has no value at {where}")
    passed, detail = _predicate(predicate, actual, operand, resolve(start, check.state))
    return _result(check, passed, f"{check.state}: {detail}")


def _predicate(predicate: str, actual: Any, operand: Any, started: Any) -> tuple[bool, str]:
    shown = "nothing" if actual is _MISSING else _brief(actual)
    match predicate:
        case "exists" | "absent":
            wanted = (predicate == "exists") == bool(operand)
            present = actual is not _MISSING
            return present == wanted, f"{'present' if present else 'absent'}"
        case "changed":
            moved = actual != started if actual is not _MISSING else started is not _MISSING
            return moved == bool(operand), f"{'changed' if moved else 'unchanged'}, now {shown}"
    if actual is _MISSING:
        return False, "no value there"
    match predicate:
        case "equals":
            return includes(actual, operand) and includes(operand, actual), f"is {shown}"
        case "contains":
            return _contains(actual, operand), f"is {shown}"
        case "count":
            if not isinstance(actual, list | dict | str):
                return False, f"{shown} has no count"
            times = operand if isinstance(operand, Times) else Times(min=operand, max=operand)
            n = len(actual)
            return times.admits(n), f"{n} items (wanted {times.describe()})"
        case "less_than" | "greater_than":
            return _compare(predicate, actual, operand), f"is {shown}, bound {_brief(operand)}"
    raise ValueError(f"unknown predicate {predicate}")


def _contains(actual: Any, wanted: Any) -> bool:
    if isinstance(actual, str):
        return isinstance(wanted, str) and wanted in actual
    if isinstance(actual, list):
        return any(includes(item, wanted) for item in actual)
    if isinstance(actual, dict):
        return any(includes(item, wanted) for item in actual.values()) or (
            isinstance(wanted, str) and wanted in actual
        )
    return False


def _compare(predicate: str, actual: Any, bound: Any) -> bool:
    numbers = (int, float)
    if isinstance(actual, bool) or isinstance(bound, bool):
        return False
    comparable = (isinstance(actual, numbers) and isinstance(bound, numbers)) or (
        isinstance(actual, str) and isinstance(bound, str)
    )
    if not comparable:
        return False
    return bool(actual < bound) if predicate == "less_than" else bool(actual > bound)


def matches(record: JournalRecord, pattern: CallMatch) -> bool:
    return (
        record.tool == pattern.tool
        and (pattern.is_error is None or record.is_error == pattern.is_error)
        and includes(record.arguments, pattern.arguments)
    )


def _describe(pattern: CallMatch) -> str:
    arguments = f" {_brief(pattern.arguments)}" if pattern.arguments else ""
    outcome = {None: "", True: " (failed)", False: " (succeeded)"}[pattern.is_error]
    return f"{pattern.tool}{arguments}{outcome}"


def journal_check(check: Check, records: Sequence[JournalRecord]) -> CheckResult:
    """A check over the episode's calls, in step order."""
    if check.called is not None:
        steps = [r.step for r in records if matches(r, check.called)]
        times = check.times or Times(min=1)
        where = f" (steps {', '.join(map(str, steps[:10]))})" if steps else ""
        return _result(
            check,
            times.admits(len(steps)),
            f"{len(steps)} calls of {_describe(check.called)}{where}; wanted {times.describe()}",
        )
    if check.not_called is not None:
        steps = [r.step for r in records if matches(r, check.not_called)]
        if steps:
            detail = f"{_describe(check.not_called)} was called at step {steps[0]}"
            return _result(check, False, detail)
        return _result(check, True, f"{_describe(check.not_called)} was never called")
    assert check.order is not None
    return _order(check, check.order, records)


def _order(
    check: Check, patterns: list[CallMatch], records: Sequence[JournalRecord]
) -> CheckResult:
    found: list[int] = []
    position = 0
    for pattern in patterns:
        while position < len(records) and not matches(records[position], pattern):
            position += 1
        if position == len(records):
            done = " then ".join(f"step {s}" for s in found) or "none"
            return _result(
                check, False, f"no {_describe(pattern)} after the earlier ones (found: {done})"
            )
        found.append(records[position].step)
        position += 1
    return _result(check, True, "in order at steps " + ", ".join(map(str, found)))


def _result(check: Check, passed: bool | None, detail: str) -> CheckResult:
    return CheckResult(check.name, passed, check.weight, detail, judged=check.judged)


def with_prerequisites(
    checks: Sequence[Check], results: Sequence[CheckResult]
) -> list[CheckResult]:
    """``results`` (one per check, in order) with each check that ``requires`` others failed
    when one of them failed, and undecided when one was undecided (a rubric without a judge)."""
    by_name: dict[str, CheckResult] = {}
    gated: list[CheckResult] = []
    for check, result in zip(checks, results, strict=True):
        needed = [by_name[name] for name in check.requires]
        failed = [r.name for r in needed if r.passed is False]
        undecided = [r.name for r in needed if r.passed is None]
        if result.passed is not False and (failed or undecided):
            names = ", ".join(failed or undecided)
            verdict: bool | None = False if failed else None
            detail = (
                f"not counted: requires {names}, which {'failed' if failed else 'was not decided'}"
            )
            result = CheckResult(check.name, verdict, check.weight, detail, result.judged)
        by_name[check.name] = result
        gated.append(result)
    return gated
