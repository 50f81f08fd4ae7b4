"""A world's canon as the world model's Simulation Instruction, and the reference answers a call
is about.

The search world model's prompt has an optional **Simulation Instruction** holding a Target Query
and its Reference Answer, whose facts the simulated content must reflect. mcp-sim renders the
whole canon there, once, in the static system prompt (facts, entities with their attributes, and
every question with its reference answer), so it stays byte-identical across calls and the prefix
cache keeps it. A call that is *about* one of the questions (by content words, see
:mod:`mcp_sim.prompting.relevance`) also gets that Target Query and Reference Answer in its own turn, where
the model looks hardest, and its answer is checked for the answer's evidence.
"""

from __future__ import annotations

import json

from mcp_sim.prompting.relevance import contains_evidence, coverage, key_evidence, terms
from mcp_sim.spec.fiction import Attribute, ReferenceAnswer
from mcp_sim.spec.world import World

TARGET_COVERAGE = 0.5
"""A text is about a question when it has at least this share of the question's content words."""
MAX_TARGETS = 3


def _attribute(value: Attribute) -> str:
    if isinstance(value, list):
        return ", ".join(_attribute(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _heading(kind: str) -> str:
    return kind.replace("_", " ").capitalize()


def render_canon(world: World) -> str | None:
    """The Simulation Instruction section of the system prompt, or None for a world with no
    canon, entities or reference answers."""
    if not (world.canon or world.canon_entities or world.reference_answers):
        return None
    parts = [
        "# Simulation Instruction",
        "",
        "What is true in this world. Every observation must agree with it and with every "
        "earlier observation; what it does not settle may be invented, consistently.",
    ]
    if world.canon:
        parts += ["", "## Canon", "", "Facts that are always true in this world:", ""]
        parts += [f"- {fact}" for fact in world.canon]
    if world.canon_entities:
        parts += ["", "## Entities"]
        for kind, members in world.canon_entities.items():
            parts += ["", f"### {_heading(kind)}", ""]
            for entity in members:
                attributes = "; ".join(
                    f"{key.replace('_', ' ')}: {_attribute(value)}"
                    for key, value in entity.attributes().items()
                )
                parts.append(f"- **{entity.name}**" + (f": {attributes}" if attributes else ""))
    if world.reference_answers:
        parts += [
            "",
            "## Reference Answers",
            "",
            "Ground truth: results and pages about a Target Query MUST state its Reference "
            "Answer accurately.",
        ]
        for ref in world.reference_answers:
            parts += ["", f"- Target Query: {ref.question}", f"  Reference Answer: {ref.answer}"]
    return "\n".join(parts)


def targets(world: World, text: str) -> list[ReferenceAnswer]:
    """The reference answers ``text`` (a query, or a page's title and snippet) is about: among
    the questions it covers enough of, those that fit it best (a query for the bridge's toll is
    about the toll, not about every question that names the bridge)."""
    found = terms(text)
    scored: list[tuple[float, int, ReferenceAnswer]] = []
    for i, ref in enumerate(world.reference_answers):
        question = terms(ref.question)
        if coverage(found, question) >= TARGET_COVERAGE:
            scored.append((len(found & question) / len(found | question), i, ref))
    if not scored:
        return []
    best = max(fit for fit, _, _ in scored)
    return [ref for fit, _, ref in scored if fit == best][:MAX_TARGETS]


def target_section(refs: list[ReferenceAnswer], what: str) -> str:
    """The per-call Simulation Instruction for the reference answers a call is about; ``what``
    names what must reflect them ("the results", "the page")."""
    lines = ["**Simulation Instruction:**"]
    for ref in refs:
        lines += [f"Target Query: {ref.question}", f"Reference Answer: {ref.answer}"]
    lines.append(f"Facts from the Reference Answer MUST be accurately reflected in {what}.")
    return "\n".join(lines)


def evidence(ref: ReferenceAnswer) -> list[str]:
    """What a text must contain to support ``ref``: its declared evidence, else the answer's
    numbers and names."""
    return list(ref.evidence) or key_evidence(ref.answer)


def supports(text: str, ref: ReferenceAnswer) -> bool:
    return contains_evidence(text, evidence(ref))


def world_text(world: World) -> str:
    """Everything the world says in prose: where a site it mentions can be found."""
    entities = json.dumps(
        {k: [e.model_dump() for e in v] for k, v in world.canon_entities.items()},
        ensure_ascii=False,
    )
    return "\n".join([world.description, *world.canon, entities])
