"""What each later call of an episode recomputes, part by part: where the prefix cache's tokens go.

A later call's prompt repeats the previous call's prompt up to the end of that call's turn;
what follows is recomputed (see :mod:`mcp_sim.fidelity.prefix_reuse`). This splits that
recomputed tail into its parts, teacher-forced over a recorded call log or the zoo, as
:mod:`mcp_sim.fidelity.grounding_recall` runs them:

- ``observation``: the previous call's answer as the history shows it (and the chat template
  around it);
- the new turn's sections: ``changes`` (the State Changes since the turn before), ``records``
  (the records the call needs: lookups, searches, summaries, joins), ``known`` (the line
  naming records an earlier turn shows), ``anchor`` (a turn that shows the state again: the
  first of an episode, and after a history drop), ``notice`` (the note on turns not shown),
  ``time_ids`` (virtual time, fresh ids), ``action`` (the turn's heading and action block);
- ``closing``: the answer instruction after the action, which the history does not keep;
- ``rewritten``: earlier turns sent again differently (after a compaction: a fold or a drop).

It also counts the record lines of a new turn that an earlier message of the same prompt
already holds word for word (``records_repeated``): text re-sent that the history still shows;
and splits the records part by what the call's answer draws on (:func:`record_classes`):
``needed`` lines hold a fact of the answer (its value beside its key, as grounding recall
counts it) that the rest of the prompt lacks, ``context`` lines hold none such, ``notes`` are
the heading and the lines about searches and records left out. Leaving out every context
line, knowing the answer beforehand, would not lower recall: ``reuse_without_context`` is that
oracle's bound on the reuse at these budgets.

``python benchmarks/reuse_parts.py WORLD CALLS`` or ``--zoo --shapes a,b``; tokens are the
simulator's estimate (characters / 3), as the budgets count them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # benchmarks.zoo, when this runs as a script

from benchmarks.zoo import generate  # noqa: E402
from benchmarks.zoo.measuring import chosen_shapes  # noqa: E402
from mcp_sim.fidelity.answer_facts import facts, present  # noqa: E402
from mcp_sim.fidelity.grounding_recall import measure_figures, read_calls  # noqa: E402
from mcp_sim.fidelity.prefix_reuse import CallReuse, PrefixReuse, render_chat  # noqa: E402
from mcp_sim.prompting.shown_records import KNOWN_HEADING  # noqa: E402
from mcp_sim.settings import PromptSettings, Settings  # noqa: E402
from mcp_sim.spec.loading import load_world  # noqa: E402
from mcp_sim.spec.world import World  # noqa: E402

PARTS = (
    "observation",
    "changes",
    "records",
    "known",
    "anchor",
    "notice",
    "time_ids",
    "action",
    "closing",
    "rewritten",
)
_ACTION = "**Action:**\n```json\n"
_RECORD_LINE = re.compile(r"^- /.*$", re.MULTILINE)


def _kind(paragraph: str, current: str) -> str:
    """The part a paragraph of a turn's preamble belongs to; ``current`` is the part of the
    paragraph before it (an anchor's view runs over several paragraphs)."""
    if paragraph.startswith("*(Turn"):
        return "notice"
    if paragraph.startswith("**State Changes**"):
        return "changes"
    if paragraph.startswith(KNOWN_HEADING):
        return "known"
    if paragraph.startswith(("**Current Time:**", "**Fresh Identifiers:**")):
        return "time_ids"
    if paragraph.startswith("**Current World State"):
        return "anchor"
    return "anchor" if current == "anchor" else "records"


def turn_texts(content: str) -> dict[str, str]:
    """The parts of a user turn as sent: its preamble's sections, its action (with its
    heading) and the closing after the action."""
    parts: dict[str, str] = {}

    def put(part: str, text: str) -> None:
        parts[part] = parts.get(part, "") + text

    start = content.find("### Turn ")
    if start > 0:
        put("notice", content[:start])
    body = content[start:] if start >= 0 else content
    heading, _, rest = body.partition("\n")
    at = rest.find(_ACTION)
    end = rest.find("\n```", at + len(_ACTION)) + 4 if at >= 0 else len(rest)
    put("action", heading + "\n" + (rest[at:end] if at >= 0 else ""))
    put("closing", rest[end:])
    current = ""
    for paragraph in rest[: max(0, at)].split("\n\n"):
        current = _kind(paragraph, current)
        put(current, paragraph + "\n\n")
    return parts


def turn_parts(content: str) -> dict[str, int]:
    """Characters per part of a user turn as sent (see :func:`turn_texts`)."""
    return {part: len(text) for part, text in turn_texts(content).items()}


def factless_lines(records: str, answer: str) -> int:
    """Characters of the lines of ``records`` that hold none of the values of ``answer``
    (the model's answer, its observation in tags): the part of a turn's records that this
    call's answer does not draw on (an upper bound of what a smaller turn could leave out)."""
    response = answer.partition("<predicted_observation>")[2].partition("</predicted_")[0]
    values = {str(v) for _, v in facts(response.strip(), {})}
    values = {v for v in values if len(v) >= 2}
    return sum(len(line) + 1 for line in records.split("\n") if not any(v in line for v in values))


CLASSES = ("needed", "context", "notes")


def record_classes(records: str, messages: Sequence[dict[str, Any]], answer: str) -> Counter[str]:
    """Characters of the lines of ``records`` (the last turn's records part, as
    :func:`turn_texts` gives it) per class: ``needed`` (a record line holding a fact of
    ``answer`` that the rest of the prompt ``messages`` lacks), ``context`` (a record line
    holding none such) and ``notes`` (every other line)."""
    response = answer.partition("<predicted_observation>")[2].partition("</predicted_")[0]
    lines = records.split("\n")
    own = set(lines)
    last = "\n".join(line for line in messages[-1]["content"].split("\n") if line not in own)
    rest = "\n".join([*(m["content"] for m in messages[1:-1]), last])
    wanted = [(k, v) for k, v in facts(response.strip(), {}) if not present(k, v, rest)]
    counts: Counter[str] = Counter()
    for line in lines:
        if not line:
            continue
        if not line.startswith("- /"):
            counts["notes"] += len(line) + 1
        elif any(present(k, v, line) for k, v in wanted):
            counts["needed"] += len(line) + 1
        else:
            counts["context"] += len(line) + 1
    return counts


def repeated_records(messages: Sequence[dict[str, Any]]) -> int:
    """Characters of the last turn's record lines that an earlier message holds verbatim."""
    earlier = "\n".join(m["content"] for m in messages[1:-1])
    lines = _RECORD_LINE.findall(messages[-1]["content"])
    return sum(len(line) + 1 for line in lines if len(line) > 40 and line in earlier)


class ReuseParts(PrefixReuse):
    """:class:`PrefixReuse` that also splits what each later call recomputes into its parts."""

    def __init__(self) -> None:
        super().__init__()
        self._sent: dict[str, list[dict[str, Any]]] = {}
        self.chars: Counter[str] = Counter()
        self.events: Counter[str] = Counter()
        self.rewrites: list[int] = []

    def add(
        self, episode: str, messages: Sequence[dict[str, Any]], answer: str
    ) -> CallReuse | None:
        call = super().add(episode, messages, answer)
        before = self._sent.get(episode)
        self._sent[episode] = [dict(m) for m in messages]
        if call is None or before is None:
            return call
        self.events["later_calls"] += 1
        kept = len(before) - 1  # the previous call's own turn: kept up to its closing
        same = 0
        while same < kept and same < len(messages) and messages[same] == before[same]:
            same += 1
        head_kept = same == kept and before[kept]["content"].startswith(messages[kept]["content"])
        if not head_kept:
            rewritten = len(render_chat(messages[same:-1]))
            self.chars["rewritten"] += rewritten
            self.rewrites.append(rewritten // 3)
            self.events["fold" if same >= 2 else "drop"] += 1
            self.events["rewrite_recomputed"] += call.tokens - call.tokens_shared
        else:
            self.chars["observation"] += len(render_chat(messages[kept + 1 : -1]))
        texts = turn_texts(messages[-1]["content"])
        if texts.get("anchor"):
            self.events["anchored"] += 1
        self.chars.update({part: len(text) for part, text in texts.items()})
        self.chars["factless"] += factless_lines(texts.get("records", ""), answer)
        self.chars["repeated"] += repeated_records(messages)
        self.chars.update(record_classes(texts.get("records", ""), messages, answer))
        self.events["tokens"] += call.tokens
        self.events["recomputed"] += call.tokens - call.tokens_shared
        return call

    def merge(self, other: ReuseParts) -> None:
        """Adds ``other``'s counts (another world's calls) to these."""
        self.chars.update(other.chars)
        self.events.update(other.events)
        self.rewrites += other.rewrites

    def rows(self) -> dict[str, Any]:
        calls = max(1, self.events["later_calls"])
        per_call = {part: round(self.chars[part] / 3 / calls) for part in PARTS}
        tail = sum(self.chars[part] for part in PARTS) or 1
        return {
            "later_calls": self.events["later_calls"],
            "prompt_tokens_mean": round(self.events["tokens"] / calls),
            "recomputed_mean": round(self.events["recomputed"] / calls),
            "reuse_tokens": round(1 - self.events["recomputed"] / max(1, self.events["tokens"]), 3),
            "per_call_tokens": per_call,
            "share": {part: round(self.chars[part] / tail, 3) for part in PARTS},
            "records_repeated_per_call": round(self.chars["repeated"] / 3 / calls),
            "records_factless_per_call": round(self.chars["factless"] / 3 / calls),
            # What the reuse would be if a turn sent none of the record lines that hold no
            # value of the call's answer (an oracle's bound for a smaller turn budget).
            "reuse_without_factless": round(
                1
                - (self.events["recomputed"] - self.chars["factless"] / 3)
                / max(1, self.events["tokens"]),
                3,
            ),
            "records_per_call": {c: round(self.chars[c] / 3 / calls) for c in CLASSES},
            # The same oracle, by the answer's facts as recall counts them: no record line
            # holding none that the rest of the prompt lacks.
            "reuse_without_context": round(
                1
                - (self.events["recomputed"] - self.chars["context"] / 3)
                / max(1, self.events["tokens"]),
                3,
            ),
            "anchored_calls": self.events["anchored"],
            "folds": self.events["fold"],
            "drops": self.events["drop"],
            "rewritten_tokens_each": round(sum(self.rewrites) / max(1, len(self.rewrites))),
            "recomputed_after_rewrite": round(
                self.events["rewrite_recomputed"] / max(1, len(self.rewrites))
            ),
        }


def _line(name: str, row: dict[str, Any]) -> str:
    parts = ", ".join(f"{k} {v}" for k, v in row["per_call_tokens"].items() if v)
    return (
        f"{name}: {row['later_calls']} later calls, prompt {row['prompt_tokens_mean']:,} tokens, "
        f"recomputed {row['recomputed_mean']:,} (reuse {row['reuse_tokens']}); per call: {parts}; "
        f"record lines repeated from the history {row['records_repeated_per_call']}, holding "
        f"no value of the answer {row['records_factless_per_call']} (reuse without them "
        f"{row['reuse_without_factless']}); record lines needed / context / notes "
        f"{' / '.join(str(v) for v in row['records_per_call'].values())} (reuse without the "
        f"context lines {row['reuse_without_context']}); "
        f"re-anchored {row['anchored_calls']}, folds {row['folds']}, drops {row['drops']} "
        f"({row['rewritten_tokens_each']:,} tokens rewritten, "
        f"{row['recomputed_after_rewrite']:,} recomputed each)"
    )


async def _measure(world: World, calls: list[dict[str, Any]], settings: Settings) -> ReuseParts:
    parts = ReuseParts()
    await measure_figures(world, calls, settings, parts)
    return parts


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("world", type=Path, nargs="?")
    parser.add_argument("calls", type=Path, nargs="?")
    parser.add_argument("--zoo", action="store_true")
    parser.add_argument("--shapes")
    parser.add_argument("--size-mb", type=float, default=2.0)
    parser.add_argument("--episodes", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--state-budget", type=int, default=PromptSettings().state_budget)
    parser.add_argument("--history-budget", type=int, default=PromptSettings().history_budget)
    parser.add_argument("--turn-budget", type=int, default=PromptSettings().turn_budget)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv[1:])
    settings = Settings.of(
        state_budget=args.state_budget,
        history_budget=args.history_budget,
        turn_budget=args.turn_budget,
    )
    runs: list[tuple[str, World, list[dict[str, Any]]]] = []
    if args.zoo:
        for shape in chosen_shapes(args.shapes, False):
            spec, calls = generate(shape, args.size_mb, args.seed, args.episodes)
            runs.append((shape, World.model_validate(spec), calls))
    elif args.world is not None and args.calls is not None:
        runs.append((args.world.parent.name, load_world(args.world), read_calls(args.calls)))
    else:
        parser.error("give WORLD and CALLS, or --zoo")
    report = {}
    total = ReuseParts()
    for name, world, calls in runs:
        parts = anyio.run(_measure, world, calls, settings)
        total.merge(parts)
        report[name] = parts.rows()
        print(_line(name, report[name]), flush=True)
    if len(runs) > 1:
        report["ALL"] = total.rows()
        print(_line("ALL", report["ALL"]))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
