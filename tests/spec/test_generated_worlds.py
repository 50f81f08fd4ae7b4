"""The generated worlds load as world specs, and their recorded calls are what their tools do."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonpatch
import jsonschema
import pytest

from mcp_sim.authoring.world_yaml import world_yaml
from mcp_sim.spec.loading import load_world, parse_world
from mcp_sim.spec.world import World
from tests.world_generator import (
    DETAIL,
    SHAPES,
    ToolError,
    main,
    make_world,
    record_calls,
    state_patch,
)

SMALL_MB = 0.15


@pytest.fixture(scope="module", params=sorted(SHAPES))
def small(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    return request.param, make_world(request.param, SMALL_MB, seed=3)


def test_generated_world_loads_as_yaml_without_grounding_hints(
    small: tuple[str, dict[str, Any]],
) -> None:
    shape, spec = small
    world = parse_world(world_yaml(spec), f"<{shape}>")
    assert world.state == spec["state"]
    assert world.entities == {} and world.ids == {} and world.canon == []
    effects = {tool.effect for tool in world.tools}
    assert effects == {"read", "write"}
    assert all(tool.input_schema["type"] == "object" for tool in world.tools)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_world_reaches_its_size_and_validates(shape: str) -> None:
    spec = make_world(shape, 4.0, seed=1)
    size = len(json.dumps(spec["state"]))
    assert 4_000_000 <= size <= 4_200_000
    World.model_validate(spec)


def test_shapes_differ_in_how_collections_are_held() -> None:
    ferry = make_world("ferry", SMALL_MB, seed=1)["state"]
    clinic = make_world("clinic", SMALL_MB, seed=1)["state"]
    warehouse = make_world("warehouse", SMALL_MB, seed=1)["state"]
    # Keyed by id, the record does not repeat its key; a per-date map of sub-records.
    code, sailing = next(iter(ferry["sailings"].items()))
    assert code not in json.dumps(sailing)
    assert all(len(date) == 10 for date in sailing["dates"])
    # Arrays of records with id fields, linked by id (an integer id among them).
    appointment = clinic["appointments"][0]
    assert isinstance(appointment["clinician_id"], int)
    assert any(p["patient_id"] == appointment["patient_id"] for p in clinic["patients"])
    # Collections under sub-objects, per-variant maps.
    item = next(iter(warehouse["catalog"]["items"].values()))
    assert isinstance(item["variants"], dict) and isinstance(
        warehouse["partners"]["suppliers"], list
    )


def test_calls_validate_and_their_patches_reproduce_the_tools_state(
    small: tuple[str, dict[str, Any]],
) -> None:
    shape, spec = small
    kind = SHAPES[shape](DETAIL[shape])
    schemas = {tool["name"]: tool["input_schema"] for tool in spec["tools"]}
    calls = record_calls(shape, spec["state"], seed=3, episodes=12)
    replayed: dict[str, Any] = {}
    live: dict[str, Any] = {}
    for call in calls:
        if call.step == 0:
            replayed, live = copy.deepcopy(spec["state"]), copy.deepcopy(spec["state"])
        jsonschema.validate(call.arguments, schemas[call.tool])
        try:
            response = kind.run(live, call.tool, call.arguments)
        except ToolError as exc:
            response = f"Error: {exc}"
        assert response == call.response
        assert call.is_error == response.startswith("Error:")
        replayed = jsonpatch.apply_patch(replayed, call.patch)
        assert replayed == live, f"{call.tool} step {call.step}"


def test_episodes_carry_state_and_include_failures(small: tuple[str, dict[str, Any]]) -> None:
    shape, spec = small
    calls = record_calls(shape, spec["state"], seed=3, episodes=12)
    writes = {t["name"] for t in spec["tools"] if t["effect"] == "write"}
    assert len({c.episode for c in calls}) == 12
    assert any(c.is_error and c.tool not in writes for c in calls)
    assert any(c.patch for c in calls)
    assert all(c.patch == [] for c in calls if c.tool not in writes or c.is_error)
    # A read after a write in the same episode sees the write.
    first_write = next(c for c in calls if c.patch)
    later = [c for c in calls if c.episode == first_write.episode and c.step > first_write.step]
    assert later


def test_same_seed_same_world_and_calls_other_seed_other_world() -> None:
    a = make_world("warehouse", SMALL_MB, seed=5)
    b = make_world("warehouse", SMALL_MB, seed=5)
    c = make_world("warehouse", SMALL_MB, seed=6)
    assert json.dumps(a) == json.dumps(b) != json.dumps(c)
    calls_a = [x.to_json() for x in record_calls("warehouse", a["state"], 5, 4)]
    calls_b = [x.to_json() for x in record_calls("warehouse", b["state"], 5, 4)]
    assert calls_a == calls_b


def test_state_patch_is_a_patch_from_before_to_after() -> None:
    before: dict[str, Any] = {
        "a/b": {"x": 1, "y": [1, 2, 3], "z": {"k": "v"}},
        "list": [{"id": 1}, {"id": 2}],
        "gone": True,
    }
    after = copy.deepcopy(before)
    after["a/b"]["x"] = 2
    after["a/b"]["y"] = [3]
    after["a/b"]["z"]["new~key"] = None
    after["list"].append({"id": 3})
    after["list"][0]["id"] = 9
    del after["gone"]
    patch = state_patch(before, after)
    assert jsonpatch.apply_patch(before, patch) == after
    assert state_patch(before, copy.deepcopy(before)) == []


def test_command_line_writes_a_loadable_world_and_calls(tmp_path: Path) -> None:
    out = tmp_path / "gen"
    assert (
        main(["--shape", "clinic", "--size-mb", "0.1", "--seed", "2", "--episodes", "3", str(out)])
        == 0
    )
    world = load_world(out / "world.yaml")
    lines = [json.loads(line) for line in (out / "calls.jsonl").read_text().splitlines()]
    assert {line["episode"] for line in lines} == {0, 1, 2}
    assert set(lines[0]) == {
        "episode",
        "step",
        "tool",
        "arguments",
        "response",
        "is_error",
        "patch",
    }
    assert all(world.tool(line["tool"]) is not None for line in lines)


def test_detail_sets_the_sub_records_per_record() -> None:
    ferry = make_world("ferry", SMALL_MB, seed=1, detail=5)["state"]
    assert {len(s["dates"]) for s in ferry["sailings"].values()} == {5}
    calls = record_calls("ferry", ferry, seed=1, episodes=3, detail=5)
    assert any(c.tool == "search_departures" and c.response != "[]" for c in calls)
