"""Perturbation rules, profiles and their seeded decisions: targeting, schedules,
reproducibility, rates, and the ``perturbations:`` section of world files. No I/O."""

from __future__ import annotations

import statistics
from typing import Any

import pytest

from mcp_sim.errors import SpecError
from mcp_sim.perturb.planner import (
    BUILTIN_PROFILES,
    Perturber,
    Plan,
    Profile,
    UnknownProfile,
    profiles_for,
)
from mcp_sim.runtime.session import Session
from mcp_sim.spec.loading import parse_world
from mcp_sim.spec.perturbations import parse_rules
from mcp_sim.spec.world import World, world_json_schema
from tests.conftest import BOOKSTORE

WORLD = parse_world(BOOKSTORE.read_text())

GET_B1 = ("get_book", "read", {"book_id": "b1"})
SEARCH = ("search_books", "read", {"query": "rain"})
ORDER = (
    "place_order",
    "write",
    {"book_id": "b1", "quantity": 1, "email": "a@b.c", "country": "PT"},
)


def perturber(*specs: dict[str, Any], seed: int = 0, clock: Any = None) -> Perturber:
    """A perturber whose one active profile, ``p``, has these rules."""
    profiles = {"p": Profile("p", parse_rules(list(specs)))}
    if clock is None:
        return Perturber(profiles, ["p"], seed=seed)
    return Perturber(profiles, ["p"], seed=seed, clock=clock)


def session(bookstore: World, name: str = "s") -> Session:
    return Session.start(name, bookstore)


def fired(
    p: Perturber, s: Session, call: tuple[str, str, dict[str, Any]], times: int
) -> list[bool]:
    return [p.plan(s, *call).fault is not None for _ in range(times)]


# --- targeting ------------------------------------------------------------------------------


def test_a_rule_targets_only_tools_its_globs_match(bookstore: World) -> None:
    p = perturber({"kind": "empty", "tools": ["search_*", "get_?ook"]})
    s = session(bookstore)
    assert p.plan(s, *SEARCH).fault is not None
    assert p.plan(s, *GET_B1).fault is not None
    assert p.plan(s, *ORDER).fault is None


def test_argument_conditions_match_strings_as_globs_and_other_values_by_equality(
    bookstore: World,
) -> None:
    p = perturber({"kind": "empty", "arguments": {"book_id": "b[12]", "quantity": 1}})
    s = session(bookstore)
    assert p.plan(s, *ORDER).fault is not None
    assert p.plan(s, "place_order", "write", {**ORDER[2], "quantity": 2}).fault is None
    assert p.plan(s, "place_order", "write", {**ORDER[2], "book_id": "b3"}).fault is None
    assert p.plan(s, *GET_B1).fault is None, "get_book has no quantity argument"


def test_a_star_argument_condition_means_the_argument_is_present(bookstore: World) -> None:
    p = perturber({"kind": "empty", "arguments": {"max_results": "*"}})
    s = session(bookstore)
    assert p.plan(s, *SEARCH).fault is None
    assert p.plan(s, "search_books", "read", {"query": "x", "max_results": "5"}).fault is not None


def test_effect_targets_only_tools_with_that_effect(bookstore: World) -> None:
    p = perturber({"kind": "stale", "effect": "read"})
    s = session(bookstore)
    assert p.plan(s, *GET_B1).fault is not None
    assert p.plan(s, *ORDER).fault is None


# --- schedules ------------------------------------------------------------------------------


def test_every_perturbs_every_nth_targeted_call(bookstore: World) -> None:
    p = perturber({"kind": "empty", "every": 3, "tools": ["get_book"]})
    s = session(bookstore)
    hits = []
    for _ in range(9):
        p.plan(s, *SEARCH)  # not targeted: does not count
        hits.append(p.plan(s, *GET_B1).fault is not None)
    assert hits == [False, False, True] * 3


def test_calls_ranges_pick_targeted_call_numbers(bookstore: World) -> None:
    p = perturber({"kind": "empty", "calls": "2-3,5,8-"})
    assert fired(p, session(bookstore), GET_B1, 10) == [
        False, True, True, False, True, False, False, True, True, True,
    ]  # fmt: skip


def test_a_single_call_number_may_be_given_as_an_integer(bookstore: World) -> None:
    p = perturber({"kind": "empty", "calls": 2})
    assert fired(p, session(bookstore), GET_B1, 3) == [False, True, False]


def test_a_sequence_fails_twice_then_succeeds(bookstore: World) -> None:
    p = perturber({"kind": "error", "sequence": [True, True, False]})
    assert fired(p, session(bookstore), GET_B1, 6) == [True, True, False, False, False, False]


def test_a_cycled_sequence_starts_again_after_its_end(bookstore: World) -> None:
    p = perturber({"kind": "error", "sequence": [True, True, False], "cycle": True})
    assert fired(p, session(bookstore), GET_B1, 7) == [True, True, False] * 2 + [True]


def test_an_arguments_counter_runs_a_sequence_per_distinct_call(bookstore: World) -> None:
    p = perturber({"kind": "error", "sequence": [True, False], "counter": "arguments"})
    s = session(bookstore)
    b2 = ("get_book", "read", {"book_id": "b2"})
    outcomes = [p.plan(s, *call).fault is not None for call in (GET_B1, b2, GET_B1, b2, SEARCH)]
    assert outcomes == [True, True, False, False, True]


def test_a_tool_counter_counts_each_tool_separately(bookstore: World) -> None:
    p = perturber({"kind": "error", "calls": "2", "counter": "tool"})
    s = session(bookstore)
    outcomes = [p.plan(s, *call).fault is not None for call in (GET_B1, SEARCH, GET_B1, SEARCH)]
    assert outcomes == [False, False, True, True]


def test_schedule_conditions_all_have_to_hold(bookstore: World) -> None:
    p = perturber({"kind": "empty", "every": 2, "calls": "1-6"})
    assert fired(p, session(bookstore), GET_B1, 10) == [False, True] * 3 + [False] * 4


def rate(world: World, seed: int, calls: int = 1000) -> float:
    p = perturber({"kind": "empty", "probability": 0.2}, seed=seed)
    return sum(fired(p, session(world, "episode"), GET_B1, calls)) / calls


def test_probability_0_2_perturbs_a_fifth_of_1000_calls(bookstore: World) -> None:
    assert rate(bookstore, seed=0) == pytest.approx(0.2, abs=0.03)


def test_probability_draws_are_independent_coin_flips_across_seeds(bookstore: World) -> None:
    # Each call is a Bernoulli(0.2) draw, so a 1,000-call rate has a standard deviation of
    # 0.0126 and falls within 0.2 +- 0.03 for about 98 % of seeds, not for every one.
    rates = [rate(bookstore, seed) for seed in range(100)]
    assert statistics.mean(rates) == pytest.approx(0.2, abs=0.004)
    assert statistics.pstdev(rates) == pytest.approx(0.0126, rel=0.25)
    assert sum(abs(r - 0.2) <= 0.03 for r in rates) >= 95


def test_probability_0_never_and_1_always_perturbs(bookstore: World) -> None:
    assert not any(
        fired(perturber({"kind": "empty", "probability": 0}), session(bookstore), GET_B1, 50)
    )
    assert all(fired(perturber({"kind": "empty"}), session(bookstore), GET_B1, 50))


# --- reproducibility ------------------------------------------------------------------------

MIXED = (
    {"kind": "latency", "uniform": [0.1, 2.0], "probability": 0.5},
    {"kind": "error", "tools": ["get_book"], "probability": 0.2},
    {"kind": "empty", "every": 3, "probability": 0.7},
    {"kind": "timeout", "sequence": [False, True], "cycle": True, "probability": 0.4},
)


def decisions(p: Perturber, s: Session, count: int) -> list[list[dict[str, Any]]]:
    calls = (GET_B1, SEARCH, ORDER)
    return [p.plan(s, *calls[i % 3]).records() for i in range(count)]


def test_the_same_seed_makes_the_same_decisions_over_1000_calls(bookstore: World) -> None:
    first = decisions(perturber(*MIXED, seed=42), session(bookstore), 1000)
    second = decisions(perturber(*MIXED, seed=42), session(bookstore), 1000)
    assert first == second
    assert sum(bool(d) for d in first) > 300, "the rules fire often enough to compare"


def test_other_seeds_and_other_sessions_make_other_decisions(bookstore: World) -> None:
    base = decisions(perturber(*MIXED, seed=42), session(bookstore, "a"), 200)
    assert decisions(perturber(*MIXED, seed=43), session(bookstore, "a"), 200) != base
    assert decisions(perturber(*MIXED, seed=42), session(bookstore, "b"), 200) != base


def test_session_seeds_are_a_stable_hash_of_the_seed_and_the_session_id() -> None:
    assert Perturber(seed=7).session_seed("episode-1") == Perturber(seed=7).session_seed(
        "episode-1"
    )
    # Pinned, so a change of derivation cannot silently change every recorded run.
    assert Perturber(seed=7).session_seed("episode-1") == 1010523045016564977


def test_decisions_do_not_depend_on_the_clock(bookstore: World) -> None:
    ticks = iter(range(10**6))
    early = decisions(perturber(*MIXED, seed=5, clock=lambda: 0.0), session(bookstore), 300)
    late = decisions(
        perturber(*MIXED, seed=5, clock=lambda: 1e9 + next(ticks)), session(bookstore), 300
    )
    assert early == late


def test_peek_tells_the_next_decision_without_counting_the_call(bookstore: World) -> None:
    p = perturber({"kind": "error", "probability": 0.5})
    s = session(bookstore)
    for _ in range(20):
        peeked = p.peek(s, *GET_B1)
        assert p.plan(s, *GET_B1) == peeked


# --- combining rules ------------------------------------------------------------------------


def test_latencies_add_up_and_the_first_fault_in_order_decides(bookstore: World) -> None:
    p = perturber(
        {"kind": "latency", "seconds": 0.5},
        {"kind": "empty", "calls": "2-"},
        {"kind": "latency", "seconds": 0.25},
        {"kind": "error"},
    )
    s = session(bookstore)
    first, second = p.plan(s, *GET_B1), p.plan(s, *GET_B1)
    assert first.delay == second.delay == 0.75
    assert first.fault is not None and first.fault.kind == "error"
    assert second.fault is not None and second.fault.kind == "empty"
    assert [r["kind"] for r in second.records()] == ["latency", "latency", "empty"]


def test_a_record_names_the_profile_rule_and_what_it_did(bookstore: World) -> None:
    p = perturber({"kind": "latency", "seconds": 0.5}, {"kind": "error", "message": "boom"})
    (latency, error) = p.plan(session(bookstore), *GET_B1).records()
    assert latency == {
        "profile": "p",
        "rule": 0,
        "kind": "latency",
        "by": "server",
        "call": 1,
        "spec": {"kind": "latency", "seconds": 0.5},
        "delay_s": 0.5,
    }
    assert error["rule"] == 1 and error["by"] == "model"
    assert error["spec"] == {"kind": "error", "message": "boom"}


def test_an_unperturbed_call_has_an_empty_plan(bookstore: World) -> None:
    assert (
        perturber({"kind": "error", "tools": ["cancel_order"]}).plan(session(bookstore), *GET_B1)
        == Plan()
    )


# --- latency distributions and rate limits --------------------------------------------------


def delays(rule: dict[str, Any], count: int = 2000) -> list[float]:
    p = perturber({"kind": "latency", **rule}, seed=3)
    s = Session.start("s", WORLD)
    return [p.plan(s, *GET_B1).delay for _ in range(count)]


def test_fixed_latency_is_exactly_its_seconds() -> None:
    assert set(delays({"seconds": 1.25}, 10)) == {1.25}


def test_uniform_latency_spreads_between_its_bounds() -> None:
    drawn = delays({"uniform": [0.5, 1.5]})
    assert min(drawn) >= 0.5 and max(drawn) <= 1.5
    assert statistics.mean(drawn) == pytest.approx(1.0, abs=0.03)


def test_lognormal_latency_has_its_median_and_a_long_tail() -> None:
    drawn = delays({"lognormal": {"median": 2.0, "sigma": 0.5}})
    assert statistics.median(drawn) == pytest.approx(2.0, rel=0.06)
    assert statistics.mean(drawn) > statistics.median(drawn)
    assert max(drawn) > 3 * 2.0


def test_rate_limit_rejects_calls_over_the_limit_until_the_window_has_room(
    bookstore: World,
) -> None:
    now = [100.0]
    p = perturber({"kind": "rate_limit", "limit": 2, "window": 10}, clock=lambda: now[0])
    s = session(bookstore)
    assert p.plan(s, *GET_B1).fault is None
    now[0] = 103.0
    assert p.plan(s, *GET_B1).fault is None
    rejected = p.plan(s, *GET_B1).fault
    assert rejected is not None and rejected.kind == "rate_limit"
    assert rejected.retry_after == 7
    now[0] = 110.5  # the first call has left the window
    assert p.plan(s, *GET_B1).fault is None
    assert p.plan(s, *GET_B1).fault is not None


# --- profiles -------------------------------------------------------------------------------


def test_the_builtin_profiles_are_there() -> None:
    assert {"flaky", "slow", "rate-limited", "paginated", "stale", "adversarial"} <= set(
        BUILTIN_PROFILES
    )


def test_unknown_profiles_are_rejected_with_the_known_names() -> None:
    with pytest.raises(UnknownProfile) as info:
        Perturber(active=["flaky", "flakey"])
    assert info.value.names == ["flakey"]
    assert "rate-limited" in str(info.value)


def test_profiles_are_given_comma_separated_or_as_a_list() -> None:
    assert Perturber(active="flaky, slow,flaky").active == ("flaky", "slow")
    assert Perturber(active=["stale", "slow"]).active == ("stale", "slow")


def test_select_changes_one_sessions_profiles(bookstore: World) -> None:
    p = Perturber(profiles_for({}), [], seed=1)
    chosen, other = session(bookstore, "chosen"), session(bookstore, "other")
    p.select(chosen, "paginated")
    assert p.plan(chosen, *SEARCH).fault is not None
    assert p.plan(other, *SEARCH).fault is None
    p.select(chosen, [])
    assert p.plan(chosen, *SEARCH).fault is None
    with pytest.raises(UnknownProfile):
        p.select(chosen, "nope")


# --- the world spec -------------------------------------------------------------------------

PROFILES = """\
perturbations:
  flaky:
    - {kind: error, message: "only ours", verbatim: true}
  mine:
    - {kind: latency, uniform: [0.1, 0.3], tools: ["get_*"], arguments: {book_id: "b*"}}
    - {kind: rate_limit, limit: 3, window: 60, tools: [search_books]}
"""


def test_world_profiles_load_and_replace_builtins_of_the_same_name() -> None:
    world = parse_world(BOOKSTORE.read_text() + PROFILES)
    profiles = profiles_for(world.perturbations)
    assert profiles["mine"].source == "world"
    assert [r.kind for r in profiles["mine"].rules] == ["latency", "rate_limit"]
    assert profiles["flaky"].source == "world"
    assert profiles["slow"] == BUILTIN_PROFILES["slow"]


def problems(extra: str) -> list[tuple[int, str, str]]:
    text = BOOKSTORE.read_text() + extra
    with pytest.raises(SpecError) as info:
        parse_world(text, "w.yaml")
    offset = text.count("\n", 0, text.index("perturbations:"))
    return [(p.line - offset, p.path, p.message) for p in info.value.problems]


def test_a_broken_rule_is_reported_at_its_line_and_key() -> None:
    found = problems(
        "perturbations:\n"
        "  bad:\n"
        "    - {kind: error, mesage: x}\n"
        "    - {kind: explode}\n"
        "    - {probability: 0.5}\n"
        "    - {kind: latency}\n"
        "    - {kind: empty, calls: 5-2}\n"
        "    - {kind: empty, cycle: true}\n"
    )
    assert [(line, path) for line, path, _ in found] == [
        (3, "perturbations.bad[0].mesage"),
        (4, "perturbations.bad[1].kind"),
        (5, "perturbations.bad[2]"),
        (6, "perturbations.bad[3]"),
        (7, "perturbations.bad[4].calls"),
        (8, "perturbations.bad[5]"),
    ]
    assert "rate_limit" in found[1][2], "an unknown kind lists the kinds"
    assert "kind" in found[2][2]


def test_targets_that_can_never_match_are_reported() -> None:
    found = problems(
        "perturbations:\n"
        "  typo:\n"
        "    - kind: empty\n"
        "      tools: [serch_books]\n"
        "    - kind: empty\n"
        "      tools: [get_book]\n"
        "      arguments: {bookid: b1}\n"
    )
    assert [(line, path) for line, path, _ in found] == [
        (4, "perturbations.typo[0].tools[0]"),
        (7, "perturbations.typo[1].arguments.bookid"),
    ]


def test_profile_names_cannot_hold_commas_or_spaces() -> None:
    ((_, path, _),) = problems("perturbations:\n  'a,b': [{kind: empty}]\n")
    assert path.startswith("perturbations")


def test_the_schema_describes_perturbation_profiles() -> None:
    schema = world_json_schema()
    assert "perturbations" in schema["properties"]
    kinds = {
        d["properties"]["kind"]["const"]
        for d in schema["$defs"].values()
        if "kind" in d.get("properties", {})
    }
    assert {"error", "latency", "timeout", "rate_limit", "injection", "malformed"} <= kinds
