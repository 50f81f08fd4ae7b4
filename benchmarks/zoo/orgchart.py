"""``orgchart``: a tree several levels deep: a company of units, each with ``members`` and
child ``units``; people found anywhere in the tree by id, units by their code path
(``ENG/PLT/STO``), headcounts summed over a subtree, and moves between units."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from benchmarks.zoo.kit import (
    WORDS,
    Answer,
    Filter,
    Planned,
    Search,
    State,
    Tool,
    ToolError,
    day,
    fill,
    note_tool,
    person,
    pointer,
    prop,
    size_of,
    summary,
)
from benchmarks.zoo.shape import Shape

TITLES = ["Engineer", "Senior Engineer", "Analyst", "Manager", "Designer", "Director", "Clerk"]
SKILLS = ["python", "sql", "negotiation", "design", "budgeting", "rust", "welding", "legal"]


def _units(
    unit: dict[str, Any], at: list[object], codes: str
) -> Iterator[tuple[str, list[object], dict[str, Any]]]:
    path = f"{codes}/{unit['code']}" if codes else unit["code"]
    yield path, at, unit
    for i, child in enumerate(unit["units"]):
        yield from _units(child, [*at, "units", i], path)


def _all_units(state: State) -> Iterator[tuple[str, list[object], dict[str, Any]]]:
    for i, division in enumerate(state["company"]["divisions"]):
        yield from _units(division, ["company", "divisions", i], "")


def _people(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(p["emp_id"], p) for _, _, unit in _all_units(state) for p in unit["members"]]


class OrgChart(Shape):
    name = "orgchart"
    title = "Company directory"
    description = (
        "A company's directory: divisions split into units and sub-units, each with its "
        "members. JSON answers; errors are text starting with 'Error:'."
    )
    note = ("note_to_self", "note")

    def __init__(self) -> None:
        self.finder = Search(
            "find_people",
            "People by title, grade, skill, name start or start date.",
            _people,
            [
                Filter("title", "title", "eq", prop("string", "Job title.", enum=TITLES)),
                Filter("min_grade", "grade", "ge", prop("integer", "Lowest grade (1-12).")),
                Filter("max_grade", "grade", "le", prop("integer", "Highest grade.")),
                Filter("skill", "skills", "has", prop("string", "A skill.", enum=SKILLS)),
                Filter("name_starts", "name", "prefix", prop("string", "Start of the name.")),
                Filter("joined_after", "joined", "ge", prop("string", "YYYY-MM-DD.")),
            ],
            lambda _, p: {
                "emp_id": p["emp_id"],
                "name": p["name"],
                "title": p["title"],
                "grade": p["grade"],
            },
            limit=20,
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        state: State = {"company": {"name": "Northwind Group", "founded": 1987, "divisions": []}}
        counter = iter(range(10**6))

        def unit(depth: int) -> dict[str, Any]:
            word = rng.choice(WORDS)
            return {
                "code": f"{word[:3].upper()}{next(counter)}",
                "name": f"{word.title()} {['Division', 'Department', 'Team', 'Squad', 'Cell'][depth]}",
                "cost_centre": rng.randint(1000, 9999),
                "members": [],
                "units": [],
            }

        def grow() -> None:
            divisions = state["company"]["divisions"]
            if len(divisions) < 6 or rng.random() < 0.02:
                divisions.append(unit(0))
            parent = rng.choice(divisions)
            for depth in range(1, rng.randint(1, 4) + 1):
                if not parent["units"] or rng.random() < 0.25:
                    parent["units"].append(unit(depth))
                parent = rng.choice(parent["units"])
            for _ in range(rng.randint(1, 4)):
                first, last = person(rng)
                parent["members"].append(
                    {
                        "emp_id": f"E{next(counter) + 100000}",
                        "name": f"{first} {last}",
                        "title": rng.choice(TITLES),
                        "grade": rng.randint(1, 12),
                        "joined": day(rng, rng.randint(1995, 2025)),
                        "skills": rng.sample(SKILLS, rng.randint(0, 3)),
                        "desk": f"{rng.randint(1, 9)}.{rng.randint(100, 999)}",
                    }
                )

        fill(grow, lambda: size_of(state), target_bytes)
        return state

    def tools(self) -> list[Tool]:
        emp = {"employee_id": prop("string", "Employee id, e.g. E100231.")}
        path = {"unit_path": prop("string", "Unit codes from the division down, joined by '/'.")}
        return [
            Tool(
                "get_employee",
                "A person and the path of their unit.",
                emp,
                self._employee,
                ("employee_id",),
            ),
            Tool(
                "get_unit",
                "A unit: its fields, members and the codes of its sub-units.",
                path,
                self._unit,
                ("unit_path",),
            ),
            self.finder.tool(),
            Tool(
                "colleagues",
                "The other members of a person's unit.",
                emp,
                self._colleagues,
                ("employee_id",),
            ),
            Tool(
                "headcount",
                "People in a unit and all its sub-units, their titles and highest grade.",
                path,
                self._headcount,
                ("unit_path",),
            ),
            Tool(
                "move_employee",
                "Move a person to another unit.",
                emp | {"to_unit": prop("string", "Unit path.")},
                self._move,
                ("employee_id", "to_unit"),
                effect="write",
            ),
            note_tool("note_to_self", "note", "Keep a note (answers nothing)."),
        ]

    def _find(self, state: State, emp_id: str) -> tuple[str, list[object], dict[str, Any], int]:
        for path, at, unit in _all_units(state):
            for i, member in enumerate(unit["members"]):
                if member["emp_id"] == emp_id:
                    return path, at, unit, i
        raise ToolError("no such employee")

    def _employee(self, state: State, args: dict[str, Any]) -> Answer:
        _, _, unit, i = self._find(state, args["employee_id"])
        return {**unit["members"][i], "unit": {"code": unit["code"], "name": unit["name"]}}, []

    def _place(self, state: State, path: str) -> tuple[list[object], dict[str, Any]]:
        for candidate, at, unit in _all_units(state):
            if candidate == path:
                return at, unit
        raise ToolError("no such unit")

    def _unit(self, state: State, args: dict[str, Any]) -> Answer:
        unit = self._place(state, args["unit_path"])[1]
        return {
            **{k: v for k, v in unit.items() if k != "units"},
            "sub_units": [u["code"] for u in unit["units"]],
        }, []

    def _colleagues(self, state: State, args: dict[str, Any]) -> Answer:
        _, _, unit, i = self._find(state, args["employee_id"])
        return [m for j, m in enumerate(unit["members"]) if j != i], []

    def _headcount(self, state: State, args: dict[str, Any]) -> Answer:
        root = self._place(state, args["unit_path"])[1]
        people = [m for _, _, unit in _units(root, [], "") for m in unit["members"]]
        return {
            "unit_path": args["unit_path"],
            "headcount": len(people),
            "titles": summary("distinct", [p["title"] for p in people]),
            "top_grade": summary("max", [p["grade"] for p in people]),
        }, []

    def _move(self, state: State, args: dict[str, Any]) -> Answer:
        _, at, unit, i = self._find(state, args["employee_id"])
        target_at, target = self._place(state, args["to_unit"])
        if target is unit:
            raise ToolError("already in that unit")
        person_record = unit["members"][i]
        return {
            "employee_id": args["employee_id"],
            "unit_path": args["to_unit"],
            "unit_name": target["name"],
        }, [
            {"op": "remove", "path": pointer(*at, "members", i)},
            {"op": "add", "path": pointer(*target_at, "members", "-"), "value": person_record},
        ]

    def _unit_path(self, rng: random.Random, state: State) -> str:
        return rng.choice([path for path, _, _ in _all_units(state)])

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return Planned("lookup", "get_employee", {"employee_id": rng.choice(_people(state))[0]})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        return Planned("nested_lookup", "get_unit", {"unit_path": self._unit_path(rng, state)})

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "find_people", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        return Planned("join", "colleagues", {"employee_id": rng.choice(_people(state))[0]})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        return Planned("aggregate", "headcount", {"unit_path": self._unit_path(rng, state)})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        emp_id = rng.choice(_people(state))[0]
        current = self._find(state, emp_id)[0]
        target = rng.choice([p for p, _, _ in _all_units(state) if p != current])
        args = {"employee_id": emp_id, "to_unit": target}
        return Planned("write", "move_employee", args), Planned(
            "read_after_write", "get_employee", {"employee_id": emp_id}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return Planned("empty", "find_people", {"title": rng.choice(TITLES), "min_grade": 13})
