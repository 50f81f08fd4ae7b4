"""Random zoo shapes (``benchmarks/zoo/random_shapes``): seeds draw designs of every kind,
the state is laid out as its design says, and the benchmark runs ranges of seeds, keeping
the held-out seeds back unless asked for. (That each seed's world loads, is deterministic and
answers consistently with its state is checked with the hand-written shapes, in
``test_world_zoo.py``.)"""

from __future__ import annotations

import random
from typing import Any

import pytest

from benchmarks.zoo import generate, is_held_out, make_shape
from benchmarks.zoo.kit import dig
from benchmarks.zoo.measuring import chosen_shapes, measure_zoo
from benchmarks.zoo.random_shapes import expand
from benchmarks.zoo.random_shapes.design import ID_STYLES, REFERENCES, Design, draw
from benchmarks.zoo.random_shapes.layout import CASINGS, CONTAINERS, Store
from benchmarks.zoo.random_shapes.vocabulary import DOMAINS
from benchmarks.zoo.random_shapes.world import RandomShape
from mcp_sim.settings.combined import Settings

DEVELOPMENT = range(100)


def test_development_seeds_draw_every_kind_of_design() -> None:
    designs = [draw(seed) for seed in DEVELOPMENT]
    containers = {s.container for d in designs for s in d.stores.values()}
    assert containers == set(CONTAINERS)
    assert {d.casing for d in designs} == set(CASINGS)
    assert {d.reference for d in designs} == set(REFERENCES)
    assert {style for d in designs for style in d.id_styles.values()} == set(ID_STYLES)
    assert {len(d.group) for d in designs} == {0, 1, 2}
    assert {d.calendar_list for d in designs} == {True, False}
    keyed = [s for d in designs for s in d.stores.values() if s.container.startswith("keyed")]
    assert {s.key_prefix[-1:] for s in keyed} == {"", ":", "#"}
    assert {d.domain for d in designs} == set(DOMAINS)
    assert draw(7) == draw(7)


def _box(state: dict[str, Any], store: Store) -> Any:
    box: Any = state
    for part in store.at:
        box = box[part]
    return box


def _raw_records(box: Any, store: Store) -> list[Any]:
    """The records as the state holds them, read without the layout's code."""
    if store.container == "array":
        assert isinstance(box, list)
        return box
    if store.container in ("keyed", "keyed_bare"):
        assert isinstance(box, dict)
        assert all(key.startswith(store.key_prefix) for key in box)
        return list(box.values())
    if store.container == "columnar":
        assert set(box) == {"columns", "rows"}
        assert box["columns"][0] == store.id_key
        assert all(len(row) == len(box["columns"]) for row in box["rows"])
        return [dict(zip(box["columns"], row, strict=True)) for row in box["rows"]]
    if store.container == "envelope":
        assert box["count"] == len(box["results"])
        return list(box["results"])
    assert box["pageInfo"]["endCursor"] == box["edges"][-1]["cursor"]
    return [edge["node"] for edge in box["edges"]]


def _check_references(design: Design, links: list[Any]) -> None:
    for role in ("primary", "secondary"):
        values = [link[design.reference_key(role)] for link in links]
        if design.reference == "plain":
            assert all(isinstance(v, int | str) for v in values)
        elif design.reference == "url":
            assert all(v.startswith(f"/{design.entity(role).plural}/") for v in values)
        elif design.reference == "typed":
            assert all(v["type"] == design.entity(role).plural for v in values)
        else:
            assert all(set(v) == {"id"} for v in values)


@pytest.mark.parametrize("seed", range(20))
def test_the_state_is_laid_out_as_the_design_says(seed: int) -> None:
    shape = make_shape(f"random-{seed}")
    assert isinstance(shape, RandomShape)
    design = shape.design
    state = shape.build(random.Random(seed), 30_000)
    for role, store in design.stores.items():
        records = _raw_records(_box(state, store), store)
        assert records, role
        has_id = store.container != "keyed_bare"
        assert all((store.id_key in r) == has_id for r in records), role
    primaries = _raw_records(_box(state, design.stores["primary"]), design.stores["primary"])
    for field in design.domain.primary.fields:
        # Every field is where the design puts it, under the name it spells.
        assert all(dig(r, ".".join(design.path(field))) is not None for r in primaries)
    calendar = design.spell(design.domain.calendar)
    assert all(isinstance(r[calendar], list) == design.calendar_list for r in primaries)
    _check_references(
        design, _raw_records(_box(state, design.stores["link"]), design.stores["link"])
    )


def test_arguments_keep_their_names_whatever_the_stored_spelling() -> None:
    """A tool's arguments are snake_case canonical names; the state spells fields its own way
    (another casing, or another name for the field), so the names differ."""
    seed = next(s for s in DEVELOPMENT if draw(s).casing == "camel")
    spec, _ = generate(f"random-{seed}", 0.03, seed=1, episodes=1)
    design = draw(seed)
    search = next(t for t in spec["tools"] if t["name"].startswith("search_"))
    arguments = set(search["input_schema"]["properties"])
    stored = {design.path(f)[-1] for f in design.domain.primary.fields}
    assert all(name == name.lower() for name in arguments)
    assert any("_" in name for name in arguments)
    assert not any("_" in name for name in stored), stored


def test_ranges_of_seeds_run_and_held_out_seeds_wait() -> None:
    assert expand("random:3-5") == ["random-3", "random-4", "random-5"]
    assert expand("random:8") == ["random-8"]
    assert expand("library") == ["library"]
    with pytest.raises(ValueError, match="empty seed range"):
        expand("random:5-3")
    assert chosen_shapes("library,random:0-1", include_held_out=False) == [
        "library",
        "random-0",
        "random-1",
    ]
    assert chosen_shapes("random:998-1001", include_held_out=False) == ["random-998", "random-999"]
    assert chosen_shapes("random:999-1000", include_held_out=True) == ["random-999", "random-1000"]
    assert is_held_out("random-1000") and not is_held_out("random-99")
    with pytest.raises(ValueError, match="unknown shapes"):
        chosen_shapes("random-x", include_held_out=True)


async def test_the_benchmark_measures_random_shapes() -> None:
    shapes = ["random-2", "random-1000"]
    report = await measure_zoo(shapes, 0.03, seed=5, episodes=2, settings=Settings())
    assert list(report["shapes"]) == shapes
    assert report["held_out"] == ["random-1000"]
    for shape in shapes:
        overall = report["shapes"][shape]["rows"]["overall"]
        assert overall["calls"] == report["shapes"][shape]["info"]["calls"] > 0, shape
