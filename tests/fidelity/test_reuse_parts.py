"""The split of what a later call recomputes into its parts (benchmarks/reuse_parts.py)."""

from __future__ import annotations

from benchmarks.reuse_parts import (
    ReuseParts,
    factless_lines,
    record_classes,
    turn_parts,
    turn_texts,
)

ACTION = '**Action:**\n```json\n{"name": "get", "arguments": {}}\n```'
CLOSING = "\n\nPredict the response within <predicted_observation></predicted_observation> tags."
CHANGES = '**State Changes** (committed):\n```json\n[\n {"op": "add"}\n]\n```'
RECORDS = '**Records this call needs**:\n- /users/ana: {"name":"Ana"}\n- /users/bo: {"name":"Bo"}'
KNOWN = "**Also needed, shown whole in an earlier turn and unchanged since:** /users/cy"
TIME = "**Current Time:** 2026-01-01T00:00:00Z"


def turn(number: int, *sections: str) -> str:
    return "\n\n".join([f"### Turn {number}", *sections, ACTION]).replace("\n\n", "\n", 1)


def test_a_turn_is_split_into_its_sections_action_and_closing() -> None:
    content = turn(3, CHANGES, RECORDS, KNOWN, TIME) + CLOSING
    texts = turn_texts(content)
    assert texts["changes"].startswith("**State Changes**")
    assert texts["records"].startswith("**Records") and "/users/bo" in texts["records"]
    assert texts["known"].startswith("**Also needed")
    assert texts["time_ids"].startswith("**Current Time:**")
    assert texts["action"].startswith("### Turn 3\n") and texts["action"].endswith("```")
    assert texts["closing"] == CLOSING
    assert sum(turn_parts(content).values()) >= len(content) - 8


def test_record_lines_holding_no_value_of_the_answer_are_counted() -> None:
    answer = '<predicted_observation>\n{"name": "Ana"}\n</predicted_observation>'
    factless = factless_lines(RECORDS, answer)
    assert factless == len("**Records this call needs**:\n") + len('- /users/bo: {"name":"Bo"}\n')


def test_an_appended_call_recomputes_its_observation_and_turn_and_a_fold_rewrites() -> None:
    system = {"role": "system", "content": "world"}
    first = [system, {"role": "user", "content": turn(1, RECORDS) + CLOSING}]
    second = [
        system,
        {"role": "user", "content": turn(1, RECORDS)},
        {"role": "assistant", "content": "**Environment Observation:**\nok"},
        {"role": "user", "content": turn(2, CHANGES, KNOWN) + CLOSING},
    ]
    # A compaction that kept the anchor and folded turn 2 away.
    third = [
        system,
        {"role": "user", "content": turn(1, RECORDS)},
        {"role": "assistant", "content": "**Environment Observation:**\nok"},
        {"role": "user", "content": "*(Turn 2 is not shown.)*\n\n" + turn(3, CHANGES) + CLOSING},
    ]
    parts = ReuseParts()
    answer = "<predicted_observation>ok</predicted_observation>"
    for messages in (first, second, third):
        parts.add("e", messages, answer)
    row = parts.rows()
    assert row["later_calls"] == 2 and row["folds"] == 1 and row["drops"] == 0
    assert row["per_call_tokens"]["observation"] > 0
    assert row["per_call_tokens"]["known"] > 0 and row["per_call_tokens"]["notice"] > 0
    assert row["per_call_tokens"]["closing"] == round(2 * len(CLOSING) / 3 / 2)


def test_record_lines_are_split_by_the_answers_facts_the_rest_of_the_prompt_lacks() -> None:
    # Ana's name is shown only in this turn's records: needed. Bo's line holds no fact of the
    # answer: context. Cy's age is in the answer, but an earlier turn shows it already.
    records = (
        "**Records this call needs**:\n- Search of /users (age = 7): 2 records meet it.\n"
        '- /users/ana: {"name":"Ana"}\n- /users/bo: {"name":"Bo"}\n- /users/cy: {"age":7}'
    )
    messages = [
        {"role": "system", "content": "world"},
        {"role": "user", "content": turn(1, '**Records**:\n- /users/cy: {"age": 7}')},
        {"role": "assistant", "content": "**Environment Observation:**\nok"},
        {"role": "user", "content": turn(2, records) + CLOSING},
    ]
    answer = '<predicted_observation>\n{"name": "Ana", "age": 7}\n</predicted_observation>'
    counts = record_classes(records, messages, answer)
    assert counts["needed"] == len('- /users/ana: {"name":"Ana"}\n')
    assert counts["context"] == len('- /users/bo: {"name":"Bo"}\n- /users/cy: {"age":7}\n')
    assert counts["notes"] == len(records.split("\n- /")[0]) + 1
