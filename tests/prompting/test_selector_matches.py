"""A record holding a label selector leads to the records whose label maps contain it, on a
monitoring world with its own names (no Kubernetes spelling)."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.field_search import FieldSearch
from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.scalar_arguments import scalar_arguments, selector_requirements
from mcp_sim.prompting.selector_matches import is_selected, selectors
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World


def _state() -> dict[str, Any]:
    tiers = ["db", "web", "cache"]
    hosts = [
        {
            "hostId": f"H{i:03d}",
            "tenant": ["acme", "globex"][i % 2],
            "tags": {"tier": tiers[i % 3], "region": ["eu", "us"][(i // 6) % 2]},
        }
        for i in range(48)
    ]
    routes = [
        {
            "routeId": "R-7",
            "tenant": "acme",
            "targetSelector": {"tier": "db", "region": "eu"},
        },
        {
            "routeId": "R-8",
            "tenant": "acme",
            "spec": {"pick": {"matchTags": {"tier": "web"}}},
        },
    ]
    others = [
        {"routeId": f"R-{n}", "tenant": "acme", "targetSelector": {"tier": "cache"}}
        for n in range(1, 5)
    ]
    return {"hosts": hosts, "routes": routes + others}


def _world() -> World:
    return World.model_validate(
        {
            "world": "m",
            "title": "M",
            "description": "Alert routes and the hosts they page for.",
            "state": _state(),
            "tools": [
                {
                    "name": "route_targets",
                    "description": "The hosts a route pages for.",
                    "input_schema": {"type": "object"},
                }
            ],
        }
    )


def _picked(arguments: dict[str, Any]) -> dict[str, str]:
    world = _world()
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    grounding = ground(overlay, world.state, world.tools[0], arguments)
    return {p.pointer: p.reason for p in grounding.picks.values()}


def _expected(tier: str, region: str | None, tenant: str) -> set[str]:
    return {
        f"/hosts/{i}"
        for i, h in enumerate(_state()["hosts"])
        if h["tags"]["tier"] == tier
        and (region is None or h["tags"]["region"] == region)
        and h["tenant"] == tenant
    }


def test_selectors_and_label_maps_are_found_by_their_keys_words() -> None:
    routes = _state()["routes"]
    assert selectors(routes[0]) == [{"tier": "db", "region": "eu"}]
    assert selectors(routes[1]) == [{"tier": "web"}]
    assert is_selected({"tags": {"tier": "db", "region": "eu", "x": 1}}, {"tier": "db"})
    assert not is_selected({"tags": {"tier": "web"}}, {"tier": "db"})
    assert not is_selected({"tier": "db"}, {"tier": "db"})  # no label map: a field is no label


def test_a_found_records_selector_picks_the_records_it_selects_in_the_calls_scope() -> None:
    picked = _picked({"tenant": "acme", "route": "R-7"})
    selected = {p for p, why in picked.items() if why == "selected"}
    want = _expected("db", "eu", "acme")
    assert want and selected == want  # globex's db hosts in eu are out of the call's scope
    picked = _picked({"tenant": "acme", "route": "R-8"})
    assert {p for p, why in picked.items() if why == "selected"} == _expected("web", None, "acme")


def test_a_search_finding_many_records_follows_no_selector() -> None:
    picked = _picked({"tenant": "acme"})
    assert "/routes/5" in picked  # six routes found: a search, not a call about one route
    assert "selected" not in picked.values()


def test_a_selector_string_is_read_as_one_constraint_per_requirement() -> None:
    assert selector_requirements("tier=db, region!=us,env in (prod, qa),x notin (a)") == [
        ("tier", "db"),
        ("region_not", "us"),
        ("env", ["prod", "qa"]),
        ("x_not", ["a"]),
    ]
    assert selector_requirements("web") is None  # a plain value
    assert selector_requirements("tier=db,!legacy") is None  # presence: no equality says it
    assert list(scalar_arguments({"q": "tier=db"})) == [("q", "tier=db")]  # not a selector's name


def test_a_selector_argument_finds_the_records_whose_labels_meet_it() -> None:
    world = _world()
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    tool = world.tools[0].model_copy(update={"name": "find_hosts", "description": "Hosts."})
    searches = FieldSearch(overlay, world.state).search(
        tool, {"label_selector": "tier=web,region!=eu"}
    )
    assert searches
    hosts = _state()["hosts"]
    want = {
        f"/hosts/{i}"
        for i, h in enumerate(hosts)
        if h["tags"]["tier"] == "web" and h["tags"]["region"] != "eu"
    }
    assert set(searches[0].full) == want
    searches = FieldSearch(overlay, world.state).search(tool, {"tags": "tier in (db,cache)"})
    want = {f"/hosts/{i}" for i, h in enumerate(hosts) if h["tags"]["tier"] in ("db", "cache")}
    assert set(searches[0].full) == want
