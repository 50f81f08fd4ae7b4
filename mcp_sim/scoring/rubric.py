"""Rubric checks: a statement about the episode that a judge model decides. The judge sees the
task, the rubric, the calls and the final state (both cut to a budget) and answers a
constrained ``{"passed": bool, "reason": str}``. Its results are marked ``judged``: unlike the
rule checks they depend on the model, and they cost a request each."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_sim.errors import ModelError
from mcp_sim.journal import JournalRecord
from mcp_sim.models.base import CompletionRequest, Sampling, WorldModel
from mcp_sim.prompting.answer_format import strip_code_fence
from mcp_sim.scoring.checks import CheckResult
from mcp_sim.spec.verify import Check

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"passed": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["passed", "reason"],
}

INSTRUCTIONS = (
    "You grade one episode of an agent using tools in a simulated environment. Read the task, "
    "the calls the agent made with the answers it got, and the environment's final state, then "
    "decide whether the statement under RUBRIC is true of this episode. Judge only from what is "
    'shown. Answer with JSON: {"passed": true or false, "reason": "one sentence"}.'
)


@dataclass(frozen=True)
class RubricJudge:
    """Decides rubric checks with a model (the world model, or a judge of its own)."""

    model: WorldModel
    sampling: Sampling = field(
        default_factory=lambda: Sampling(temperature=0.0, max_tokens=1024, thinking=False)
    )
    budget_chars: int = 24_000
    """How much of the calls and of the state the judge is shown, each."""

    async def decide(
        self, check: Check, task: str, records: Sequence[JournalRecord], final: Any
    ) -> CheckResult:
        assert check.rubric is not None
        request = CompletionRequest(
            messages=[
                {"role": "system", "content": INSTRUCTIONS},
                {"role": "user", "content": self._episode(check.rubric, task, records, final)},
            ],
            sampling=self.sampling,
            response_schema=VERDICT_SCHEMA,
            schema_name="verdict",
        )
        try:
            completion = await self.model.complete(request)
        except ModelError as exc:
            return _judged(check, None, f"not judged: the judge model failed ({exc})")
        verdict = _parse(completion.content)
        if verdict is None:
            return _judged(check, None, "not judged: the judge's answer was not a verdict")
        passed, reason = verdict
        return _judged(check, passed, f"judged: {reason}")

    def _episode(self, rubric: str, task: str, records: Sequence[JournalRecord], final: Any) -> str:
        calls = "\n".join(
            f"[{r.step}] {r.tool}({json.dumps(r.arguments, ensure_ascii=False)})"
            f"{' -> ERROR' if r.is_error else ' ->'} {r.observation}"
            for r in records
        )
        state = json.dumps(final, ensure_ascii=False, indent=1)
        return (
            f"TASK:\n{task or '(not stated)'}\n\nCALLS:\n{_cut(calls, self.budget_chars)}\n\n"
            f"FINAL STATE:\n{_cut(state, self.budget_chars)}\n\nRUBRIC:\n{rubric}"
        )


def _cut(text: str, budget: int) -> str:
    """The last ``budget`` characters of a transcript-like text: the end of an episode is
    what decides most rubrics."""
    if len(text) <= budget:
        return text or "(none)"
    return f"[... {len(text) - budget} characters left out ...]\n" + text[-budget:]


def _parse(content: str) -> tuple[bool, str] | None:
    text = strip_code_fence(content.strip())
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("passed"), bool):
        return None
    reason = data.get("reason")
    return data["passed"], reason.strip() if isinstance(reason, str) and reason.strip() else "-"


def _judged(check: Check, passed: bool | None, detail: str) -> CheckResult:
    return CheckResult(check.name, passed, check.weight, detail, judged=True)
