"""Joins of two hops: a call naming one record (a teacher) whose answer lists the records of
another collection (students) that no field of it refers to, reached through the records of
a middle collection (lessons) that refer to both."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import Grounding, ground
from mcp_sim.prompting.link_rows import LinkRows
from mcp_sim.prompting.records_section import records_section
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World

COUNTED = "The students a teacher taught, with how many lessons each."


def world_of(state: dict[str, Any], tool: str, description: str, effect: str = "read") -> World:
    spec = {
        "name": tool,
        "description": description,
        "input_schema": {"type": "object"},
        "effect": effect,
    }
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A hand-made state.",
            "state": state,
            "tools": [spec],
        }
    )


def school(*, typed: bool = False) -> dict[str, Any]:
    """Teachers (with a staff number), students, and lessons naming one of each: teacher
    ``t`` teaches the students ``s`` with ``s % 5 == t``, student ``s`` as often as ``s % 3 +
    1``; references plain or typed (``Teacher/T1``)."""
    trees = ["Oak", "Pine", "Elm", "Ash", "Yew"]
    names = ["Ada", "Bram", "Cleo", "Dara", "Emil", "Fenna", "Gus", "Hale"]
    teachers = [
        {"teacher_id": f"T{t}", "staff_no": f"S-{900 + t}", "surname": trees[t]} for t in range(5)
    ]
    students = {
        f"ST{s:03d}": {"given": names[s % 8], "family": f"{names[s // 8 % 8]}son", "year": s % 6}
        for s in range(60)
    }
    lessons = []
    for s in range(60):
        for n in range(s % 3 + 1):
            teacher, pupil = f"T{s % 5}", f"ST{s:03d}"
            lessons.append(
                {
                    "lesson_id": f"L{s}-{n}",
                    "teacher": f"Teacher/{teacher}" if typed else teacher,
                    "pupil": f"Student/{pupil}" if typed else pupil,
                    "held_on": f"2025-03-{n + 1:02d}",
                }
            )
    return {"teachers": teachers, "students": students, "lessons": lessons}


def grounded(world: World, arguments: dict[str, Any]) -> Grounding:
    index = StateIndex(world, world.state)
    tool = world.tools[0].name
    return ground(index.overlay_of(world.state), world.state, world.tool(tool), arguments)


def rows_of(world: World, grounding: Grounding) -> list[str]:
    picks = list(grounding.picks.values())
    text = records_section(world.state, picks, [], 12000, None, None, grounding.join)
    # A join's row names its record with no colon (a record picked on its own has one).
    rows = [line for line in text.splitlines() if line.startswith("- /students/")]
    return [row for row in rows if not row.split(" ", 2)[1].endswith(":")]


def test_the_records_reached_through_the_middle_collection_are_shown_each_once() -> None:
    for typed in (False, True):
        world = world_of(school(typed=typed), "teacher_students", COUNTED)
        # No lesson holds the staff number: the teacher it names is where the join starts.
        grounding = grounded(world, {"staff_no": "S-902"})
        assert isinstance(grounding.join, LinkRows), typed
        assert grounding.join.join.links.pointer == "/lessons"
        assert grounding.join.join.found_by == "a reference to /teachers/2"
        rows = rows_of(world, grounding)
        taught = [s for s in range(60) if s % 5 == 2]
        assert [r.split(" ", 2)[1] for r in rows] == [f"/students/ST{s:03d}" for s in taught]
        # Student 2 has three lessons, student 7 two, student 12 one.
        assert '{"lessons": 3}' in rows[0], rows[0]
        assert '{"lessons": 2}' in rows[1]
        assert '{"lessons": 1}' in rows[2]


def test_a_teacher_found_by_a_search_starts_the_join_too() -> None:
    world = world_of(school(), "teacher_students", COUNTED)
    grounding = grounded(world, {"surname": "Ash"})
    assert isinstance(grounding.join, LinkRows)
    assert grounding.join.join.found_by == "a reference to /teachers/3"
    assert len(rows_of(world, grounding)) == 12


def test_a_record_that_refers_to_the_named_collection_itself_is_no_two_hop_join() -> None:
    state = school()
    for teacher in state["teachers"]:
        teacher["mentor_student"] = "ST001"
    world = world_of(state, "teacher_students", "The students of a teacher.")
    grounding = grounded(world, {"staff_no": "S-902"})
    # The teacher's own reference is the join (one hop), not the lessons.
    assert isinstance(grounding.join, LinkRows)
    assert grounding.join.join.links.pointer == "/teachers"


def test_a_middle_collection_the_description_names_is_the_way_though_the_record_refers() -> None:
    state = school()
    for teacher in state["teachers"]:
        teacher["mentor_student"] = "ST001"
    # "with how many lessons each": the students reached through the lessons, not the
    # one the teacher mentors.
    world = world_of(state, "teacher_students", COUNTED)
    grounding = grounded(world, {"staff_no": "S-902"})
    assert isinstance(grounding.join, LinkRows)
    assert grounding.join.join.links.pointer == "/lessons"
    assert len(rows_of(world, grounding)) == 12


def test_a_record_named_by_an_id_held_deep_is_found_by_links_naming_it_by_path() -> None:
    state = school()
    # The teacher's id sits in a nested block; lessons name teachers by resource path.
    state["teachers"] = [
        {"surname": t["surname"], "fields": {"ID": t["teacher_id"], "room": "R1"}}
        for t in state["teachers"]
    ]
    for lesson in state["lessons"]:
        lesson["teacher"] = f"/teachers/{lesson['teacher']}"
    for student in state["students"].values():
        student["year"] += 2020  # no year equals a teacher's position
    world = world_of(state, "teacher_students", COUNTED)
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    grounding = ground(overlay, overlay.view, world.tools[0], {"code": "T2"})
    assert isinstance(grounding.join, LinkRows)
    assert grounding.join.join.links.pointer == "/lessons"
    assert grounding.join.join.found_by == "a reference to /teachers/2"
    assert len(grounding.join.join.target_pointers) == 12


def test_the_records_the_description_asks_for_are_the_targets_the_name_does_not_name() -> None:
    world = world_of(school(), "teacher_pupils", "The students a teacher taught, in order.")
    grounding = grounded(world, {"staff_no": "S-902"})
    assert isinstance(grounding.join, LinkRows)
    assert grounding.join.join.targets.pointer == "/students"
    assert len(grounding.join.join.target_pointers) == 12


def test_a_write_is_no_two_hop_join() -> None:
    world = world_of(school(), "teacher_students", COUNTED, effect="write")
    assert grounded(world, {"staff_no": "S-902"}).join is None


def test_a_name_kept_in_a_one_item_list_is_shown_with_the_record_reached() -> None:
    state = school()
    for student in state["students"].values():
        student["name"] = [{"family": student.pop("family"), "given": student.pop("given")}]
        student["contacts"] = [{"phone": "555-0100"}, {"phone": "555-0101"}, {"phone": "0"}]
    world = world_of(state, "teacher_students", COUNTED)
    rows = rows_of(world, grounded(world, {"staff_no": "S-902"}))
    assert '"name":[{"family":"Adason"' in rows[0], rows[0]
    # A longer list of entries is a large part, left out.
    assert all('"contacts"' not in row for row in rows)
