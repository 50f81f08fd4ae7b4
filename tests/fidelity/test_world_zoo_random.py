"""Random zoo shapes (``benchmarks/zoo/random_shapes``): seeds draw designs and tool surfaces
of every kind, the state is laid out as its design says, each variant of each kind of call
answers what the state holds, and the benchmark runs ranges of seeds, keeping the held-out
seeds back unless asked for. (That each seed's world loads, is deterministic and answers
consistently with its state is also checked with the hand-written shapes, in
``test_world_zoo.py``.)"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from benchmarks.zoo import generate, is_held_out
from benchmarks.zoo.kit import dig
from benchmarks.zoo.measuring import chosen_shapes, measure_zoo
from benchmarks.zoo.random_shapes import expand
from benchmarks.zoo.random_shapes.design import ID_STYLES, REFERENCES, Design, draw
from benchmarks.zoo.random_shapes.layout import CASINGS, CONTAINERS, Store
from benchmarks.zoo.random_shapes.reshaping import Reshaping
from benchmarks.zoo.random_shapes.structures import TYPED_REFERENCES
from benchmarks.zoo.random_shapes.surface import (
    AGGREGATES,
    EMPTIES,
    JOINS,
    LOOKUPS,
    RANGES,
    STATS_OPS,
)
from benchmarks.zoo.random_shapes.vocabulary import DOMAINS
from benchmarks.zoo.random_shapes.world import RandomShape
from mcp_sim.settings.combined import Settings
from tests.fidelity.zoo_structures import check_typed_references, mixed_records

DEVELOPMENT = range(100)


def test_development_seeds_draw_every_kind_of_design() -> None:
    designs = [draw(seed) for seed in DEVELOPMENT]
    containers = {s.container for d in designs for s in d.stores.values()}
    assert containers == {*CONTAINERS, "events", "mixed", "parented", "relay", "text", "keys"}
    assert {d.casing for d in designs} == set(CASINGS)
    assert {d.reference for d in designs} == {*REFERENCES, *TYPED_REFERENCES}
    assert {style for d in designs for style in d.id_styles.values()} == {*ID_STYLES, "global"}
    assert {len(d.group) for d in designs} == {0, 1, 2}
    assert {d.calendar_list for d in designs} == {True, False}
    keyed = [s for d in designs for s in d.stores.values() if s.container.startswith("keyed")]
    assert {s.key_prefix[-1:] for s in keyed} == {"", ":", "#"}
    assert {d.domain for d in designs} == set(DOMAINS)
    assert len(DOMAINS) >= 12
    assert {len(d.stores["primary"].at) for d in designs} >= {1, 2, 3, 4, 5}
    assert draw(7) == draw(7)


def test_development_seeds_draw_every_kind_of_surface_and_layout() -> None:
    """Which calls a seed offers (and so what they mean), how its tools are named, paged and
    answered, and the layout's optional parts all vary over the development seeds."""
    designs = [draw(seed) for seed in DEVELOPMENT]
    surfaces = [d.surface for d in designs]
    assert {j for s in surfaces for j in s.joins} == set(JOINS)
    assert {a for s in surfaces for a in s.aggregates} == set(AGGREGATES)
    assert {op for s in surfaces for op in s.stats_ops} == set(STATS_OPS)
    assert {lookup for s in surfaces for lookup in s.lookups} == set(LOOKUPS)
    assert {e for s in surfaces for e in s.empties} == set(EMPTIES)
    assert {s.arg_case for s in surfaces} == {"snake", "camel"}
    assert {s.page for s in surfaces} == {"", "offset", "page"}
    assert {s.ranges for s in surfaces} == set(RANGES)
    assert {s.note_answer for s in surfaces} == {"", "null", "{}"}
    assert {len(s.joins) for s in surfaces} == {1, 2, 3}
    flags = ("record_wrap", "write_text", "exclusions", "synonyms", "schemas", "link_search")
    for flag in flags:
        assert {getattr(s, flag) for s in surfaces} == {True, False}, flag
    assert {d.sparse_null for d in designs if d.sparse} == {True, False}
    assert {d.code_key is None for d in designs} == {True, False}
    assert {d.roster_key is None for d in designs} == {True, False}
    assert {bool(d.lines) for d in designs} == {True, False}


def _box(state: dict[str, Any], store: Store) -> Any:
    box: Any = state
    for part in store.at if store.mixed is None else store.mixed.place:
        box = box[int(part)] if isinstance(box, list) else box[part]  # a workbook's sheet
    return box


def _raw_records(box: Any, store: Store) -> list[Any]:
    """The records as the state holds them, read without the layout's code."""
    if store.mixed is not None:
        return mixed_records(box, store.mixed)
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
        elif design.reference == "nested":
            assert all(set(v) == {"id"} for v in values)
        else:
            check_typed_references(design, role, values)


@pytest.mark.parametrize("seed", range(20))
def test_the_state_is_laid_out_as_the_design_says(seed: int) -> None:
    # Drawn plain and as laid out: how an encoding stores records is
    # test_world_zoo_random_encodings.py's, how envelopes, parents, property lists and deep
    # ids do is test_world_zoo_random_reshaping.py's, how text holds records is
    # test_world_zoo_random_text_lines.py's.
    formats = replace(draw(seed).formats, text=None)
    shape = RandomShape(draw(seed, "plain", Reshaping(), formats))
    design = shape.design
    state = shape.build(random.Random(seed), 100_000)
    for role, store in design.stores.items():
        records = _raw_records(_box(state, store), store)
        assert records, role
        has_id = store.container != "keyed_bare" and (store.mixed is None or store.mixed.whole)
        assert all((store.id_key in r) == has_id for r in records), role
    primaries = _raw_records(_box(state, design.stores["primary"]), design.stores["primary"])
    for field in design.domain.primary.fields:
        # Every field is where the design puts it, under the name it spells (a sparse one
        # may be missing: test_sparse_fields_are_missing_from_some_records).
        values = [dig(r, ".".join(design.path(field))) for r in primaries]
        assert field.name in design.sparse or all(v is not None for v in values), field
    if design.code_key is not None:
        codes = [r[design.code_key] for r in primaries]
        assert len(set(codes)) == len(codes)
    if design.roster_key is not None:
        parties = set(design.stores["secondary"].keys(state))
        listed = [str(i) for r in primaries for i in r[design.roster_key]]
        assert listed and set(listed) <= parties
        assert any(not r[design.roster_key] for r in primaries)
    calendar = design.spell(design.domain.calendar)
    assert all(isinstance(r[calendar], list) == design.calendar_list for r in primaries)
    links = _raw_records(_box(state, design.stores["link"]), design.stores["link"])
    _check_references(design, links)
    if design.lines:
        items = [i for link in links for i in link[design.lines[0]]]
        assert items and all(set(i) == set(design.lines[1:]) for i in items)


@pytest.mark.parametrize("null", [True, False])
def test_sparse_fields_are_missing_from_some_records(null: bool) -> None:
    seed = next(
        s
        for s in DEVELOPMENT
        if draw(s).sparse
        and draw(s).sparse_null == null
        # A workbook's sheets hold no absent value apart from an empty one (the twin's: a
        # seed's composite keys, which clear its workbook, are not drawn for a twin).
        and not ((text := draw(s, "plain", Reshaping()).formats.text) is not None and text.book)
    )
    shape = RandomShape(draw(seed, "plain", Reshaping()))
    design = shape.design
    state = shape.build(random.Random(seed), 200_000)
    store = design.stores["primary"]
    primaries = _raw_records(_box(state, store), store)
    for name in design.sparse:
        *group, key = design.path(next(f for f in design.domain.primary.fields if f.name == name))
        holders = [dig(r, ".".join(group)) if group else r for r in primaries]
        missing = [h for h in holders if h is None or h.get(key) is None]
        assert 0 < len(missing) < len(primaries), name
        # Absent, or present as null (a columnar row holds null for an absent field).
        nulls = [h for h in missing if h is not None and key in h]
        assert bool(nulls) == (null or store.container == "columnar"), name


def test_arguments_keep_their_names_whatever_the_stored_spelling() -> None:
    """A tool's arguments are spelt in the seed's argument casing (snake_case or camelCase);
    the state spells fields its own way (another casing, or another name for the field), so
    the names differ."""
    seed = next(
        s
        for s in DEVELOPMENT
        if draw(s).casing == "camel"
        and draw(s).surface.arg_case == "snake"
        # One argument holding a query string or object is named by one word.
        and draw(s).formats.objects is None
        and draw(s).formats.query is None
    )
    spec, _ = generate(f"random-{seed}", 0.03, seed=1, episodes=1)
    design = draw(seed)
    search = next(t for t in spec["tools"] if t["name"] == RandomShape(design).code.search.name)
    arguments = set(search["input_schema"]["properties"])
    stored = {design.path(f)[-1] for f in design.domain.primary.fields}
    assert all(name == name.lower() for name in arguments)
    assert any("_" in name for name in arguments)
    assert not any("_" in name for name in stored), stored
    camel = next(s for s in DEVELOPMENT if draw(s).surface.arg_case == "camel")
    spec, _ = generate(f"random-{camel}", 0.03, seed=1, episodes=1)
    named = [a for t in spec["tools"] for a in t["input_schema"]["properties"]]
    assert any(a != a.lower() for a in named) and not any("_" in a for a in named), named


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
