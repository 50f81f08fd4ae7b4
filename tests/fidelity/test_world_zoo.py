"""The zoo of world shapes (``benchmarks/zoo``): each shape makes a world that loads, the same
one for the same seed, of the size asked for, with calls of every kind whose answers agree with
the state; and the grounding benchmark measures every shape."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from itertools import chain
from pathlib import Path
from typing import Any

import jsonpatch
import jsonschema
import pytest

from benchmarks.zoo import HELD_OUT, KINDS, SHAPES, generate, make_shape
from benchmarks.zoo.kit import clone
from benchmarks.zoo.measuring import chosen_shapes, measure_zoo, table
from benchmarks.zoo.random_shapes.world import RandomShape
from mcp_sim.fidelity.grounding_recall import state_values
from mcp_sim.runtime.state_shape import normalize
from mcp_sim.settings.combined import Settings
from mcp_sim.spec.loading import load_world

SMALL_MB = 0.1
RANDOM = [f"random-{seed}" for seed in range(20)]
"""Random shapes of development seeds, checked as the hand-written ones are (smaller, as
there are many; with 14 episodes, two of which open with an empty answer, so that both kinds
of empty answer show up whatever the seed)."""


def _sized(shape: str) -> tuple[float, int]:
    """The state size (MB) and episodes a shape is checked with."""
    return (SMALL_MB / 2, 14) if shape in RANDOM else (SMALL_MB, 10)


@pytest.fixture(scope="module", params=[*sorted(SHAPES), *RANDOM])
def small(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    shape = str(request.param)
    size, episodes = _sized(shape)
    spec, calls = generate(shape, size, seed=3, episodes=episodes)
    return shape, spec, calls


def _episodes(calls: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for call in calls:
        grouped.setdefault(call["episode"], []).append(call)
    return grouped


def _values(answer: Any) -> set[str]:
    """The scalar values an answer holds (not its keys), as the state's are looked up."""
    if isinstance(answer, dict):
        return _values(list(answer.values()))
    if isinstance(answer, list):
        return set().union(*(_values(item) for item in answer))
    label = normalize(answer)
    return set() if label is None else {label}


def _path_of_keys(value: str, held: set[str]) -> bool:
    """Whether ``value`` is a path of the state's keys (``/docs/a.txt`` in a tree keyed by
    name): such a path is where a record is, though no field holds it."""
    parts = value.split("/")
    return len(parts) > 2 and all(p in held for p in parts[1:])


def _days_of_timestamps(values: set[str]) -> set[str]:
    """The days of timestamps (``2025-11-10`` of ``2025-11-10T00:00:00Z``): an encoding that
    stores a date as a time (MongoDB's ``$date``, Firestore's ``timestampValue``) holds the
    date a tool answers with."""
    return {value[:10] for value in values if re.match(r"\d{4}-\d{2}-\d{2}[Tt]", value)}


def _iso_of_datetimes(values: set[str]) -> set[str]:
    """The ISO 8601 form (``2025-03-01t10:22:01``) of SQL datetimes (``2025-03-01
    10:22:01``): an API over an SQL database answers its datetimes so."""
    return {
        v[:10] + "t" + v[11:]
        for v in values
        if re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}", v)
    }


def _key_parts(state: Any) -> set[str]:
    """The parts of composite keys (``B10042`` of ``bike:B10042`` or ``BIKE#B10042``), and of
    composite key values (``OBA-2-07`` and ``2025-03-01`` of a DynamoDB sort key
    ``BOOKING#2025-03-01#50077``): such a key is where a record is, though no field holds its
    id."""
    found: set[str] = set()
    stack = [state]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            parts = (p for key in item for p in re.split("[:#]", key) if p != key)
            found.update(label for label in map(normalize, parts) if label is not None)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and "#" in item:
            found.update(label for label in map(normalize, item.split("#")) if label is not None)
    return found


def _items(answer: Any) -> Any:
    """A search's records: the answer itself, or the list it wraps (``{"results": [...]}``),
    maybe one object further down (Slack's ``{"ok": true, "messages": {"matches": [...]}}``)."""
    if isinstance(answer, dict):
        lists = [v for v in answer.values() if isinstance(v, list)]
        if lists:
            return lists[0]
        # The first object that holds a list (Elasticsearch's ``hits``, not its ``_shards``).
        inner = (_items(v) for v in answer.values() if isinstance(v, dict))
        return next((items for items in inner if isinstance(items, list)), None)
    return answer


SQL_VALUE = re.compile(r"'((?:[^']|'')*)'|(-?\d+(?:\.\d+)?)|([A-Za-z_]\w*)")


def _dump_values(state: Any) -> set[str]:
    """The values and names of an SQL dump's lines (``INSERT INTO t VALUES(7,'Pine',...);``,
    ``CREATE TABLE t (id INTEGER, ...);``): a database kept as ``sqlite3 .dump`` text holds
    its rows' values inside its lines."""
    found: set[str] = set()
    stack = [state]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and item.startswith(("INSERT INTO ", "CREATE TABLE ")):
            for text, number, name in SQL_VALUE.findall(item):
                label = normalize(text.replace("''", "'") if text else number or name)
                if label is not None:
                    found.add(label)
    return found


def _within_text(values: Any) -> set[str]:
    """The words and numbers of the text a write's values hold (a line of CSV or logfmt):
    records held as lines of text are written as lines."""
    text = json.dumps(values).replace('\\"', " ")
    found = {normalize(w) for w in re.findall(r"[\w.@+/-]+=*", text)}
    return {w for w in found if w is not None}


def _json(response: str) -> Any:
    """An answer as JSON, or ``None`` for one in plain text (a random shape's described
    record)."""
    try:
        return json.loads(response)
    except json.JSONDecodeError:
        return None


def _empty(answer: Any) -> bool:
    """An empty answer: ``null``, ``{}``, ``[]`` or a wrapped empty list."""
    return answer in (None, {}, []) or _items(answer) == []


def test_each_shape_makes_a_world_that_loads(
    small: tuple[str, dict[str, Any], list[dict[str, Any]]], tmp_path: Path
) -> None:
    _, spec, calls = small
    path = tmp_path / "world.yaml"
    path.write_text(json.dumps(spec), encoding="utf-8")
    world = load_world(path)
    assert world.state == spec["state"]
    assert {c["tool"] for c in calls} <= {t.name for t in world.tools}
    assert not world.entities, "the zoo's worlds carry no grounding hints"


def test_the_same_seed_makes_the_same_world_and_calls(
    small: tuple[str, dict[str, Any], list[dict[str, Any]]],
) -> None:
    shape, spec, calls = small
    size, episodes = _sized(shape)
    assert generate(shape, size, seed=3, episodes=episodes) == (spec, calls)
    other, _ = generate(shape, size, seed=4, episodes=1)
    assert other["state"] != spec["state"]


def test_every_kind_of_call_is_made_in_episodes_of_5_to_15_calls(
    small: tuple[str, dict[str, Any], list[dict[str, Any]]],
) -> None:
    _, _, calls = small
    assert set(Counter(c["kind"] for c in calls)) == set(KINDS)
    assert all(5 <= len(steps) <= 15 for steps in _episodes(calls).values())
    empties = [c["response"] for c in calls if c["kind"] == "empty"]
    # The note tool's answer (random shapes draw "", null or {}), and a search that nothing
    # meets (an empty list, bare or as an API wraps it) or a miss answering null.
    assert {"", "null", "{}"} & set(empties)
    listed = [json.loads(r) for r in empties if r]
    assert listed and all(_empty(answer) for answer in listed), listed
    assert not any(c["is_error"] for c in calls)


def _vocabulary(maker: Any) -> set[str]:
    """The values tools' output schemas list (``enum``) and the words of their descriptions:
    the service's own words for what the state holds (GitHub's contents API calls a blob a
    ``file``), which no state writes."""
    words = (re.findall(r"[A-Za-z]+", tool.description) for tool in maker.tools())
    found = {label for label in map(normalize, chain.from_iterable(words)) if label}
    stack = [tool.output for tool in maker.tools() if tool.output]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            enum = item.get("enum", [])
            found.update(label for label in map(normalize, enum) if label is not None)
            stack.extend(item.values())
    return found


def _held(shape: str, state: Any) -> set[str]:
    """The values ``state`` holds, read as its records are: a random shape that stores them
    encoded (typed values, XML-style text, an id inside a resource name, an event log) is also
    read through its stores' decoding, which ``test_world_zoo_random_encodings`` checks
    against the same seed drawn plain; so is one that holds records as lines of text, parsed
    as ``test_world_zoo_random_text_lines`` checks, or their fields as rows of a markup body
    (``test_world_zoo_random_markup``)."""
    maker = make_shape(shape)
    held = state_values(state) | _key_parts(state) | _vocabulary(maker) | _dump_values(state)
    stores = maker.design.stores.values() if isinstance(maker, RandomShape) else []
    if isinstance(maker, RandomShape) and (
        maker.encoding != "plain" or any(s.text or s.codec.name == "markup_body" for s in stores)
    ):
        held |= state_values([[r for _, r in store.items(state)] for store in stores])
    return held | _days_of_timestamps(held) | _iso_of_datetimes(held)


def test_answers_agree_with_the_state_as_the_episode_left_it(
    small: tuple[str, dict[str, Any], list[dict[str, Any]]],
) -> None:
    shape, spec, calls = small
    for steps in _episodes(calls).values():
        state = clone(spec["state"])
        held: set[str] | None = None  # the values of the state as it is now
        previous: dict[str, Any] = {}
        for call in steps:
            parsed = _json(call["response"])
            if call["kind"] in ("lookup", "nested_lookup", "read_after_write") and parsed:
                # Every value a lookup answers with is one the state holds (or the call's own).
                answer = _values(parsed) - _values(call["arguments"])
                held = _held(shape, state) if held is None else held
                unheld = {v for v in answer - held if not _path_of_keys(v, held)}
                assert not unheld, (call, unheld)
            if call["kind"] == "read_after_write":
                values = [op.get("value") for op in previous["patch"]]
                written = _values(values) | _dump_values(values)
                answered = _values(json.loads(call["response"]))
                assert written & answered or _within_text(values) & answered, call
            if call["kind"] == "write":
                assert call["patch"], call
                jsonpatch.apply_patch(state, call["patch"], in_place=True)
                held = None
            else:
                assert call["patch"] == [], call
            previous = call


def test_recorded_answers_re_derive_from_the_patched_state(
    small: tuple[str, dict[str, Any], list[dict[str, Any]]],
) -> None:
    """Each answer is what the tool's code gives on the fresh state with the episode's
    recorded patches applied: the patches are exactly the changes the later answers saw."""
    shape, spec, calls = small
    tools = {t.name: t for t in make_shape(shape).tools()}
    for steps in _episodes(calls).values():
        state = clone(spec["state"])
        for call in steps:
            answer, patch = tools[call["tool"]].run(state, call["arguments"])
            text = answer if isinstance(answer, str) else json.dumps(answer)
            assert (text, patch) == (call["response"], call["patch"]), call
            jsonpatch.apply_patch(state, call["patch"], in_place=True)


def test_answers_keep_to_the_output_schema_their_tool_declares(
    small: tuple[str, dict[str, Any], list[dict[str, Any]]],
) -> None:
    """A tool that declares an output schema answers within it: the simulator refuses an
    answer that breaks it, so a recorded answer outside it could never be simulated."""
    _, spec, calls = small
    schemas = {t["name"]: t["output_schema"] for t in spec["tools"] if "output_schema" in t}
    for call in calls:
        if call["tool"] in schemas and not call["is_error"]:
            jsonschema.validate(json.loads(call["response"]), schemas[call["tool"]])


def test_searches_answer_some_records_of_the_state(
    small: tuple[str, dict[str, Any], list[dict[str, Any]]],
) -> None:
    shape, spec, calls = small
    searches = [c for c in calls if c["kind"] == "search"]
    assert searches
    # What the state holds, or held after a write of the episode.
    patches = [c["patch"] for c in calls]
    held = _held(shape, spec["state"]) | _values(patches) | _dump_values(patches)
    for call in searches:
        items = _items(json.loads(call["response"]))
        assert items, call
        assert all(_path_of_keys(v, held) for v in _values(items) - held), call


@pytest.mark.parametrize("shape", [*sorted(SHAPES), *RANDOM[:4]])
def test_the_state_grows_with_the_size_asked_for(shape: str) -> None:
    maker = make_shape(shape)
    sizes = [
        len(json.dumps(maker.build(random.Random(f"{shape}/1"), int(mb * 1e6))))
        for mb in (0.1, 0.4)
    ]
    assert 0.1e6 <= sizes[0] <= 0.14e6, sizes
    assert 0.4e6 <= sizes[1] <= 0.48e6, sizes


def test_held_out_shapes_run_only_when_asked_for() -> None:
    developed = {
        "dynamo",
        "eventlog",
        "hotelxml",
        "fhir",
        "kube",
        "geojson",
        "stripe",
        "marc",
        "jcal",
        "tfstate",
        "jira",
        "slack",
        "gitstore",
        "prometheus",
        "gtfs",
        "wikidata",
        "gmail",
        "graphql",
        "elastic",
        "salesforce",
        "datasette",
        "osm",
        "notion",
        "hubspot",
        "s3",
        "spotify",
        "confluence",
        "sheets",
        "postgrest",
        "redis",
    }
    assert developed <= set(chosen_shapes(None, include_held_out=False))
    assert set(HELD_OUT) == {"woo", "neo4j", "cassandra", "ldap", "route53", "couchdb"}
    assert set(SHAPES) >= HELD_OUT
    assert not HELD_OUT & developed
    assert not HELD_OUT & set(chosen_shapes(None, include_held_out=False))
    assert set(chosen_shapes(None, include_held_out=True)) == set(SHAPES)
    # Named, a held-out shape still runs only when asked for.
    for name in HELD_OUT:
        assert chosen_shapes(f"{name},library", include_held_out=False) == ["library"]
        assert chosen_shapes(name, include_held_out=True) == [name]
    with pytest.raises(ValueError, match="unknown shapes"):
        chosen_shapes("library,nowhere", include_held_out=False)


async def test_the_benchmark_measures_every_shape_per_kind_of_call() -> None:
    shapes = sorted(SHAPES)
    report = await measure_zoo(shapes, 0.05, seed=5, episodes=2, settings=Settings())
    assert list(report["shapes"]) == shapes
    for shape in shapes:
        rows = report["shapes"][shape]["rows"]
        overall = rows["overall"]
        assert overall["calls"] == report["shapes"][shape]["info"]["calls"], shape
        assert overall["recall"] is not None and 0 <= overall["recall"] <= 1, shape
        assert overall["reuse"] is not None and 0 < overall["reuse"] <= 1, shape
        # A server serves whole blocks: fewer of a hybrid model's large ones than of 16 tokens.
        assert overall["reuse_hybrid_blocks"] <= overall["reuse_plain_blocks"], shape
        assert overall["reuse_plain_blocks"] <= overall["reuse_tokens"], shape
        assert {f"kind {k}" for k in KINDS} >= set(rows) - {"overall"}, shape
    assert report["over_bound"] == []
    assert report["all"]["overall"]["calls"] == sum(
        b["info"]["calls"] for b in report["shapes"].values()
    )
    lines = table(report)
    assert lines[0].startswith("shape\tgroup\tcalls\tunsimulated\trecall")
    assert "\treuse\treuse_tokens\t" in lines[0]  # the prefix reuse in characters and tokens
    assert any(line.startswith("ALL\tsearch\t") for line in lines)


async def test_writes_to_records_held_as_one_text_keep_every_prompt_within_its_bound() -> None:
    """random-35 keeps its records as an SQL dump in one string, which a write replaces whole;
    shown as committed, the next turn was three times the prompt's bound (90,096 tokens of
    29,389 at 0.3 MB)."""
    report = await measure_zoo(["random-35"], 0.3, seed=5, episodes=2, settings=Settings())
    info = report["shapes"]["random-35"]["info"]
    assert "kind write" in report["shapes"]["random-35"]["rows"]
    assert report["over_bound"] == [] and 0 < info["largest_prompt"] <= info["prompt_bound"]


def test_an_aggregate_over_a_compound_key_sums_every_warehouse() -> None:
    spec, calls = generate("inventory", SMALL_MB, seed=3, episodes=10)
    stock = spec["state"]["stock"]
    totals = [c for c in calls if c["tool"] == "stock_totals"]
    assert totals
    for call in totals:
        sku = call["arguments"]["sku"]
        # Transfers move stock between warehouses: the total on hand stays that of the state.
        levels = [by_sku[sku] for by_sku in stock.values() if sku in by_sku]
        answer = json.loads(call["response"])
        assert answer["on_hand"] == sum(level["on_hand"] for level in levels), call
        assert answer["warehouses"] >= len(levels), call
