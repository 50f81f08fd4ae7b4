"""``university``: many-to-many links: students (keyed by id, no id field, a nested name) and
courses (an array, camelCase) linked by enrolments (an array of (student, course, term)
records with grades); joins both ways over the link table and statistics per course."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import (
    Answer,
    Filter,
    Planned,
    Search,
    State,
    Tool,
    ToolError,
    fill,
    note_tool,
    person,
    pointer,
    prop,
    size_of,
    summary,
    words,
)
from benchmarks.zoo.shape import Shape

DEPTS = {"CS": "Computer Science", "MA": "Mathematics", "HI": "History", "BI": "Biology"}
DEPTS |= {"EC": "Economics", "PH": "Philosophy", "LI": "Linguistics"}
TERMS = ["2024A", "2024B", "2025A", "2025B"]


def _courses(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(c["courseCode"], c) for c in state["courses"]]


class University(Shape):
    name = "university"
    title = "University registry"
    description = (
        "A university's registry: students, courses and enrolments (a student in a course in "
        "a term, with a score once graded). JSON answers; errors are text starting with "
        "'Error:'."
    )
    note = ("jot", "memo")

    def __init__(self) -> None:
        self.finder = Search(
            "search_courses",
            "Courses by department, credits, level, title start or lecturer.",
            _courses,
            [
                Filter(
                    "dept",
                    "department",
                    "eq",
                    prop("string", "Department code.", enum=sorted(DEPTS)),
                ),
                Filter("min_credits", "credits", "ge", prop("integer", "Fewest credits.")),
                Filter("max_credits", "credits", "le", prop("integer", "Most credits.")),
                Filter("level", "level", "eq", prop("integer", "Level (1-4).")),
                Filter("title_prefix", "title", "prefix", prop("string", "Start of the title.")),
                Filter("lecturer", "lecturer.surname", "eq", prop("string", "Lecturer's surname.")),
            ],
            lambda _, c: {k: c[k] for k in ("courseCode", "title", "credits", "department")},
            limit=20,
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        state: State = {"students": {}, "courses": [], "enrolments": []}

        def course() -> None:
            dept = rng.choice(sorted(DEPTS))
            level = rng.randint(1, 4)
            first, last = person(rng)
            state["courses"].append(
                {
                    "courseCode": f"{dept}{level}{len(state['courses']) + 10:03d}",
                    "title": f"{words(rng, 2).title()} in {DEPTS[dept]}",
                    "department": dept,
                    "level": level,
                    "credits": rng.choice([5, 7, 10, 15]),
                    "lecturer": {"givenName": first, "surname": last},
                    "capacity": rng.randint(20, 300),
                }
            )

        def student() -> None:
            sid = f"s{rng.randint(2019, 2025)}{len(state['students']) + 1000:05d}"
            first, last = person(rng)
            state["students"][sid] = {
                "name": {"given": first, "family": last},
                "programme": DEPTS[rng.choice(sorted(DEPTS))],
                "startYear": int(sid[1:5]),
                "email": f"{sid}@uni.example",
            }
            for c in rng.sample(state["courses"], rng.randint(2, 6)):
                graded = rng.random() < 0.7
                state["enrolments"].append(
                    {
                        "student": sid,
                        "course": c["courseCode"],
                        "term": rng.choice(TERMS),
                        "score": rng.randint(20, 100) if graded else None,
                    }
                )

        fill(course, lambda: size_of(state["courses"]), int(target_bytes * 0.1))
        fill(student, lambda: size_of(state), target_bytes)
        return state

    def tools(self) -> list[Tool]:
        sid = {"student_id": prop("string", "Student id, e.g. s202301234.")}
        code = {"course_code": prop("string", "Course code, e.g. CS2017.")}
        term = {"term": prop("string", "Term, e.g. 2025A.")}
        return [
            Tool("student_record", "A student.", sid, self._student, ("student_id",)),
            Tool("course_details", "A course.", code, self._course, ("course_code",)),
            Tool(
                "enrolment",
                "A student's enrolment in a course in a term.",
                sid | code | term,
                self._enrolment,
                ("student_id", "course_code", "term"),
            ),
            self.finder.tool(),
            Tool(
                "student_courses",
                "The courses a student is enrolled in, with term and score.",
                sid,
                self._student_courses,
                ("student_id",),
            ),
            Tool(
                "course_roster",
                "The students enrolled in a course.",
                code,
                self._roster,
                ("course_code",),
            ),
            Tool(
                "course_stats",
                "Enrolled count and mean, lowest and highest score of a course.",
                code,
                self._stats,
                ("course_code",),
            ),
            Tool(
                "enrol_student",
                "Enrol a student in a course for a term.",
                sid | code | term,
                self._enrol,
                ("student_id", "course_code", "term"),
                effect="write",
            ),
            note_tool("jot", "memo", "Jot a memo down (answers nothing)."),
        ]

    def _student(self, state: State, args: dict[str, Any]) -> Answer:
        found = state["students"].get(args["student_id"])
        if found is None:
            raise ToolError("student not found")
        return {"studentId": args["student_id"], **found}, []

    def _find_course(self, state: State, code: str) -> dict[str, Any]:
        for course in state["courses"]:
            if course["courseCode"] == code:
                found: dict[str, Any] = course
                return found
        raise ToolError("course not found")

    def _course(self, state: State, args: dict[str, Any]) -> Answer:
        return self._find_course(state, args["course_code"]), []

    def _enrolment(self, state: State, args: dict[str, Any]) -> Answer:
        for e in state["enrolments"]:
            if (e["student"], e["course"], e["term"]) == (
                args["student_id"],
                args["course_code"],
                args["term"],
            ):
                return e, []
        raise ToolError("not enrolled")

    def _student_courses(self, state: State, args: dict[str, Any]) -> Answer:
        self._student(state, args)
        return [
            {**self._find_course(state, e["course"]), "term": e["term"], "score": e["score"]}
            for e in state["enrolments"]
            if e["student"] == args["student_id"]
        ], []

    def _roster(self, state: State, args: dict[str, Any]) -> Answer:
        return [
            {
                "student": e["student"],
                **state["students"][e["student"]]["name"],
                "term": e["term"],
            }
            for e in state["enrolments"]
            if e["course"] == args["course_code"]
        ][:40], []

    def _stats(self, state: State, args: dict[str, Any]) -> Answer:
        scores = [e["score"] for e in state["enrolments"] if e["course"] == args["course_code"]]
        return {
            "course_code": args["course_code"],
            "enrolled": len(scores),
            "graded": summary("count", scores),
            "mean_score": summary("mean", scores),
            "lowest": summary("min", scores),
            "highest": summary("max", scores),
        }, []

    def _enrol(self, state: State, args: dict[str, Any]) -> Answer:
        self._student(state, args)
        self._find_course(state, args["course_code"])
        record = {
            "student": args["student_id"],
            "course": args["course_code"],
            "term": args["term"],
            "score": None,
        }
        return {"enrolled": True, **record}, [
            {"op": "add", "path": pointer("enrolments", "-"), "value": record}
        ]

    def _link(self, rng: random.Random, state: State) -> dict[str, Any]:
        chosen: dict[str, Any] = rng.choice(state["enrolments"])
        return chosen

    def lookup(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.6:
            return Planned(
                "lookup", "student_record", {"student_id": rng.choice(sorted(state["students"]))}
            )
        return Planned(
            "lookup", "course_details", {"course_code": rng.choice(state["courses"])["courseCode"]}
        )

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        e = self._link(rng, state)
        return Planned(
            "nested_lookup",
            "enrolment",
            {"student_id": e["student"], "course_code": e["course"], "term": e["term"]},
        )

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "search_courses", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        e = self._link(rng, state)
        if rng.random() < 0.5:
            return Planned("join", "student_courses", {"student_id": e["student"]})
        return Planned("join", "course_roster", {"course_code": e["course"]})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "aggregate", "course_stats", {"course_code": self._link(rng, state)["course"]}
        )

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        args = {
            "student_id": rng.choice(sorted(state["students"])),
            "course_code": rng.choice(state["courses"])["courseCode"],
            "term": "2026A",
        }
        read = {"student_id": args["student_id"]}
        return Planned("write", "enrol_student", args), Planned(
            "read_after_write", "student_courses", read
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "empty", "search_courses", {"dept": rng.choice(sorted(DEPTS)), "min_credits": 40}
        )
