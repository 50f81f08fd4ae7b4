"""Fidelity evaluation (``mcp-sim eval``): how close the simulator comes to the real tool.

Each recorded session is replayed *teacher-forced*: the simulator predicts call n of the
session having seen the real observations of calls 1..n-1 (its own prediction is replaced by
the real one in the session's history as soon as it is made), so one wrong answer does not
spoil the rest. The prediction goes through the whole simulator pipeline (validation,
fixtures, the model, schemas, the cache), exactly as ``serve`` would answer.

Each prediction is compared with the recorded observation:

- **exact**: the two texts are identical;
- **canonical JSON**: both are JSON and equal after sorting keys (counted over the calls whose
  recorded observation is JSON; a structured result counts as its structured content);
- **schema-valid**: the prediction satisfies the tool's output schema (over successful
  predictions of tools that have one);
- **key/value F1**: overlap of the two JSON documents as multisets of (path, value) leaves,
  array positions folded into ``[]``, over the calls whose recorded observation is JSON;
- **error agreement**: both are errors or both are successes;
- optionally the **judge** (:mod:`mcp_sim.fidelity.judge`): five dimensions on the 0..100 scale.

Rates are fractions in [0, 1]; judge scores are on AgentWorldBench's 0..100 scale.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import jsonschema

from mcp_sim.fidelity.judge import DIMENSIONS, Judge, call_score, to_percent
from mcp_sim.journal import JournalRecord, answered_by_session
from mcp_sim.prompting.native import PastCall
from mcp_sim.runtime.session import Session, Turn
from mcp_sim.simulator.core import CallResult, Simulator, UnknownTool
from mcp_sim.spec.world import World

EVAL_SESSION_PREFIX = "eval/"
"""Live sessions of an evaluation are named after the recorded ones, with this prefix."""


# --- comparing two observations --------------------------------------------------------------


def json_value(text: str, structured: Any) -> tuple[bool, Any]:
    """The JSON document an observation stands for: its structured content when it has one,
    else its text parsed as JSON. ``(False, None)`` when it is not JSON."""
    if structured is not None:
        return True, structured
    try:
        return True, json.loads(text)
    except ValueError:
        return False, None


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def leaves(value: Any, path: str = "$") -> Counter[tuple[str, str]]:
    """A JSON document as a multiset of (path, leaf value) pairs; array positions are folded
    into ``[]`` so that the same items in another order still overlap."""
    found: Counter[tuple[str, str]] = Counter()
    if isinstance(value, dict) and value:
        for key, item in value.items():
            found += leaves(item, f"{path}.{key}")
    elif isinstance(value, list) and value:
        for item in value:
            found += leaves(item, f"{path}[]")
    else:
        found[(path, canonical(value))] += 1
    return found


def kv_f1(prediction: Any, reference: Any) -> float:
    """F1 of the (path, value) leaves of two JSON documents."""
    predicted, expected = leaves(prediction), leaves(reference)
    common = sum((predicted & expected).values())
    if common == 0:
        return 0.0
    precision = common / sum(predicted.values())
    recall = common / sum(expected.values())
    return 2 * precision * recall / (precision + recall)


def schema_valid(schema: dict[str, Any], value: Any) -> bool:
    validator_cls = jsonschema.validators.validator_for(
        schema, default=jsonschema.Draft202012Validator
    )
    return bool(validator_cls(schema).is_valid(value))


# --- one compared call -----------------------------------------------------------------------


@dataclass(frozen=True)
class CallScore:
    """One recorded call, the simulator's prediction of it, and how they compare."""

    session: str
    step: int
    tool: str
    arguments: dict[str, Any]
    reference: str
    reference_error: bool
    prediction: str
    prediction_error: bool
    prediction_source: str
    exact: bool
    json_match: bool | None
    """``None`` when the recorded observation is not JSON."""
    schema_valid: bool | None
    """``None`` when the tool has no output schema or the prediction is an error."""
    kv_f1: float | None
    """``None`` when the recorded observation is not JSON."""
    error_agreement: bool
    judge: dict[str, int] | None = None
    """The judge's raw 1..5 scores (0 = missing); ``None`` when not judged or unusable."""


def compare(
    world: World, reference: JournalRecord, prediction: CallResult | None, error_text: str = ""
) -> CallScore:
    """Score a prediction (``None`` with ``error_text`` for a call the simulator refused as a
    protocol error, e.g. a tool the world lacks) against the recorded call."""
    text = prediction.text if prediction else error_text
    structured = prediction.structured if prediction else None
    is_error = prediction.is_error if prediction else True
    ref_is_json, ref_value = json_value(reference.observation, reference.structured)
    pred_is_json, pred_value = json_value(text, structured)
    json_match = kv = None
    if ref_is_json:
        json_match = pred_is_json and canonical(pred_value) == canonical(ref_value)
        kv = kv_f1(pred_value, ref_value) if pred_is_json else 0.0
    tool = world.tool(reference.tool)
    valid = None
    if tool is not None and tool.output_schema is not None and not is_error:
        valid = pred_is_json and schema_valid(tool.output_schema, pred_value)
    return CallScore(
        session=reference.session,
        step=reference.step,
        tool=reference.tool,
        arguments=reference.arguments,
        reference=reference.observation,
        reference_error=reference.is_error,
        prediction=text,
        prediction_error=is_error,
        prediction_source=prediction.source if prediction else "protocol_error",
        exact=text == reference.observation,
        json_match=json_match,
        schema_valid=valid,
        kv_f1=kv,
        error_agreement=is_error == reference.is_error,
    )


# --- aggregates ------------------------------------------------------------------------------


def _mean(values: Iterable[float]) -> float | None:
    items = list(values)
    return sum(items) / len(items) if items else None


@dataclass(frozen=True)
class Summary:
    """The metrics of a group of calls (all of them, or one tool's)."""

    calls: int
    exact: float | None
    json_match: float | None
    json_calls: int
    schema_valid: float | None
    schema_calls: int
    kv_f1: float | None
    error_agreement: float | None
    judged: int = 0
    judge: dict[str, float | None] = field(default_factory=dict)
    """Per dimension and ``overall``, on the 0..100 scale; empty without a judge."""

    @classmethod
    def of(cls, scores: Sequence[CallScore], *, judged: bool = False) -> Summary:
        json_scores = [s for s in scores if s.json_match is not None]
        schema_scores = [s for s in scores if s.schema_valid is not None]
        judgements = [s.judge for s in scores if s.judge is not None]
        judge: dict[str, float | None] = {}
        if judged:
            for dimension in DIMENSIONS:
                judge[dimension] = _mean(
                    to_percent(j[dimension]) for j in judgements if j[dimension] > 0
                )
            judge["overall"] = _mean(to_percent(call_score(j)) for j in judgements)
        return cls(
            calls=len(scores),
            exact=_mean(float(s.exact) for s in scores),
            json_match=_mean(float(bool(s.json_match)) for s in json_scores),
            json_calls=len(json_scores),
            schema_valid=_mean(float(bool(s.schema_valid)) for s in schema_scores),
            schema_calls=len(schema_scores),
            kv_f1=_mean(s.kv_f1 for s in json_scores if s.kv_f1 is not None),
            error_agreement=_mean(float(s.error_agreement) for s in scores),
            judged=len(judgements),
            judge=judge,
        )


@dataclass(frozen=True)
class Report:
    """The outcome of an evaluation: every compared call and the summaries."""

    world: str
    journal: str
    model: str
    judge_model: str | None
    calls: list[CallScore]
    overall: Summary
    tools: dict[str, Summary]
    skipped: int = 0
    """Recorded calls left out: they have no observation to compare with (the recording's
    own request failed, ``model_error``)."""
    model_errors: int = 0
    """Predictions the world model failed to answer (they stay in ``calls``, scored as the
    error they are, so the rates of a run with an outage are low, not inflated)."""

    @classmethod
    def build(
        cls,
        world: World,
        journal: str,
        model: str,
        calls: list[CallScore],
        judge_model: str | None = None,
        *,
        skipped: int = 0,
    ) -> Report:
        judged = judge_model is not None
        by_tool: dict[str, list[CallScore]] = {}
        for score in calls:
            by_tool.setdefault(score.tool, []).append(score)
        return cls(
            world=world.world,
            journal=journal,
            model=model,
            judge_model=judge_model,
            calls=calls,
            overall=Summary.of(calls, judged=judged),
            tools={t: Summary.of(s, judged=judged) for t, s in sorted(by_tool.items())},
            skipped=skipped,
            model_errors=sum(s.prediction_source == "model_error" for s in calls),
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# --- the teacher-forced run ------------------------------------------------------------------


async def evaluate(
    simulator: Simulator,
    records: Iterable[JournalRecord],
    *,
    journal: str = "",
    judge: Judge | None = None,
    judge_model: str | None = None,
    progress: Callable[[str], None] = lambda message: None,
) -> Report:
    """Predict every recorded call teacher-forced and compare (see the module docstring)."""
    world = simulator.world
    records = list(records)
    sessions = answered_by_session(records)
    skipped = sum(r.source == "model_error" for r in records)
    total = sum(len(calls) for calls in sessions.values())
    scores: list[CallScore] = []
    models: set[str] = set()
    for recorded, calls in sessions.items():
        live = simulator.sessions.get(f"{EVAL_SESSION_PREFIX}{recorded}")
        history: list[PastCall] = []
        for reference in calls:
            result, refused = await _predict(simulator, live, reference)
            _teacher_force(live, reference, result)
            score = compare(world, reference, result, refused)
            if judge is not None:
                score = await _judged(judge, history, reference, score)
            scores.append(score)
            history.append(PastCall(reference.tool, reference.arguments, reference.observation))
            progress(
                f"evaluated {len(scores)}/{total}: {reference.tool} ({score.prediction_source})"
            )
        models.update(r.model for r in simulator.journal.records(live.id) if r.model)
    models_used = ", ".join(sorted(models))
    return Report.build(world, journal, models_used, scores, judge_model, skipped=skipped)


async def _predict(
    simulator: Simulator, live: Session, reference: JournalRecord
) -> tuple[CallResult | None, str]:
    """The simulator's answer to the recorded call, or ``None`` and why it refused the call."""
    try:
        return await simulator.call(live.id, reference.tool, reference.arguments), ""
    except UnknownTool as exc:
        return None, str(exc)


def _teacher_force(live: Session, reference: JournalRecord, result: CallResult | None) -> None:
    """From now on the session has seen the real observation (in the turn as the model was
    shown it, which later prompts repeat)."""
    if result is not None and result.source != "model_error":
        live.history[-1] = replace(
            live.history[-1],
            observation=reference.observation,
            is_error=reference.is_error,
        )
    else:
        live.history.append(
            Turn(
                reference.tool,
                reference.arguments,
                reference.observation,
                reference.is_error,
                live.version,
            )
        )


async def _judged(
    judge: Judge, history: Sequence[PastCall], reference: JournalRecord, score: CallScore
) -> CallScore:
    """``score`` with the judge's scores of the prediction against the recorded observation."""
    judgement = await judge.score(
        history, reference.tool, reference.arguments, score.prediction, reference.observation
    )
    return replace(score, judge=judgement)
